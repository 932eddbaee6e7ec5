/* A program's own timeout, (expect (timeout S)), end to end on PoCL: it
 * replaces --timeout and the default for that program (docs/usage.md,
 * "Isolation, timeouts and interrupts"), both ways: a program that states
 * 1 s is stopped after 1 s where the default would be 60, and one that
 * states 2 s is given 2 s under a --timeout 1 that stops the program
 * without one after 1 s. The programs that must run out of time hang
 * (--inject-hang, in the oracle step), so that the outcome depends on no
 * machine's speed: a hang outlasts any timeout, and a short program
 * finishes within the default 60 s. The stopped program's reason names
 * the timeout that was applied and where it came from; the run lasts at
 * least the longest timeout applied. */
#include <setjmp.h>
#include <stdarg.h>
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

static char dir[256];

#define SHORT(name, expect)                                                  \
  "(program " name "\n"                                                      \
  "  (doc \"a short program; hangs where the test plants a hang\")\n" expect \
  "  (workgroup 64)\n"                                                       \
  "  (buffer out u32 64 write)\n"                                            \
  "  (entry (store out (global_id x) (mul (global_id x) 3u))))\n"

static void write_file(const char *name, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/vc-timeout-XXXXXX");
  assert_non_null(mkdtemp(dir));
  write_file("own1.vyre", SHORT("own1", "  (expect (timeout 1))\n"));
  write_file("own2.vyre", SHORT("own2", "  (expect (timeout 2))\n"));
  write_file("plain.vyre", SHORT("plain", ""));
  return 0;
}

static int teardown(void **state) {
  (void)state;
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  return system(cmd) == 0 ? 0 : -1;
}

/* Runs vyre-conform in dir on host-split only (one PoCL compile), output
   into dir/out.txt; returns the exit status. */
static int run(const char *args) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd,
           "cd %s && %s/vyre-conform --backend opencl --mode host-split --no-cache "
           "--expectations none --flake-reruns 0 --progress plain %s >out.txt 2>&1",
           dir, VC_BINARY_DIR, args);
  int st = system(cmd);
  assert_true(WIFEXITED(st));
  return WEXITSTATUS(st);
}

static void query_text(const char *sql, char *out, size_t n) {
  char path[512];
  snprintf(path, sizeof path, "%s/t.db", dir);
  sqlite3 *h = NULL;
  assert_int_equal(sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(h, sql, -1, &st, NULL);
  if (rc != SQLITE_OK) fprintf(stderr, "%s: %s\n", sql, sqlite3_errmsg(h));
  assert_int_equal(rc, SQLITE_OK);
  assert_int_equal(sqlite3_step(st), SQLITE_ROW);
  snprintf(out, n, "%s", (const char *)sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  sqlite3_close(h);
}

/* "STATUS|TIMEOUT_S|REASON" of program p's result in run r: its timeout
   when it has one (in the step or mode in flight then), else host-split's. */
static void result_of(int run_id, const char *p, char *out, size_t n) {
  char sql[512];
  snprintf(sql, sizeof sql,
           "SELECT r.status || '|' || g.timeout_s || '|' || r.reason FROM results r "
           "JOIN programs g ON g.id = r.program_id WHERE g.run_id = %d AND g.name = '%s' "
           "AND (r.status = 'timeout' OR r.mode = 'host-split') "
           "ORDER BY r.status = 'timeout' DESC LIMIT 1",
           run_id, p);
  query_text(sql, out, n);
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Without --timeout (the default, 60 s): own1 hangs and its 1 s stops it,
   with its own timeout named; plain, which does not hang, passes. */
static void own_timeout_lowers_the_default(void **state) {
  (void)state;
  assert_int_equal(run("--db t.db --inject-hang 'own1@oracle' own1.vyre plain.vyre"),
                   VC_EXIT_FAIL);
  char r[1024];
  result_of(1, "own1", r, sizeof r);
  assert_non_null(strstr(r, "timeout|1|no result within 1 s (the program's (expect (timeout S)))"));
  result_of(1, "plain", r, sizeof r);
  assert_string_equal(r, "pass|0|");
}

/* --timeout 1, both hang: plain is stopped by the option's 1 s, own2 by
   its own 2 s, longer than the option (so the run lasts 2 s at least). */
static void own_timeout_beats_a_shorter_option(void **state) {
  (void)state;
  double t0 = now_s();
  assert_int_equal(run("--db t.db --timeout 1 --inject-hang '*@oracle' own2.vyre plain.vyre"),
                   VC_EXIT_FAIL);
  double took = now_s() - t0;
  char r[1024];
  result_of(2, "own2", r, sizeof r);
  assert_non_null(strstr(r, "timeout|2|no result within 2 s (the program's (expect (timeout S)))"));
  result_of(2, "plain", r, sizeof r);
  assert_non_null(strstr(r, "timeout|0|no result within 1 s (--timeout)"));
  /* a lower bound only: a loaded machine makes it longer, never shorter */
  assert_true(took >= 2.0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(own_timeout_lowers_the_default),
      cmocka_unit_test(own_timeout_beats_a_shorter_option),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
