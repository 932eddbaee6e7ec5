/* compare on real results files: the gate's verdicts and exit statuses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "harness/cli/commands_results.h"
#include "harness/base/exitcodes.h"
#include "results/gate/compare.h"

static char base_path[512], cand_path[512], exp_path[512];

static int setup(void **state) {
  fx_tmp_setup(state);
  fx_path(&fx_tmp, "base.db", base_path);
  fx_path(&fx_tmp, "cand.db", cand_path);
  fx_path(&fx_tmp, "expectations.txt", exp_path);
  return 0;
}

/* a to e: five programs; c fails natively in the baseline */
static const fx_prog baseline[] = {{"a", "ppp", 10, 0},
                                   {"b", "ppp", 10, 0},
                                   {"c", "dpp", 10, 0},
                                   {"d", "ppp", 10, 0},
                                   {"e", "ppp", 10, 0}};

typedef struct outcome {
  vc_run_data *base, *cand;
  vc_expectations exps;
  vc_compare_opts opts;
  vc_comparison c;
} outcome;

static void compare_files(outcome *o, const char *expectations) {
  memset(o, 0, sizeof *o);
  vc_error err = {0};
  vc_compare_opts_default(&o->opts);
  if (expectations) {
    assert_int_equal(vc_expectations_parse("expectations.txt", expectations, &o->exps, &err), 0);
    o->opts.exps = &o->exps;
  }
  assert_int_equal(vc_run_load(base_path, VC_RUN_LAST_COMPLETE, &o->base, &err), 0);
  assert_int_equal(vc_run_load(cand_path, VC_RUN_LAST_COMPLETE, &o->cand, &err), 0);
  assert_int_equal(vc_compare_runs(o->base, o->cand, &o->opts, &o->c, &err), 0);
}

static void outcome_free(outcome *o) {
  vc_comparison_free(&o->c);
  vc_run_free(o->base);
  vc_run_free(o->cand);
  vc_expectations_free(&o->exps);
}

static const vc_finding *find(const outcome *o, vc_finding_kind kind, const char *program,
                              const char *mode) {
  for (uint32_t i = 0; i < o->c.n; i++) {
    const vc_finding *f = &o->c.items[i];
    if (f->kind == kind && !strcmp(f->program, program) && !strcmp(f->mode, mode)) return f;
  }
  return NULL;
}

static void write_pair(const fx_prog *cand, uint32_t ncand, uint32_t repeats) {
  fx_write_run(base_path, &(fx_run){.progs = baseline, .nprogs = 5, .repeats = repeats});
  fx_write_run(cand_path, &(fx_run){.progs = cand, .nprogs = ncand, .repeats = repeats});
}

static void test_planted_regression_fails(void **state) {
  (void)state;
  const fx_prog cand[] = {{"a", "ppp", 10, 0},
                          {"b", "pdp", 10, 0},
                          {"c", "dpp", 10, 0},
                          {"d", "ppp", 10, 0},
                          {"e", "ppp", 10, 0}};
  write_pair(cand, 5, 1);
  outcome o;
  compare_files(&o, NULL);
  assert_int_equal(o.c.exit_code, VC_EXIT_FAIL);
  const vc_finding *f = find(&o, VC_F_NEW_FAILURE, "b", "host-split");
  assert_non_null(f);
  assert_true(f->gating);
  assert_int_equal(f->base->status, VC_ST_PASS);
  assert_int_equal(f->cand->status, VC_ST_DIVERGE);
  /* c was failing already: reported, not gating */
  f = find(&o, VC_F_STILL_FAILING, "c", "native");
  assert_non_null(f);
  assert_false(f->gating);
  assert_int_equal(o.c.ngating, 1);
  assert_int_equal(o.c.counts[VC_F_NEW_FAILURE], 1);
  outcome_free(&o);
}

static void test_expected_failure_passes_gate(void **state) {
  (void)state;
  const fx_prog cand[] = {{"a", "ppp", 10, 0},
                          {"b", "pcp", 10, 0},
                          {"c", "dpp", 10, 0},
                          {"d", "ppp", 10, 0},
                          {"e", "ppp", 10, 0}};
  write_pair(cand, 5, 1);
  outcome o;
  compare_files(
      &o, "# nightly\nfail b host-* backend=vulkan expires=2999-01-01 reason=\"driver bug 123\"\n"
          "fail zzz native reason=\"nothing matches\"\n"
          "fail e native backend=cuda reason=\"another configuration\"\n");
  assert_int_equal(o.c.exit_code, VC_EXIT_OK);
  const vc_finding *f = find(&o, VC_F_EXPECTED, "b", "host-split");
  assert_non_null(f);
  assert_false(f->gating);
  assert_int_equal(f->exp->line, 2);
  /* the entry that matched nothing here is listed; the cuda one is not ours to judge */
  assert_int_equal(o.c.nunused, 1);
  assert_int_equal(o.c.unused[0]->line, 3);
  outcome_free(&o);
}

