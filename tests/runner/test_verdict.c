/* harness/model/verdict.c and harness/exec/judge.c on their own: each
 * status decision of one result, what an expectation makes of it, and the run's exit status from the
 * verdicts. The mode outputs are made by hand; the end-to-end runs are in
 * test_gate_run.c and test_native_conform.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "harness/base/exitcodes.h"
#include "harness/exec/judge.h"
#include "harness/model/verdict.h"

static const vc_exp_config lavapipe = {"vulkan", "llvmpipe (LLVM 15.0.6, 256 bits)", "llvmpipe",
                                       "Mesa 22.3.6"};
static const vc_exp_config radv = {"vulkan", "AMD Radeon", "radv", "Mesa 24.0.1"};

static vc_result native_result(void) {
  vc_result r;
  memset(&r, 0, sizeof r);
  r.mode = "native";
  r.status = VC_ST_PASS; /* the bytes were right */
  return r;
}

/* A native run whose self-check failed is untrustworthy, whatever its
   bytes, and that fails the run. */
static void self_check_failure_is_untrustworthy(void **state) {
  (void)state;
  vc_mode_out mo;
  memset(&mo, 0, sizeof mo);
  mo.native.untrustworthy = true;
  snprintf(mo.native.note, sizeof mo.native.note, "6 fixpoint passes recorded, exactly 7");
  vc_result r = native_result();
  vc_verdict_native_check(VC_MODE_NATIVE, &mo, &r);
  assert_int_equal(r.status, VC_ST_UNTRUSTWORTHY);
  assert_string_equal(r.reason,
                      "native run untrustworthy (bytes: pass): 6 fixpoint passes recorded, exactly 7");
  assert_true(vc_status_is_failure(r.status));
  vc_verdict v = vc_verdict_of(NULL, &lavapipe, 20261201, "p", &r);
  assert_true(v.fails);
  vc_run_verdict rv = {0};
  vc_run_verdict_add(&rv, &v);
  assert_int_equal(rv.failures, 1);
  assert_int_equal(vc_run_verdict_exit(&rv), VC_EXIT_FAIL);
  /* the split modes have no self-check to fail */
  vc_result s = native_result();
  s.mode = "host-split";
  vc_verdict_native_check(VC_MODE_HOST_SPLIT, &mo, &s);
  assert_int_equal(s.status, VC_ST_PASS);
}

/* An entry for the device's loop budget excuses that note on that device,
   not another self-check failure and not another device. */
static void untrustworthy_excused_only_in_scope(void **state) {
  (void)state;
  vc_expectations e;
  vc_error err = {0};
  const char text[] = "fail * native status=untrustworthy note=\"*virtual-workgroup loop ended*\" "
                      "backend=vulkan driver=*22.3.6* reason=budget\n";
  assert_int_equal(vc_expectations_parse("v.txt", text, &e, &err), 0);
  vc_result r = native_result();
  r.status = VC_ST_UNTRUSTWORTHY;
  snprintf(r.reason, sizeof r.reason, "native run untrustworthy (bytes: diverge): a "
                                      "virtual-workgroup loop ended before its last workgroup");
  vc_verdict v = vc_verdict_of(&e, &lavapipe, 20261201, "spin_2d_grid", &r);
  assert_false(v.fails);
  assert_int_equal(v.excuse, VC_EXCUSE_EXPECTED);
  assert_int_equal(v.by->line, 1);
  vc_run_verdict rv = {0};
  vc_run_verdict_add(&rv, &v);
  assert_int_equal(rv.excused, 1);
  assert_int_equal(vc_run_verdict_exit(&rv), VC_EXIT_OK);
  v = vc_verdict_of(&e, &radv, 20261201, "spin_2d_grid", &r);
  assert_true(v.fails);
  snprintf(r.reason, sizeof r.reason,
           "native run untrustworthy (bytes: pass): 5 grid barriers completed, the passes need 6");
  v = vc_verdict_of(&e, &lavapipe, 20261201, "spin_2d_grid", &r);
  assert_true(v.fails);
  /* a pass is no improvement of an entry about a condition */
  vc_result ok = native_result();
  v = vc_verdict_of(&e, &lavapipe, 20261201, "spin_2d_grid", &ok);
  assert_int_equal(v.excuse, VC_EXCUSE_NONE);
  vc_expectations_free(&e);
}

