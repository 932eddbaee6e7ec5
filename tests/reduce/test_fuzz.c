/* vyre-conform fuzz end to end on a real device (FUZZ_BACKEND: opencl for
 * PoCL, vulkan for lavapipe): a bounded run of generated programs and
 * their transformed twins is recorded as a normal run with every program's
 * source; the programs are the same for the same
 * seed; the summary and the findings folder agree with the exit status.
 * Each failing mode is reduced and filed, and findings are kept across
 * campaigns. With FUZZ_MUTANT (a mutant build), a planted fault found in
 * two programs is one distinct finding, reduced, whose command reproduces it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "harness/base/exitcodes.h"
#include "reduce_util.h"

static char dir[512];
static const char *backend;

static int query_int(const char *db, const char *sql) {
  sqlite3 *h = NULL;
  assert_int_equal(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  sqlite3_stmt *st = NULL;
  assert_int_equal(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK);
  int v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
  sqlite3_finalize(st);
  sqlite3_close(h);
  return v;
}

/* Every program row's source is its file's text. */
static int sources_matching(const char *db) {
  sqlite3 *h = NULL;
  assert_int_equal(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  sqlite3_stmt *st = NULL;
  assert_int_equal(sqlite3_prepare_v2(h, "SELECT path, source FROM programs", -1, &st, NULL),
                   SQLITE_OK);
  int n = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", VC_SOURCE_DIR, (const char *)sqlite3_column_text(st, 0));
    char *text = ru_read((const char *)sqlite3_column_text(st, 0));
    if (!text) text = ru_read(path);
    assert_non_null(text);
    assert_string_equal(text, (const char *)sqlite3_column_text(st, 1));
    free(text);
    n++;
  }
  sqlite3_finalize(st);
  sqlite3_close(h);
  return n;
}

static uint32_t findings_listed(const char *log) {
  const char *s = strstr(log, "distinct finding");
  assert_non_null(s);
  while (s > log && s[-1] != ' ') s--;
  while (s > log && s[-1] == ' ') s--;
  while (s > log && s[-1] >= '0' && s[-1] <= '9') s--;
  return (uint32_t)strtoul(s, NULL, 10);
}

static void test_bounded_run(void **state) {
  (void)state;
  char args[2048], *log = NULL, out[600], db[700];
  snprintf(out, sizeof out, "%s/run", dir);
  /* 10 generated programs and their 10 transformed twins */
  snprintf(args, sizeof args,
           "fuzz --backend %s --count 10 --seed 7 --size small --progress plain --cache '%s/kc' "
           "--out '%s'",
           backend, dir, out);
  int st = ru_run("", args, &log);
  uint32_t nf = findings_listed(log);
  assert_int_equal(st, nf ? VC_EXIT_FAIL : VC_EXIT_OK);
  assert_non_null(strstr(log, "fuzz: 20 programs on "));
  free(log);
  snprintf(db, sizeof db, "%s/fuzz.db", out);
  assert_int_equal(query_int(db, "SELECT count(*) FROM runs WHERE status='complete'"), 1);
  assert_int_equal(query_int(db, "SELECT count(*) FROM programs"), 20);
  assert_int_equal(sources_matching(db), 20);
  /* each finding: a reduced program and its command */
  for (uint32_t i = 1; i <= nf; i++) {
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "ls '%s'/findings/%u-*.vyre '%s'/findings/%u-*.txt >/dev/null", out,
             i, out, i);
    assert_int_equal(system(cmd), 0);
  }
  snprintf(args, sizeof args, "%s/summary.txt", out);
  char *sum = ru_read(args);
  assert_non_null(sum);
  assert_int_equal(findings_listed(sum), nf);
  free(sum);
}

/* The same seed gives the same programs; another seed others (drawn from
   the corpus, with --from, and generated). */
