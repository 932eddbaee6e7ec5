/* What a failure section needs besides the database: the program's source
 * and doc from its recorded path (shown only when the file's digest is the
 * one the run recorded), and the commands that reproduce the result and
 * print the generated kernel. */
#ifndef VC_RESULTS_SOURCE_H
#define VC_RESULTS_SOURCE_H

#include <stdbool.h>

#include "harness/base/strbuf.h"
#include "results/store/load.h"

typedef struct vc_prog_source {
  char *text;      /* the file's bytes, or NULL (free()) */
  char doc[2048];  /* its (doc "...") unescaped, or "" */
  char note[1200]; /* when text is NULL: why ("... does not exist here") */
} vc_prog_source;

void vc_prog_source_read(const vc_prog_data *p, vc_prog_source *out);
void vc_prog_source_free(vc_prog_source *s);

/* One line a vendor can paste: the run command for this program and mode
   on the run's backend, device and device options, no expectations. */
void vc_repro_command(const vc_run_data *r, const vc_prog_data *p, const char *mode,
                      vc_strbuf *out);
/* The emit command for the kernel this mode generates. */
void vc_emit_command(const vc_run_data *r, const vc_prog_data *p, const char *mode,
                     vc_strbuf *out);

#endif
