/* vc-cuda-smoke, the GPU machine's check, as far as it runs here: its
 * usage, its answer when there is no driver, and its checks of the plugin
 * against the fake driver (which runs no kernels, so no programs). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "harness/base/exitcodes.h"

#define SMOKE VC_BINARY_DIR "/vc-cuda-smoke"

/* Runs the smoke tool; its exit status, its output in out. */
static int run(const char *env, const char *args, char *out, size_t n) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "%s '%s' %s 2>&1", env, SMOKE, args);
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  size_t len = fread(out, 1, n - 1, p);
  out[len] = '\0';
  int status = pclose(p);
  assert_true(WIFEXITED(status));
  return WEXITSTATUS(status);
}

static void usage(void **state) {
  (void)state;
  char out[4096];
  assert_int_equal(run("", "--bogus", out, sizeof out), VC_EXIT_USAGE);
  assert_non_null(strstr(out, "usage: vc-cuda-smoke"));
}

static void no_driver(void **state) {
  (void)state;
  char out[4096];
  int rc = run("VYRE_CONFORM_LIBCUDA=/nonexistent/libcuda.so.1",
               VC_SOURCE_DIR "/tests/cuda/programs/ops_u32.vyre", out, sizeof out);
  assert_int_equal(rc, VC_EXIT_NO_BACKEND);
  assert_non_null(strstr(out, "no CUDA driver (/nonexistent/libcuda.so.1: "));
  assert_non_null(strstr(out, "(no-driver)"));
  assert_null(strstr(out, "PASS"));
}

static void checks_on_fake_driver(void **state) {
  (void)state;
  static char out[16384];
  int rc = run("VYRE_CONFORM_LIBCUDA='" VC_FAKE_LIBCUDA "'", "--no-figures", out, sizeof out);
  if (rc != VC_EXIT_OK) fail_msg("exit status %d:\n%s", rc, out);
  assert_non_null(strstr(out, "device   Fake GPU (uuid 0f1e2d3c4b5a69788796a5b4c3d2e1f0)"));
  assert_non_null(strstr(out, "PASS  staging round trip of 50331660 bytes"));
  assert_non_null(strstr(out, "PASS  block z limit refused before launch"));
  assert_non_null(strstr(out, "PASS  native kernel compiles"));
  assert_non_null(strstr(out, "PASS  native_stats before a launch refused"));
  assert_non_null(strstr(out, "summary  13 passed, 0 failed, 0 skipped"));
  assert_null(strstr(out, "FAIL"));
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(usage), cmocka_unit_test(no_driver),
                                     cmocka_unit_test(checks_on_fake_driver)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