static void test_same_seed_same_programs(void **state) {
  (void)state;
  char args[2048];
  const char *seeds[5] = {"3", "3", "4", "3", "3"};
  for (int k = 0; k < 5; k++) {
    snprintf(args, sizeof args,
             "fuzz --backend %s --count %s --seed %s %s --mode native --progress plain "
             "--cache '%s/kc' --out '%s/seed%d'",
             backend, k < 3 ? "4" : "2", seeds[k], k < 3 ? "--from corpus/values" : "", dir, dir,
             k);
    int st = ru_run("", args, NULL);
    assert_true(st == VC_EXIT_OK || st == VC_EXIT_FAIL);
  }
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "diff -r '%s/seed0/programs' '%s/seed1/programs' >/dev/null", dir, dir);
  assert_int_equal(system(cmd), 0);
  snprintf(cmd, sizeof cmd,
           "cat '%s'/seed0/programs/*/*.vyre | sed 's/fz_3_/fz_N_/' > '%s/a.txt' && "
           "cat '%s'/seed2/programs/*/*.vyre | sed 's/fz_4_/fz_N_/' > '%s/b.txt' && "
           "! cmp -s '%s/a.txt' '%s/b.txt'",
           dir, dir, dir, dir, dir, dir);
  assert_int_equal(system(cmd), 0);
  snprintf(cmd, sizeof cmd, "diff -r '%s/seed3/programs' '%s/seed4/programs' >/dev/null", dir, dir);
  assert_int_equal(system(cmd), 0);
  snprintf(cmd, sizeof cmd, "ls '%s'/seed3/programs/*/fz-3-1-t.vyre >/dev/null", dir);
  assert_int_equal(system(cmd), 0);
}

/* --time: runs of --batch programs (each with its transformed twin) until
   the time is up, each a run. */
static void test_time_bounded(void **state) {
  (void)state;
  char args[2048], *log = NULL, db[700];
  snprintf(args, sizeof args,
           "fuzz --backend %s --time 1 --batch 2 --from corpus/values --mode native --progress "
           "plain --cache '%s/kc' --out '%s/new/timed'",
           backend, dir, dir);
  int st = ru_run("", args, &log);
  assert_true(st == VC_EXIT_OK || st == VC_EXIT_FAIL);
  free(log);
  snprintf(db, sizeof db, "%s/new/timed/fuzz.db", dir); /* --out's parents are made too */
  int runs = query_int(db, "SELECT count(*) FROM runs WHERE status='complete'");
  assert_true(runs >= 1);
  assert_int_equal(query_int(db, "SELECT count(*) FROM programs"), 4 * runs);
  snprintf(args, sizeof args, "%s/new/timed/summary.txt", dir);
  char *sum = ru_read(args);
  char want[64];
  snprintf(want, sizeof want, "fuzz: %d programs on %s", 4 * runs, backend);
  assert_non_null(strstr(sum, want));
  free(sum);
}

/* Two causes in one program, each in one mode (a flipped bit in native, a
   crash in host-split): each mode is reduced and filed, two findings. A
   second campaign into the same results file finds both again: they are
   counted under the findings the first filed (first run 1, last run 2,
   two programs), and no new file is written. */
static void test_each_mode_filed_and_kept(void **state) {
  (void)state;
  char args[2048], *log = NULL, out[600], db[700];
  snprintf(out, sizeof out, "%s/modes", dir);
  snprintf(args, sizeof args,
           "fuzz --backend %s --count 1 --from corpus/values/let_load.vyre --transform none "
           "--inject-flip native:out:0 --inject-crash 'fz_*@host-split' --progress plain "
           "--cache '%s/kc' --out '%s'",
           backend, dir, out);
  for (int campaign = 1; campaign <= 2; campaign++) {
    assert_int_equal(ru_run("", args, &log), VC_EXIT_FAIL);
    assert_non_null(strstr(log, "fuzz: reduced fz_1_0 (native diverge)"));
    assert_non_null(strstr(log, "fuzz: reduced fz_1_0 (host-split crash)"));
    assert_null(strstr(log, "(resident-split"));
    assert_non_null(strstr(log, "1 failing, 2 distinct findings"));
    assert_int_equal(strstr(log, "found by an earlier campaign") != NULL, campaign == 2);
    free(log);
  }
  snprintf(db, sizeof db, "%s/fuzz.db", out);
  assert_int_equal(query_int(db, "SELECT count(*) FROM findings"), 2);
  assert_int_equal(query_int(db, "SELECT count(*) FROM findings WHERE first_run=1 AND last_run=2 "
                                 "AND programs=2"), 2);
  assert_int_equal(query_int(db, "SELECT count(*) FROM findings WHERE modes='native' AND "
                                 "signature LIKE '% diverge integer %'"), 1);
  assert_int_equal(query_int(db, "SELECT count(*) FROM findings WHERE modes='host-split' AND "
                                 "signature LIKE '% crash - %'"), 1);
  char cmd[1400];
  snprintf(cmd, sizeof cmd, "test $(ls '%s'/findings | wc -l) -eq 4", out);
  assert_int_equal(system(cmd), 0);
}

