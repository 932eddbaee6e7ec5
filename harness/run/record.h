/* The results path of a run: the run's row (or the resumed run's), the
 * device, each program recorded and judged against the expectations in
 * corpus order (the verdicts the exit status is the sum of), the expired
 * entries, and the run's end. */
#ifndef VC_RUN_RECORD_H
#define VC_RUN_RECORD_H

#include "harness/run/run_state.h"

/* Writes the run's row, or reopens it with --resume (done[i]: program i
   finished before), and takes the run's lock. Returns 0, or nonzero with e
   set. */
int vc_run_begin(run_state *s, const vc_corpus *c, bool *done, vc_error *e);
/* Prints e, kills every worker. Returns VC_EXIT_DB. */
int vc_run_db_fail(run_state *s, const vc_error *e);
/* Records (and shows) the device the first worker opened; a resumed run
   must be on its own. Returns 0 or an exit status. */
int vc_run_record_device(run_state *s);
/* Records a finished program and judges its results. Returns 0 or an exit
   status. */
int vc_run_record_program(run_state *s, item *it);
/* The entries for this device past their date, each printed. */
uint32_t vc_run_expired_entries(const run_state *s);
/* Writes the run's end and closes the database. Returns status, or
   VC_EXIT_DB. */
int vc_run_end(run_state *s, int status);

#endif
