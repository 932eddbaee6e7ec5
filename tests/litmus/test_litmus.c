/* The litmus layer without a device: the pairing, the outcome tables, the
 * programs of every test x access x place, and whole runs on the oracle
 * backend, where the split places must show no forbidden outcome. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness/lang/parse.h"
#include "harness/litmus/litmus.h"
#include "harness/litmus/progress.h"
#include "harness/split/split.h"
#include "harness/exec/reference.h"
#include "oracles/oracle.h"
#include "oracles/oracle_backend.h"

static void small(vc_litmus_opts *o) {
  vc_litmus_opts_default(o);
  o->launches = 3;
  o->workgroup = 8;
  o->testing_groups = 4;
  o->stress_groups = 1;
  o->stress_iters = 2;
  o->scratch = 16;
}

/* Every instance has one B, in another workgroup; launches differ, a seed
   gives the same pairing twice. */
static void pairing_is_a_derangement_of_workgroups(void **state) {
  (void)state;
  enum { G = 5, W = 4, T = G * W };
  uint32_t a[T], b[T], c[T];
  vc_error e;
  assert_int_equal(vc_litmus_pairing(7, 0, G, W, a, &e), 0);
  assert_int_equal(vc_litmus_pairing(7, 0, G, W, b, &e), 0);
  assert_int_equal(vc_litmus_pairing(7, 1, G, W, c, &e), 0);
  assert_memory_equal(a, b, sizeof a);
  assert_memory_not_equal(a, c, sizeof a);
  bool seen[T] = {false};
  for (uint32_t g = 0; g < T; g++) {
    assert_true(a[g] < T);
    assert_false(seen[a[g]]);
    seen[a[g]] = true;
    assert_int_not_equal(a[g] / W, g / W);
  }
}

/* Names round-trip; "other" is forbidden everywhere; a weak outcome is
   forbidden across the barrier and allowed in a control, except where the
   atomics forbid it anyway. */
static void outcome_tables(void **state) {
  (void)state;
  for (int t = 0; t < VC_LITMUS_TEST_COUNT; t++) {
    assert_int_equal(vc_litmus_test_from_name(vc_litmus_test_name((vc_litmus_test_id)t)), t);
    uint32_t n = vc_litmus_outcomes((vc_litmus_test_id)t);
    assert_true(n >= 4 && n <= VC_LITMUS_MAX_OUTCOMES);
    assert_string_equal(vc_litmus_outcome_name((vc_litmus_test_id)t, n - 1), "other");
    uint32_t weak = 0;
    for (uint32_t o = 0; o < n; o++) {
      for (int p = 0; p < VC_LITMUS_PLACE_COUNT; p++)
        if (o == n - 1)
          assert_true(vc_litmus_forbidden((vc_litmus_test_id)t, VC_LITMUS_ACCESS_PLAIN,
                                          (vc_litmus_place)p, o));
      if (!vc_litmus_weak((vc_litmus_test_id)t, o)) continue;
      weak++;
      assert_true(vc_litmus_forbidden((vc_litmus_test_id)t, VC_LITMUS_ACCESS_PLAIN,
                                      VC_LITMUS_PLACE_NATIVE, o));
      assert_false(vc_litmus_forbidden((vc_litmus_test_id)t, VC_LITMUS_ACCESS_PLAIN,
                                       VC_LITMUS_PLACE_NONE, o));
    }
    assert_int_equal(weak, 1);
  }
  assert_int_equal(vc_litmus_place_from_name("resident-split"), VC_LITMUS_PLACE_RESIDENT_SPLIT);
  assert_int_equal(vc_litmus_access_from_name("atomic"), VC_LITMUS_ACCESS_ATOMIC);
  assert_int_equal(vc_litmus_test_from_name("mpx"), -1);
  /* coherence and 64-bit atomicity hold with no ordering at all */
  assert_true(vc_litmus_forbidden(VC_LITMUS_CORR, VC_LITMUS_ACCESS_ATOMIC, VC_LITMUS_PLACE_NONE, 2));
  assert_false(vc_litmus_forbidden(VC_LITMUS_CORR, VC_LITMUS_ACCESS_PLAIN, VC_LITMUS_PLACE_NONE, 2));
  assert_true(vc_litmus_forbidden(VC_LITMUS_TORN64, VC_LITMUS_ACCESS_ATOMIC, VC_LITMUS_PLACE_NONE, 2));
}

