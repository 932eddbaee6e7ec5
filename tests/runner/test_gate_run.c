/* The run's exit status against the expectations, end to end on the real
 * devices: a skip expectation keeps a hanging program from ever reaching the
 * worker (PoCL); on lavapipe the project's expectations apply by default and
 * excuse exactly its known faults, a fault outside their scope still fails,
 * an untrustworthy native run fails unless excused, and --expectations none
 * turns the defaults off. Run with GATE_BACKEND=opencl or vulkan. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness/base/exitcodes.h"
#include "run_util.h"


static int setup(void **state) {
  (void)state;
  ru_make_dir("vc-gate");
  return 0;
}

static int teardown(void **state) {
  (void)state;
  return ru_remove_dir();
}

static void exec_sql(const char *db, const char *sql) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", ru_dir, db);
  sqlite3 *h = NULL;
  assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
  char *msg = NULL;
  int rc = sqlite3_exec(h, sql, NULL, NULL, &msg);
  if (rc != SQLITE_OK) fprintf(stderr, "%s: %s\n", sql, msg);
  sqlite3_free(msg);
  sqlite3_close(h);
  assert_int_equal(rc, SQLITE_OK);
}

/* Makes run 1 of db unfinished, without the results of program `name`. */
static void unfinish(const char *db, const char *name) {
  char sql[2048];
  snprintf(sql, sizeof sql,
           "UPDATE runs SET status = 'interrupted';"
           "DELETE FROM divergences WHERE result_id IN (SELECT r.id FROM results r JOIN "
           "programs p ON p.id = r.program_id WHERE p.name = '%s');"
           "DELETE FROM segments WHERE result_id IN (SELECT r.id FROM results r JOIN "
           "programs p ON p.id = r.program_id WHERE p.name = '%s');"
           "DELETE FROM results WHERE program_id IN (SELECT id FROM programs WHERE name = '%s');"
           "DELETE FROM programs WHERE name = '%s';",
           name, name, name, name);
  exec_sql(db, sql);
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* ---- PoCL ---- */

static const char prog_plain[] =
    "(program plain (workgroup 4) (grid 2)\n"
    "  (buffer o u32 8 write)\n"
    "  (entry (store o (global_id x) (mul (global_id x) 3u))))\n";
static const char prog_hangs[] =
    "(program hangs (workgroup 4) (grid 1)\n"
    "  (buffer o u32 4 write)\n"
    "  (entry (store o (global_id x) (global_id x))))\n";

/* The worker hangs on `hangs` (--inject-hang): a skip expectation means it
   is never sent there, so the run ends at once instead of at the timeout. */
static void skip_never_runs(void **state) {
  (void)state;
  ru_write_file("plain.vyre", prog_plain);
  ru_write_file("hangs.vyre", prog_hangs);
  ru_write_file("skip.txt", "skip hangs * reason=\"hangs the worker\"\n"
                         "skip plain resident-split reason=\"not this mode\"\n");
  double t0 = now_s();
  int rc = ru_run(NULL, "--progress plain --backend opencl --mode host-split,resident-split --timeout 60 "
               "--inject-hang hangs --expectations skip.txt --db s.db plain.vyre hangs.vyre");
  double took = now_s() - t0;
  assert_int_equal(rc, VC_EXIT_OK);
  assert_true(took < 30.0);
  assert_int_equal(ru_query("s.db", "SELECT count(*) FROM results r JOIN programs p ON "
                                 "p.id = r.program_id WHERE p.name = 'hangs' AND "
                                 "r.status = 'skip' AND r.reason LIKE "
                                 "'not run: skip expectation skip.txt:1: hangs the worker'"),
                   2);
  assert_int_equal(ru_query("s.db", "SELECT count(*) FROM results WHERE status = 'timeout'"), 0);
  /* a skipped mode of a program that runs: the other mode ran */
  assert_int_equal(ru_query("s.db", "SELECT count(*) FROM results r JOIN programs p ON "
                                 "p.id = r.program_id WHERE p.name = 'plain' AND "
                                 "r.mode = 'resident-split' AND r.status = 'skip'"),
                   1);
  assert_int_equal(ru_query("s.db", "SELECT count(*) FROM results r JOIN programs p ON "
                                 "p.id = r.program_id WHERE p.name = 'plain' AND "
                                 "r.mode = 'host-split' AND r.status = 'pass'"),
                   1);
  assert_true(ru_file_contains("out.txt", "3 results not run (skip expectations)"));
  /* without the expectation the hang costs the timeout */
  rc = ru_run(NULL, "--progress plain --backend opencl --mode host-split --timeout 2 --inject-hang hangs --db t.db "
           "hangs.vyre");
  assert_int_equal(rc, VC_EXIT_FAIL);
  assert_int_equal(ru_query("t.db", "SELECT count(*) FROM results WHERE status = 'timeout'"), 1);
}

/* A run in which nothing was checked is not a pass, on the real device:
   `skip * *` over the programs, or every program over --max-buffer-bytes,
   exits 9 (NOT RUN) and says so; its reports say NOT RUN, its JUnit file
   has an <error>; compare lets no such candidate through: exit 9 when
   compare's entries skip it all, NEWLY SKIPPED (exit 1) without them. */
static void nothing_ran_is_not_run(void **state) {
  (void)state;
  ru_write_file("plain.vyre", prog_plain);
  ru_write_file("hangs.vyre", prog_hangs); /* no hang planted: a plain program */
  ru_write_file("all.txt", "skip * * reason=\"bring-up\"\n");
  int rc = ru_run(NULL, "--progress plain --backend opencl --expectations all.txt --db n.db "
                        "plain.vyre hangs.vyre");
  assert_int_equal(rc, VC_EXIT_NOT_RUN);
  assert_true(ru_file_contains("out.txt", "NOT RUN: nothing was checked: no result passed or "
                                          "failed as expected (6 skip, 0 unsupported)"));
  char status[64];
  ru_query_text("n.db", "SELECT status FROM runs", status, sizeof status);
  assert_string_equal(status, "complete");
  assert_int_equal(ru_query("n.db", "SELECT count(*) FROM results WHERE status = 'skip'"), 6);
  rc = ru_run(NULL, "--progress plain --backend opencl --expectations none --max-buffer-bytes 4 "
                    "--mode host-split --db u.db plain.vyre");
  assert_int_equal(rc, VC_EXIT_NOT_RUN);
  assert_true(ru_file_contains("out.txt", "(0 skip, 1 unsupported)"));
  /* some passing, some skipped: coverage, as it was */
  ru_write_file("one.txt", "skip hangs * reason=\"later\"\n");
  rc = ru_run(NULL, "--progress plain --backend opencl --expectations one.txt --db o.db "
                    "plain.vyre hangs.vyre");
  assert_int_equal(rc, VC_EXIT_OK);
  assert_false(ru_file_contains("out.txt", "NOT RUN"));

  assert_int_equal(ru_run(NULL, "report n.db --md n.md --junit n.xml"), VC_EXIT_OK);
  assert_true(ru_file_contains("n.md", "# NOT RUN &mdash;"));
  assert_true(ru_file_contains("n.xml", "<error type=\"not-run\""));
  assert_int_equal(ru_run(NULL, "--progress plain --backend opencl --expectations none --db b.db "
                                "plain.vyre hangs.vyre"),
                   VC_EXIT_OK);
  /* judged by the candidate's own file, as by default: all skipped */
  assert_int_equal(ru_run(NULL, "compare b.db n.db --no-timing"), VC_EXIT_NOT_RUN);
  assert_true(ru_file_contains("out.txt", "gate: NOT RUN (exit 9)"));
  assert_int_equal(ru_run(NULL, "compare b.db n.db --no-timing --expectations none"),
                   VC_EXIT_FAIL);
  assert_true(ru_file_contains("out.txt", "NEWLY SKIPPED      plain native: pass -> skip: not "
                                          "run: skip expectation all.txt:1: bring-up"));
}

/* A run with planted faults records them in its options, and compare
   refuses to gate it (exit 10) even where nothing differs. */
static void planted_run_is_refused(void **state) {
  (void)state;
  ru_write_file("plain.vyre", prog_plain);
  assert_int_equal(ru_run(NULL, "--progress plain --backend opencl --expectations none --mode "
                                "host-split --db b.db plain.vyre"),
                   VC_EXIT_OK);
  /* a hang planted in a program that is not run changes no result */
  assert_int_equal(ru_run(NULL, "--progress plain --backend opencl --expectations none --mode "
                                "host-split --inject-hang nothing_matches --db c.db plain.vyre"),
                   VC_EXIT_OK);
  assert_int_equal(ru_query("c.db", "SELECT count(*) FROM runs WHERE options LIKE "
                                    "'%inject-hang=nothing_matches%'"),
                   1);
  assert_int_equal(ru_run(NULL, "compare b.db c.db --no-timing"), VC_EXIT_PLANTED);
  assert_true(ru_file_contains("out.txt", "gate: REFUSED (exit 10): the candidate was made with "
                                          "planted faults"));
  assert_true(ru_file_contains("out.txt", "--inject-hang nothing_matches"));
  /* a flip is found (NEW FAILURE) and still no gate */
  assert_int_equal(ru_run(NULL, "--progress plain --backend opencl --expectations none --mode "
                                "host-split --inject-flip host-split:o:1 --db f.db plain.vyre"),
                   VC_EXIT_FAIL);
  assert_int_equal(ru_query("f.db", "SELECT count(*) FROM runs WHERE options LIKE "
                                    "'%inject-flip=host-split:o:1%'"),
                   1);
  assert_int_equal(ru_run(NULL, "compare b.db f.db --no-timing"), VC_EXIT_PLANTED);
  assert_true(ru_file_contains("out.txt", "NEW FAILURE        plain host-split: pass -> diverge"));
}

/* Timing compares like with like: a run whose kernels were compiled (no
   cache) is not timed against a baseline that read them from the kernel
   cache, and compare says so; two cold runs are timed. */
static void cold_cache_is_not_timed_against_warm(void **state) {
  (void)state;
  ru_write_file("plain.vyre", prog_plain);
  const char *run = "--progress plain --backend opencl --expectations none";
  assert_int_equal(ru_run(NULL, "%s --cache kc --db w.db plain.vyre", run), VC_EXIT_OK);
  assert_int_equal(ru_run(NULL, "%s --cache kc --db w.db plain.vyre", run), VC_EXIT_OK);
  assert_int_equal(ru_query("w.db", "SELECT count(*) FROM results WHERE run_id = 2 AND "
                                    "cache_hits = 0"),
                   0);
  assert_int_equal(ru_run(NULL, "%s --no-cache --db c.db plain.vyre", run), VC_EXIT_OK);
  assert_int_equal(ru_run(NULL, "compare w.db c.db"), VC_EXIT_OK);
  assert_true(ru_file_contains("out.txt", "timing: 3 passing cells not judged: their kernels came "
                                          "from the kernel cache on one side and were compiled "
                                          "on the other (baseline warm"));
  assert_true(ru_file_contains("out.txt", "candidate cold, 0 of"));
  assert_true(ru_file_contains("out.txt", "(timing not judged in 3 cells: kernel cache differs)"));
  /* its exit status is the machine's load's to decide: not asserted */
  (void)ru_run(NULL, "compare w.db:1 c.db --json");
  assert_true(ru_file_contains("out.txt", "\"untimed_cache\": 0"));
  assert_true(ru_file_contains("out.txt", "\"baseline\": {\"state\": \"cold\""));
}

/* ---- lavapipe ---- */

#define KNOWN VC_SOURCE_DIR "/corpus/semantics/f32_signed_zero.vyre " \
              VC_SOURCE_DIR "/corpus/control/lavapipe_loop_budget.vyre"

static void defaults_excuse_lavapipe_known_faults(void **state) {
  (void)state;
  int rc = ru_run(NULL, "--progress plain --backend vulkan --db d.db " KNOWN);
  assert_int_equal(rc, VC_EXIT_OK);
  assert_int_equal(ru_query("d.db", "SELECT count(*) FROM results WHERE status = 'diverge'"), 6);
  assert_true(ru_file_contains("out.txt", "6 known failures excused"));
  assert_true(ru_file_contains("out.txt", "(listed in " VC_SOURCE_DIR "/ci/expectations/vulkan.txt)"));
  /* the run records which file judged it */
  assert_int_equal(ru_query("d.db", "SELECT count(*) FROM runs WHERE options LIKE "
                                 "'%expectations=%/ci/expectations/vulkan.txt%'"),
                   1);
  rc = ru_run(NULL, "--progress plain --backend vulkan --expectations none --db n.db " KNOWN);
  assert_int_equal(rc, VC_EXIT_FAIL);
  assert_false(ru_file_contains("out.txt", "known failures excused"));
}

/* --resume judges the rest of a run by the expectations the run began with:
   the default file it read (recorded as that file), or none. */
static void resume_keeps_the_runs_expectations(void **state) {
  (void)state;
  assert_int_equal(ru_run(NULL, "--progress plain --backend vulkan --mode native --db d.db " KNOWN), VC_EXIT_OK);
  unfinish("d.db", "lavapipe_loop_budget");
  assert_int_equal(ru_run(NULL, "--progress plain --resume 1 --db d.db"), VC_EXIT_OK);
  assert_true(ru_file_contains("out.txt", "1 program done already"));
  assert_true(ru_file_contains("out.txt", "expectations: " VC_SOURCE_DIR "/ci/expectations/vulkan.txt"));
  assert_true(ru_file_contains("out.txt", "1 known failure excused"));
  assert_int_equal(ru_query("d.db", "SELECT count(*) FROM runs WHERE status = 'complete'"), 1);
  assert_int_equal(ru_query("d.db", "SELECT count(*) FROM results r JOIN programs p ON p.id = "
                                 "r.program_id WHERE p.name = 'lavapipe_loop_budget' AND "
                                 "r.status = 'diverge'"),
                   1);

  assert_int_equal(ru_run(NULL, "--progress plain --backend vulkan --mode native --expectations none --db n.db " KNOWN),
                   VC_EXIT_FAIL);
  assert_int_equal(ru_query("n.db", "SELECT count(*) FROM runs WHERE options LIKE "
                                 "'%expectations=none%'"),
                   1);
  unfinish("n.db", "lavapipe_loop_budget");
  assert_int_equal(ru_run(NULL, "--progress plain --resume 1 --db n.db"), VC_EXIT_FAIL);
  assert_true(ru_file_contains("out.txt", "expectations: none (--expectations none)"));
  assert_int_equal(ru_query("n.db", "SELECT count(*) FROM results r JOIN programs p ON p.id = "
                                 "r.program_id WHERE p.name = 'lavapipe_loop_budget' AND "
                                 "r.status = 'diverge'"),
                   1);
  /* the default given where the run had none is refused, naming both */
  assert_int_equal(ru_run(NULL, "--progress plain --resume 1 --db n.db --expectations " VC_SOURCE_DIR
                       "/ci/expectations/vulkan.txt"),
                   VC_EXIT_USAGE);
  assert_true(ru_file_contains("out.txt", "the run was started with expectations none"));
}

/* A fault of another buffer, or another class in the excused buffer, is not
   hidden behind the excused signed-zero fold. */
static void fault_outside_scope_fails(void **state) {
  (void)state;
  int rc = ru_run(NULL, "--progress plain --backend vulkan --mode host-split --db k.db " VC_SOURCE_DIR
               "/corpus/semantics/f32_signed_zero.vyre");
  assert_int_equal(rc, VC_EXIT_OK); /* the known fold alone is excused */
  rc = ru_run(NULL, "--progress plain --backend vulkan --mode host-split --inject-flip host-split:neg_a:0 --db o.db "
               VC_SOURCE_DIR "/corpus/semantics/f32_signed_zero.vyre");
  assert_int_equal(rc, VC_EXIT_FAIL);
  /* the result's own divergence (attempt 0); the reruns' are kept apart */
  assert_int_equal(ru_query("o.db", "SELECT count(*) FROM divergences WHERE buffer = 'neg_a' AND "
                                    "attempt = 0"),
                   1);
  rc = ru_run(NULL, "--progress plain --backend vulkan --mode host-split --inject-flip host-split:add_a_zero:0 --db c.db "
           VC_SOURCE_DIR "/corpus/semantics/f32_signed_zero.vyre");
  assert_int_equal(rc, VC_EXIT_FAIL);
}

/* 100 workgroups of 1,000 loop steps each: one lavapipe participant runs
   100,000 iterations, past the budget; the kernel's check catches the cut. */
static const char prog_budget[] =
    "(program vk_loop_budget (workgroup 8) (grid 100) (buffer out u32 800 write)\n"
    "  (entry (let g (global_id x)) (var x g)\n"
    "    (loop i 0u 1000u (set x (add (mul x 1664525u) 1013904223u)))\n"
    "    (barrier grid) (store out g x)))\n";

static void untrustworthy_native_fails_unless_excused(void **state) {
  (void)state;
  ru_write_file("budget.vyre", prog_budget);
  int rc = ru_run(NULL, "--progress plain --backend vulkan --mode native --expectations none --db u.db budget.vyre");
  assert_int_equal(rc, VC_EXIT_FAIL);
  assert_int_equal(ru_query("u.db", "SELECT count(*) FROM results WHERE status = 'untrustworthy' "
                                 "AND reason LIKE '%virtual-workgroup loop ended%'"),
                   1);
  rc = ru_run(NULL, "--progress plain --backend vulkan --mode native --db e.db budget.vyre");
  assert_int_equal(rc, VC_EXIT_OK);
  assert_true(ru_file_contains("out.txt", "1 known failure excused"));
}

int main(void) {
  const char *backend = getenv("GATE_BACKEND");
  const struct CMUnitTest pocl[] = {
      cmocka_unit_test_setup_teardown(skip_never_runs, setup, teardown),
      cmocka_unit_test_setup_teardown(nothing_ran_is_not_run, setup, teardown),
      cmocka_unit_test_setup_teardown(planted_run_is_refused, setup, teardown),
      cmocka_unit_test_setup_teardown(cold_cache_is_not_timed_against_warm, setup, teardown),
  };
  const struct CMUnitTest lavapipe[] = {
      cmocka_unit_test_setup_teardown(defaults_excuse_lavapipe_known_faults, setup, teardown),
      cmocka_unit_test_setup_teardown(fault_outside_scope_fails, setup, teardown),
      cmocka_unit_test_setup_teardown(resume_keeps_the_runs_expectations, setup, teardown),
      cmocka_unit_test_setup_teardown(untrustworthy_native_fails_unless_excused, setup, teardown),
  };
  if (backend && strcmp(backend, "vulkan") == 0)
    return cmocka_run_group_tests_name("lavapipe", lavapipe, NULL, NULL);
  if (backend && strcmp(backend, "opencl") == 0)
    return cmocka_run_group_tests_name("pocl", pocl, NULL, NULL);
  fprintf(stderr, "set GATE_BACKEND to opencl or vulkan\n");
  return 1;
}
