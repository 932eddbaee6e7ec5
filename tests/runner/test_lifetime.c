/* End-to-end on the OpenCL backend (PoCL): what a run's process owns lives
 * and dies with it. `--resume RUN` of a run whose process is alive is
 * refused, naming it, and allowed once it was killed (kill -9); a worker
 * hung in its device phase dies with a runner killed by SIGKILL; SIGHUP
 * ends a run as SIGTERM does (marked interrupted, exit 130); a file-size
 * limit (ulimit -f) is a results database error naming the file, not a
 * death by SIGXFSZ. Every wait is for an event: a line of the workers'
 * device log (VYRE_CONFORM_DEVICE_LOG), a row in the database, a process
 * gone. */
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

#include "run_util.h"

#include "harness/base/exitcodes.h"

static int setup(void **state) {
  (void)state;
  ru_make_dir("vc-life");
  char sub[300];
  snprintf(sub, sizeof sub, "%s/corpus", ru_dir);
  mkdir(sub, 0777);
  ru_write_file("corpus/a.vyre", "(program a_first (workgroup 4) (buffer o u32 4 write)\n"
                                 " (entry (store o (global_id x) (global_id x))))\n");
  ru_write_file("corpus/b.vyre", "(program b_hang (workgroup 4) (buffer o u32 4 write)\n"
                                 " (entry (store o (global_id x) 7u)))\n");
  return 0;
}

static pid_t bg_pid; /* the run in the background, until reaped */

/* A test that failed may leave its run behind: it goes (its workers die
   with it). */
static int teardown(void **state) {
  (void)state;
  if (bg_pid > 0 && waitpid(bg_pid, NULL, WNOHANG) == 0) {
    kill(bg_pid, SIGKILL);
    waitpid(bg_pid, NULL, 0);
  }
  bg_pid = 0;
  return ru_remove_dir();
}

/* vyre-conform ARGS in the background with its device log in LOG, output
   into bg.txt. */
static pid_t start_logged(const char *log, const char *args) {
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd %s && VYRE_CONFORM_DEVICE_LOG=%s exec %s/vyre-conform %s >bg.txt 2>&1",
             ru_dir, log, VC_BINARY_DIR, args);
    execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
    _exit(127);
  }
  bg_pid = pid;
  return pid;
}

static int count_lines(const char *log, const char *what, int *pid) {
  char buf[1 << 14];
  ru_read_text(log, buf, sizeof buf);
  int n = 0;
  size_t len = strlen(what);
  for (char *l = buf; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l))
    if (strncmp(l, what, len) == 0 && l[len] == ' ') {
      n++;
      unsigned long long ns;
      if (pid) sscanf(l + len, " %llu %d", &ns, pid);
    }
  return n;
}

/* Whether a process exists and is not a zombie (one whose parent died is
   reaped by whoever adopts it, or not at all in some containers). */
static bool alive(int pid) {
  char path[64], buf[512];
  snprintf(path, sizeof path, "/proc/%d/stat", pid);
  FILE *f = fopen(path, "r");
  if (!f) return false;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  char *paren = strrchr(buf, ')');
  return paren && paren[1] == ' ' && paren[2] != 'Z' && paren[2] != 'X';
}

/* Waits until b_hang hangs in its device phase: a_first is recorded and a
   device phase was entered and not left. Returns the worker's pid. */
static int wait_for_the_hang(const char *db, const char *log) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", ru_dir, db);
  int worker = 0;
  bool hung = false;
  for (int i = 0; i < 1200 && !hung; i++) {
    ru_nap_ms(100);
    if (access(path, F_OK) != 0 ||
        ru_query(db, "select count(*) from sqlite_master where name = 'programs'") != 1 ||
        ru_query(db, "select count(*) from programs") != 1)
      continue;
    hung = count_lines(log, "enter", NULL) > count_lines(log, "leave", NULL);
  }
  assert_true(hung);
  assert_int_equal(count_lines(log, "open", &worker), 1);
  assert_true(worker > 0);
  return worker;
}

/* Waits (at most two minutes) for the process to be gone; kills it if not,
   so that a failing test leaves nothing behind. */
