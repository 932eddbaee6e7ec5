/* vc-native-option-bench on PoCL: native mode with two option sets side
 * by side (here the two OpenCL joins, native-join=slot and =direct, in
 * both orderings), both sides' figures and participants printed, exit
 * status 0; usage and a bad option refused; an untrustworthy side (a
 * phantom arrival that never comes) fails the run. No figure asserted. */
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

#define BENCH VC_BINARY_DIR "/vc-native-option-bench"
#define CHAIN VC_SOURCE_DIR "/bench/chain_no_barrier.vyre"

static char out[65536];

static int run(const char *args) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' %s 2>&1", BENCH, args);
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  size_t len = fread(out, 1, sizeof out - 1, p);
  out[len] = '\0';
  int status = pclose(p);
  assert_true(WIFEXITED(status));
  return WEXITSTATUS(status);
}

static void has(const char *what) {
  if (!strstr(out, what)) fail_msg("no \"%s\" in:\n%s", what, out);
}

static void usage(void **state) {
  (void)state;
  assert_int_equal(run("--backend opencl --a native-join=slot " CHAIN), VC_EXIT_USAGE);
  has("usage: vc-native-option-bench");
  assert_int_equal(run("--backend opencl --runs 0 --a x=1 --b y=1 " CHAIN), VC_EXIT_USAGE);
  assert_int_equal(run("--backend opencl --a native-join=lead --b native-join=slot " CHAIN),
                   VC_EXIT_USAGE);
  has("expected slot or direct");
  assert_int_equal(run("--backend opencl --a native-join=slot --b native-join=direct "
                       "/nonexistent.vyre"),
                   VC_EXIT_INPUT);
}

static void joins_side_by_side(void **state) {
  (void)state;
  static const char *const orderings[] = {"", ",native-atomics=cl12"};
  for (int i = 0; i < 2; i++) {
    char args[512];
    snprintf(args, sizeof args,
             "--backend opencl --runs 3 --a native-join=slot%s --b native-join=direct%s " CHAIN,
             orderings[i], orderings[i]);
    int rc = run(args);
    if (rc != VC_EXIT_OK) fail_msg("exit status %d:\n%s", rc, out);
    has("native mode of " CHAIN ", 1 segment, 3 runs a side, alternating");
    has("native.a.device_us ");
    has("native.b.device_us ");
    has("native.b_over_a ");
    has(" participants)");
  }
}

/* A side whose barrier waits for a phantom: untrustworthy, so a failure. */
static void untrustworthy_side_fails(void **state) {
  (void)state;
  assert_int_equal(run("--backend opencl --runs 1 --a native-cap=1 --b "
                       "native-cap=1,native-phantoms=1,native-spin=1 " VC_SOURCE_DIR
                       "/tests/native/cases/spin_barriers.vyre"),
                   VC_EXIT_FAIL);
  has("untrustworthy run");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(usage),
      cmocka_unit_test(joins_side_by_side),
      cmocka_unit_test(untrustworthy_side_fails),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
