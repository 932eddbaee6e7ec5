/* Preparing a run: selecting the programs (paths, --filter, --caselist,
 * --exclude-tag, --shard), checking what can refuse it before anything is
 * written, loading the expectations (the project's by default), keeping
 * the modes skip entries cover from the workers, and what --resume finds
 * done already. */
#ifndef VC_RUN_PREPARE_H
#define VC_RUN_PREPARE_H

#include "harness/run/run_state.h"

/* The selection, the injected flip, the expectations, the --device-lock
   file. Returns 0 or an exit status; nothing is in the database yet. */
int vc_run_prepare(run_state *s, vc_corpus *c, vc_expectations *expect);
/* --shard-plan N: prints the shards; no device, nothing written. */
int vc_run_print_shard_plan(const vc_runner_opts *o);
/* The readable record of what was selected (runs.selection). */
void vc_run_selection_text(const vc_runner_opts *o, const vc_corpus *c, vc_strbuf *sb);
/* --resume: reopens the run; done[i]: program i finished before. */
int vc_run_resume(run_state *s, const vc_corpus *c, bool *done, vc_error *e);
/* The device as the expectations' scopes see it. */
vc_exp_config vc_run_exp_config(const run_state *s);
/* Records the modes skip entries cover; puts the others in modes. Returns
   their number. */
uint32_t vc_run_apply_skips(run_state *s, const vc_corpus_file *f, vc_program_acc *a,
                            vc_mode *modes);

#endif
