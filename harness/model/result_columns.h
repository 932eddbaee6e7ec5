/* harness/model: the columns of the results store, one X-macro table per
 * table (docs/database.md describes each column).
 *
 * Each table lists, in order, X(KIND, field, column, size): the kind of
 * value, the C field (an lvalue inside the record), the SQL column and, for
 * CHARS only, the size of the char array (0 otherwise). One table drives the
 * record's fields (where the record is defined from it), the wire between
 * worker and runner, the INSERT, the SELECT and the CREATE TABLE of the
 * schema, so they cannot drift apart.
 *
 * Adding a column: one line here, a bump of VC_DB_SCHEMA_VERSION
 * (results/store/schema.h: older files are migrated by copying the columns
 * they have; the new one starts at 0 or ""), and the code that fills it.
 *
 * Kinds: U32, U64, I64 and BOOL are SQL INTEGERs; TEXT is a const char *,
 * CHARS a char array, MODE a mode name (const char *), all SQL TEXT; STATUS
 * (vc_status) and DIVCLASS (vc_divclass) are stored by name. A result's
 * strings are CHARS: it outlives the wire message it came in (wire.c checks
 * this at compile time). */
#ifndef VC_RESULT_COLUMNS_H
#define VC_RESULT_COLUMNS_H

/* results: one row per program x mode x repeat (vc_result). */
#define VC_RESULT_COLUMNS(X)                                                  \
  X(MODE, mode, mode, 0)                     /* a vc_mode_name */             \
  X(U32, repeat, repeat, 0)                  /* 0-based */                    \
  X(STATUS, status, status, 0)                                                \
  X(CHARS, reason, reason, 512)                                               \
  X(U64, wall_ns, wall_ns, 0)                                                 \
  X(U64, device_ns, device_ns, 0)                                             \
  X(U64, compile_ns, compile_ns, 0)                                           \
  X(U32, cache_hits, cache_hits, 0)          /* kernels from the kernel cache */ \
  X(U64, bytes_up, bytes_up, 0)                                               \
  X(U64, bytes_down, bytes_down, 0)                                           \
  X(U32, launches, launches, 0)                                               \
  X(U32, passes, passes, 0)                                                   \
  X(BOOL, converged, converged, 0)  /* a fixpoint with a flag ended on a zero flag */ \
  X(CHARS, output_digest, output_digest, 65)                                  \
  X(BOOL, nondeterministic, nondeterministic, 0) /* output changed between repeats */ \
  X(U32, participants, participants, 0)      /* native mode only ... */       \
  X(U32, virtual_per_participant, virtual_per_participant, 0)                 \
  X(U64, device_barriers, device_barriers, 0) /* ... down to here */        \
  X(CHARS, captured_stderr, stderr, 1024)    /* the worker's fd 2 (its driver's too) during this result, cut */ \
  X(U32, attempts, attempts, 0)              /* runs it took: 1, more after flake reruns */ \
  X(CHARS, attempt_log, attempt_log, 512)    /* with reruns: "1 diverge: why; 2 pass" */ \
  X(U64, mode_ns, mode_ns, 0)                /* the runner's clock: the mode's start to its result */ \
  X(U64, wait_ns, wait_ns, 0)                /* of it, waiting for the device (token, --device-lock) */ \
  X(U64, phase_ns, phase_ns, 0)              /* of it, holding the device */ \
  X(BOOL, reference_cached, reference_cached, 0) /* the oracle's outputs it was judged by came from the reference cache */

/* programs: one row per program of a run (vc_program_info). */
#define VC_PROGRAM_COLUMNS(X)                                                 \
  X(TEXT, name, name, 0)                                                      \
  X(TEXT, path, path, 0)                                                      \
  X(TEXT, source_digest, source_digest, 0)                                    \
  X(U32, segments, segments, 0)                                               \
  X(U32, barriers, barriers, 0)                                               \
  X(U64, invocations, invocations, 0)                                         \
  X(U64, workgroups, workgroups, 0)                                           \
  X(U64, buffer_bytes, buffer_bytes, 0)      /* all user buffers */           \
  X(TEXT, tags, tags, 0)                     /* space separated */            \
  X(U32, timeout_s, timeout_s, 0)            /* its (expect (timeout S)); 0: none */ \
  X(TEXT, source, source, 0)                 /* the program's text, as run */ \
  X(U64, setup_ns, setup_ns, 0)              /* the runner's clock, summed over attempts: */ \
  X(U64, reference_ns, reference_ns, 0)      /* the steps before the modes (vc_phase) */ \
  X(U64, oracle_ns, oracle_ns, 0)                                             \
  X(U64, flight_ns, flight_ns, 0)            /* its jobs, start to end */

