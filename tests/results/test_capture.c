/* The worker's standard error, captured per result: what fd 2 got between
 * two takes, bounded, and passed on to the real standard error too, to
 * the last byte when the process dies; and what a killed child wrote since
 * its last take, read by the parent that made the file. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness/run/capture.h"

/* Points fd 2 at a file for the test, so that what is passed on can be read. */
static int real_err, saved_err;
static char real_path[64];

static int setup(void **state) {
  (void)state;
  fflush(stderr);
  snprintf(real_path, sizeof real_path, "/tmp/vc-capture-test-XXXXXX");
  real_err = mkstemp(real_path);
  saved_err = dup(2);
  dup2(real_err, 2);
  return real_err < 0;
}

static int teardown(void **state) {
  (void)state;
  fflush(stderr);
  dup2(saved_err, 2);
  close(saved_err);
  close(real_err);
  unlink(real_path);
  return 0;
}

static char *passed_on(void) {
  static char buf[8192];
  ssize_t n = pread(real_err, buf, sizeof buf - 1, 0);
  buf[n > 0 ? n : 0] = '\0';
  return buf;
}

static void test_each_take_gets_what_came_since(void **state) {
  (void)state;
  vc_capture c;
  vc_capture_start(&c);
  char out[256];
  fprintf(stderr, "worker: stdio\n");
  assert_int_equal(write(2, "driver: fd 2\n", 13), 13); /* as a driver writes */
  vc_capture_take(&c, out, sizeof out);
  assert_string_equal(out, "worker: stdio\ndriver: fd 2\n");
  vc_capture_take(&c, out, sizeof out);
  assert_string_equal(out, "");
  fprintf(stderr, "second\n");
  vc_capture_take(&c, out, sizeof out);
  assert_string_equal(out, "second\n");
  fprintf(stderr, "skipped\n");
  vc_capture_skip(&c);
  vc_capture_take(&c, out, sizeof out);
  assert_string_equal(out, "");
  fprintf(stderr, "left over\n");
  vc_capture_stop(&c);
  fprintf(stderr, "after\n");
  fflush(stderr);
  assert_string_equal(passed_on(),
                      "worker: stdio\ndriver: fd 2\nsecond\nskipped\nleft over\nafter\n");
}

static void test_long_text_is_cut_and_says_so(void **state) {
  (void)state;
  vc_capture c;
  vc_capture_start(&c);
  char big[5000];
  memset(big, 'x', sizeof big);
  big[100] = '\0'; /* a NUL byte in the middle reads as ? */
  assert_int_equal(write(2, big, sizeof big), (ssize_t)sizeof big);
  char out[1024];
  vc_capture_take(&c, out, sizeof out);
  assert_true(strlen(out) < sizeof out);
  assert_int_equal(out[100], '?');
  const char *note = strstr(out, "\n[... ");
  assert_non_null(note);
  unsigned long long more = strtoull(note + 6, NULL, 10);
  assert_int_equal((size_t)(note - out) + more, sizeof big);
  vc_capture_stop(&c);
  assert_int_equal(strlen(passed_on()), 100); /* passed on whole, up to its NUL */
}

/* What a child killed by SIGKILL passed on through the pipe it had as fd 2,
   read to its end (every writer gone), is want. */
static void expect_killed_child_passed_on(pid_t pid, int fd, const char *want) {
  char got[256];
  size_t n = 0;
  ssize_t r;
  while (n < sizeof got - 1 && (r = read(fd, got + n, sizeof got - 1 - n)) > 0) n += (size_t)r;
  got[n] = '\0';
  close(fd);
  int status;
  waitpid(pid, &status, 0);
  assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  assert_string_equal(got, want);
}

/* A worker killed right after a driver's last message: the message still
   reaches the real standard error. */
