/* The output digest (docs/format.md): SHA-256 over every user output buffer
 * in declaration order, each as name, a zero byte, its byte length (8 bytes
 * little-endian) and its bytes. Golden digests in the corpus use it. */
#ifndef VC_DIGEST_H
#define VC_DIGEST_H

#include <stdint.h>

#include "harness/model/program.h"

/* buffers[i] holds user buffer i of p; read-only buffers are skipped (and
   may be NULL). */
void vc_output_digest(const vc_program *p, const uint32_t *const *buffers, char hex[65]);
/* SHA-256 of a file's bytes or of a string, as hex. */
int vc_digest_file(const char *path, char hex[65]);
void vc_digest_string(const char *s, char hex[65]);

/* The selection digest (runs.selection_digest): SHA-256 over the programs
   sorted by name, each as name, a zero byte and its source digest (64 hex),
   so that a shard set can be checked against the selection it was cut
   from. Sorts items by name. */
typedef struct vc_named_digest {
  const char *name;
  const char *digest;
} vc_named_digest;
void vc_selection_digest(vc_named_digest *items, uint32_t n, char hex[65]);

/* The build identity (runs.build_id): SHA-256 of the running binary
   (/proc/self/exe), computed once; "unknown" where it cannot be read. */
const char *vc_build_id(void);

#endif
