/* The verdict of a recorded run on its own, without a baseline: the exit
 * status the run itself gave (harness/model/verdict.h, vc_run_verdict_exit),
 * from every result the file holds, judged by the one rule of
 * judged_by.h. A run that is not complete, or that was made with planted
 * faults, is no pass (docs/usage.md, "verdict"). */
#ifndef VC_RESULTS_RUN_VERDICT_H
#define VC_RESULTS_RUN_VERDICT_H

#include "harness/model/verdict.h"
#include "results/gate/judged_by.h"
#include "results/store/load.h"

typedef struct vc_file_verdict {
  vc_run_verdict rv;
  int judged;         /* vc_run_verdict_exit(&rv): the run's own exit status */
  int exit;           /* judged, then 1 at least for an unfinished run, 10 for a planted one */
  char planted[1024]; /* vc_run_planted's text, "" for none */
} vc_file_verdict;

/* Judges every result of r by exps (may be NULL) on the day r started. */
void vc_file_verdict_of(const vc_run_data *r, const vc_expectations *exps, vc_file_verdict *out);

#endif
