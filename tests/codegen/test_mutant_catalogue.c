/* The catalogue of planted faults (harness/base/mutants.h,
 * docs/detection.md): the names issue 14 fixes are there, each once; an
 * environment naming an unknown fault, a fault of the other kind, or any
 * fault in a build without them, is refused with status 2; a normal build
 * has every site compiled to 0. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness/base/mutant.h"

static const char *const required[] = {
    "recompute-impure-let", "recompute-atomic-let", "lose-var-set", "drop-empty-segment",
    "fresh-write-buffer", "fixpoint-fresh-write", "var-reload-only-if-read",
    "outputs-by-position", "resident-zero-unbound", "host-skip-download", "spill-slot-overlap",
    "fixpoint-flag-not-reset", "fixpoint-one-pass-short", "return-ends-invocation",
    "shr-logical", "shift-unmasked", "div-unguarded", "oob-guard-off-by-one", "minmax-native",
    "cast-unsaturated", "contraction-allowed", "native-barrier-short", "native-passes-short",
    "native-virtual-id", "native-shared-reuse", "skip-last-buffer", "skip-last-element",
    "no-dispatch-barrier", "shared-rem-modulo"};

static void names_complete_and_unique(void **state) {
  (void)state;
  assert_true(VC_MUT_COUNT >= 30);
  for (size_t i = 0; i < sizeof required / sizeof required[0]; i++) {
    int found = 0;
    for (int id = 0; id < VC_MUT_COUNT; id++) found += strcmp(vc_mutant_name(id), required[i]) == 0;
    if (found != 1) fail_msg("%s: %d entries", required[i], found);
  }
  for (int a = 0; a < VC_MUT_COUNT; a++)
    for (int b = a + 1; b < VC_MUT_COUNT; b++)
      assert_string_not_equal(vc_mutant_name(a), vc_mutant_name(b));
}

static void bad_environment_refused(void **state) {
  (void)state;
  FILE *sink = fopen("/dev/null", "w");
  assert_non_null(sink);
  unsetenv("VYRE_CONFORM_FAULT");
  unsetenv("VYRE_CONFORM_MUTANT");
  assert_int_equal(vc_mutants_check_env(sink), 0);
  setenv("VYRE_CONFORM_MUTANT", "no-such-fault", 1);
  assert_int_equal(vc_mutants_check_env(sink), 2);
  if (vc_mutants_built()) {
    setenv("VYRE_CONFORM_MUTANT", "drop-download", 1); /* a driver fault */
    assert_int_equal(vc_mutants_check_env(sink), 2);
    setenv("VYRE_CONFORM_MUTANT", "shr-logical", 1);
    assert_int_equal(vc_mutants_check_env(sink), 0);
  } else {
    setenv("VYRE_CONFORM_MUTANT", "shr-logical", 1); /* nothing to switch on */
    assert_int_equal(vc_mutants_check_env(sink), 2);
  }
  unsetenv("VYRE_CONFORM_MUTANT");
  fclose(sink);
}

static void normal_build_has_no_sites(void **state) {
  (void)state;
#ifndef VC_MUTANTS
  setenv("VYRE_CONFORM_MUTANT", "shr-logical", 1);
  assert_false(VC_MUTANT(SHR_LOGICAL)); /* a constant: no call, no exit */
  assert_false(vc_mutants_built());
  unsetenv("VYRE_CONFORM_MUTANT");
#endif
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(names_complete_and_unique),
      cmocka_unit_test(bad_environment_refused),
      cmocka_unit_test(normal_build_has_no_sites),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