static void test_expired_expectation_exits_6(void **state) {
  (void)state;
  const fx_prog cand[] = {{"a", "ppp", 10, 0},
                          {"b", "pdp", 10, 0},
                          {"c", "dpp", 10, 0},
                          {"d", "ppp", 10, 0},
                          {"e", "ppp", 10, 0}};
  write_pair(cand, 5, 1);
  outcome o;
  compare_files(&o, "\nfail b host-split expires=2001-01-01 reason=\"was fixed in 2000\"\n");
  assert_int_equal(o.c.exit_code, VC_EXIT_EXPIRED);
  assert_int_equal(o.c.nexpired, 1);
  assert_int_equal(o.c.expired[0]->line, 2);
  /* and it no longer excuses the failure */
  assert_non_null(find(&o, VC_F_NEW_FAILURE, "b", "host-split"));
  outcome_free(&o);
}

static void test_fix_and_improvement_reported(void **state) {
  (void)state;
  const fx_prog cand[] = {{"a", "ppp", 10, 0},
                          {"b", "ppp", 10, 0},
                          {"c", "ppp", 10, 0},
                          {"d", "ppp", 10, 0},
                          {"e", "ppp", 10, 0}};
  write_pair(cand, 5, 1);
  outcome o;
  compare_files(&o, NULL);
  assert_int_equal(o.c.exit_code, VC_EXIT_OK);
  const vc_finding *f = find(&o, VC_F_FIXED, "c", "native");
  assert_non_null(f);
  assert_int_equal(f->base->status, VC_ST_DIVERGE);
  assert_int_equal(o.c.n, 1);
  outcome_free(&o);

  compare_files(&o, "fail a native reason=\"known bad\"\n");
  f = find(&o, VC_F_IMPROVEMENT, "a", "native");
  assert_non_null(f);
  assert_false(f->gating);
  assert_int_equal(o.c.exit_code, VC_EXIT_OK);
  outcome_free(&o);
}

/* A flake (failed, then passed on a rerun) is a failure unless a flake
   entry lists it: where the baseline passed it is a new failure, where the
   baseline failed it is still failing. Listed by a flake entry for its
   device, it passes the gate: against a failing baseline it is a fix. A
   flake entry for another backend, one whose buffer= misses the failed
   attempt's divergence, an expired one or a fail entry lists nothing. A
   mode whose three repeats are all flakes is a flake cell, not a skip. */
static void test_flake_fails_gate_unless_listed(void **state) {
  (void)state;
  const fx_prog cand[] = {{"a", "fpp", 10, 0},
                          {"b", "ppf", 10, 0},
                          {"c", "fpp", 10, 0},
                          {"d", "ppp", 10, 0},
                          {"e", "ppp", 10, 0}};
  write_pair(cand, 5, 3);
  outcome o;
  compare_files(&o, NULL);
  assert_int_equal(o.c.exit_code, VC_EXIT_FAIL);
  assert_int_equal(o.c.counts[VC_F_NEW_FAILURE], 2);
  const vc_finding *f = find(&o, VC_F_NEW_FAILURE, "a", "native");
  assert_non_null(f);
  assert_true(f->gating);
  assert_int_equal(f->cand->status, VC_ST_FLAKE);
  assert_non_null(find(&o, VC_F_NEW_FAILURE, "b", "resident-split"));
  assert_non_null(find(&o, VC_F_STILL_FAILING, "c", "native"));
  assert_int_equal(o.c.counts[VC_F_MISSING], 0);
  outcome_free(&o);

  const char *unlisting[] = {
      "flake * * backend=no-such reason=\"another backend\"\n",
      "flake * * buffer=other reason=\"another buffer\"\n",
      "flake * * expires=2020-01-01 reason=\"expired\"\n",
      "fail * * reason=\"known failures\"\n"};
  for (int i = 0; i < 4; i++) {
    compare_files(&o, unlisting[i]);
    assert_non_null(find(&o, VC_F_NEW_FAILURE, "a", "native"));
    assert_non_null(find(&o, VC_F_NEW_FAILURE, "b", "resident-split"));
    assert_int_equal(o.c.exit_code, i == 2 ? VC_EXIT_EXPIRED : VC_EXIT_FAIL);
    outcome_free(&o);
  }

  compare_files(&o, "flake a native reason=\"shaky\"\n"
                    "flake b resident-split buffer=out class=integer reason=\"shaky\"\n"
                    "flake c * reason=\"shaky\"\n");
  assert_int_equal(o.c.exit_code, VC_EXIT_OK);
  assert_int_equal(o.c.ngating, 0);
  assert_int_equal(o.c.counts[VC_F_NEW_FAILURE], 0);
  assert_int_equal(o.c.counts[VC_F_MISSING], 0);
  f = find(&o, VC_F_FIXED, "c", "native");
  assert_non_null(f);
  assert_int_equal(f->cand->status, VC_ST_FLAKE);
  outcome_free(&o);
}