static void classify_reads_the_outputs(void **state) {
  (void)state;
  uint32_t r[8] = {1, 0, 0, 1, 7, 0, ~0u, 0};
  uint32_t x[4] = {1, 2, 2, 3}, y[4] = {1, 2, 1, 1};
  assert_int_equal(vc_litmus_classify(VC_LITMUS_MP, r, x, y, 0), 2);     /* r0=1 r1=0 */
  assert_int_equal(vc_litmus_classify(VC_LITMUS_SB, r, x, y, 1), 1);     /* r0=0 r1=1 */
  assert_int_equal(vc_litmus_classify(VC_LITMUS_LB, r, x, y, 2), 4);     /* other */
  assert_int_equal(vc_litmus_classify(VC_LITMUS_W22, r, x, y, 0), 0);    /* x=1 y=1 */
  assert_int_equal(vc_litmus_classify(VC_LITMUS_W22, r, x, y, 2), 2);    /* x=2 y=1 */
  assert_int_equal(vc_litmus_classify(VC_LITMUS_W22, r, x, y, 3), 4);    /* other */
  assert_int_equal(vc_litmus_classify(VC_LITMUS_TORN64, r, x, y, 3), 2); /* torn */
  assert_int_equal(vc_litmus_classify(VC_LITMUS_TORN64, r, x, y, 2), 3); /* other */
}

/* Every program parses and splits into as many segments as its place says. */
static void every_program_builds(void **state) {
  (void)state;
  vc_litmus_opts o;
  small(&o);
  for (int t = 0; t < VC_LITMUS_TEST_COUNT; t++)
    for (int a = 0; a < VC_LITMUS_ACCESS_COUNT; a++)
      for (int p = 0; p < VC_LITMUS_PLACE_COUNT; p++) {
        vc_strbuf sb;
        vc_sb_init(&sb);
        vc_litmus_program((vc_litmus_test_id)t, (vc_litmus_access)a, (vc_litmus_place)p, &o, NULL,
                          &sb);
        vc_diags d;
        vc_diags_init(&d);
        vc_program *prog = vc_parse("litmus", vc_sb_str(&sb), strlen(vc_sb_str(&sb)), &d);
        if (!prog) {
          vc_diags_print(&d, stderr);
          fprintf(stderr, "%s", vc_sb_str(&sb));
        }
        assert_non_null(prog);
        vc_split *s = NULL;
        vc_error e;
        vc_error_clear(&e);
        assert_int_equal(vc_split_program(prog, &s, &e), 0);
        bool grid = p != VC_LITMUS_PLACE_NONE && p != VC_LITMUS_PLACE_WORKGROUP;
        assert_int_equal(s->nsegs, grid ? 2 : 1);
        vc_split_free(s);
        vc_program_free(prog);
        vc_diags_free(&d);
        vc_sb_free(&sb);
      }
}

/* Is the program of (t, a, p), with a real pairing, one the oracle calls
   valid (no race, no out-of-bounds access)? */
static bool valid(vc_litmus_test_id t, vc_litmus_access a, vc_litmus_place p,
                  const vc_litmus_opts *o, char *why, size_t n) {
  uint32_t pair[4 * 8];
  vc_error e;
  vc_error_clear(&e);
  assert_int_equal(vc_litmus_pairing(o->seed, 0, o->testing_groups, o->workgroup, pair, &e), 0);
  vc_strbuf sb;
  vc_sb_init(&sb);
  vc_litmus_program(t, a, p, o, pair, &sb);
  vc_diags d;
  vc_diags_init(&d);
  vc_program *prog = vc_parse("litmus", vc_sb_str(&sb), strlen(vc_sb_str(&sb)), &d);
  assert_non_null(prog);
  vc_reference ref;
  assert_int_equal(vc_reference_run(prog, NULL, &ref, &e), 0);
  bool ok = !vc_oracle_invalid(prog, &ref.report, why, n);
  vc_reference_free(&ref);
  vc_program_free(prog);
  vc_diags_free(&d);
  vc_sb_free(&sb);
  return ok;
}

/* Across the barrier every test is a valid program in both accesses (its
   races are on atomics only), so a forbidden outcome there is the device's
   or the splitter's; the plain controls race on purpose. */