static void errors_and_stopped_workers(void **state) {
  (void)state;
  vc_error e = {0};
  e.code = VC_ERR_UNSUPPORTED;
  assert_int_equal(vc_verdict_of_error(&e), VC_ST_UNSUPPORTED);
  e.code = VC_ERR_LIMIT;
  assert_int_equal(vc_verdict_of_error(&e), VC_ST_UNSUPPORTED);
  e.code = VC_ERR_TIMEOUT;
  assert_int_equal(vc_verdict_of_error(&e), VC_ST_TIMEOUT);
  e.code = VC_ERR_DEVICE;
  snprintf(e.msg, sizeof e.msg, "vkCreateComputePipelines failed");
  vc_result r = native_result();
  vc_verdict_error(&e, &r);
  assert_int_equal(r.status, VC_ST_ERROR);
  assert_string_equal(r.reason, "vkCreateComputePipelines failed");
  vc_verdict_worker_stopped(VC_ST_CRASH, "worker killed by signal 11", true, &r);
  assert_int_equal(r.status, VC_ST_CRASH);
  vc_verdict_worker_stopped(VC_ST_CRASH, "worker killed by signal 11", false, &r);
  assert_int_equal(r.status, VC_ST_SKIP);
  assert_string_equal(r.reason, "not run: the worker stopped earlier (crash)");
}

/* A failure before the modes is the step's (error); the modes left without
   it, and the later repeats of a mode that crashed, are skip. */
static void steps_and_repeats(void **state) {
  (void)state;
  vc_result r = native_result();
  vc_verdict_step_error("reference run: out of memory", &r);
  assert_int_equal(r.status, VC_ST_ERROR);
  assert_string_equal(r.reason, "reference run: out of memory");
  r = native_result();
  vc_verdict_after_step("oracle", VC_ST_TIMEOUT, &r);
  assert_int_equal(r.status, VC_ST_SKIP);
  assert_string_equal(r.reason, "not run: the oracle step ended in timeout");
  r = native_result();
  vc_verdict_after_repeat(0, VC_ST_CRASH, &r);
  assert_int_equal(r.status, VC_ST_SKIP);
  assert_string_equal(r.reason, "not run: repeat 1 of this mode ended in crash");
}

/* The exit status counts verdicts: excused failures and skips pass, an
   unexcused one fails, invalid programs alone give 4, expired entries 6. */
static void exit_status_from_verdicts(void **state) {
  (void)state;
  vc_expectations e;
  vc_error err = {0};
  const char text[] = "skip slow * reason=hangs\nfail bad host-split reason=known\n"
                      "fail good native reason=stale\n";
  assert_int_equal(vc_expectations_parse("x.txt", text, &e, &err), 0);
  vc_run_verdict rv = {0};
  vc_result r = native_result();
  r.mode = "host-split";
  vc_verdict_skipped(&e, vc_expectations_match(&e, &lavapipe, 20261201, "slow", "host-split"),
                     &r);
  assert_int_equal(r.status, VC_ST_SKIP);
  assert_string_equal(r.reason, "not run: skip expectation x.txt:1: hangs");
  vc_verdict v = vc_verdict_of(&e, &lavapipe, 20261201, "slow", &r);
  assert_int_equal(v.excuse, VC_EXCUSE_SKIPPED);
  vc_run_verdict_add(&rv, &v);
  r.status = VC_ST_CRASH;
  v = vc_verdict_of(&e, &lavapipe, 20261201, "bad", &r);
  assert_int_equal(v.excuse, VC_EXCUSE_EXPECTED);
  vc_run_verdict_add(&rv, &v);
  r = native_result();
  v = vc_verdict_of(&e, &lavapipe, 20261201, "good", &r);
  assert_int_equal(v.excuse, VC_EXCUSE_IMPROVEMENT);
  vc_run_verdict_add(&rv, &v);
  assert_int_equal(rv.skipped, 1);
  assert_int_equal(rv.excused, 1);
  assert_int_equal(rv.improvements, 1);
  assert_int_equal(vc_run_verdict_exit(&rv), VC_EXIT_OK);
  rv.expired = 1;
  assert_int_equal(vc_run_verdict_exit(&rv), VC_EXIT_EXPIRED);
  r.status = VC_ST_INVALID;
  v = vc_verdict_of(&e, &lavapipe, 20261201, "other", &r);
  vc_run_verdict_add(&rv, &v);
  assert_int_equal(vc_run_verdict_exit(&rv), VC_EXIT_INPUT);
  r.status = VC_ST_DIVERGE;
  v = vc_verdict_of(&e, &lavapipe, 20261201, "bad", &r); /* native: not the entry's mode */
  vc_run_verdict_add(&rv, &v);
  /* the one precedence (vc_exit_worst): input 4 > expired 6 > fail 1 */
  assert_int_equal(vc_run_verdict_exit(&rv), VC_EXIT_INPUT);
  rv.invalid = 0;
  assert_int_equal(vc_run_verdict_exit(&rv), VC_EXIT_EXPIRED);
  rv.expired = 0;
  assert_int_equal(vc_run_verdict_exit(&rv), VC_EXIT_FAIL);
  vc_expectations_free(&e);
}

