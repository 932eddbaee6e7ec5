/* What makes a program invalid: each check, its count, its description,
   and vc_oracle_invalid's verdict. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "oracle_util.h"

static const vc_oracle_opts reverse = {VC_ORDER_REVERSE, 0, false, 0, 0};

static void assert_contains(const char *text, const char *part) {
  if (!strstr(text, part)) print_error("\"%s\" does not contain \"%s\"\n", text, part);
  assert_non_null(strstr(text, part));
}

/* Only issue `kind` occurred, count times. */
static void assert_only(const vt_run *r, vc_issue_kind kind, uint64_t count) {
  for (int k = 0; k < VC_ISSUE_COUNT; k++) {
    if (r->rep.issues[k].count != (k == (int)kind ? count : 0))
      print_error("issue %d: %s\n", k, r->rep.issues[k].msg);
    assert_int_equal(r->rep.issues[k].count, k == (int)kind ? count : 0);
  }
}

static void assert_valid(const vt_run *r) {
  for (int k = 0; k < VC_ISSUE_COUNT; k++) {
    if (r->rep.issues[k].count) print_error("issue %d: %s\n", k, r->rep.issues[k].msg);
    assert_int_equal(r->rep.issues[k].count, 0);
  }
  assert_string_equal(vt_invalid(r), "");
}

static void out_of_bounds_without_expect(void **state) {
  (void)state;
  vt_run r;
  vt_exec(&r,
          "(program oob (workgroup 4) (buffer out u32 4 write)\n"
          " (entry (store out (add (local_id x) 2u) 1u)))",
          NULL);
  assert_only(&r, VC_ISSUE_OOB, 2);
  const vc_oracle_issue *is = &r.rep.issues[VC_ISSUE_OOB];
  assert_int_equal(is->index, 4);
  assert_int_equal(is->inv_a, 2);
  assert_int_equal(is->loc.line, 2);
  assert_int_equal(is->loc.col, 9);
  assert_contains(is->msg, "out-of-bounds store to out[4] (4 elements) by invocation 2");
  assert_contains(is->msg, "segment 0 at 2:9");
  const char *why = vt_invalid(&r);
  assert_contains(why, "out[4]");
  assert_contains(why, "(2 occurrences)");
  assert_null(strchr(why, '\n'));
  vt_done(&r);
}

static void expect_out_of_bounds_without_any(void **state) {
  (void)state;
  vt_run r;
  vt_exec(&r, "(program e (expect out-of-bounds) (buffer out u32 4 write) (entry (store out 3u 1u)))",
          NULL);
  for (int k = 0; k < VC_ISSUE_COUNT; k++) assert_int_equal(r.rep.issues[k].count, 0);
  assert_contains(vt_invalid(&r), "(expect out-of-bounds) but no access was out of bounds");
  vt_done(&r);
}

static void uninitialised_shared_read(void **state) {
  (void)state;
  vt_run r;
  vt_exec(&r,
          "(program u (workgroup 4) (grid 2) (buffer out u32 8 write) (shared t u32 4)\n"
          " (entry (store t (local_id x) 1u) (barrier workgroup)\n"
          "  (store out (global_id x) (load t (sub 3u (local_id x))))\n"
          "  (barrier workgroup)\n"
          "  (if (eq (local_id x) 0u) (store out (global_id x) (atomic add t 3u 0u)))))",
          NULL);
  assert_valid(&r); /* written by another invocation, then a barrier: fine */
  vt_done(&r);

  vt_exec(&r,
          "(program u (workgroup 4) (grid 2) (buffer out u32 8 write) (shared t u32 8)\n"
          " (entry (store t (local_id x) 1u) (barrier workgroup)\n"
          "  (store out (global_id x) (load t (add (local_id x) 4u)))))",
          NULL);
  assert_only(&r, VC_ISSUE_UNINIT_SHARED, 8);
  const vc_oracle_issue *is = &r.rep.issues[VC_ISSUE_UNINIT_SHARED];
  assert_int_equal(is->space, VC_SPACE_SHARED);
  assert_int_equal(is->ref, 0);
  assert_int_equal(is->index, 4);
  assert_int_equal(is->inv_a, 0);
  assert_contains(is->msg, "load of workgroup memory t[4] before any write in segment 0");
  assert_contains(vt_invalid(&r), "t[4]");
  vt_done(&r);

  /* an atomic reads the old value too */
  vt_exec(&r,
          "(program u (buffer out u32 1 write) (shared t u32 1)\n"
          " (entry (store out 0u (atomic add t 0u 1u))))",
          NULL);
  assert_only(&r, VC_ISSUE_UNINIT_SHARED, 1);
  assert_contains(r.rep.issues[VC_ISSUE_UNINIT_SHARED].msg, "atomic on workgroup memory t[0]");
  vt_done(&r);
}

