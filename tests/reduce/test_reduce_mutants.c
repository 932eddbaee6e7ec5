/* The reducer on faults planted in a -DVC_MUTANTS=ON build: a splitter
 * fault reduced from the check alone (no device) and on PoCL, and a
 * code-generator fault on PoCL, each to at most 15 statements that keep
 * the signature; the reduced program is valid (a build's check without
 * the fault passes it) and still fails under the fault. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/exitcodes.h"
#include "reduce_util.h"

static char dir[512];

static void reduce_mutant(const char *mutant, const char *program, const char *how,
                          const char *sig) {
  char env[128], args[2048], out[600], *log = NULL;
  snprintf(env, sizeof env, "VYRE_CONFORM_MUTANT=%s", mutant);
  snprintf(out, sizeof out, "%s/%s.vyre", dir, mutant);
  snprintf(args, sizeof args, "reduce %s %s --out '%s'", program, how, out);
  assert_int_equal(ru_run(env, args, &log), VC_EXIT_OK);
  char want[512];
  snprintf(want, sizeof want, "signature: %s\n", sig);
  assert_non_null(strstr(log, want));
  free(log);
  vc_reduce_size s;
  assert_true(ru_size(out, &s));
  assert_true(s.statements <= 15);
  assert_true(ru_valid(out));
  /* under the fault the reduced program fails as the original did */
  snprintf(args, sizeof args, "reduce '%s' %s --out '%s.again'", out, how, out);
  assert_int_equal(ru_run(env, args, &log), VC_EXIT_OK);
  assert_non_null(strstr(log, want));
  free(log);
}

static void test_splitter_fault_check(void **state) {
  (void)state;
  reduce_mutant("lose-var-set", "corpus/control/loop_sets_unread.vyre", "--check",
                "check diverge: split-on-oracle (host-split) differs from the unsplit oracle in # "
                "element of out");
}

static void test_splitter_fault_pocl(void **state) {
  (void)state;
  char how[700];
  snprintf(how, sizeof how, "--backend opencl --mode host-split --cache '%s/kc'", dir);
  reduce_mutant("lose-var-set", "corpus/control/loop_sets_unread.vyre", how,
                "host-split diverge buffer=out class=integer");
}

static void test_codegen_fault_pocl(void **state) {
  (void)state;
  char how[700];
  snprintf(how, sizeof how, "--backend opencl --cache '%s/kc'", dir);
  reduce_mutant("div-unguarded", "corpus/algorithms/bucket_means.vyre", how,
                "native diverge buffer=imean class=integer");
}

int main(void) {
  ru_tmpdir(dir, sizeof dir, "mutants");
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_splitter_fault_check),
      cmocka_unit_test(test_splitter_fault_pocl),
      cmocka_unit_test(test_codegen_fault_pocl),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
