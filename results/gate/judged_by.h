/* The expectations a command judges a recorded run by: one rule for report,
 * compare and export (docs/gating.md, "One judge"). `--expectations FILE`
 * or `none` when the command is given it, else the file the run recorded
 * (its expectations= setting: the file the run itself judged by). A flakes
 * file, judged alongside the expectations, is to be resolved here by the
 * same rule. */
#ifndef VC_RESULTS_JUDGED_BY_H
#define VC_RESULTS_JUDGED_BY_H

#include <stdbool.h>
#include <stddef.h>

#include "harness/base/error.h"
#include "harness/model/expectations.h"
#include "results/store/load.h"

typedef struct vc_judged_by {
  vc_expectations exps;
  bool loaded;        /* exps holds the file's entries */
  bool given;         /* named by the command, not the run's record */
  char path[1024];    /* the file, or "" for none */
  char text[1100];    /* what reports print: "FILE (N entries, as the run recorded it)", ... */
} vc_judged_by;

/* given: NULL (the run's recorded file), "none", or a FILE; who names the
   command in the text ("compare"). A given file that cannot be read or
   parsed is an error (VC_ERR_IO, VC_ERR_PARSE); a recorded one that cannot
   be read here (a database from another machine), or whose bytes are no
   longer those the run recorded (runs.expectations_sha256), is judged
   without, and the text says so: every failure is then new, never excused
   by guess. */
int vc_judged_by_load(const vc_run_data *r, const char *given, const char *who, vc_judged_by *j,
                      vc_error *err);
void vc_judged_by_free(vc_judged_by *j);

/* The value of one key of the run's stored settings (runs.options,
   harness/run/runopts.h), unquoted; false when absent. */
bool vc_run_option(const vc_run_data *r, const char *key, char *out, size_t n);

#endif
