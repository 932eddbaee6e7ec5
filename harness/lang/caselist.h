/* Caselists (deqp-runner's convention): a file naming the programs to run,
 * one program name or glob a line, `#` starting a comment. --caselist FILE
 * reads one; its globs join --filter's, and the runner selects the programs
 * that match any of them (by declared name, file name or relative path). */
#ifndef VC_CASELIST_H
#define VC_CASELIST_H

#include <stdbool.h>
#include <stdint.h>

#include "harness/base/error.h"

typedef struct vc_caselist {
  char **globs;   /* malloc'ed, each malloc'ed */
  char **origins; /* "FILE:LINE" of each glob, malloc'ed the same way */
  uint32_t n, cap;
} vc_caselist;

/* Appends the globs of the file at path to cl (so that --caselist repeats).
   A line that is not one name or glob (or that starts with `--`, an option
   pasted in) fails with "FILE:LINE: ..." and
   VC_ERR_USAGE; an unreadable file with VC_ERR_IO. On failure cl keeps
   what it held before. */
int vc_caselist_read(const char *path, vc_caselist *cl, vc_error *err);
/* Does name (or the program's path relative to its PATH) match a glob? */
bool vc_caselist_match(const vc_caselist *cl, const char *name, const char *relpath);
/* The run's selection globs: filters (--filter's, n of them) then cl's,
   in a malloc'ed array (*out; the strings stay cl's and the caller's), and
   where each comes from in another (*origins: "--filter", or cl's
   "FILE:LINE"), so that a glob that selects nothing can be named.
   A caselist of no entry selects nothing: VC_ERR_USAGE. */
int vc_caselist_with_filters(const vc_caselist *cl, const char *const *filters, uint32_t n,
                             const char ***out, const char ***origins, vc_error *err);
void vc_caselist_free(vc_caselist *cl);

#endif