static void barrier_programs_are_valid(void **state) {
  (void)state;
  vc_litmus_opts o;
  small(&o);
  char why[256];
  for (int t = 0; t < VC_LITMUS_TEST_COUNT; t++)
    for (int a = 0; a < VC_LITMUS_ACCESS_COUNT; a++) {
      if (!valid((vc_litmus_test_id)t, (vc_litmus_access)a, VC_LITMUS_PLACE_HOST_SPLIT, &o, why,
                 sizeof why))
        fail_msg("%s %s: %s", vc_litmus_test_name((vc_litmus_test_id)t),
                 vc_litmus_access_name((vc_litmus_access)a), why);
    }
  assert_false(valid(VC_LITMUS_SB, VC_LITMUS_ACCESS_PLAIN, VC_LITMUS_PLACE_NONE, &o, why, sizeof why));
  assert_non_null(strstr(why, "data race"));
}

typedef struct seen {
  uint32_t rows;
  uint64_t forbidden;
  uint64_t across_barrier_outcomes; /* in the controls: outcomes the barrier forbids */
} seen;

static int collect(void *ctx, const vc_litmus_row *r) {
  seen *s = ctx;
  s->rows++;
  assert_false(r->errored);
  if (r->unsupported) return 0;
  assert_int_equal(r->iterations, 3 * 4 * 8);
  uint64_t sum = 0;
  for (uint32_t o = 0; o < vc_litmus_outcomes(r->test); o++) {
    sum += r->counts[o];
    if (vc_litmus_place_is_control(r->place) &&
        vc_litmus_forbidden(r->test, r->access, VC_LITMUS_PLACE_HOST_SPLIT, o))
      s->across_barrier_outcomes += r->counts[o];
  }
  assert_int_equal(sum, r->iterations);
  s->forbidden += r->forbidden;
  return 0;
}

/* The oracle is sequentially consistent and runs segment by segment: no
   place shows a forbidden outcome, native is unsupported there, and the
   controls show outcomes that a barrier would forbid (so the counting can
   see them). */
static void oracle_runs_show_no_forbidden_outcome(void **state) {
  (void)state;
  const vc_backend *be = vc_oracle_backend();
  vc_dev *dev = NULL;
  vc_error e;
  vc_error_clear(&e);
  assert_int_equal(be->open(0, "checks=off", &dev, &e), 0);
  vc_litmus_opts o;
  small(&o);
  seen s = {0, 0, 0};
  vc_litmus_sink sink = {&s, NULL, collect};
  assert_int_equal(vc_litmus_run(be, dev, &o, &sink, &e), 0);
  assert_int_equal(s.rows, VC_LITMUS_TEST_COUNT * VC_LITMUS_ACCESS_COUNT * VC_LITMUS_PLACE_COUNT);
  assert_int_equal(s.forbidden, 0);
  assert_true(s.across_barrier_outcomes > 0);
  be->close(dev);
}

static void options_out_of_range(void **state) {
  (void)state;
  vc_litmus_opts o;
  vc_error e;
  small(&o);
  o.testing_groups = 1;
  assert_int_equal(vc_litmus_opts_check(&o, &e), VC_ERR_USAGE);
  assert_non_null(strstr(e.msg, "--testing-groups"));
  small(&o);
  o.testing_groups = 65000;
  o.stress_groups = 600;
  assert_int_equal(vc_litmus_opts_check(&o, &e), VC_ERR_USAGE);
  assert_non_null(strstr(e.msg, "65535"));
  small(&o);
  memset(o.places, 0, sizeof o.places);
  assert_int_equal(vc_litmus_opts_check(&o, &e), VC_ERR_USAGE);
  assert_non_null(strstr(e.msg, "no place"));
}

/* The forward-progress program checks itself: on the oracle (every barrier
   holds) each counter ends at the invocation count and every invocation saw
   every count whole; the program is valid (its race is on atomics only). */