static void test_last_words_survive_a_kill(void **state) {
  (void)state;
  int p[2];
  assert_int_equal(pipe(p), 0);
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    dup2(p[1], 2);
    close(p[0]);
    close(p[1]);
    vc_capture c;
    vc_capture_start(&c);
    if (write(2, "driver: assertion failed, aborting\n", 35) != 35) _exit(3);
    raise(SIGKILL);
    _exit(4);
  }
  close(p[1]);
  expect_killed_child_passed_on(pid, p[0], "driver: assertion failed, aborting\n");
}

/* The runner kills a dead or hung worker's whole process group; the
   process passing the capture on is in a group of its own, so it outlives
   that kill and passes on the last words (the worker's end ends it). */
static void test_last_words_survive_a_group_kill(void **state) {
  (void)state;
  int p[2], sync[2];
  assert_int_equal(pipe(p), 0);
  assert_int_equal(pipe(sync), 0);
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    setpgid(0, 0); /* as a worker does (lifeline.c) */
    dup2(p[1], 2);
    close(p[0]);
    close(p[1]);
    close(sync[0]);
    vc_capture c;
    vc_capture_start(&c);
    if (write(2, "driver: hung in the device\n", 27) != 27) _exit(3);
    if (write(sync[1], &c.echo, sizeof c.echo) != (ssize_t)sizeof c.echo) _exit(3);
    for (;;) pause();
  }
  close(p[1]);
  close(sync[1]);
  pid_t echo = 0;
  assert_int_equal(read(sync[0], &echo, sizeof echo), (ssize_t)sizeof echo);
  close(sync[0]);
  setpgid(pid, pid);
  pid_t echo_group = echo > 0 ? getpgid(echo) : -1;
  assert_int_equal(kill(-pid, SIGKILL), 0); /* before any assert: no child left behind */
  assert_true(echo > 0);
  assert_int_not_equal(echo_group, pid);
  expect_killed_child_passed_on(pid, p[0], "driver: hung in the device\n");
}

/* A file the parent made: after the child is killed, the parent reads what
   the child wrote since its last take (not before it), bounded and cut as
   a take is. */
static void test_parent_reads_a_dead_childs_rest(void **state) {
  (void)state;
  vc_capture_file f;
  vc_capture_file_open(&f);
  assert_true(f.fd >= 0 && f.read_fd >= 0 && f.taken);
  char out[1024];
  vc_capture_file_rest(&f, out, sizeof out);
  assert_string_equal(out, "");
  for (int round = 0; round < 2; round++) {
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
      vc_capture c;
      vc_capture_start_in(&c, &f);
      char mine[1024];
      if (write(2, "result 1's text\n", 16) != 16) _exit(3);
      vc_capture_take(&c, mine, sizeof mine);
      if (strcmp(mine, "result 1's text\n") != 0) _exit(5);
      if (round == 0) {
        if (write(2, "driver: assertion failed\n", 25) != 25) _exit(3);
      } else {
        char big[3000];
        memset(big, 'y', sizeof big);
        if (write(2, big, sizeof big) != (ssize_t)sizeof big) _exit(3);
      }
      raise(SIGKILL);
      _exit(4);
    }
    int status;
    waitpid(pid, &status, 0);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    vc_capture_file_rest(&f, out, sizeof out);
    if (round == 0) {
      assert_string_equal(out, "driver: assertion failed\n");
    } else {
      /* the second child starts after the first's text: none of it here */
      assert_null(strstr(out, "result 1"));
      assert_true(strlen(out) < sizeof out);
      const char *note = strstr(out, "\n[... ");
      assert_non_null(note);
      assert_int_equal((size_t)(note - out) + strtoull(note + 6, NULL, 10), 3000);
    }
  }
  vc_capture_file_close(&f);
  assert_int_equal(f.fd, -1);
  assert_null(f.taken);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_each_take_gets_what_came_since, setup, teardown),
      cmocka_unit_test_setup_teardown(test_long_text_is_cut_and_says_so, setup, teardown),
      cmocka_unit_test(test_last_words_survive_a_kill),
      cmocka_unit_test(test_last_words_survive_a_group_kill),
      cmocka_unit_test_setup_teardown(test_parent_reads_a_dead_childs_rest, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