/* divergences: one row per buffer that differs (vc_divergence). */
#define VC_DIVERGENCE_COLUMNS(X)                                              \
  X(CHARS, buffer, buffer, 64)                                                \
  X(CHARS, type, type, 8)                    /* u32, i32, f32 */              \
  X(U64, first_index, first_index, 0)        /* element */                    \
  X(U64, count, count, 0)                    /* mismatching elements */       \
  X(U64, context_start, context_start, 0)    /* element index of the first element in the hex */ \
  X(CHARS, expected_hex, expected_hex, 200)  /* elements around first_index, little-endian hex */ \
  X(CHARS, actual_hex, actual_hex, 200)                                       \
  X(DIVCLASS, cls, class, 0)                                                  \
  X(U64, max_ulp, max_ulp, 0)                /* f32: largest distance seen */ \
  X(U32, attempt, attempt, 0)                /* 0: the result's own (its last attempt's); K: earlier failed attempt K */

/* segments: one row per segment launch of a split mode, per fixpoint pass
   (vc_segment_timing). */
#define VC_SEGMENT_COLUMNS(X)                                                 \
  X(U32, pass, pass, 0)                                                       \
  X(U32, segment, segment, 0)                                                 \
  X(U64, wall_ns, wall_ns, 0)                                                 \
  X(U64, device_ns, device_ns, 0)                                             \
  X(U64, bytes_up, bytes_up, 0)                                               \
  X(U64, bytes_down, bytes_down, 0)                                           \
  X(U32, launches, launches, 0)

/* runs: what a run records when it begins (vc_run_info, results/store/record.h);
   the table adds id, ended_ns and status. */
#define VC_RUN_COLUMNS(X)                                                     \
  X(TEXT, harness_version, harness_version, 0)                                \
  X(TEXT, harness_commit, harness_commit, 0)                                  \
  X(TEXT, command_line, command_line, 0)                                      \
  X(TEXT, host, host, 0)                                                      \
  X(TEXT, corpus_path, corpus_path, 0)                                        \
  X(TEXT, corpus_digest, corpus_digest, 0)   /* SHA-256 over the sorted (path, source digest) list */ \
  X(TEXT, shard, shard, 0)                   /* "K/N", or "" for an unsharded run */ \
  X(TEXT, backend, backend, 0)                                                \
  X(TEXT, modes, modes, 0)                   /* "native,host-split,resident-split" */ \
  X(TEXT, options, options, 0)               /* the remaining options, "key=value ..." */ \
  X(I64, started_ns, started_ns, 0)          /* unix time */                  \
  X(TEXT, selection, selection, 0)           /* what was selected: filters, tags, shard, count */ \
  X(TEXT, selection_digest, selection_digest, 0) /* the selection before --shard (vc_selection_digest) */ \
  X(U32, selection_programs, selection_programs, 0) /* its programs; a shard runs some of them */ \
  X(TEXT, selection_list, selection_list, 0) /* its programs, "DIGEST NAME" lines by name */ \
  X(TEXT, build_id, build_id, 0)             /* SHA-256 of the harness binary that ran */ \
  X(TEXT, plugin_id, plugin_id, 0)           /* SHA-256 of the backend plugin it loaded */ \
  X(TEXT, environment, environment, 0)       /* the variables that change behaviour, "NAME=value" lines */ \
  X(TEXT, expectations_sha256, expectations_sha256, 0) /* of the expectations file it judged by; "" none */

/* litmus_runs: one row per `vyre-conform litmus` (vc_litmus_run_info,
   results/store/record.h); the table adds id. */
#define VC_LITMUS_RUN_COLUMNS(X)                                              \
  X(TEXT, harness_version, harness_version, 0)                                \
  X(TEXT, build_id, build_id, 0)             /* SHA-256 of the harness binary */ \
  X(TEXT, command_line, command_line, 0)                                      \
  X(TEXT, host, host, 0)                                                      \
  X(TEXT, backend, backend, 0)                                                \
  X(TEXT, device_name, device_name, 0)                                        \
  X(TEXT, driver_version, driver_version, 0)                                  \
  X(I64, started_ns, started_ns, 0)          /* unix time */                  \
  X(U64, wall_ns, wall_ns, 0)                                                 \
  X(U64, seed, seed, 0)                                                       \
  X(TEXT, options, options, 0)               /* the stress settings, "key=value ..." */ \
  X(TEXT, verdict, verdict, 0)               /* "pass", "FAIL", "error" */

