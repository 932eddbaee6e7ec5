/* The outcome vocabulary: the execution modes, the statuses a result can
 * have, the divergence classes, and the records of one result (what the mode
 * drivers produce, the wire carries and the results store keeps). Each list
 * is one X-macro table, so names, order and meaning cannot drift apart. */
#ifndef VC_OUTCOME_H
#define VC_OUTCOME_H

#include <stdbool.h>
#include <stdint.h>

#include "harness/model/result_columns.h"

/* X(ENUM, name) in display order. */
#define VC_MODE_TABLE(X)                \
  X(NATIVE, "native")                   \
  X(HOST_SPLIT, "host-split")           \
  X(RESIDENT_SPLIT, "resident-split")

typedef enum vc_mode {
#define VC_X(e, n) VC_MODE_##e,
  VC_MODE_TABLE(VC_X)
#undef VC_X
  VC_MODE_COUNT
} vc_mode;

/* X(ENUM, name, fails the run). untrustworthy: a native run whose own check
   failed (a barrier or fixpoint count, a wait cut short), whatever its bytes;
   unsupported: refused by the device's limits before launch; flake: failed
   unexpectedly, then passed on a rerun (--flake-reruns; its attempts are in
   the attempt_log column). */
#define VC_STATUS_TABLE(X)                  \
  X(PASS, "pass", false)                    \
  X(DIVERGE, "diverge", true)               \
  X(UNTRUSTWORTHY, "untrustworthy", true)   \
  X(ERROR, "error", true)                   \
  X(CRASH, "crash", true)                   \
  X(TIMEOUT, "timeout", true)               \
  X(UNSUPPORTED, "unsupported", false)      \
  X(SKIP, "skip", false)                    \
  X(INVALID, "invalid", true)               \
  X(FLAKE, "flake", false)

typedef enum vc_status {
#define VC_X(e, n, f) VC_ST_##e,
  VC_STATUS_TABLE(VC_X)
#undef VC_X
  VC_STATUS_COUNT
} vc_status;

/* X(ENUM, name, meaning): the class of one differing element
   (docs/semantics.md, "Comparison"). */
#define VC_DIVCLASS_TABLE(X)                                                     \
  X(INTEGER, "integer", "an integer element differs")                            \
  X(F32_ULP, "f32-ulp", "f32 values differ by more than the allowed ulp")        \
  X(F32_NAN, "f32-nan", "one side is NaN, the other is not")                     \
  X(F32_SIGNED_ZERO, "f32-signed-zero", "-0 against +0")                         \
  X(DENORMAL_FLUSH, "denormal-flush",                                          \
    "a denormal expected, zero found; on a flushing device, a denormal value or operand") \
  X(NAN_PAYLOAD, "nan-payload", "NaN against NaN with other bits (allowed)")

typedef enum vc_divclass {
#define VC_X(e, n, m) VC_DIV_##e,
  VC_DIVCLASS_TABLE(VC_X)
#undef VC_X
  VC_DIVCLASS_COUNT
} vc_divclass;

const char *vc_mode_name(vc_mode m);
int vc_mode_from_name(const char *name); /* -1 if unknown */
/* native 0, host-split 1, resident-split 2, any other mode VC_MODE_COUNT. */
int vc_mode_rank(const char *mode);
/* Orders modes by rank, then by name. */
int vc_mode_cmp(const char *a, const char *b);

const char *vc_status_name(vc_status s);
int vc_status_from_name(const char *name); /* -1 if unknown */
/* What fails a run: the third column of VC_STATUS_TABLE. */
bool vc_status_is_failure(vc_status s);

const char *vc_divclass_name(vc_divclass c);
int vc_divclass_from_name(const char *name); /* -1 if unknown */

/* The records below are defined from the column tables of
   harness/model/result_columns.h, field for field. */
typedef struct vc_program_info {
  VC_PROGRAM_COLUMNS(VC_COLUMN_FIELD)
} vc_program_info;

typedef struct vc_segment_timing {
  VC_SEGMENT_COLUMNS(VC_COLUMN_FIELD)
} vc_segment_timing;

typedef struct vc_divergence {
  VC_DIVERGENCE_COLUMNS(VC_COLUMN_FIELD)
} vc_divergence;

typedef struct vc_result {
  VC_RESULT_COLUMNS(VC_COLUMN_FIELD)
  vc_divergence *divs;
  uint32_t ndivs;
  /* The divergences of the failed attempts before the last (their attempt
     field says which), kept for a result that flake reruns made: the
     result's own are divs. */
  vc_divergence *attempt_divs;
  uint32_t nattempt_divs;
  vc_segment_timing *segs;
  uint32_t nsegs;
} vc_result;

#endif
