/* The worker's standard error, captured per result: what fd 2 got between
 * two takes, bounded, and passed on to the real standard error too. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
  fprintf(stderr, "left over\n");
  vc_capture_stop(&c);
  fprintf(stderr, "after\n");
  fflush(stderr);
  assert_string_equal(passed_on(), "worker: stdio\ndriver: fd 2\nsecond\nleft over\nafter\n");
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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_each_take_gets_what_came_since, setup, teardown),
      cmocka_unit_test_setup_teardown(test_long_text_is_cut_and_says_so, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