/* litmus_results: one row per test x access x place x outcome
   (vc_litmus_result); the table adds id and litmus_run. The row's fields
   other than outcome, forbidden, weak and count repeat on each outcome. */
#define VC_LITMUS_COLUMNS(X)                                                  \
  X(TEXT, test, test, 0)                     /* "mp", "sb", ... (docs/litmus.md) */ \
  X(TEXT, access, access, 0)                 /* "plain", "atomic" */          \
  X(TEXT, place, place, 0)                   /* "none", "workgroup", "native", ... */ \
  X(BOOL, control, control, 0)               /* a place that orders nothing across workgroups */ \
  X(TEXT, verdict, verdict, 0)               /* vc_litmus_row_verdict */      \
  X(TEXT, reason, reason, 0)                 /* why unsupported or an error */ \
  X(TEXT, outcome, outcome, 0)               /* "r0=1 r1=0", ... */           \
  X(BOOL, forbidden, forbidden, 0)           /* the outcome is forbidden here */ \
  X(BOOL, weak, weak, 0)                     /* the weak outcome a control looks for */ \
  X(U64, count, count, 0)                    /* instances that showed it */   \
  X(U64, iterations, iterations, 0)          /* instances run */              \
  X(U32, first_launch, first_launch, 0)      /* of the first forbidden outcome of the row */ \
  X(U32, first_instance, first_instance, 0)                                   \
  X(U64, wall_ns, wall_ns, 0)                                                 \
  X(U32, stress_groups, stress_groups, 0)    /* the row's stress setting (a sweep's point) */

/* progress_results: one row per forward-progress check of a litmus run
   (vc_progress_result, harness/litmus/progress.h); the table adds id and
   litmus_run. */
#define VC_PROGRESS_COLUMNS(X)                                                \
  X(TEXT, check_name, check_name, 0)         /* "co-resident", "over-occupancy" */ \
  X(TEXT, verdict, verdict, 0)               /* vc_progress_verdict */        \
  X(TEXT, reason, reason, 0)                 /* the first note or error */    \
  X(TEXT, device_options, device_options, 0) /* what the check added to the device's */ \
  X(U32, trials, trials, 0)                                                   \
  X(U32, ran, ran, 0)                                                         \
  X(U32, released, released, 0)                                               \
  X(U32, gave_up, gave_up, 0)                                                 \
  X(U32, refused, refused, 0)                                                 \
  X(U32, wrong, wrong, 0)                                                     \
  X(U32, hung, hung, 0)                                                       \
  X(U32, participants_min, participants_min, 0)                               \
  X(U32, participants_max, participants_max, 0)                               \
  X(U64, barriers, barriers, 0)              /* device grid barriers of one launch */ \
  X(U64, slowest_ns, slowest_ns, 0)                                           \
  X(U64, median_ns, median_ns, 0)                                             \
  X(U64, wall_ns, wall_ns, 0)

/* findings: one row per distinct finding of `fuzz` (docs/fuzzing.md), kept
   across the campaigns that share a results file; the table adds id, and
   first_run and last_run are ids of runs. */
#define VC_FINDING_COLUMNS(X)                                                 \
  X(TEXT, key, signature, 0)                 /* backend status class shape: what deduplicates */ \
  X(TEXT, backend, backend, 0)                                                \
  X(TEXT, modes, modes, 0)                   /* the modes it failed in, space separated */ \
  X(TEXT, failure, failure, 0)               /* the reducer's signature of the first */ \
  X(TEXT, first_program, first_program, 0)                                    \
  X(TEXT, file, file, 0)                     /* the reduced program's file */ \
  X(TEXT, command, command, 0)               /* one line that reproduces it */ \
  X(TEXT, source, source, 0)                 /* the reduced program */       \
  X(U32, programs, programs, 0)              /* programs that showed it, all campaigns */ \
  X(I64, first_run, first_run, 0)                                             \
  X(I64, last_run, last_run, 0)

/* crossover_maps: one run of vc-crossover-bench (docs/performance.md,
   "Choosing a mode"); the table adds id. */
