/* End-to-end on the OpenCL backend (PoCL): another process holding the
 * results file's write lock makes a run wait, saying so on stderr, for up
 * to --db-timeout S; released in time, the run finishes; held past it, the
 * run fails (exit 5) and what it recorded before is kept. The lock is held
 * here, by the test's own connection; every wait is for an event (a line
 * on the run's stderr, a row, the run's exit). */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "run_util.h"

#include "harness/base/exitcodes.h"

static pid_t bg_pid;

static int setup(void **state) {
  (void)state;
  ru_make_dir("vc-dbwait");
  char sub[300];
  snprintf(sub, sizeof sub, "%s/corpus", ru_dir);
  mkdir(sub, 0777);
  ru_write_file("corpus/a.vyre", "(program a_first (workgroup 4) (buffer o u32 4 write)\n"
                                 " (entry (store o (global_id x) (global_id x))))\n");
  ru_write_file("corpus/b.vyre", "(program b_hang (workgroup 4) (buffer o u32 4 write)\n"
                                 " (entry (store o (global_id x) 7u)))\n");
  return 0;
}

static int teardown(void **state) {
  (void)state;
  if (bg_pid > 0 && waitpid(bg_pid, NULL, WNOHANG) == 0) {
    kill(bg_pid, SIGKILL);
    waitpid(bg_pid, NULL, 0);
  }
  bg_pid = 0;
  return ru_remove_dir();
}

/* A write transaction on ru_dir/DB, held until writer_release. */
static sqlite3 *writer_hold(const char *db) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", ru_dir, db);
  sqlite3 *h = NULL;
  assert_int_equal(sqlite3_open_v2(path, &h, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
  sqlite3_busy_timeout(h, 60000);
  assert_int_equal(sqlite3_exec(h, "BEGIN EXCLUSIVE", NULL, NULL, NULL), SQLITE_OK);
  return h;
}

static void writer_release(sqlite3 *h) {
  assert_int_equal(sqlite3_exec(h, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(h);
}

/* Waits (at most two minutes) until ru_dir/NAME holds text. */
static bool wait_for_text(const char *name, const char *text) {
  static char buf[1 << 16];
  for (int i = 0; i < 1200; i++) {
    ru_read_text(name, buf, sizeof buf);
    if (strstr(buf, text)) return true;
    ru_nap_ms(100);
  }
  fprintf(stderr, "%s never showed \"%s\":\n%s\n", name, text, buf);
  return false;
}

/* A first run makes the file; the second starts while the lock is held,
   says that it waits, and finishes once the lock is let go. */
static void a_held_lock_makes_the_run_wait_until_released(void **state) {
  (void)state;
  assert_int_equal(ru_run(NULL, "--backend opencl --jobs 1 --db w.db corpus"), VC_EXIT_OK);
  sqlite3 *h = writer_hold("w.db");
  bg_pid = ru_start("--backend opencl --jobs 1 --db w.db --db-timeout 600 corpus");
  bool waited = wait_for_text("bg.txt", "vyre-conform: waiting for the lock on w.db held by "
                                        "another process (");
  writer_release(h);
  assert_true(waited);
  assert_true(ru_file_contains("bg.txt", " s of 600 s)"));
  int st = 0;
  assert_int_equal(waitpid(bg_pid, &st, 0), bg_pid);
  bg_pid = 0;
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), VC_EXIT_OK);
  assert_int_equal(ru_query("w.db", "select count(*) from runs where status = 'complete'"), 2);
  assert_int_equal(ru_query("w.db", "select count(*) from programs"), 4);
}

/* b_hang hangs in its device phase once a_first is recorded; the lock is
   taken, then SIGINT asks the run to end: marking it interrupted waits for
   the lock, runs out of --db-timeout and fails with exit 5. a_first's rows
   are kept, and the run, left running, resumes once its process is gone. */
static void a_lock_held_past_the_timeout_fails_the_run_losing_nothing(void **state) {
  (void)state;
  bg_pid = ru_start("--backend opencl --jobs 1 --db t.db --db-timeout 1 --progress plain "
                    "--inject-hang b_hang@device corpus");
  char path[512];
  snprintf(path, sizeof path, "%s/t.db", ru_dir);
  int64_t done = 0;
  for (int i = 0; i < 1200 && done < 1; i++) {
    ru_nap_ms(100);
    if (access(path, F_OK) == 0 &&
        ru_query("t.db", "select count(*) from sqlite_master where name = 'programs'") == 1)
      done = ru_query("t.db", "select count(*) from programs");
  }
  assert_int_equal(done, 1);
  sqlite3 *h = writer_hold("t.db");
  kill(bg_pid, SIGINT);
  int st = 0;
  assert_int_equal(waitpid(bg_pid, &st, 0), bg_pid);
  bg_pid = 0;
  writer_release(h);
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), VC_EXIT_DB);
  assert_true(ru_file_contains("bg.txt", "results database t.db is locked by another writer; "
                                         "waited 1000 ms"));
  assert_int_equal(ru_query("t.db", "select count(*) from programs where name = 'a_first'"), 1);
  assert_int_equal(ru_query("t.db", "select count(*) from results"), 3);
  assert_int_equal(ru_query("t.db", "select count(*) from runs where status = 'running'"), 1);
  assert_int_equal(ru_run(NULL, "--resume 1 --db t.db"), VC_EXIT_OK);
  assert_int_equal(ru_query("t.db", "select count(*) from runs where status = 'complete'"), 1);
  assert_int_equal(ru_query("t.db", "select count(*) from programs"), 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(a_held_lock_makes_the_run_wait_until_released, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(a_lock_held_past_the_timeout_fails_the_run_losing_nothing,
                                      setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