/* A run in which nothing was checked is not a pass: every result skipped
   (by an entry, or after a step) or unsupported gives exit 9; one pass or
   one failure an entry excuses is coverage; a failure still gives 1, an
   expired entry 6; a resumed run's earlier part is not judged here. */
static void nothing_ran_is_not_run(void **state) {
  (void)state;
  vc_expectations e;
  vc_error err = {0};
  const char text[] = "skip * host-split reason=hangs\nfail bad native reason=known\n";
  assert_int_equal(vc_expectations_parse("x.txt", text, &e, &err), 0);
  vc_run_verdict rv = {0};
  assert_int_equal(vc_run_verdict_exit(&rv), VC_EXIT_NOT_RUN); /* no result at all */
  vc_result r = native_result();
  r.mode = "host-split";
  vc_verdict_skipped(&e, vc_expectations_match(&e, &lavapipe, 20261201, "p", "host-split"), &r);
  vc_verdict v = vc_verdict_of(&e, &lavapipe, 20261201, "p", &r);
  vc_run_verdict_add(&rv, &v);
  r = native_result();
  r.status = VC_ST_UNSUPPORTED;
  v = vc_verdict_of(&e, &lavapipe, 20261201, "p", &r);
  vc_run_verdict_add(&rv, &v);
  vc_verdict_after_step("setup", VC_ST_CRASH, &r);
  v = vc_verdict_of(&e, &lavapipe, 20261201, "q", &r);
  vc_run_verdict_add(&rv, &v);
  assert_true(vc_run_verdict_not_run(&rv));
  assert_int_equal(vc_run_verdict_exit(&rv), VC_EXIT_NOT_RUN);
  vc_run_verdict before = rv;
  rv.expired = 1;
  assert_int_equal(vc_run_verdict_exit(&rv), VC_EXIT_EXPIRED);
  rv = before;
  rv.earlier = 3;
  assert_int_equal(vc_run_verdict_exit(&rv), VC_EXIT_OK);
  rv = before;
  r = native_result();
  r.status = VC_ST_DIVERGE;
  v = vc_verdict_of(&e, &lavapipe, 20261201, "bad", &r); /* excused: it ran */
  vc_run_verdict_add(&rv, &v);
  assert_int_equal(rv.covered, 1);
  assert_int_equal(vc_run_verdict_exit(&rv), VC_EXIT_OK);
  rv = before;
  r = native_result();
  v = vc_verdict_of(&e, &lavapipe, 20261201, "good", &r);
  vc_run_verdict_add(&rv, &v);
  assert_int_equal(vc_run_verdict_exit(&rv), VC_EXIT_OK);
  rv = before;
  r.status = VC_ST_DIVERGE;
  v = vc_verdict_of(&e, &lavapipe, 20261201, "other", &r);
  vc_run_verdict_add(&rv, &v);
  assert_int_equal(vc_run_verdict_exit(&rv), VC_EXIT_FAIL);
  vc_expectations_free(&e);
}

/* One precedence of exit statuses for run, compare and ci/nightly: the
   judgement could not be made as asked, then it failed, then nothing ran. */
static void exit_status_precedence(void **state) {
  (void)state;
  static const int order[] = {VC_EXIT_INTERRUPTED, VC_EXIT_USAGE,   VC_EXIT_NO_BACKEND,
                              VC_EXIT_DB,          VC_EXIT_INTERNAL, VC_EXIT_PLANTED,
                              VC_EXIT_PKG_INVALID, VC_EXIT_INPUT,    VC_EXIT_EXPIRED,
                              VC_EXIT_FAIL,        VC_EXIT_PKG_WARNINGS, VC_EXIT_NOT_RUN,
                              VC_EXIT_NOTHING,     VC_EXIT_OK};
  int n = (int)(sizeof order / sizeof order[0]);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      int want = order[i < j ? i : j];
      assert_int_equal(vc_exit_worst(order[i], order[j]), want);
    }
  assert_int_equal(vc_exit_worst(VC_EXIT_FAIL, 77), 77); /* unknown: passed through */
  assert_int_equal(vc_exit_worst(VC_EXIT_OK, VC_EXIT_OK), VC_EXIT_OK);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(exit_status_precedence),
      cmocka_unit_test(self_check_failure_is_untrustworthy),
      cmocka_unit_test(untrustworthy_excused_only_in_scope),
      cmocka_unit_test(errors_and_stopped_workers),
      cmocka_unit_test(steps_and_repeats),
      cmocka_unit_test(exit_status_from_verdicts),
      cmocka_unit_test(nothing_ran_is_not_run),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