#define VC_CROSSOVER_MAP_COLUMNS(X)                                           \
  X(TEXT, harness_version, harness_version, 0)                                \
  X(TEXT, build_id, build_id, 0)             /* SHA-256 of the harness binary */ \
  X(TEXT, command_line, command_line, 0)                                      \
  X(TEXT, host, host, 0)                                                      \
  X(TEXT, backend, backend, 0)                                                \
  X(TEXT, device_name, device_name, 0)                                        \
  X(TEXT, driver_version, driver_version, 0)                                  \
  X(I64, started_ns, started_ns, 0)          /* unix time */                  \
  X(U64, wall_ns, wall_ns, 0)                                                 \
  X(U32, runs, runs, 0)                      /* timed runs a mode, at most */ \
  X(U64, budget_ns, budget_ns, 0)            /* a mode's wall time a point, at most */ \
  X(TEXT, verdict, verdict, 0)               /* "running", "pass", "FAIL" */

/* crossover_points: one row per point x mode of a crossover map; the table
   adds crossover_map. */
#define VC_CROSSOVER_COLUMNS(X)                                               \
  X(U32, barriers, barriers, 0)              /* grid barriers of the program */ \
  X(U64, live_bytes, live_bytes, 0)          /* bytes live across each */     \
  X(MODE, mode, mode, 0)                                                      \
  X(TEXT, state, state, 0)                   /* "ran" or "unsupported" */     \
  X(TEXT, note, note, 0)                     /* why unsupported */            \
  X(U32, runs, runs, 0)                      /* timed runs */                 \
  X(U64, wall_ns, wall_ns, 0)                /* median */                     \
  X(U64, device_ns, device_ns, 0)            /* median */

/* devices: the device of a run (vc_device_info, backends/backend.h, whose
   layout is the plugin ABI); the table adds run_id and fingerprint. */
#define VC_DEVICE_COLUMNS(X)                                                  \
  X(CHARS, api, api, 0)                                                       \
  X(CHARS, api_version, api_version, 0)                                       \
  X(CHARS, driver_name, driver_name, 0)                                       \
  X(CHARS, driver_version, driver_version, 0)                                 \
  X(U32, vendor_id, vendor_id, 0)                                             \
  X(U32, device_id, device_id, 0)                                             \
  X(CHARS, device_name, device_name, 0)                                       \
  X(CHARS, uuid, uuid, 0)                                                     \
  X(U32, compute_units, compute_units, 0)                                     \
  X(U32, max_workgroup_invocations, max_workgroup_invocations, 0)             \
  X(U32, max_workgroup_size[0], max_workgroup_size_x, 0)                      \
  X(U32, max_workgroup_size[1], max_workgroup_size_y, 0)                      \
  X(U32, max_workgroup_size[2], max_workgroup_size_z, 0)                      \
  X(U32, max_grid[0], max_grid_x, 0)                                          \
  X(U32, max_grid[1], max_grid_y, 0)                                          \
  X(U32, max_grid[2], max_grid_z, 0)                                          \
  X(U64, max_shared_bytes, max_shared_bytes, 0)                               \
  X(U64, max_buffer_bytes, max_buffer_bytes, 0)                               \
  X(U64, global_mem_bytes, global_mem_bytes, 0)                               \
  X(BOOL, timestamps, timestamps, 0)                                          \
  X(BOOL, cooperative, cooperative, 0)                                        \
  X(CHARS, float_env, float_env, 0)                                           \
  X(CHARS, extra, extra, 0)

/* A record's field from a table row: VC_COLUMN_FIELD as the X of a table. */
#define VC_COLUMN_FIELD_U32(f, n) uint32_t f;
#define VC_COLUMN_FIELD_U64(f, n) uint64_t f;
#define VC_COLUMN_FIELD_I64(f, n) int64_t f;
#define VC_COLUMN_FIELD_BOOL(f, n) bool f;
#define VC_COLUMN_FIELD_TEXT(f, n) const char *f;
#define VC_COLUMN_FIELD_CHARS(f, n) char f[n];
#define VC_COLUMN_FIELD_MODE(f, n) const char *f;
#define VC_COLUMN_FIELD_STATUS(f, n) vc_status f;
#define VC_COLUMN_FIELD_DIVCLASS(f, n) vc_divclass f;
#define VC_COLUMN_FIELD(kind, field, column, size) VC_COLUMN_FIELD_##kind(field, size)

#endif