/* A planted code-generator fault: a program and its transformed twin, two
   different programs, both fail in every mode. Each mode is reduced: in
   native mode both reduce to one shape, in the split modes both to
   another (the native reduction keeps a load where the split ones keep a
   builtin): two findings of two programs each, whose commands fail again
   under the fault. */
static void test_planted_fault_one_finding(void **state) {
  (void)state;
  const char *mutant = getenv("FUZZ_MUTANT");
  char env[128], args[2048], *log = NULL, out[600];
  snprintf(env, sizeof env, "VYRE_CONFORM_MUTANT=%s", mutant);
  snprintf(out, sizeof out, "%s/mutant", dir);
  snprintf(args, sizeof args,
           "fuzz --backend %s --count 1 --from corpus/algorithms/bucket_means.vyre --progress "
           "plain --cache '%s/kc' --out '%s'",
           backend, dir, out);
  assert_int_equal(ru_run(env, args, &log), VC_EXIT_FAIL);
  assert_non_null(strstr(log, "fuzz: reduced fz_1_0 (native diverge)"));
  assert_non_null(strstr(log, "fuzz: reduced fz_1_0_t (native diverge)"));
  assert_non_null(strstr(log, "fuzz: reduced fz_1_0 (host-split diverge)"));
  assert_non_null(strstr(log, "fuzz: reduced fz_1_0_t (resident-split diverge)"));
  assert_non_null(strstr(log, "2 failing, 2 distinct findings\n"));
  assert_non_null(strstr(log, "     modes: native\n     2 programs, first fz_1_0\n"));
  assert_non_null(strstr(log, "     modes: host-split resident-split\n     2 programs, first fz_1_0\n"));
  free(log);
  char file[700];
  snprintf(file, sizeof file, "%s/findings/1-native-diverge.vyre", out);
  vc_reduce_size s;
  assert_true(ru_size(file, &s));
  assert_true(s.statements <= 15);
  assert_true(ru_valid(file));
  snprintf(args, sizeof args, "%s/findings/1-native-diverge.txt", out);
  char *cmd = ru_read(args);
  assert_non_null(cmd);
  char want[256];
  snprintf(want, sizeof want, "VYRE_CONFORM_MUTANT=%s vyre-conform --backend %s --mode native ",
           mutant, backend);
  assert_non_null(strstr(cmd, want));
  free(cmd);
  snprintf(args, sizeof args, "--backend %s --mode native --expectations none --db '%s/r.db' "
           "--progress plain '%s'", backend, out, file);
  assert_int_equal(ru_run(env, args, NULL), VC_EXIT_FAIL);
}

int main(void) {
  backend = getenv("FUZZ_BACKEND");
  if (!backend) backend = "opencl";
  ru_tmpdir(dir, sizeof dir, backend);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bounded_run),
      cmocka_unit_test(test_same_seed_same_programs),
      cmocka_unit_test(test_time_bounded),
      cmocka_unit_test(test_each_mode_filed_and_kept),
  };
  /* only a mutant build has a fault to plant (tests.cmake sets FUZZ_MUTANT there) */
  const struct CMUnitTest mutant_tests[] = {
      cmocka_unit_test(test_planted_fault_one_finding),
  };
  if (getenv("FUZZ_MUTANT")) return cmocka_run_group_tests(mutant_tests, NULL, NULL);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