static void race_write_write_across_workgroups(void **state) {
  (void)state;
  vt_run r;
  vt_exec(&r,
          "(program ww (workgroup 2) (grid 3) (buffer out u32 4 write)\n"
          " (entry (if (eq (local_id x) 1u) (store out 1u (group_id x)))))",
          NULL);
  assert_only(&r, VC_ISSUE_RACE, 2);
  const vc_oracle_issue *is = &r.rep.issues[VC_ISSUE_RACE];
  assert_int_equal(is->inv_a, 3);
  assert_int_equal(is->inv_b, 1);
  assert_int_equal(is->index, 1);
  assert_int_equal(is->segment, 0);
  assert_contains(is->msg, "data race on out[1] in segment 0: store by invocation 3 at 2:34");
  assert_contains(is->msg, "store by invocation 1 of another workgroup");
  assert_contains(vt_invalid(&r), "data race on out[1]");
  vt_done(&r);
}

/* One invocation reads what another writes in the same phase, in either order. */
static void race_read_write_within_a_phase(void **state) {
  (void)state;
  static const char *const progs[] = {
      "(program rw (workgroup 2) (buffer b u32 2 read_write) (buffer out u32 2 write)\n"
      " (entry (if (eq (local_id x) 0u) (store b 0u 5u) (store out 1u (load b 0u)))))",
      "(program rw (workgroup 2) (buffer out u32 2 write) (shared s u32 1)\n"
      " (entry (if (eq (local_id x) 0u) (store s 0u 5u) (store out 1u (load s 0u)))))",
  };
  for (int k = 0; k < 2; k++) {
    vt_run r;
    vt_exec(&r, progs[k], NULL);
    assert_only(&r, VC_ISSUE_RACE, 1);
    const vc_oracle_issue *is = &r.rep.issues[VC_ISSUE_RACE];
    assert_int_equal(is->inv_a, 1);
    assert_int_equal(is->inv_b, 0);
    assert_int_equal(is->space, k == 0 ? VC_SPACE_BUFFER : VC_SPACE_SHARED);
    assert_contains(is->msg, "load by invocation 1");
    assert_contains(is->msg, "store by invocation 0 of the same workgroup with no barrier between");
    /* reversed, the read comes first (the shared one is also read before written) */
    vt_rerun(&r, &reverse);
    assert_int_equal(r.rep.issues[VC_ISSUE_RACE].count, 1);
    assert_int_equal(r.rep.issues[VC_ISSUE_RACE].inv_a, 0);
    assert_int_equal(r.rep.issues[VC_ISSUE_RACE].inv_b, 1);
    assert_contains(r.rep.issues[VC_ISSUE_RACE].msg, "store by invocation 0");
    vt_done(&r);
  }
}

static void no_race_when_ordered_by_a_barrier(void **state) {
  (void)state;
  static const char *const progs[] = {
      "(program ok (workgroup 2) (buffer b u32 2 read_write) (buffer out u32 2 write)\n"
      " (entry (if (eq (local_id x) 0u) (store b 0u 5u)) (barrier workgroup)\n"
      "  (if (eq (local_id x) 1u) (block (store out 1u (load b 0u)) (store b 0u 6u)))))",
      "(program ok (workgroup 2) (buffer out u32 2 write) (shared s u32 1)\n"
      " (entry (if (eq (local_id x) 0u) (store s 0u 5u)) (barrier workgroup)\n"
      "  (if (eq (local_id x) 1u) (block (store out 1u (load s 0u)) (store s 0u 6u)))))",
      /* different segments are ordered too; one invocation never races itself */
      "(program ok (workgroup 2) (grid 2) (buffer b u32 4 read_write)\n"
      " (entry (store b (global_id x) (add (load b (global_id x)) 1u))\n"
      "  (barrier grid) (store b (sub 3u (global_id x)) 7u)))",
      /* atomics never race with atomics */
      "(program ok (workgroup 8) (grid 4) (buffer c u32 1 read_write)\n"
      " (entry (atomic add c 0u 1u) (atomic max c 0u (global_id x))))",
      /* atomic loads and stores are atomics: no race with each other or others */
      "(program ok (workgroup 8) (grid 4) (buffer c u32 1 read_write) (buffer out u32 32 write)\n"
      " (entry (atomic store c 0u (global_id x)) (store out (global_id x) (atomic load c 0u))\n"
      "  (atomic add c 0u 1u)))",
      "(program ok (workgroup 8) (buffer out u32 8 write) (shared s u32 1)\n"
      " (entry (atomic store s 0u 1u) (store out (local_id x) (atomic load s 0u))))",
      /* reads never race with reads */
      "(program ok (workgroup 8) (grid 4) (buffer c u32 1 read) (buffer out u32 32 write)\n"
      " (entry (store out (global_id x) (load c 0u))))",
  };
  for (size_t k = 0; k < sizeof progs / sizeof *progs; k++) {
    vt_run r;
    vt_exec(&r, progs[k], NULL);
    assert_valid(&r);
    vt_rerun(&r, &reverse);
    assert_valid(&r);
    vt_done(&r);
  }
}

