/* Judging a mode run's output: its bytes against the oracle's, its traffic
 * against the split plan, the native run's own check. The statuses that need
 * no output, the expectations and the run's exit status are the model's
 * (harness/model/verdict.h). */
#ifndef VC_JUDGE_H
#define VC_JUDGE_H

#include <stdint.h>

#include "harness/exec/modes.h"
#include "harness/model/outcome.h"
#include "harness/model/program.h"
#include "harness/split/split.h"

/* Compares every output of one mode run with the oracle's (expected[i] per
   buffer); sets status pass or diverge, reason and divergences (r->divs is
   allocated: the caller frees it). flush_inputs: the program's inputs on a
   device that flushes denormals (vc_classify_flushed), else NULL. */
void vc_verdict_judge(const vc_program *p, uint32_t *const *expected, const vc_mode_out *mo,
                      uint32_t oracle_passes, uint32_t *const *flush_inputs, vc_result *r);
/* A pass whose bytes, downloads or launches differ from the plan's
   prediction becomes an error: the plan or the mode driver is wrong. */
void vc_verdict_traffic(const vc_split *s, vc_mode m, const vc_mode_out *mo, vc_result *r);
/* A native run whose own check failed (a wait ended without its condition,
   a barrier or virtual-workgroup count the passes cannot give) is
   untrustworthy whatever its bytes said; the bytes' verdict stays in the
   reason and the divergences stay recorded. */
void vc_verdict_native_check(vc_mode m, const vc_mode_out *mo, vc_result *r);

#endif
