/* The plan validator (docs/splitter.md, "7. The plan validator").
 *
 * Checks a split plan against its source program, rule by rule, reading
 * both and changing neither: what the oracle backend cannot see (a grid
 * barrier left inside a segment runs there without complaint) and what the
 * segment count alone does not show. The rules are stated from the plan's
 * meaning, not from the splitter's code; a violation is a bug of the
 * splitter, never of the program. */
#ifndef VC_SPLIT_VALIDATE_H
#define VC_SPLIT_VALIDATE_H

#include <stdint.h>

#include "harness/base/error.h"
#include "harness/model/program.h"
#include "harness/split/split.h"

/* X(ID, "name", "what the rule requires"); docs/splitter.md, section 7, says each exactly. */
#define VC_PLAN_RULE_TABLE(X)                                                                      \
  X(SEGMENTS, "segment-count",                                                                     \
    "grid barriers + 1 segments, each a plain launch of the source's shape without a fixpoint; "   \
    "the fixpoint flag's 4 bytes per pass exactly when the source has a flag")                     \
  X(SPILL_SLOT, "spill-slot",                                                                      \
    "a spill buffer holds one value in elements of its width (u64, i64 in 64 bits, f32 as u32 "    \
    "bits), one per invocation")                                                                   \
  X(BARRIER, "barrier-in-segment", "no grid barrier inside a segment program")                     \
  X(BUFFER_TABLE, "buffer-table",                                                                  \
    "every buffer and shared array a segment touches is in its table, which lists plan entries "   \
    "in plan order and nothing it does not touch")                                                 \
  X(ACCESS, "access",                                                                              \
    "each binding's access is the one the segment's use gives (docs/splitter.md, 3)")              \
  X(SPILL_ORDER, "spill-order",                                                                    \
    "a spill buffer is read only after an earlier segment wrote it; reloads and saves are the "    \
    "plan's lists")                                                                                \
  X(RECOMPUTE, "recompute",                                                                        \
    "a recomputed let is declared in its segment, reads no memory, and its operands are declared " \
    "before it there")

typedef enum vc_plan_rule {
  VC_PLAN_OK = 0,
#define VC_X(id, name, what) VC_PLAN_##id,
  VC_PLAN_RULE_TABLE(VC_X)
#undef VC_X
  VC_PLAN_RULE_COUNT
} vc_plan_rule;

const char *vc_plan_rule_name(vc_plan_rule r);

/* The whole plan s of src: VC_PLAN_OK, or the first rule it breaks with
   err set (VC_ERR_INTERNAL, "plan validator: RULE: ..." naming the program,
   the segment and the buffer, slot or let). */
vc_plan_rule vc_plan_validate(const vc_split *s, const vc_program *src, vc_error *err);

/* The pieces, for the splitter's Debug builds between its steps: the plan's
   buffer table and spill slots (before any segment exists), segment k
   (segments 0..k-1 built), and the counts (every segment built). */
vc_plan_rule vc_plan_validate_table(const vc_split *s, const vc_program *src, vc_error *err);
vc_plan_rule vc_plan_validate_segment(const vc_split *s, const vc_program *src, uint32_t k,
                                      vc_error *err);
vc_plan_rule vc_plan_validate_counts(const vc_split *s, const vc_program *src, vc_error *err);

#endif