static void progress_program_checks_itself(void **state) {
  (void)state;
  vc_progress_opts o;
  vc_progress_opts_default(&o);
  o.barriers = 3;
  o.workgroup = 4;
  o.groups = 5;
  vc_strbuf sb;
  vc_sb_init(&sb);
  vc_progress_program(&o, &sb);
  vc_diags d;
  vc_diags_init(&d);
  vc_program *prog = vc_parse("progress", vc_sb_str(&sb), strlen(vc_sb_str(&sb)), &d);
  assert_non_null(prog);
  vc_error e;
  vc_error_clear(&e);
  vc_split *s = NULL;
  assert_int_equal(vc_split_program(prog, &s, &e), 0);
  assert_int_equal(s->nsegs, 4);
  vc_reference ref;
  assert_int_equal(vc_reference_run(prog, NULL, &ref, &e), 0);
  char why[256];
  assert_false(vc_oracle_invalid(prog, &ref.report, why, sizeof why));
  for (uint32_t b = 0; b < 3; b++) assert_int_equal(ref.outputs[0][b], 20);
  for (uint32_t g = 0; g < 20; g++) assert_int_equal(ref.outputs[1][g], 3);
  vc_reference_free(&ref);
  vc_split_free(s);
  vc_program_free(prog);
  vc_diags_free(&d);
  vc_sb_free(&sb);
}

/* The verdicts: a hang fails either check; over the occupancy a release
   fails and a refusal or a wait that gave up is detection; among
   co-resident participants only releases pass. The oracle has no native
   mode: unsupported. */
static void progress_verdicts(void **state) {
  (void)state;
  vc_progress_row r;
  memset(&r, 0, sizeof r);
  r.check = VC_PROGRESS_CORESIDENT;
  r.ran = r.released = 4;
  assert_string_equal(vc_progress_verdict(&r), "pass");
  r.gave_up = 1;
  assert_string_equal(vc_progress_verdict(&r), "FAIL");
  r.gave_up = 0;
  r.wrong = 1;
  assert_string_equal(vc_progress_verdict(&r), "FAIL");
  r.wrong = 0;
  r.refused = 1;
  assert_string_equal(vc_progress_verdict(&r), "FAIL");
  memset(&r, 0, sizeof r);
  r.check = VC_PROGRESS_OVER;
  r.ran = r.gave_up = 1;
  r.refused = 1;
  assert_string_equal(vc_progress_verdict(&r), "detected");
  r.released = 1;
  assert_string_equal(vc_progress_verdict(&r), "FAIL");
  r.released = 0;
  r.hung = 1;
  assert_string_equal(vc_progress_verdict(&r), "FAIL");
  const vc_backend *be = vc_oracle_backend();
  vc_dev *dev = NULL;
  vc_error e;
  vc_error_clear(&e);
  assert_int_equal(be->open(0, "checks=off", &dev, &e), 0);
  vc_progress_opts o;
  vc_progress_opts_default(&o);
  o.groups = 4;
  assert_int_equal(vc_progress_run(be, dev, VC_PROGRESS_CORESIDENT, &o, &r, &e), 0);
  assert_true(r.unsupported);
  assert_string_equal(vc_progress_verdict(&r), "unsupported");
  assert_int_equal(r.ran, 0);
  o.barriers = 0;
  assert_int_equal(vc_progress_run(be, dev, VC_PROGRESS_CORESIDENT, &o, &r, &e), VC_ERR_USAGE);
  assert_non_null(strstr(e.msg, "--progress-barriers"));
  be->close(dev);
  uint32_t sweep[VC_LITMUS_MAX_SWEEP], n = 0;
  assert_int_equal(vc_litmus_parse_sweep("0,64,256", sweep, &n, &e), 0);
  assert_int_equal(n, 3);
  assert_int_equal(sweep[2], 256);
  assert_int_equal(vc_litmus_parse_sweep("0,,1", sweep, &n, &e), VC_ERR_USAGE);
  assert_int_equal(vc_litmus_parse_sweep("65534", sweep, &n, &e), VC_ERR_USAGE);
  assert_int_equal(vc_litmus_parse_sweep("1,2,3,4,5,6,7,8,9", sweep, &n, &e), VC_ERR_USAGE);
  assert_non_null(strstr(e.msg, "more than 8"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(pairing_is_a_derangement_of_workgroups),
      cmocka_unit_test(outcome_tables),
      cmocka_unit_test(classify_reads_the_outputs),
      cmocka_unit_test(every_program_builds),
      cmocka_unit_test(barrier_programs_are_valid),
      cmocka_unit_test(oracle_runs_show_no_forbidden_outcome),
      cmocka_unit_test(options_out_of_range),
      cmocka_unit_test(progress_program_checks_itself),
      cmocka_unit_test(progress_verdicts),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
