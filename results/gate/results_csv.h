/* Plain-text results (deqp-runner's convention, docs/gating.md): a run as
 * CSV, `program,mode,status,duration_ms`, one row per program and mode (a
 * cell: its repeats summarised), sorted by program then mode; a failures
 * file holds only the failing cells. A failures file kept in git is a
 * baseline compare reads. */
#ifndef VC_RESULTS_CSV_H
#define VC_RESULTS_CSV_H

#include <stdbool.h>

#include "harness/base/strbuf.h"
#include "results/store/load.h"

#define VC_RESULTS_CSV_HEADER "program,mode,status,duration_ms"

/* Appends the CSV of run r to out: every cell, or (failures_only) the
   failing ones. duration_ms is the cell's median wall time. */
int vc_results_csv(const vc_run_data *r, bool failures_only, vc_strbuf *out, vc_error *err);

/* A baseline from a failures file, for comparing cand with: every
   program x mode the file lists failed with its status; every other cell
   of cand passed (cells cand has as unsupported or skip stay so: the file
   says nothing of them). Programs the file lists that cand lacks are in
   the baseline (compare then reports them missing). The run has no
   timings: compare it with timing off. Errors: VC_ERR_PARSE with
   FILE:LINE for a line that is not program,mode,status[,duration_ms], an
   unknown mode or status, a status that is not a failure, a duplicate;
   VC_ERR_IO when the file cannot be read. */
int vc_run_from_failures_csv(const char *path, const vc_run_data *cand, vc_run_data **out,
                             vc_error *err);

/* Does path name a CSV file (ends in .csv)? */
bool vc_is_csv_path(const char *path);

#endif
