/* The reducer on faults planted in a -DVC_MUTANTS=ON build: a splitter
 * fault reduced from the check alone (no device) and on PoCL, and a
 * code-generator fault on PoCL, each to at most 15 statements that keep
 * the signature; the reduced program is valid (a build's check without
 * the fault passes it) and still fails under the fault; and a divergence
 * classed by cause as the run classes it (a device that flushes denormals). */
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

/* mutant: a mutant's name, or FAULT=name for a driver fault */
static void reduce_mutant(const char *mutant, const char *program, const char *how,
                          const char *sig) {
  char env[128], args[2048], out[600], *log = NULL;
  if (strncmp(mutant, "FAULT=", 6) == 0)
    snprintf(env, sizeof env, "VYRE_CONFORM_FAULT=%s", mutant + 6);
  else
    snprintf(env, sizeof env, "VYRE_CONFORM_MUTANT=%s", mutant);
  snprintf(out, sizeof out, "%s/%s.vyre", dir, strchr(mutant, '=') ? mutant + 6 : mutant);
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

/* The reducer classes a divergence by cause as a run does: on a device
   that flushes the denormals it loads (the fingerprint says so), a u32
   comparison of a denormal input is denormal-flush, not integer (its device
   process once never read the fingerprint). */
static void test_flushing_device_classed_as_run(void **state) {
  (void)state;
  char how[700];
  snprintf(how, sizeof how, "--backend opencl --mode native --cache '%s/kc'", dir);
  reduce_mutant("FAULT=flush-denormal-inputs", "tests/reduce/denormal_input_compare.vyre", how,
                "native diverge buffer=o class=denormal-flush");
}

int main(void) {
  ru_tmpdir(dir, sizeof dir, "mutants");
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_splitter_fault_check),
      cmocka_unit_test(test_splitter_fault_pocl),
      cmocka_unit_test(test_codegen_fault_pocl),
      cmocka_unit_test(test_flushing_device_classed_as_run),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