/* Five repeats each; the baseline's spread is 4 ms around 10 ms. */
static void test_timing_spread(void **state) {
  (void)state;
  const fx_prog cand[] = {{"a", "ppp", 13, 1}, /* +30%, but 3 ms is inside the 4 ms spread */
                          {"b", "ppp", 20, 1}, /* +100%, 10 ms beyond the spread: slower */
                          {"c", "dpp", 10, 0},
                          {"d", "ppp", 11.5, 0.1}, /* +15%: under the threshold */
                          {"e", "ppp", 10, 3}};    /* same median, wider spread */
  const fx_prog base[] = {{"a", "ppp", 10, 1},
                          {"b", "ppp", 10, 1},
                          {"c", "dpp", 10, 0},
                          {"d", "ppp", 10, 0.1},
                          {"e", "ppp", 10, 0}};
  fx_write_run(base_path, &(fx_run){.progs = base, .nprogs = 5, .repeats = 5});
  fx_write_run(cand_path, &(fx_run){.progs = cand, .nprogs = 5, .repeats = 5});
  outcome o;
  compare_files(&o, NULL);
  assert_null(find(&o, VC_F_SLOWER, "a", "native"));
  const vc_finding *f = find(&o, VC_F_SLOWER, "b", "native");
  assert_non_null(f);
  assert_true(f->gating);
  assert_int_equal(f->base->wall_median, 10000000);
  assert_int_equal(f->cand->wall_median, 20000000);
  assert_int_equal(f->base->wall_max - f->base->wall_min, 4000000);
  assert_null(find(&o, VC_F_SLOWER, "d", "native"));
  assert_null(find(&o, VC_F_SLOWER, "e", "native"));
  assert_int_equal(o.c.counts[VC_F_SLOWER], 3); /* b in each mode */
  assert_int_equal(o.c.exit_code, VC_EXIT_FAIL);
  outcome_free(&o);

  /* a lower threshold flags d; a flake entry accepts b */
  compare_files(&o, "flake b * reason=\"noisy neighbour\"\n");
  assert_int_equal(o.c.exit_code, VC_EXIT_OK);
  f = find(&o, VC_F_SLOWER, "b", "native");
  assert_non_null(f);
  assert_false(f->gating);
  vc_comparison_free(&o.c);
  o.opts.threshold_pct = 10;
  vc_error err = {0};
  assert_int_equal(vc_compare_runs(o.base, o.cand, &o.opts, &o.c, &err), 0);
  assert_non_null(find(&o, VC_F_SLOWER, "d", "native"));
  /* without timing nothing is slower or faster */
  vc_comparison_free(&o.c);
  o.opts.timing = false;
  assert_int_equal(vc_compare_runs(o.base, o.cand, &o.opts, &o.c, &err), 0);
  assert_int_equal(o.c.counts[VC_F_SLOWER] + o.c.counts[VC_F_FASTER], 0);
  assert_int_equal(o.c.exit_code, VC_EXIT_OK);
  outcome_free(&o);
}

/* A tiny program: a large relative change under the minimum delta is noise. */
static void test_timing_min_delta(void **state) {
  (void)state;
  const fx_prog base[] = {{"a", "ppp", 0.01, 0}};
  const fx_prog cand[] = {{"a", "ppp", 0.05, 0}};
  fx_write_run(base_path, &(fx_run){.progs = base, .nprogs = 1});
  fx_write_run(cand_path, &(fx_run){.progs = cand, .nprogs = 1});
  outcome o;
  compare_files(&o, NULL);
  assert_int_equal(o.c.counts[VC_F_SLOWER], 0);
  vc_comparison_free(&o.c);
  o.opts.min_delta_ns = 10000;
  vc_error err = {0};
  assert_int_equal(vc_compare_runs(o.base, o.cand, &o.opts, &o.c, &err), 0);
  assert_int_equal(o.c.counts[VC_F_SLOWER], 3);
  outcome_free(&o);
}

static void test_unsupported_missing_new_skip(void **state) {
  (void)state;
  const fx_prog cand[] = {{"a", "ppu", 10, 0}, {"b", "pp-", 10, 0}, {"c", "dpp", 10, 0},
                          {"d", "ppp", 10, 0}, {"e", "pep", 10, 0}, {"f", "ppp", 10, 0}};
  write_pair(cand, 6, 1);
  outcome o;
  compare_files(&o, "skip e host-split reason=\"under investigation\"\n");
  const vc_finding *f = find(&o, VC_F_NEWLY_UNSUPPORTED, "a", "resident-split");
  assert_non_null(f);
  assert_true(f->gating);
  /* coverage lost: a cell of the baseline that the candidate lacks gates */
  f = find(&o, VC_F_MISSING, "b", "resident-split");
  assert_non_null(f);
  assert_true(f->gating);
  assert_non_null(find(&o, VC_F_NEW_PROGRAM, "f", "native"));
  assert_non_null(find(&o, VC_F_SKIPPED, "e", "host-split"));
  assert_null(find(&o, VC_F_NEW_FAILURE, "e", "host-split"));
  assert_int_equal(o.c.ngating, 2);
  assert_int_equal(o.c.exit_code, VC_EXIT_FAIL);
  outcome_free(&o);
}

