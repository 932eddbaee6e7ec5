/* SHA256SUMS of a package folder, in sha256sum's format ("HEX  PATH"): every
 * file but the list itself, by path. */
#ifndef VC_PACKAGE_SUMS_H
#define VC_PACKAGE_SUMS_H

#include <stdint.h>

#include "harness/base/error.h"
#include "harness/base/strbuf.h"

#define VC_SUMS_FILE "SHA256SUMS"

/* The regular files under dir, relative to it, sorted; anything else there
   (a link, a device) is an error naming it. The list is malloc'ed. */
typedef struct vc_file_list {
  char **paths;
  uint32_t n;
} vc_file_list;
int vc_files_under(const char *dir, vc_file_list *out, vc_error *err);
void vc_file_list_free(vc_file_list *l);

/* Writes dir/SHA256SUMS. */
int vc_sums_write(const char *dir, vc_error *err);

/* One line of a check: what is wrong with a file. */
typedef void (*vc_sums_finding)(void *ctx, const char *path, const char *what, int invalid);
/* Checks dir against its SHA256SUMS: a listed file missing or with another
   hash, a malformed line (invalid), a file not listed (not invalid). Returns
   the number of invalid findings, or -1 when the list cannot be read. */
int vc_sums_check(const char *dir, vc_sums_finding found, void *ctx);

#endif
