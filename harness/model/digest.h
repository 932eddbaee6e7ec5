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

#endif