static void test_warnings(void **state) {
  (void)state;
  fx_write_run(base_path, &(fx_run){.progs = baseline, .nprogs = 5});
  fx_write_run(cand_path, &(fx_run){.progs = baseline,
                                    .nprogs = 5,
                                    .corpus_digest = "feed",
                                    .device_name = "Other GPU"});
  outcome o;
  compare_files(&o, NULL);
  assert_int_equal(o.c.nwarnings, 2);
  assert_non_null(strstr(o.c.warnings[0], "corpus digests differ"));
  assert_non_null(strstr(o.c.warnings[1], "Other GPU"));
  outcome_free(&o);
}

/* Two whole runs (unsharded, or merged from shards whose corpus digests
   cover their own programs) are compared by selection; different builds
   are named in the header. */
static void test_selection_and_builds(void **state) {
  (void)state;
  fx_run b = {.progs = baseline, .nprogs = 5, .selection_digest = "5e1", .selection_programs = 5};
  fx_run c = b;
  c.corpus_digest = "shard0s";
  c.build_id = "another-build";
  fx_write_run(base_path, &b);
  fx_write_run(cand_path, &c);
  outcome o;
  compare_files(&o, NULL);
  assert_int_equal(o.c.nwarnings, 0);
  outcome_free(&o);
  char *out;
  const char *argv[] = {"compare", base_path, cand_path};
  assert_int_equal(fx_capture(vc_cmd_compare, 3, argv, &out), VC_EXIT_OK);
  if (!strstr(out, "builds: baseline b0b0b0b0b0b0-fixture-build (plugin p1p1p1p1p1p1-fixture-plugin), "
                   "candidate another-build (plugin p1p1p1p1p1p1-fixture-plugin)\n"))
    fail_msg("no builds line in:\n%s", out);
  free(out);
  unlink(cand_path);
  c.build_id = NULL;
  c.selection_digest = "0ther";
  fx_write_run(cand_path, &c);
  compare_files(&o, NULL);
  assert_int_equal(o.c.nwarnings, 1);
  assert_non_null(strstr(o.c.warnings[0], "selection digests differ: baseline 5e1, candidate 0ther"));
  outcome_free(&o);
  assert_int_equal(fx_capture(vc_cmd_compare, 3, argv, &out), VC_EXIT_OK);
  assert_null(strstr(out, "builds:"));
  free(out);
}


/* A scoped entry excuses only the divergences it names: a new fault in
   another buffer or class of the same program, behind the known one, is a
   new failure; untrustworthy is a failure unless an entry names it. */
static void test_scoped_expectation_hides_nothing(void **state) {
  (void)state;
  const fx_prog base[] = {{"f32_signed_zero", "zzz", 10, 0}, {"spin", "ppp", 10, 0},
                          {"spun", "ppp", 10, 0}};
  const fx_prog cand[] = {{"f32_signed_zero", "zmd", 10, 0}, {"spin", "wpp", 10, 0},
                          {"spun", "wpp", 10, 0}};
  fx_write_run(base_path, &(fx_run){.progs = base, .nprogs = 3});
  fx_write_run(cand_path, &(fx_run){.progs = cand, .nprogs = 3});
  outcome o;
  compare_files(&o, "fail f32_signed_zero * buffer=add_a_zero class=f32-signed-zero "
                    "backend=vulkan driver=*22.3.6* reason=fold\n"
                    "fail spin native status=untrustworthy note=\"*planted*\" reason=budget\n");
  assert_non_null(find(&o, VC_F_EXPECTED, "f32_signed_zero", "native"));
  /* the known fault and a second one in min_nan (f32-nan) */
  const vc_finding *f = find(&o, VC_F_NEW_FAILURE, "f32_signed_zero", "host-split");
  assert_non_null(f);
  assert_true(f->gating);
  /* another buffer and class altogether */
  assert_non_null(find(&o, VC_F_NEW_FAILURE, "f32_signed_zero", "resident-split"));
  assert_non_null(find(&o, VC_F_EXPECTED, "spin", "native"));
  f = find(&o, VC_F_NEW_FAILURE, "spun", "native");
  assert_non_null(f);
  assert_int_equal(f->cand->status, VC_ST_UNTRUSTWORTHY);
  assert_int_equal(o.c.ngating, 3);
  assert_int_equal(o.c.exit_code, VC_EXIT_FAIL);
  outcome_free(&o);
  /* the whole-program entry of before hid all three */
  compare_files(&o, "fail f32_signed_zero * reason=fold\nfail sp* native reason=x\n");
  assert_int_equal(o.c.ngating, 0);
  outcome_free(&o);
}

