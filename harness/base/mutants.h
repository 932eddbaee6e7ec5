/* The catalogue of planted faults (docs/detection.md): one row per fault,
 * X(ID, "name", KIND, "where", "what it breaks", "killers", "why one theme").
 * KIND is MUTANT (switched on by VYRE_CONFORM_MUTANT=name) or FAULT (a
 * driver fault of the fault-injecting layer around a backend's plugin
 * table, switched on by VYRE_CONFORM_FAULT=name). Only a build configured
 * with -DVC_MUTANTS=ON compiles the sites in; the table itself is always
 * there, so that the names, the listing, ci/mutants --named and
 * docs/detection.md agree.
 *
 * "killers" names what must kill the fault, separated by spaces: THEME/NAME
 * a corpus program (corpus/THEME/NAME.vyre) that kills it on PoCL and
 * lavapipe (by check or a device run); unit:TEST a device-free ctest that
 * fails under it; gpu:THEME/NAME a program that kills it on a GPU only;
 * litmus:TEST/PLACE a litmus test that kills it on a GPU (docs/litmus.md).
 * The CPU killers come from two themes (corpus top-level folders) at
 * least, unless "why one theme" says why not (tests/detection checks it). */
#ifndef VC_MUTANTS_H
#define VC_MUTANTS_H

