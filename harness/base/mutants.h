/* The catalogue of planted faults (docs/detection.md): one row per fault,
 * X(ID, "name", KIND, "where", "what it breaks"). KIND is MUTANT (switched
 * on by VYRE_CONFORM_MUTANT=name) or FAULT (a driver fault of the
 * fault-injecting layer around a backend's plugin table, switched on by
 * VYRE_CONFORM_FAULT=name). Only a build configured with -DVC_MUTANTS=ON
 * compiles the sites in; the table itself is always there, so that the
 * names, the listing and docs/detection.md agree. */
#ifndef VC_MUTANTS_H
#define VC_MUTANTS_H

#define VC_MUTANT_TABLE(X)                                                                          \
  /* the splitter, harness/split/split.c */                                                        \
  X(RECOMPUTE_IMPURE_LET, "recompute-impure-let", MUTANT, "split",                                 \
    "a let that loads is recomputed after the barrier instead of spilled")                         \
  X(RECOMPUTE_ATOMIC_LET, "recompute-atomic-let", MUTANT, "split",                                 \
    "a let holding an atomic's old value is recomputed (the atomic runs twice)")                   \
  X(LOSE_VAR_SET, "lose-var-set", MUTANT, "split",                                                 \
    "a var set in a later segment than its declaration is not saved there")                        \
  X(DROP_EMPTY_SEGMENT, "drop-empty-segment", MUTANT, "split",                                     \
    "an empty segment before a grid barrier is left out of the plan")                              \
  X(FRESH_WRITE_BUFFER, "fresh-write-buffer", MUTANT, "split",                                     \
    "a write buffer an earlier segment wrote is bound as a fresh zeroed allocation")               \
  X(FIXPOINT_FRESH_WRITE, "fixpoint-fresh-write", MUTANT, "split",                                 \
    "in a fixpoint program, a write buffer is bound fresh and zeroed in every pass")               \
  X(VAR_RELOAD_ONLY_IF_READ, "var-reload-only-if-read", MUTANT, "split",                           \
    "a spilled var is reloaded only in segments that read it, not in those that only set it")      \
  X(SPILL_SLOT_OVERLAP, "spill-slot-overlap", MUTANT, "split",                                     \
    "the spill slot ignores global_id.z's full stride: invocations of a 3-D grid share slots")     \
  X(RETURN_ENDS_INVOCATION, "return-ends-invocation", MUTANT, "split",                             \
    "a return is taken to end the invocation: no spilled value is saved before it")                \
  /* the mode drivers, harness/exec/modes.c */                                                     \
  X(OUTPUTS_BY_POSITION, "outputs-by-position", MUTANT, "modes",                                   \
    "resident-split and native read output k back from plan buffer k, not from its own buffer")    \
  X(RESIDENT_ZERO_UNBOUND, "resident-zero-unbound", MUTANT, "modes",                               \
    "resident-split and native zero a caller buffer that segment 0 does not bind")                 \
  X(HOST_SKIP_DOWNLOAD, "host-skip-download", MUTANT, "modes",                                     \
    "host-split does not download spill buffers after a segment")                                  \
  X(FIXPOINT_FLAG_NOT_RESET, "fixpoint-flag-not-reset", MUTANT, "modes",                           \
    "the split modes do not set the fixpoint flag to 0 before a pass")                             \
  X(FIXPOINT_ONE_PASS_SHORT, "fixpoint-one-pass-short", MUTANT, "modes",                           \
    "the split modes run at most max - 1 fixpoint passes")                                         \
  /* the comparison, harness/exec/diverge.c and its callers */                                     \
  X(SKIP_LAST_BUFFER, "skip-last-buffer", MUTANT, "compare",                                       \
    "the comparison of a mode run with the oracle leaves out the program's last buffer")           \
  X(SKIP_LAST_ELEMENT, "skip-last-element", MUTANT, "compare",                                     \
    "the comparison of a buffer leaves out its last element")                                      \
  /* the code generator, backends/common/cgen */                                                   \
  X(SHR_LOGICAL, "shr-logical", MUTANT, "cgen", "shr of an i32 is logical, not arithmetic")      \
  X(SHIFT_UNMASKED, "shift-unmasked", MUTANT, "cgen",                                              \
    "shift amounts are not masked with & 31 (the language's rule decides)")                        \
  X(DIV_UNGUARDED, "div-unguarded", MUTANT, "cgen",                                                \
    "division helpers do not test for a zero divisor")                                             \
  X(REM_DIVISOR_SIGN, "rem-divisor-sign", MUTANT, "cgen",                                          \
    "the i32 remainder takes the divisor's sign instead of the dividend's")                        \
  X(SHARED_REM_MODULO, "shared-rem-modulo", MUTANT, "cgen+oracle",                                 \
    "i32 rem of negatives is a modulo (sign of the divisor) in the generator and the oracle alike")\
  X(OOB_GUARD_OFF_BY_ONE, "oob-guard-off-by-one", MUTANT, "cgen",                                  \
    "the bounds guard of a load, store or atomic admits index == count")                           \
  X(MINMAX_NATIVE, "minmax-native", MUTANT, "cgen",                                                \
    "f32 min and max use the language's fmin/fmax (ties, -0 and NaN differ)")                     \
  X(CAST_UNSATURATED, "cast-unsaturated", MUTANT, "cgen",                                          \
    "f32 to integer casts use the language's conversion without saturation or the NaN rule")      \
  X(CONTRACTION_ALLOWED, "contraction-allowed", MUTANT, "cgen",                                    \
    "no FP_CONTRACT OFF pragma, no GLSL precise, NVRTC --fmad=true")                              \
  X(NEG_AS_SUBTRACT, "neg-as-subtract", MUTANT, "cgen",                                            \
    "f32 neg is 0.0f - a instead of a sign flip (-(+0) gives +0)")                                \
  X(F32_LITERAL_SHORT, "f32-literal-short", MUTANT, "cgen",                                        \
    "f32 literals are written with 6 significant digits instead of 9")                            \
  X(EVAL_RIGHT_FIRST, "eval-right-first", MUTANT, "cgen",                                          \
    "the operands of a binary operator are evaluated right to left")                              \
  X(LOOP_BOUND_REREAD, "loop-bound-reread", MUTANT, "cgen",                                        \
    "a loop whose bound is a variable re-reads it each iteration instead of copying it once")     \
  /* the native kernel, backends/common/native */                                                  \
  X(NATIVE_BARRIER_SHORT, "native-barrier-short", MUTANT, "native",                                \
    "the grid barrier releases when one participant fewer than all has arrived")                   \
  X(NATIVE_PASSES_SHORT, "native-passes-short", MUTANT, "native",                                  \
    "the native kernel runs at most max - 1 fixpoint passes")                                      \
  X(NATIVE_VIRTUAL_ID, "native-virtual-id", MUTANT, "native",                                      \
    "a participant passes its physical workgroup id instead of the virtual one")                  \
  X(NATIVE_SHARED_REUSE, "native-shared-reuse", MUTANT, "native",                                  \
    "no workgroup barrier between virtual workgroups that use workgroup memory")                   \
  /* the Vulkan plugin, backends/vulkan */                                                         \
  X(NO_DISPATCH_BARRIER, "no-dispatch-barrier", MUTANT, "vulkan",                                  \
    "no pipeline barrier between two dispatches of one submission")                                \
  /* driver faults, harness/exec/fault.c (VYRE_CONFORM_FAULT) */                                   \
  X(DROP_DOWNLOAD, "drop-download", FAULT, "driver",                                               \
    "the first download after each finish copies nothing")                                         \
  X(STALE_UPLOAD, "stale-upload", FAULT, "driver",                                                 \
    "an upload to a buffer sends the host bytes of that buffer's first upload")                    \
  X(REORDER_LAUNCHES, "reorder-launches", FAULT, "driver",                                         \
    "two launches enqueued back to back run in the opposite order")                                \
  X(FLUSH_DENORMALS, "flush-denormals", FAULT, "driver",                                           \
    "f32 denormals in a downloaded f32 buffer are flushed to zero")                                \
  X(LOSE_LAUNCH, "lose-launch", FAULT, "driver",                                                   \
    "every second launch enqueued since the last finish is lost")                                  \
  X(EARLY_FINISH, "early-finish", FAULT, "driver",                                                 \
    "finish returns before the launches have run; a download sees the buffer as before them")

typedef enum vc_mutant_id {
  VC_MUT_NONE = -1,
#define VC_MUT_ENUM(id, name, kind, where, what) VC_MUT_##id,
  VC_MUTANT_TABLE(VC_MUT_ENUM)
#undef VC_MUT_ENUM
  VC_MUT_COUNT
} vc_mutant_id;

#endif