/* Coverage lost fails the gate: a program the candidate lacks, or a mode. */
static void test_missing_fails_unless_skipped(void **state) {
  (void)state;
  const fx_prog cand[] = {{"a", "ppp", 10, 0}, {"c", "dp-", 10, 0}, {"d", "ppp", 10, 0},
                          {"e", "ppp", 10, 0}};
  write_pair(cand, 4, 1);
  outcome o;
  compare_files(&o, NULL);
  const vc_finding *f = find(&o, VC_F_MISSING, "b", "native");
  assert_non_null(f);
  assert_true(f->gating);
  assert_non_null(find(&o, VC_F_MISSING, "c", "resident-split"));
  assert_int_equal(o.c.counts[VC_F_MISSING], 4);
  assert_int_equal(o.c.ngating, 4);
  assert_int_equal(o.c.exit_code, VC_EXIT_FAIL);
  outcome_free(&o);
  compare_files(&o, "skip b * reason=\"left out on purpose\"\n"
                    "skip c resident-split reason=\"not on this device\"\n");
  assert_int_equal(o.c.counts[VC_F_MISSING], 0);
  assert_int_equal(o.c.counts[VC_F_SKIPPED], 4);
  assert_int_equal(o.c.exit_code, VC_EXIT_OK);
  outcome_free(&o);
  /* a fail entry does not allow a missing cell */
  compare_files(&o, "fail b * reason=\"known bad\"\n");
  assert_int_equal(o.c.counts[VC_F_MISSING], 4);
  assert_int_equal(o.c.exit_code, VC_EXIT_FAIL);
  outcome_free(&o);
}

/* An expected failure that passes is reported; --strict-expectations makes
   it fail the gate so that the stale entry goes. An entry about a condition
   (status=, note=) says nothing about the programs that pass. */
static void test_strict_expectations(void **state) {
  (void)state;
  const fx_prog cand[] = {{"a", "ppp", 10, 0}, {"b", "ppp", 10, 0}, {"c", "ppp", 10, 0},
                          {"d", "ppp", 10, 0}, {"e", "ppp", 10, 0}};
  write_pair(cand, 5, 1);
  const char *text = "fail c native reason=\"known bad\"\n"
                     "fail * native status=untrustworthy reason=budget\n";
  outcome o;
  compare_files(&o, text);
  const vc_finding *f = find(&o, VC_F_IMPROVEMENT, "c", "native");
  assert_non_null(f);
  assert_false(f->gating);
  assert_int_equal(o.c.counts[VC_F_IMPROVEMENT], 1);
  assert_int_equal(o.c.exit_code, VC_EXIT_OK);
  vc_comparison_free(&o.c);
  o.opts.strict_expectations = true;
  vc_error err = {0};
  assert_int_equal(vc_compare_runs(o.base, o.cand, &o.opts, &o.c, &err), 0);
  f = find(&o, VC_F_IMPROVEMENT, "c", "native");
  assert_non_null(f);
  assert_true(f->gating);
  assert_int_equal(o.c.ngating, 1);
  assert_int_equal(o.c.exit_code, VC_EXIT_FAIL);
  outcome_free(&o);

  fx_write_file(exp_path, text, strlen(text));
  char *out;
  const char *plain[] = {"compare", base_path, cand_path, "--expectations", exp_path};
  assert_int_equal(fx_capture(vc_cmd_compare, 5, plain, &out), VC_EXIT_OK);
  free(out);
  const char *strict[] = {"compare", base_path, cand_path, "--expectations", exp_path,
                          "--strict-expectations"};
  assert_int_equal(fx_capture(vc_cmd_compare, 6, strict, &out), VC_EXIT_FAIL);
  assert_non_null(strstr(out, "IMPROVEMENT"));
  free(out);
}

/* The command: argument handling, output and exit statuses. */
static void test_command(void **state) {
  (void)state;
  const fx_prog cand[] = {{"a", "ppp", 10, 0},
                          {"b", "pdp", 10, 0},
                          {"c", "ppp", 10, 0},
                          {"d", "ppp", 10, 0},
                          {"e", "ppp", 10, 0}};
  write_pair(cand, 5, 1);
  char *out;
  const char *plain[] = {"compare", base_path, cand_path};
  assert_int_equal(fx_capture(vc_cmd_compare, 3, plain, &out), VC_EXIT_FAIL);
  assert_non_null(
      strstr(out, "NEW FAILURE        b host-split: pass -> diverge: diverge in host-split"));
  assert_non_null(strstr(out, "FIXED              c native: diverge -> pass"));
  assert_non_null(strstr(out, "gate: FAIL (exit 1)"));
  free(out);

  fx_write_file(exp_path, "fail b host-split reason=\"bug 7\"\n", 33);
  char spec[600];
  snprintf(spec, sizeof spec, "%s:1", cand_path);
  const char *json[] = {"compare", base_path, spec, "--expectations", exp_path, "--json"};
  assert_int_equal(fx_capture(vc_cmd_compare, 6, json, &out), VC_EXIT_OK);
  assert_non_null(strstr(out, "\"kind\": \"expected-failure\""));
  assert_non_null(strstr(out, "\"exit\": 0"));
  free(out);

  fx_write_file(exp_path, "fail b host-split expires=2020-02-02 reason=\"bug 7\"\n", 52);
  const char *expired[] = {"compare", base_path, cand_path, "--expectations=", exp_path};
  assert_int_equal(fx_capture(vc_cmd_compare, 5, expired, &out), VC_EXIT_USAGE);
  free(out);
  const char *expired2[] = {"compare", base_path, cand_path, "--expectations", exp_path};
  assert_int_equal(fx_capture(vc_cmd_compare, 5, expired2, &out), VC_EXIT_EXPIRED);
  assert_non_null(strstr(out, ":1: fail b host-split expired on 2020-02-02: bug 7"));
  free(out);

  fx_write_file(exp_path, "fail b host-split expires=2020-02-31 reason=x\n", 46);
  assert_int_equal(fx_capture(vc_cmd_compare, 5, expired2, &out), VC_EXIT_INPUT);
  free(out);
  const char *bad_threshold[] = {"compare", base_path, cand_path, "--threshold", "-5"};
  assert_int_equal(fx_capture(vc_cmd_compare, 5, bad_threshold, &out), VC_EXIT_USAGE);
  free(out);
  const char *one_side[] = {"compare", base_path};
  assert_int_equal(fx_capture(vc_cmd_compare, 2, one_side, &out), VC_EXIT_USAGE);
  free(out);
  char missing[600];
  fx_path(&fx_tmp, "absent.db", missing);
  const char *absent[] = {"compare", base_path, missing};
  assert_int_equal(fx_capture(vc_cmd_compare, 3, absent, &out), VC_EXIT_DB);
  free(out);
}

