/* The split plan against its source, counted independently of the splitter:
 * a plan has one segment more than the source has grid barriers, and a split
 * mode launches every segment once per pass. A splitter that drops an empty
 * segment leaves every byte right, so only this count can show it. */
#ifndef VC_PLAN_CHECK_H
#define VC_PLAN_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "harness/exec/modes.h"
#include "harness/model/outcome.h"
#include "harness/model/program.h"
#include "harness/split/split.h"

/* Does the plan have barriers + 1 segments? If not, writes why (naming the
   program and both counts) and returns false. */
bool vc_plan_segments_ok(const vc_program *p, const vc_split *s, char *why, size_t n);

/* A run of mode m: the plan's segments (native's kernel is built from them
   too) and, in a split mode, passes × (barriers + 1) launches. */
bool vc_plan_launches_ok(const vc_program *p, const vc_split *s, vc_mode m,
                         const vc_mode_out *mo, char *why, size_t n);

/* Judges one result of mode m: a plan or a run whose counts disagree with the
   source is an error, whatever the bytes said (they cannot show it). */
void vc_judge_segment_counts(const vc_program *p, const vc_split *s, vc_mode m,
                             const vc_mode_out *mo, vc_result *r);

#endif