/* A barrier orders only its own workgroup. */
static void barrier_does_not_order_other_workgroups(void **state) {
  (void)state;
  vt_run r;
  vt_exec(&r,
          "(program x (workgroup 2) (grid 2) (buffer b u32 1 read_write) (buffer out u32 4 write)\n"
          " (entry (if (eq (global_id x) 0u) (store b 0u 5u)) (barrier workgroup)\n"
          "  (store out (global_id x) (load b 0u))))",
          NULL);
  assert_only(&r, VC_ISSUE_RACE, 2); /* both invocations of workgroup 1 */
  assert_int_equal(r.rep.issues[VC_ISSUE_RACE].inv_a, 2);
  assert_int_equal(r.rep.issues[VC_ISSUE_RACE].inv_b, 0);
  vt_done(&r);
}

static void atomic_and_plain_access_race(void **state) {
  (void)state;
  vt_run r;
  vt_exec(&r,
          "(program ap (workgroup 2) (buffer c u32 1 read_write) (buffer out u32 2 write)\n"
          " (entry (if (eq (local_id x) 0u) (atomic add c 0u 1u) (store out 1u (load c 0u)))))",
          NULL);
  assert_only(&r, VC_ISSUE_RACE, 1);
  assert_contains(r.rep.issues[VC_ISSUE_RACE].msg, "load by invocation 1");
  assert_contains(r.rep.issues[VC_ISSUE_RACE].msg, "atomic by invocation 0");
  vt_done(&r);
}

/* An atomic load or store races with a plain access of the element. */
static void atomic_load_store_race_with_plain_access(void **state) {
  (void)state;
  vt_run r;
  vt_exec(&r,
          "(program ap (workgroup 2) (buffer c u32 1 read_write) (buffer out u32 2 write)\n"
          " (entry (if (eq (local_id x) 0u) (atomic store c 0u 1u) (store out 1u (load c 0u)))))",
          NULL);
  assert_only(&r, VC_ISSUE_RACE, 1);
  assert_contains(r.rep.issues[VC_ISSUE_RACE].msg, "load by invocation 1");
  assert_contains(r.rep.issues[VC_ISSUE_RACE].msg, "atomic by invocation 0");
  vt_done(&r);
  vt_exec(&r,
          "(program ap (workgroup 1) (grid 2) (buffer c u32 1 read_write) (buffer out u32 2 write)\n"
          " (entry (if (eq (group_id x) 0u) (store c 0u 1u)\n"
          "  (store out 1u (atomic load c 0u)))))",
          NULL);
  assert_only(&r, VC_ISSUE_RACE, 1);
  assert_contains(r.rep.issues[VC_ISSUE_RACE].msg, "atomic by invocation 1");
  assert_contains(r.rep.issues[VC_ISSUE_RACE].msg, "store by invocation 0 of another workgroup");
  vt_done(&r);
  /* an atomic load of workgroup memory nobody wrote is an uninitialised read */
  vt_exec(&r,
          "(program u (workgroup 2) (buffer out u32 2 write) (shared s u32 1)\n"
          " (entry (store out (local_id x) (atomic load s 0u))))",
          NULL);
  assert_only(&r, VC_ISSUE_UNINIT_SHARED, 2);
  assert_contains(r.rep.issues[VC_ISSUE_UNINIT_SHARED].msg, "atomic load of workgroup memory s[0]");
  vt_done(&r);
}