/* compare chooses each side's last complete run; a newer run of either
   file that did not complete is named on standard error. */
static void test_warns_of_newer_unfinished_runs(void **state) {
  (void)state;
  fx_write_run(base_path, &(fx_run){.progs = baseline, .nprogs = 5});
  fx_write_run(cand_path, &(fx_run){.progs = baseline, .nprogs = 5});
  char *out, *errors;
  const char *argv[] = {"compare", base_path, cand_path, "--no-timing"};
  assert_int_equal(fx_capture_err(vc_cmd_compare, 4, argv, &out, &errors), VC_EXIT_OK);
  assert_null(strstr(errors, "warning"));
  free(out);
  free(errors);
  fx_write_run(cand_path, &(fx_run){.progs = baseline, .nprogs = 2, .end_status = "failed"});
  assert_int_equal(fx_capture_err(vc_cmd_compare, 4, argv, &out, &errors), VC_EXIT_OK);
  char want[700];
  snprintf(want, sizeof want,
           "vyre-conform compare: warning: %s holds a run newer than run 1 that did not "
           "complete: run 2 (failed)\n",
           cand_path);
  assert_string_equal(errors, want);
  free(out);
  free(errors);
}

/* Coverage lost to a skip fails the gate as one lost to unsupported does:
   a setup that crashed leaves the modes skipped, an entry of the run's own
   file skips them; only a skip entry given to compare allows it. A cell
   skipped or unsupported on both sides lost nothing. */
static void test_pass_to_skip_is_newly_skipped(void **state) {
  (void)state;
  const fx_prog base[] = {{"a", "ppp", 10, 0}, {"b", "dpp", 10, 0}, {"c", "ppu", 10, 0},
                          {"d", "sps", 10, 0}, {"e", "ppp", 10, 0}};
  const fx_prog cand[] = {{"a", "pss", 10, 0}, {"b", "spp", 10, 0}, {"c", "pps", 10, 0},
                          {"d", "sps", 10, 0}, {"e", "ppu", 10, 0}};
  fx_write_run(base_path, &(fx_run){.progs = base, .nprogs = 5});
  fx_write_run(cand_path, &(fx_run){.progs = cand, .nprogs = 5});
  outcome o;
  compare_files(&o, NULL);
  const vc_finding *f = find(&o, VC_F_NEWLY_SKIPPED, "a", "host-split");
  assert_non_null(f);
  assert_true(f->gating);
  assert_int_equal(f->base->status, VC_ST_PASS);
  assert_int_equal(f->cand->status, VC_ST_SKIP);
  assert_non_null(find(&o, VC_F_NEWLY_SKIPPED, "a", "resident-split"));
  /* a failure that is no longer run is hidden, not fixed */
  assert_non_null(find(&o, VC_F_NEWLY_SKIPPED, "b", "native"));
  assert_null(find(&o, VC_F_NEWLY_SKIPPED, "c", "resident-split")); /* was unsupported */
  assert_null(find(&o, VC_F_NEWLY_SKIPPED, "d", "native"));         /* was skipped */
  assert_non_null(find(&o, VC_F_NEWLY_UNSUPPORTED, "e", "resident-split"));
  assert_int_equal(o.c.counts[VC_F_NEWLY_SKIPPED], 3);
  assert_int_equal(o.c.ngating, 4);
  assert_int_equal(o.c.exit_code, VC_EXIT_FAIL);
  outcome_free(&o);
  compare_files(&o, "skip a *-split reason=\"setup crashes on this driver\"\n"
                    "skip b native reason=\"hangs\"\nskip e resident-split reason=\"too big\"\n");
  assert_int_equal(o.c.counts[VC_F_NEWLY_SKIPPED], 0);
  assert_int_equal(o.c.counts[VC_F_NEWLY_UNSUPPORTED], 0);
  assert_int_equal(o.c.counts[VC_F_SKIPPED], 4);
  assert_int_equal(o.c.exit_code, VC_EXIT_OK);
  outcome_free(&o);
  /* the command says so, in the findings' table's words */
  char *out;
  const char *argv[] = {"compare", base_path, cand_path, "--no-timing"};
  assert_int_equal(fx_capture(vc_cmd_compare, 4, argv, &out), VC_EXIT_FAIL);
  assert_non_null(strstr(out, "NEWLY SKIPPED      a host-split: pass -> skip: skip in host-split"));
  assert_non_null(strstr(out, "3 newly-skipped"));
  free(out);
}

