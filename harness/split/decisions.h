/* The splitter's decisions (docs/splitter.md, "8. Decision coverage").
 *
 * One row per choice the splitter can make for a program, X(ID, "name",
 * "what it means"), read off harness/split/split.c: how it cuts, what it
 * recomputes and spills and why, how it saves around returns, how it binds
 * buffers. vc_split_decisions() finds which of them a finished plan took,
 * reading only the plan (its segment programs, lists and source) and
 * changing nothing; `vyre-conform split --coverage` counts them over a set
 * of programs, so that a decision no corpus program takes is visible. */
#ifndef VC_SPLIT_DECISIONS_H
#define VC_SPLIT_DECISIONS_H

#include <stdint.h>

#include "harness/base/error.h"
#include "harness/split/split.h"

#define VC_SPLIT_DECISION_TABLE(X)                                                                 \
  /* cutting */                                                                                    \
  X(CUT_NONE, "no-barrier", "no grid barrier: one segment, the program itself")                     \
  X(CUT_IN_BLOCK, "barrier-in-block",                                                              \
    "a grid barrier inside a block of entry: the block is flattened into the segments")            \
  X(WG_BARRIER_KEPT, "workgroup-barrier-kept",                                                     \
    "a workgroup barrier in a program with grid barriers stays inside its segment")                \
  X(EMPTY_FIRST, "empty-first-segment", "the program begins with a grid barrier: segment 0 is empty") \
  X(EMPTY_MIDDLE, "empty-middle-segment", "two adjacent grid barriers: an empty segment between them") \
  X(EMPTY_LAST, "empty-last-segment", "the program ends with a grid barrier: the last segment is empty") \
  /* recomputed lets */                                                                            \
  X(RECOMPUTE_DEPTH1, "recompute-depth-1",                                                         \
    "a let of literals and builtins recomputed in a later segment")                                \
  X(RECOMPUTE_DEPTH2, "recompute-depth-2",                                                         \
    "a recomputed let whose chain of recomputed lets is two deep")                                 \
  X(RECOMPUTE_DEPTH3, "recompute-depth-3",                                                         \
    "a recomputed let whose chain of recomputed lets is three or more deep")                       \
  X(RECOMPUTE_FOR_CHAIN, "recompute-for-chain",                                                    \
    "a let recomputed in a segment that does not read it: a recomputed let there uses it")         \
  X(RECOMPUTE_FOR_CHAIN2, "recompute-for-chain-2",                                                 \
    "a let recomputed only through a chain of two or more recomputed lets: neither the segment "   \
    "nor a let it reads uses it directly")                                                         \
  X(RECOMPUTE_BEFORE_RETURN, "recompute-before-return",                                            \
    "a let recomputed although its segment has a return: after the declaration, it cannot skip it") \
  X(RECOMPUTE_64, "recompute-64bit", "a recomputed let of type u64 or i64")                        \
  /* why a value is spilled */                                                                     \
  X(SPILL_LET_LOAD, "spill-let-load", "a let whose value loads memory: spilled, not recomputed")   \
  X(SPILL_LET_ATOMIC, "spill-let-atomic",                                                          \
    "a let holding an atomic's result across a barrier: spilled (recomputing runs the atomic again)") \
  X(SPILL_LET_OF_VAR, "spill-let-of-var", "a let that reads a var: spilled")                       \
  X(SPILL_LET_OF_SPILL, "spill-let-of-spilled",                                                    \
    "a let of pure operators over a let that is itself spilled: spilled")                          \
  X(SPILL_LET_SKIPPABLE, "spill-let-skippable",                                                    \
    "a let of literals, builtins and recomputable lets that a return before it may skip: spilled") \
  X(SPILL_VAR, "spill-var", "a var live across a barrier: spilled")                                \
  /* spill buffers by type and width */                                                            \
  X(SPILL_U32, "spill-u32", "a u32 value spilled in a u32 buffer")                                 \
  X(SPILL_I32, "spill-i32", "an i32 value spilled in an i32 buffer")                               \
  X(SPILL_F32, "spill-f32-bits", "an f32 value spilled as its bits in a u32 buffer (bitcasts)")    \
  X(SPILL_U64, "spill-u64", "a u64 value spilled in a u64 buffer (both words)")                    \
  X(SPILL_I64, "spill-i64", "an i64 value spilled in an i64 buffer (both words)")                  \
  X(SPILL_SLOT_2D, "spill-slot-2d", "spills in a dispatch of several rows along y: slot x + y*NX") \
  X(SPILL_SLOT_3D, "spill-slot-3d",                                                                \
    "spills in a dispatch of several layers along z: slot x + y*NX + z*NX*NY")                     \
  /* saves and reloads */                                                                          \
  X(SAVE_AFTER_SET, "save-after-set",                                                              \
    "a var saved again in a later segment than its declaration, one that assigns it")              \
  X(SAVE_AFTER_NESTED_SET, "save-after-nested-set",                                                \
    "such a segment assigns the var only under if, loop, while or block, not at its top level")    \
  X(RELOAD_FOR_SET, "reload-for-set",                                                              \
    "a var reloaded in a segment that assigns it without reading it")                              \
  X(NO_SAVE_DEAD, "no-save-after-last-use",                                                        \
    "a segment assigns a spilled var and does not save it: no later segment needs it")             \
  X(SPILL_PASSTHROUGH, "spill-passthrough",                                                        \
    "a spilled value crosses a segment that does not bind its spill buffer")                       \
  /* returns (a return ends the segment only) */                                                   \
  X(RETURN_NO_SAVE, "return-no-save", "a return in a segment that saves nothing: kept as it is")   \
  X(RETURN_BEFORE_DECL, "return-before-declaration",                                               \
    "a return before the declaration of a value its segment saves: zero is saved before it")       \
  X(RETURN_AFTER_DECL, "return-after-declaration",                                                 \
    "a return after the declaration of a value its segment saves: the current value is saved")     \
  X(RETURN_RELOADED, "return-saves-reloaded",                                                      \
    "a return in a segment that reloaded the value it saves: the current value is saved")          \
  X(RETURN_TOP_SAVES, "return-top-level-saves", "saves before a return at the top level of a segment") \
  X(RETURN_NESTED_SAVES, "return-nested-saves",                                                    \
    "saves before a return inside if, loop, while or block")                                       \
  X(RETURNS_AROUND_DECL, "returns-around-declaration",                                             \
    "one segment has returns before and after the declaration of a value it saves")                \
  /* fixpoint programs (values start at zero in each pass) */                                      \
  X(FIXPOINT_FLAG, "fixpoint-flag", "a fixpoint with a flag: 4 flag bytes each way per pass")      \
  X(FIXPOINT_COUNT, "fixpoint-count", "a fixpoint without a flag: exactly max passes")             \
  X(FIXPOINT_SPILL, "fixpoint-spill", "a fixpoint program with spilled values: slots rewritten each pass") \
  X(FIXPOINT_RETURN_ZERO, "fixpoint-return-zero",                                                  \
    "a return before a saved value's declaration in a fixpoint program: the zero save resets the " \
    "slot in each pass")                                                                           \
  X(BIND_WRITE_FIXPOINT, "bind-write-fixpoint",                                                    \
    "a write buffer no earlier segment wrote, bound read_write because earlier passes' stores must " \
    "survive")                                                                                     \
  /* bindings */                                                                                   \
  X(BIND_READ_WRITE, "bind-read-write", "a segment reads and writes a buffer: read_write")         \
  X(BIND_ATOMIC, "bind-atomic-read-write",                                                         \
    "a segment touches a buffer only by atomics: read_write")                                      \
  X(BIND_WRITE_CALLER, "bind-write-caller-visible",                                                \
    "a segment only writes a read_write buffer: read_write (the caller's contents stay)")          \
  X(BIND_WRITE_WRITTEN, "bind-write-written-before",                                               \
    "a segment only writes a write buffer an earlier segment wrote: read_write")                   \
  X(BIND_WRITE_FRESH, "bind-write-fresh",                                                          \
    "a segment only writes a write buffer nothing wrote before: write, a fresh zeroed allocation") \
  X(READ_PRIOR_OUTPUT, "read-prior-output",                                                        \
    "a segment binds read-only a buffer an earlier segment wrote")                                 \
  X(BIND_64, "bind-64bit", "a segment binds a u64 or i64 buffer (8 bytes an element)")             \
  /* buffers across segments */                                                                    \
  X(LATE_READ, "first-bound-late-read", "a read buffer first bound after segment 0")               \
  X(LATE_READ_WRITE, "first-bound-late-read-write", "a read_write buffer first bound after segment 0") \
  X(LATE_WRITE, "first-bound-late-write", "a write buffer first bound after segment 0")            \
  X(NEVER_BOUND, "never-bound", "a buffer no segment binds (an output keeps its initial contents)") \
  X(BUFFER_PASSTHROUGH, "buffer-passthrough",                                                      \
    "a buffer bound in two segments and not in one between them")                                  \
  X(OUTPUT_EARLY, "output-last-bound-early", "an output last bound before the last segment")       \
  X(SHARED_SEVERAL, "shared-several-segments",                                                     \
    "a shared array used in two or more segments, bound anew in each")                             \
  /* names */                                                                                      \
  X(RENAME, "rename-sibling", "a name that sibling scopes share renamed NAME_N in the segments")   \
  X(RENAME_TAKEN, "rename-skips-taken",                                                            \
    "a renamed name skips a NAME_N that the program already uses")

typedef enum vc_split_decision {
#define VC_X(id, name, what) VC_DEC_##id,
  VC_SPLIT_DECISION_TABLE(VC_X)
#undef VC_X
  VC_DEC_COUNT
} vc_split_decision;

/* How often a plan took each decision (per value, segment, buffer or return). */
typedef struct vc_split_decisions {
  uint32_t n[VC_DEC_COUNT];
} vc_split_decisions;

const char *vc_split_decision_name(vc_split_decision d);
const char *vc_split_decision_what(vc_split_decision d);

/* The decisions plan s took. Fails (VC_ERR_INTERNAL, naming the program and
   the value) where the plan and this reading of it disagree, e.g. a
   recomputed let that reads memory: then the table has drifted from the
   splitter. */
int vc_split_decisions_of(const vc_split *s, vc_split_decisions *out, vc_error *err);

#endif