static void barrier_not_reached_by_all(void **state) {
  (void)state;
  vt_run r;
  vt_exec(&r,
          "(program b (workgroup 4) (grid 2) (buffer out u32 8 write)\n"
          " (entry (if (lt (local_id x) 2u) (barrier workgroup))\n"
          "  (store out (global_id x) 1u)))",
          NULL);
  assert_only(&r, VC_ISSUE_BARRIER, 2); /* once per workgroup */
  const vc_oracle_issue *is = &r.rep.issues[VC_ISSUE_BARRIER];
  assert_int_equal(is->inv_a, 0);
  assert_int_equal(is->inv_b, 2);
  assert_int_equal(is->loc.line, 2);
  assert_contains(is->msg, "workgroup barrier at 2:34 not reached by all invocations of workgroup 0");
  assert_contains(is->msg, "invocation 0 waits there, invocation 2 finished the segment");
  for (int i = 0; i < 8; i++) assert_int_equal(vt_buf(&r, "out")[i], 1); /* all went on */
  assert_contains(vt_invalid(&r), "workgroup barrier at 2:34");
  vt_done(&r);

  vt_exec(&r,
          "(program b (workgroup 2) (buffer out u32 2 write)\n"
          " (entry (if (eq (local_id x) 1u) (return)) (barrier workgroup)))",
          NULL);
  assert_only(&r, VC_ISSUE_BARRIER, 1);
  assert_contains(r.rep.issues[VC_ISSUE_BARRIER].msg, "invocation 1 returned at 2:34");
  vt_done(&r);

  vt_exec(&r,
          "(program b (workgroup 2) (buffer out u32 2 write)\n"
          " (entry (if (eq (local_id x) 1u) (barrier workgroup) (barrier workgroup))))",
          NULL);
  assert_only(&r, VC_ISSUE_BARRIER, 1);
  assert_contains(r.rep.issues[VC_ISSUE_BARRIER].msg,
                  "barrier at 2:54 not reached by all invocations of workgroup 0 in segment 0: "
                  "invocation 0 waits there, invocation 1 waits at the barrier at 2:34");
  vt_done(&r);

  /* the same barrier a different number of times */
  vt_exec(&r,
          "(program b (workgroup 2) (buffer out u32 2 write)\n"
          " (entry (loop i 0u (add (local_id x) 1u) (barrier workgroup))))",
          NULL);
  assert_only(&r, VC_ISSUE_BARRIER, 1);
  vt_done(&r);
}

static void messages_name_the_fixpoint_pass(void **state) {
  (void)state;
  vt_run r;
  vt_exec(&r,
          "(program fp (fixpoint (max 3)) (grid 2) (buffer b u32 1 read_write)\n"
          " (entry (barrier grid) (store b 0u (group_id x))))",
          NULL);
  assert_only(&r, VC_ISSUE_RACE, 3);
  assert_int_equal(r.rep.issues[VC_ISSUE_RACE].segment, 1);
  assert_contains(r.rep.issues[VC_ISSUE_RACE].msg, "data race on b[0] in segment 1 of pass 1:");
  vt_done(&r);
}

/* no_checks drops race and uninitialised-read tracking only. */
static void no_checks_keeps_bounds_and_barriers(void **state) {
  (void)state;
  static const char prog[] =
      "(program nc (workgroup 2) (grid 2) (expect out-of-bounds) (buffer out u32 2 write)\n"
      " (shared s u32 1)\n"
      " (entry (store out 0u (load s 0u)) (store out 5u 1u)\n"
      "  (if (eq (local_id x) 0u) (barrier workgroup))))";
  vt_run r;
  vt_exec(&r, prog, NULL);
  assert_true(r.rep.issues[VC_ISSUE_RACE].count > 0);
  assert_true(r.rep.issues[VC_ISSUE_UNINIT_SHARED].count > 0);
  assert_int_equal(r.rep.issues[VC_ISSUE_OOB].count, 4);
  assert_int_equal(r.rep.issues[VC_ISSUE_BARRIER].count, 2);
  vc_oracle_opts fast = {VC_ORDER_FORWARD, 0, true, 0, 0};
  vt_rerun(&r, &fast);
  assert_int_equal(r.rep.issues[VC_ISSUE_RACE].count, 0);
  assert_int_equal(r.rep.issues[VC_ISSUE_UNINIT_SHARED].count, 0);
  assert_int_equal(r.rep.issues[VC_ISSUE_OOB].count, 4);
  assert_int_equal(r.rep.issues[VC_ISSUE_BARRIER].count, 2);
  assert_int_equal(vt_buf(&r, "out")[0], 0xDEADBEEFu); /* still the poison */
  vt_done(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(out_of_bounds_without_expect),
      cmocka_unit_test(expect_out_of_bounds_without_any),
      cmocka_unit_test(uninitialised_shared_read),
      cmocka_unit_test(race_write_write_across_workgroups),
      cmocka_unit_test(race_read_write_within_a_phase),
      cmocka_unit_test(no_race_when_ordered_by_a_barrier),
      cmocka_unit_test(barrier_does_not_order_other_workgroups),
      cmocka_unit_test(atomic_and_plain_access_race),
      cmocka_unit_test(atomic_load_store_race_with_plain_access),
      cmocka_unit_test(barrier_not_reached_by_all),
      cmocka_unit_test(messages_name_the_fixpoint_pass),
      cmocka_unit_test(no_checks_keeps_bounds_and_barriers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