/* A candidate in which nothing ran cannot pass the gate: skipped by
   compare's own entries, or skipped and unsupported with nothing lost
   against a baseline that ran nothing either. One passing cell is
   coverage. */
static void test_nothing_ran_is_not_run(void **state) {
  (void)state;
  const fx_prog none[] = {{"a", "sss", 10, 0}, {"b", "uus", 10, 0}};
  fx_write_run(base_path, &(fx_run){.progs = baseline, .nprogs = 5});
  fx_write_run(cand_path, &(fx_run){.progs = baseline, .nprogs = 5});
  outcome o;
  compare_files(&o, "skip * * reason=\"bring-up\"\n");
  assert_int_equal(o.c.counts[VC_F_SKIPPED], 15);
  assert_int_equal(o.c.ngating, 0);
  assert_int_equal(o.c.cand_ran, 0);
  assert_int_equal(o.c.exit_code, VC_EXIT_NOT_RUN);
  outcome_free(&o);
  compare_files(&o, "skip * native reason=\"bring-up\"\n");
  assert_int_equal(o.c.exit_code, VC_EXIT_OK);
  outcome_free(&o);

  fx_dir_remove(&fx_tmp);
  fx_dir_make(&fx_tmp);
  setup(NULL);
  fx_write_run(base_path, &(fx_run){.progs = none, .nprogs = 2});
  fx_write_run(cand_path, &(fx_run){.progs = none, .nprogs = 2});
  compare_files(&o, NULL);
  assert_int_equal(o.c.n, 0);
  assert_int_equal(o.c.exit_code, VC_EXIT_NOT_RUN);
  outcome_free(&o);
  char *out;
  const char *argv[] = {"compare", base_path, cand_path};
  assert_int_equal(fx_capture(vc_cmd_compare, 3, argv, &out), VC_EXIT_NOT_RUN);
  assert_non_null(strstr(out, "gate: NOT RUN (exit 9): no cell of the candidate passed or failed"));
  free(out);
  const char *json[] = {"compare", base_path, cand_path, "--json"};
  assert_int_equal(fx_capture(vc_cmd_compare, 4, json, &out), VC_EXIT_NOT_RUN);
  assert_non_null(strstr(out, "\"gate\": \"NOT RUN\""));
  assert_non_null(strstr(out, "\"exit\": 9"));
  free(out);
}

/* A side made with planted faults (an injected flip, crash or hang, a
   mutant build, a driver fault) is no gate: refused with exit 10, whatever
   the findings, naming what was planted; the findings are still listed. */
static void test_planted_side_is_refused(void **state) {
  (void)state;
  fx_write_run(base_path, &(fx_run){.progs = baseline, .nprogs = 5});
  fx_write_run(cand_path,
               &(fx_run){.progs = baseline,
                         .nprogs = 5,
                         .command_line = "vyre-conform --backend vulkan --inject-flip "
                                         "native:out:3@1 corpus/",
                         .options = "repeat=1 timeout=60 inject-flip=native:out:3@1"});
  outcome o;
  compare_files(&o, NULL);
  assert_int_equal(o.c.ngating, 0);
  assert_string_equal(o.c.planted[1], "--inject-flip native:out:3@1");
  assert_string_equal(o.c.planted[0], "");
  assert_int_equal(o.c.exit_code, VC_EXIT_PLANTED);
  outcome_free(&o);
  char *out;
  const char *argv[] = {"compare", base_path, cand_path, "--no-timing"};
  assert_int_equal(fx_capture(vc_cmd_compare, 4, argv, &out), VC_EXIT_PLANTED);
  assert_non_null(strstr(out, "planted: the candidate run has planted faults (--inject-flip "
                              "native:out:3@1)"));
  assert_non_null(strstr(out, "gate: REFUSED (exit 10): the candidate was made with planted "
                              "faults"));
  free(out);
  /* recorded only in the options (a resumed run's command line lacks it),
     a hang, a mutant build on the baseline's side */
  fx_dir_remove(&fx_tmp);
  fx_dir_make(&fx_tmp);
  setup(NULL);
  const fx_prog cand[] = {{"a", "ppp", 10, 0}, {"b", "pdp", 10, 0}, {"c", "dpp", 10, 0},
                          {"d", "ppp", 10, 0}, {"e", "ppp", 10, 0}};
  fx_write_run(base_path, &(fx_run){.progs = baseline, .nprogs = 5,
                                    .options = "repeat=1 mutant-build=1 mutant=skip-last-buffer"});
  fx_write_run(cand_path, &(fx_run){.progs = cand, .nprogs = 5,
                                    .options = "repeat=1 inject-hang=\"b*\""});
  compare_files(&o, NULL);
  assert_string_equal(o.c.planted[0], "mutant-build=1, mutant=skip-last-buffer");
  assert_string_equal(o.c.planted[1], "inject-hang=b*");
  assert_int_equal(o.c.ngating, 1); /* still found */
  assert_int_equal(o.c.exit_code, VC_EXIT_PLANTED);
  outcome_free(&o);
}