#define VC_MUTANT_TABLE(X)                                                                          \
  /* the splitter, harness/split/split.c */                                                        \
  X(RECOMPUTE_IMPURE_LET, "recompute-impure-let", MUTANT, "split",                                 \
    "a let that loads is recomputed after the barrier instead of spilled",                         \
    "values/let_load algorithms/histogram_then_cdf shared/tiled_transpose fixpoint/saturating_counter", \
    "")                                                                                            \
  X(RECOMPUTE_ATOMIC_LET, "recompute-atomic-let", MUTANT, "split",                                 \
    "a let holding an atomic's old value is recomputed (the atomic runs twice)",                   \
    "values/let_atomic atomics/counters",                                                          \
    "")                                                                                            \
  X(LOSE_VAR_SET, "lose-var-set", MUTANT, "split",                                                 \
    "a var set in a later segment than its declaration is not saved there",                        \
    "values/var_updates control/loop_sets_unread structure/many_barriers",                         \
    "")                                                                                            \
  X(DROP_EMPTY_SEGMENT, "drop-empty-segment", MUTANT, "split",                                     \
    "an empty segment before a grid barrier is left out of the plan",                              \
    "structure/empty_segments values/spill_across_empty_segments",                                 \
    "")                                                                                            \
  X(SEGMENT_KEEPS_BARRIER, "segment-keeps-barrier", MUTANT, "split",                               \
    "the grid barrier stays in the segment before the cut (the cut off by one)",                   \
    "structure/many_barriers values/spill_u64_high_word",                                          \
    "")                                                                                            \
  X(FRESH_WRITE_BUFFER, "fresh-write-buffer", MUTANT, "split",                                     \
    "a write buffer an earlier segment wrote is bound as a fresh zeroed allocation",               \
    "buffers/partial_rewrite algorithms/cg_fixed_point barrier-detect/spin_arrival_count",         \
    "")                                                                                            \
  X(FIXPOINT_FRESH_WRITE, "fixpoint-fresh-write", MUTANT, "split",                                 \
    "in a fixpoint program, a write buffer is bound fresh and zeroed in every pass",               \
    "fixpoint/write_slices algorithms/bfs_discovery_pass",                                         \
    "")                                                                                            \
  X(VAR_RELOAD_ONLY_IF_READ, "var-reload-only-if-read", MUTANT, "split",                           \
    "a spilled var is reloaded only in segments that read it, not in those that only set it",      \
    "values/var_set_unread control/loop_sets_unread",                                              \
    "")                                                                                            \
  X(SPILL_SLOT_OVERLAP, "spill-slot-overlap", MUTANT, "split",                                     \
    "the spill slot ignores global_id.z's full stride: invocations of a 3-D grid share slots",     \
    "structure/grid_3d_spill algorithms/heat_3d_carry",                                            \
    "")                                                                                            \
  X(RETURN_ENDS_INVOCATION, "return-ends-invocation", MUTANT, "split",                             \
    "a return is taken to end the invocation: no spilled value is saved before it",                \
    "values/return_skips control/return_each_segment fixpoint/return_skips_decl_per_pass",         \
    "")                                                                                            \
  X(RETURN_NESTED_MISSED, "return-nested-missed", MUTANT, "split",                                 \
    "a return under an if or a loop is not seen: a pure let after it is recomputed, not spilled",  \
    "control/return_in_loop_saves_var values/return_skips control/return_typed_spills",            \
    "")                                                                                            \
  X(RETURN_LAST_NOT_FIRST, "return-last-not-first", MUTANT, "split",                               \
    "a segment's last return is taken for its first: a pure let between two returns is recomputed", \
    "control/return_typed_spills values/return_chain_2d",                                          \
    "")                                                                                            \
  X(REMAT_CHAIN_DEPTH_2, "remat-chain-depth-2", MUTANT, "split",                                   \
    "a recomputed let brings the lets it names but not theirs: a chain of three loses its root",   \
    "control/return_typed_spills values/return_chain_2d",                                          \
    "")                                                                                            \
  X(SPILL_NEXT_SEGMENT_ONLY, "spill-next-segment-only", MUTANT, "split",                           \
    "liveness looks one segment ahead: a value next used two segments on is not spilled",          \
    "atomics/counters structure/empty_segments values/long_distance",                              \
    "")                                                                                            \
  X(SPILL_64_LOW_WORD, "spill-64-low-word", MUTANT, "split",                                       \
    "the spill slot of a u64 or i64 value is a u32: its high word is lost across the barrier",     \
    "values/spill_u64_high_word control/return_typed_spills fixpoint/fixpoint_u64_accumulate",     \
    "")                                                                                            \
  /* the mode drivers, harness/exec/modes.c */                                                     \
  X(OUTPUTS_BY_POSITION, "outputs-by-position", MUTANT, "modes",                                   \
    "resident-split and native read output k back from plan buffer k, not from its own buffer",    \
    "buffers/late_input semantics/int_wrap algorithms/bucket_means",                               \
    "")                                                                                            \
  X(RESIDENT_ZERO_UNBOUND, "resident-zero-unbound", MUTANT, "modes",                               \
    "resident-split and native zero a caller buffer that segment 0 does not bind",                 \
    "buffers/late_input fixpoint/bfs_levels atomics/min_max",                                      \
    "")                                                                                            \
  X(HOST_SKIP_DOWNLOAD, "host-skip-download", MUTANT, "modes",                                     \
    "host-split does not download spill buffers after a segment",                                  \
    "values/var_updates atomics/histogram structure/many_barriers",                                \
    "")                                                                                            \
  X(FIXPOINT_FLAG_NOT_RESET, "fixpoint-flag-not-reset", MUTANT, "modes",                           \
    "the split modes do not set the fixpoint flag to 0 before a pass",                             \
    "fixpoint/bfs_levels algorithms/kmeans_i32",                                                   \
    "")                                                                                            \
  X(FIXPOINT_ONE_PASS_SHORT, "fixpoint-one-pass-short", MUTANT, "modes",                           \
    "the split modes run at most max - 1 fixpoint passes",                                         \
    "fixpoint/fixed_passes_no_flag values/return_skips_second_pass",                               \
    "")                                                                                            \
  /* the comparison, harness/exec/diverge.c and its callers */                                     \
  X(SKIP_LAST_BUFFER, "skip-last-buffer", MUTANT, "compare",                                       \
    "the comparison of a mode run with the oracle leaves out the program's last buffer",           \
    "algorithms/bitonic_sort semantics/int_wrap",                                                  \
    "")                                                                                            \
  X(SKIP_LAST_ELEMENT, "skip-last-element", MUTANT, "compare",                                     \
    "the comparison of a buffer leaves out its last element",                                      \
    "algorithms/bitonic_sort semantics/int_wrap",                                                  \
    "")                                                                                            \
  /* the expectations, harness/model/expectations.c */                                             \
  X(EXP_PROGRAM_PREFIX, "exp-program-prefix", MUTANT, "expectations",                              \
    "an entry's program pattern is matched as a prefix of the name, not as a glob",                \
    "unit:results_expectations unit:test_verdict barrier-detect/spin_2d_grid size/max_grid_x",     \
    "")                                                                                            \
  X(EXP_MODE_LITERAL, "exp-mode-literal", MUTANT, "expectations",                                  \
    "an entry's mode is compared as a string, not as a glob: a mode * matches no mode",            \
    "unit:results_expectations unit:test_verdict control/lavapipe_loop_budget semantics/f32_mul_zero", \
    "")                                                                                            \
  X(EXP_NOTE_LITERAL, "exp-note-literal", MUTANT, "expectations",                                  \
    "an entry's note is compared with the reason as a string, not as a glob",                      \
    "unit:results_expectations unit:test_verdict barrier-detect/spin_2d_grid size/max_grid_x fixpoint/empty_passes", \
    "")                                                                                            \
  /* the code generator, backends/common/cgen */                                                   \
  X(SHR_LOGICAL, "shr-logical", MUTANT, "cgen", "shr of an i32 is logical, not arithmetic",        \
    "unit:test_cgen_rules_text algorithms/cg_fixed_point semantics/shifts",                        \
    "")                                                                                            \
  X(SHIFT_UNMASKED, "shift-unmasked", MUTANT, "cgen",                                              \
    "shift amounts are not masked with & 31 (the language's rule decides)",                        \
    "unit:test_cgen_rules_text gpu:semantics/shifts",                                              \
    "CPU-invisible: OpenCL C masks shift amounts itself and x86 (lavapipe) masks them in hardware") \
  X(DIV_UNGUARDED, "div-unguarded", MUTANT, "cgen",                                                \
    "division helpers do not test for a zero divisor",                                             \
    "semantics/int_divrem semantics/int_rem_signs algorithms/bucket_means",                        \
    "")                                                                                            \
  X(REM_DIVISOR_SIGN, "rem-divisor-sign", MUTANT, "cgen",                                          \
    "the i32 remainder takes the divisor's sign instead of the dividend's",                        \
    "algorithms/signed_buckets semantics/int_divrem semantics/int_rem_signs",                      \
    "")                                                                                            \
  X(SHARED_REM_MODULO, "shared-rem-modulo", MUTANT, "cgen+oracle",                                 \
    "i32 rem of negatives is a modulo (sign of the divisor) in the generator and the oracle alike", \
    "semantics/int_rem_signs semantics/int_divrem algorithms/signed_buckets",                      \
    "")                                                                                            \
  X(OOB_GUARD_OFF_BY_ONE, "oob-guard-off-by-one", MUTANT, "cgen",                                  \
    "the bounds guard of a load, store or atomic admits index == count",                           \
    "unit:test_cgen_text semantics/out_of_bounds algorithms/halo_stencil_oob",                     \
    "")                                                                                            \
  X(MINMAX_NATIVE, "minmax-native", MUTANT, "cgen",                                                \
    "f32 min and max use the language's fmin/fmax (ties, -0 and NaN differ)",                      \
    "unit:test_cgen_text semantics/f32_minmax_ties algorithms/minmax_pool_f32",                    \
    "")                                                                                            \
  X(CAST_UNSATURATED, "cast-unsaturated", MUTANT, "cgen",                                          \
    "f32 to integer casts use the language's conversion without saturation or the NaN rule",       \
    "semantics/f32_casts algorithms/bucket_means",                                                 \
    "")                                                                                            \
  X(CONTRACTION_ALLOWED, "contraction-allowed", MUTANT, "cgen",                                    \
    "no FP_CONTRACT OFF pragma, no GLSL precise, NVRTC --fmad=true",                               \
    "unit:test_cgen_text unit:test_cgen_rules_text algorithms/smooth_thirds_f32 values/f32_scaled_sums gpu:semantics/f32_contraction", \
    "")                                                                                            \
  X(NEG_AS_SUBTRACT, "neg-as-subtract", MUTANT, "cgen",                                            \
    "f32 neg is 0.0f - a instead of a sign flip (-(+0) gives +0)",                                 \
    "semantics/f32_nan algorithms/mirror_negate_f32",                                              \
    "")                                                                                            \
  X(F32_LITERAL_SHORT, "f32-literal-short", MUTANT, "cgen",                                        \
    "f32 literals are written with 6 significant digits instead of 9",                             \
    "semantics/f32_literals algorithms/smooth_thirds_f32",                                         \
    "")                                                                                            \
  X(EVAL_RIGHT_FIRST, "eval-right-first", MUTANT, "cgen",                                          \
    "the operands of a binary operator are evaluated right to left",                               \
    "semantics/eval_order atomics/eval_order_atomics",                                             \
    "")                                                                                            \
  X(LOOP_BOUND_REREAD, "loop-bound-reread", MUTANT, "cgen",                                        \
    "a loop whose bound is a variable re-reads it each iteration instead of copying it once",      \
    "semantics/eval_order control/loop_bound_shrinks",                                             \
    "")                                                                                            \
  X(I64_COMPARE_UNSIGNED, "i64-compare-unsigned", MUTANT, "cgen",                                  \
    "i64 lt, le, gt and ge compare the operands' u64 bits",                                        \
    "semantics/compare_i64 values/i64_order_across_barrier",                                       \
    "")                                                                                            \
  X(LOOP_I32_UNSIGNED, "loop-i32-unsigned", MUTANT, "cgen",                                        \
    "the test of an i32 loop compares the counter and the bound as u32",                           \
    "control/loops_ifs_around_stores algorithms/box_sum_signed_offsets",                           \
    "")                                                                                            \
  X(WHILE_TEST_AFTER_BODY, "while-test-after-body", MUTANT, "cgen",                                \
    "a while is lowered as a do-while: the body runs once before the condition is tested",         \
    "unit:test_cgen_text control/while_trip_counts algorithms/box_sum_signed_offsets",             \
    "")                                                                                            \
  /* the oracle, oracles/ */                                                                       \
  X(ORACLE_I64_UNSIGNED, "oracle-i64-unsigned", MUTANT, "oracle",                                  \
    "the oracle orders i64 values by their u64 bits (lt, le, gt, ge, min, max, atomic min/max)",   \
    "semantics/compare_i64 values/i64_order_across_barrier atomics/atomic_counter_min_max_u64",    \
    "")                                                                                            \
  X(ORACLE_I32_LOOP_UNSIGNED, "oracle-i32-loop-unsigned", MUTANT, "oracle",                        \
    "the oracle tests an i32 loop's counter against its bound as u32",                             \
    "control/loops_ifs_around_stores algorithms/box_sum_signed_offsets",                           \
    "")                                                                                            \
  X(ORACLE_WHILE_COND_ONCE, "oracle-while-cond-once", MUTANT, "oracle",                            \
    "the oracle's while back edge jumps past the condition, which is evaluated once",              \
    "control/while_trip_counts atomics/retry_loop_u64 algorithms/box_sum_signed_offsets",          \
    "")                                                                                            \
  /* the native kernel, backends/common/native */                                                  \
  X(NATIVE_BARRIER_SHORT, "native-barrier-short", MUTANT, "native",                                \
    "the grid barrier releases when one participant fewer than all has arrived",                   \
    "unit:test_cgen_rules_text unit:test_native_text buffers/accumulators algorithms/bitonic_sort atomics/counters litmus:sb/native litmus:progress/co-resident", \
    "")                                                                                            \
  X(NATIVE_PASSES_SHORT, "native-passes-short", MUTANT, "native",                                  \
    "the native kernel runs at most max - 1 fixpoint passes",                                      \
    "unit:test_cgen_rules_text fixpoint/fixed_passes_no_flag values/return_skips_second_pass",     \
    "")                                                                                            \
  X(NATIVE_VIRTUAL_ID, "native-virtual-id", MUTANT, "native",                                      \
    "a participant passes its physical workgroup id instead of the virtual one",                   \
    "algorithms/bfs_discovery_pass barrier-detect/spin_1024_workgroups shared/reuse_across_workgroups litmus:mp/native", \
    "")                                                                                            \
  X(NATIVE_FENCE_SCOPE, "native-fence-scope", MUTANT, "native",                                  \
    "the grid barrier orders memory at workgroup scope, not device scope (its fences, acquires and releases)", \
    "unit:test_native_text litmus:mp/native",                                                     \
    "CPU-invisible: PoCL and lavapipe order the whole device at workgroup scope; litmus:mp/native kills it on CUDA (a hang)") \
  X(NATIVE_MISSING_ACQUIRE, "native-missing-acquire", MUTANT, "native",                          \
    "the grid barrier's waiters do not acquire after the wait (no acquire fence or poll, the workgroup barrier after it at workgroup scope)", \
    "unit:test_native_text litmus:progress/co-resident",                                          \
    "CPU-invisible: PoCL (x86) and lavapipe (one participant) pass litmus's 12 native rows under it; on the H200 litmus:progress/co-resident kills it on CUDA (stale counts after the barrier)") \
  X(NATIVE_COUNTER_REUSE, "native-counter-reuse", MUTANT, "native",                              \
    "the grid barrier's and discovery's words (ARRIVE, GEN, POLL, TICKETS) are reset before a kernel's first launch only", \
    "unit:test_native_text litmus:mp/native",                                                     \
    "only a kernel's second launch shows it, and the corpus launches each native kernel once; litmus kills it on PoCL and lavapipe too") \
  X(NATIVE_SHARED_REUSE, "native-shared-reuse", MUTANT, "native",                                  \
    "no workgroup barrier between virtual workgroups that use workgroup memory",                   \
    "unit:test_native_text control/return_then_workgroup_barrier shared/tiled_transpose shared/slow_warp_reads_tile gpu:shared/slow_warp_reads_tile", \
    "")                                                                                            \
  /* the Vulkan plugin, backends/vulkan */                                                         \
  X(NO_DISPATCH_BARRIER, "no-dispatch-barrier", MUTANT, "vulkan",                                  \
    "no pipeline barrier between two dispatches of one submission",                                \
    "unit:test_vk_dispatch_barrier gpu:buffers/reread_after_rewrite",                              \
    "CPU-invisible: lavapipe finishes each dispatch of a command buffer before the next starts")   \
  /* driver faults, harness/exec/fault.c (VYRE_CONFORM_FAULT) */                                   \
  X(DROP_DOWNLOAD, "drop-download", FAULT, "driver",                                               \
    "the first download after each finish copies nothing",                                         \
    "algorithms/bfs_discovery_pass semantics/int_wrap",                                            \
    "")                                                                                            \
  X(STALE_UPLOAD, "stale-upload", FAULT, "driver",                                                 \
    "an upload to a buffer sends the host bytes of that buffer's first upload",                    \
    "algorithms/bfs_discovery_pass structure/many_barriers",                                       \
    "")                                                                                            \
  X(REORDER_LAUNCHES, "reorder-launches", FAULT, "driver",                                         \
    "two launches enqueued back to back run in the opposite order",                                \
    "algorithms/bitonic_sort structure/many_barriers",                                             \
    "")                                                                                            \
  X(FLUSH_DENORMALS, "flush-denormals", FAULT, "driver",                                           \
    "f32 denormals in a downloaded f32 buffer are flushed to zero",                                \
    "algorithms/minmax_pool_f32 semantics/f32_denormals",                                          \
    "")                                                                                            \
  X(FLUSH_DENORMAL_INPUTS, "flush-denormal-inputs", FAULT, "driver",                             \
    "f32 denormals in a buffer a launch binds are flushed to zero before it runs (a device that flushes what it loads)", \
    "semantics/f32_denormals algorithms/minmax_pool_f32",                                          \
    "")                                                                                            \
  X(LOSE_LAUNCH, "lose-launch", FAULT, "driver",                                                   \
    "every second launch enqueued since the last finish is lost",                                  \
    "algorithms/bitonic_sort structure/many_barriers",                                             \
    "")                                                                                            \
  X(EARLY_FINISH, "early-finish", FAULT, "driver",                                                 \
    "finish returns before the launches have run; a download sees the buffer as before them",      \
    "algorithms/bfs_discovery_pass semantics/int_wrap",                                            \
    "")

typedef enum vc_mutant_id {
  VC_MUT_NONE = -1,
#define VC_MUT_ENUM(id, name, kind, where, what, killers, why) VC_MUT_##id,
  VC_MUTANT_TABLE(VC_MUT_ENUM)
#undef VC_MUT_ENUM
  VC_MUT_COUNT
} vc_mutant_id;

#endif
