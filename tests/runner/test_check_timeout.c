/* check --timeout holds inside one long phase of the oracle: a workgroup
 * whose invocations each loop 16M times (no barrier, one workgroup, one
 * segment: nothing between phases to look at the clock) is reported timed
 * out in the oracle's reference run, and the program after it is still
 * checked. Asserted on the outcome, not on how long it took. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "run_util.h"

#include "harness/base/exitcodes.h"

static int setup(void **state) {
  (void)state;
  ru_make_dir("vc-chkto");
  return 0;
}

static int teardown(void **state) {
  (void)state;
  return ru_remove_dir();
}

static void a_long_phase_times_out_and_the_next_program_is_checked(void **state) {
  (void)state;
  /* 256 invocations of 16M iterations: about 17 s on one core, and the
     budget of 2^24 iterations is not reached (the program is valid) */
  ru_write_file("a_spin.vyre", "(program a_spin (workgroup 256) (buffer o u32 256 write)\n"
                               " (entry (var a 0u)\n"
                               "  (loop i 0u 16000000u (set a (add (mul a 3u) i)))\n"
                               "  (store o (global_id x) a)))\n");
  ru_write_file("b_after.vyre", "(program b_after (workgroup 4) (buffer o u32 4 write)\n"
                                " (entry (store o (global_id x) (global_id x))))\n");
  assert_int_equal(ru_run(NULL, "check --timeout 1 a_spin.vyre b_after.vyre"), VC_EXIT_FAIL);
  assert_true(ru_file_contains("out.txt", "TIME  a_spin.vyre: program a_spin timed out in the "
                                          "oracle's reference run: not finished within the time "
                                          "limit (--timeout) of 1 s"));
  assert_true(ru_file_contains("out.txt", "ok    b_after.vyre"));
  assert_true(ru_file_contains("out.txt", "2 programs checked, 1 failed, 0 unreadable or "
                                          "malformed (1 of them timed out)"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(a_long_phase_times_out_and_the_next_program_is_checked),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