/* Runs judged and skipped by different expectations files: compare says so
   in a warning and in its verdict. */
static void test_other_expectations_said(void **state) {
  (void)state;
  fx_write_run(base_path, &(fx_run){.progs = baseline, .nprogs = 5,
                                    .options = "repeat=1 expectations=ci/expectations/vulkan.txt"});
  fx_write_run(cand_path, &(fx_run){.progs = baseline, .nprogs = 5,
                                    .options = "repeat=1 expectations=mine.txt"});
  outcome o;
  compare_files(&o, NULL);
  assert_true(o.c.exps_differ);
  assert_int_equal(o.c.exit_code, VC_EXIT_OK);
  outcome_free(&o);
  char *out;
  const char *argv[] = {"compare", base_path, cand_path, "--no-timing"};
  assert_int_equal(fx_capture(vc_cmd_compare, 4, argv, &out), VC_EXIT_OK);
  assert_non_null(strstr(out, "warning: the runs' expectations files differ: baseline "
                              "ci/expectations/vulkan.txt, candidate mine.txt"));
  assert_non_null(strstr(out, "gate: PASS (the runs recorded different expectations files"));
  free(out);
}

/* Timing compares like with like: a candidate whose kernels were compiled
   (a cold kernel cache) is not slower than a baseline that read them from
   the cache, it is not timed; a cold pair is. */
static void test_cold_cache_not_timed(void **state) {
  (void)state;
  const fx_prog fast[] = {{"a", "ppp", 10, 0}, {"b", "ppp", 10, 0}};
  const fx_prog slow[] = {{"a", "ppp", 30, 0}, {"b", "ppp", 30, 0}};
  fx_write_run(base_path, &(fx_run){.progs = fast, .nprogs = 2, .warm_cache = true});
  fx_write_run(cand_path, &(fx_run){.progs = slow, .nprogs = 2});
  outcome o;
  compare_files(&o, NULL);
  assert_int_equal(o.c.counts[VC_F_SLOWER], 0);
  assert_int_equal(o.c.untimed_cache, 6);
  assert_int_equal(o.c.cache[0].kind, VC_CACHE_WARM);
  assert_int_equal(o.c.cache[0].hits, 10); /* 1 native + 2 + 2 segments, twice */
  assert_int_equal(o.c.cache[0].kernels, 10);
  assert_int_equal(o.c.cache[1].kind, VC_CACHE_COLD);
  assert_int_equal(o.c.exit_code, VC_EXIT_OK);
  outcome_free(&o);
  char *out;
  const char *argv[] = {"compare", base_path, cand_path};
  assert_int_equal(fx_capture(vc_cmd_compare, 3, argv, &out), VC_EXIT_OK);
  assert_non_null(strstr(out, "timing: 6 passing cells not judged: their kernels came from the "
                              "kernel cache on one side and were compiled on the other (baseline "
                              "warm, 10 of 10 kernels from the cache; candidate cold, 0 of 10)"));
  assert_non_null(strstr(out, "(timing not judged in 6 cells: kernel cache differs)"));
  free(out);
  /* both cold: like with like, and slower */
  fx_write_run(base_path, &(fx_run){.progs = fast, .nprogs = 2});
  compare_files(&o, NULL);
  assert_int_equal(o.c.counts[VC_F_SLOWER], 6);
  assert_int_equal(o.c.untimed_cache, 0);
  assert_int_equal(o.c.exit_code, VC_EXIT_FAIL);
  outcome_free(&o);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_planted_regression_fails, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_expected_failure_passes_gate, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_expired_expectation_exits_6, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_fix_and_improvement_reported, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_flake_fails_gate_unless_listed, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_timing_spread, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_timing_min_delta, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_unsupported_missing_new_skip, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_warnings, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_command, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_scoped_expectation_hides_nothing, setup,
                                      fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_missing_fails_unless_skipped, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_strict_expectations, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_warns_of_newer_unfinished_runs, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_pass_to_skip_is_newly_skipped, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_nothing_ran_is_not_run, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_planted_side_is_refused, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_other_expectations_said, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_cold_cache_not_timed, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_selection_and_builds, setup, fx_tmp_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
