/* Whole files into and out of a strbuf: programs, sources, reports. */
#ifndef VC_FILE_H
#define VC_FILE_H

#include "harness/base/error.h"
#include "harness/base/strbuf.h"

/* Appends the file's bytes to sb, which holds a NUL-terminated string after
   it even for an empty file. VC_ERR_IO naming the file when it cannot be
   opened or read (what was read before a read error stays appended). */
int vc_file_read(const char *path, vc_strbuf *sb, vc_error *err);
/* The file's bytes in a malloc'ed string (free() it); NULL when it cannot be
   opened or read. */
char *vc_file_read_all(const char *path);
/* Writes sb's bytes to path, replacing it; VC_ERR_IO naming it on failure. */
int vc_file_write(const char *path, const vc_strbuf *sb, vc_error *err);
/* Creates dir and its parents where missing (mkdir -p); VC_ERR_IO naming
   the one that cannot be made. */
int vc_make_dirs(const char *dir, vc_error *err);
/* A template for mkstemp or mkdtemp: "$TMPDIR/PREFIX-XXXXXX", /tmp where
   TMPDIR is unset or empty. */
void vc_temp_template(char *path, size_t n, const char *prefix);

#endif