static bool gone(int pid) {
  for (int i = 0; i < 1200 && alive(pid); i++) ru_nap_ms(100);
  if (!alive(pid)) return true;
  kill(pid, SIGKILL);
  return false;
}

static void resume_of_a_live_run_is_refused(void **state) {
  (void)state;
  pid_t pid = start_logged("r.log", "--backend opencl --jobs 1 --db r.db --progress plain "
                                    "--inject-hang b_hang@device corpus");
  int worker = wait_for_the_hang("r.db", "r.log");
  assert_int_equal(ru_run(NULL, "--resume 1 --db r.db"), VC_EXIT_USAGE);
  char want[256];
  snprintf(want, sizeof want, "run 1 of r.db is still running in process %d", (int)pid);
  assert_true(ru_file_contains("out.txt", want));
  /* the live run's rows are as they were, and it still runs */
  assert_int_equal(ru_query("r.db", "select count(*) from programs"), 1);
  assert_int_equal(ru_query("r.db", "select count(*) from runs where status = 'running'"), 1);
  assert_true(alive(pid));

  /* killed, its lock goes with it: the run resumes and completes */
  kill(pid, SIGKILL);
  int st = 0;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  bg_pid = 0;
  assert_true(gone(worker));
  assert_int_equal(ru_run(NULL, "--resume 1 --db r.db"), VC_EXIT_OK);
  assert_true(ru_file_contains("out.txt", "1 program done already"));
  assert_int_equal(ru_query("r.db", "select count(*) from runs where status = 'complete'"), 1);
  assert_int_equal(ru_query("r.db", "select count(*) from programs"), 2);
  /* a run that ended leaves no lock file */
  assert_int_equal(ru_sh("test ! -e r.db.run-1.lock"), 0);
}

/* The worker hangs holding the device, never reading its pipe: only the
   death signal of its parent ends it once the runner is killed. */
static void a_hung_worker_dies_with_its_runner(void **state) {
  (void)state;
  pid_t pid = start_logged("k.log", "--backend opencl --jobs 1 --db k.db --progress plain "
                                    "--inject-hang b_hang@device corpus");
  int worker = wait_for_the_hang("k.db", "k.log");
  assert_true(alive(worker));
  kill(pid, SIGKILL);
  int st = 0;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  bg_pid = 0;
  assert_true(WIFSIGNALED(st));
  assert_true(gone(worker));
}

static void sighup_interrupts_the_run(void **state) {
  (void)state;
  pid_t pid = start_logged("h.log", "--backend opencl --jobs 1 --db h.db --progress plain "
                                    "--inject-hang b_hang@device corpus");
  int worker = wait_for_the_hang("h.db", "h.log");
  kill(pid, SIGHUP);
  int st = 0;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  bg_pid = 0;
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), VC_EXIT_INTERRUPTED);
  assert_true(ru_file_contains("bg.txt", "interrupted; run 1 is marked interrupted"));
  assert_int_equal(ru_query("h.db", "select count(*) from runs where status = 'interrupted'"), 1);
  assert_int_equal(ru_query("h.db", "select count(*) from programs"), 1);
  assert_true(gone(worker));
}

/* With the kernels cached by a first run, the device writes no file: the
   limit falls on the results database, whose error names it. */
static void a_file_size_limit_is_a_database_error(void **state) {
  (void)state;
  assert_int_equal(ru_run(NULL, "--backend opencl --jobs 1 --db warm.db corpus"), VC_EXIT_OK);
  int rc = ru_sh("ulimit -f 100 && %s/vyre-conform --backend opencl --jobs 1 --db f.db corpus "
                 ">fsz.txt 2>&1",
                 VC_BINARY_DIR);
  assert_int_equal(rc, VC_EXIT_DB);
  assert_true(ru_file_contains("fsz.txt", "vyre-conform: results database f.db: I/O error ("));
  assert_true(ru_file_contains("fsz.txt", "a write failed"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(resume_of_a_live_run_is_refused, setup, teardown),
      cmocka_unit_test_setup_teardown(a_hung_worker_dies_with_its_runner, setup, teardown),
      cmocka_unit_test_setup_teardown(sighup_interrupts_the_run, setup, teardown),
      cmocka_unit_test_setup_teardown(a_file_size_limit_is_a_database_error, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
