/* Plain-text results: `export --csv/--failures` (harness/cli/cmd_export.c)
 * and a failures file as compare's baseline (results/gate/results_csv.c,
 * docs/gating.md). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "harness/base/exitcodes.h"
#include "harness/cli/commands_results.h"
#include "results/gate/compare.h"
#include "results/gate/results_csv.h"

static char db_path[512], cand_path[512], csv_path[512], fail_path[512];

static int setup(void **state) {
  fx_tmp_setup(state);
  fx_path(&fx_tmp, "base.db", db_path);
  fx_path(&fx_tmp, "cand.db", cand_path);
  fx_path(&fx_tmp, "results.csv", csv_path);
  fx_path(&fx_tmp, "failures.csv", fail_path);
  return 0;
}

static const fx_prog base[] = {
    {"a", "ppp", 10, 0}, {"b", "pdu", 2.5, 0}, {"c,q", "epp", 1, 0}, {"d", "ppw", 1, 0}};

static void export_writes_cells_and_failures(void **state) {
  (void)state;
  fx_write_run(db_path, &(fx_run){.progs = base, .nprogs = 4});
  char *out = NULL;
  const char *argv[] = {"export", db_path, "--csv", "-", "--failures", fail_path};
  assert_int_equal(fx_capture(vc_cmd_export, 6, argv, &out), VC_EXIT_OK);
  assert_string_equal(out,
                      "program,mode,status,duration_ms\n"
                      "a,native,pass,10.000\n"
                      "a,host-split,pass,10.000\n"
                      "a,resident-split,pass,10.000\n"
                      "b,native,pass,2.500\n"
                      "b,host-split,diverge,2.500\n"
                      "b,resident-split,unsupported,2.500\n"
                      "\"c,q\",native,error,1.000\n"
                      "\"c,q\",host-split,pass,1.000\n"
                      "\"c,q\",resident-split,pass,1.000\n"
                      "d,native,pass,1.000\n"
                      "d,host-split,pass,1.000\n"
                      "d,resident-split,untrustworthy,1.000\n");
  free(out);
  char *f = fx_read_file(fail_path);
  assert_string_equal(f, "program,mode,status,duration_ms\n"
                         "b,host-split,diverge,2.500\n"
                         "\"c,q\",native,error,1.000\n"
                         "d,resident-split,untrustworthy,1.000\n");
  free(f);
  /* --run names the run; a run that does not exist is the database's error */
  const char *argv2[] = {"export", db_path, "--run", "7", "--csv", csv_path};
  char *err = NULL;
  assert_int_equal(fx_capture_err(vc_cmd_export, 6, argv2, &out, &err), VC_EXIT_DB);
  free(out);
  free(err);
  const char *argv3[] = {"export", db_path};
  assert_int_equal(fx_capture_err(vc_cmd_export, 2, argv3, &out, &err), VC_EXIT_USAGE);
  assert_non_null(strstr(err, "--csv or --failures"));
  free(out);
  free(err);
}

typedef struct outcome {
  vc_run_data *base, *cand;
  vc_comparison c;
} outcome;

static void compare_csv(outcome *o, const char *csv_text) {
  fx_write_file(fail_path, csv_text, strlen(csv_text));
  vc_error err = {0};
  assert_int_equal(vc_run_load(cand_path, VC_RUN_LAST_COMPLETE, &o->cand, &err), 0);
  assert_int_equal(vc_run_from_failures_csv(fail_path, o->cand, &o->base, &err), 0);
  vc_compare_opts opts;
  vc_compare_opts_default(&opts);
  opts.timing = false;
  static vc_compare_opts keep;
  keep = opts;
  assert_int_equal(vc_compare_runs(o->base, o->cand, &keep, &o->c, &err), 0);
}

static void outcome_free(outcome *o) {
  vc_comparison_free(&o->c);
  vc_run_free(o->base);
  vc_run_free(o->cand);
}

static bool has(const outcome *o, vc_finding_kind kind, const char *program, const char *mode) {
  for (uint32_t i = 0; i < o->c.n; i++) {
    const vc_finding *f = &o->c.items[i];
    if (f->kind == kind && !strcmp(f->program, program) && !strcmp(f->mode, mode)) return true;
  }
  return false;
}

static const char listed[] = "program,mode,status,duration_ms\n"
                             "b,host-split,diverge,2.500\n"
                             "\"c,q\",native,error,1.000\n"
                             "gone,native,crash\n";

static void failures_csv_is_a_baseline(void **state) {
  (void)state;
  /* b still diverges, c,q's error is fixed, a fails newly, d's resident-split
     is unsupported (the file says nothing of it), gone is missing */
  const fx_prog cand[] = {
      {"a", "pdp", 10, 0}, {"b", "pdp", 2.5, 0}, {"c,q", "ppp", 1, 0}, {"d", "ppu", 1, 0}};
  fx_write_run(cand_path, &(fx_run){.progs = cand, .nprogs = 4});
  outcome o;
  compare_csv(&o, listed);
  assert_true(has(&o, VC_F_NEW_FAILURE, "a", "host-split"));
  assert_true(has(&o, VC_F_STILL_FAILING, "b", "host-split"));
  assert_true(has(&o, VC_F_FIXED, "c,q", "native"));
  assert_true(has(&o, VC_F_MISSING, "gone", "native"));
  assert_false(has(&o, VC_F_NEWLY_UNSUPPORTED, "d", "resident-split"));
  assert_int_equal(o.c.counts[VC_F_NEW_FAILURE], 1);
  assert_int_equal(o.c.ngating, 2); /* a's new failure, gone missing */
  outcome_free(&o);
}

static void compare_command_takes_a_failures_file(void **state) {
  (void)state;
  fx_write_run(db_path, &(fx_run){.progs = base, .nprogs = 4});
  char *out = NULL, *err = NULL;
  const char *exp[] = {"export", db_path, "--failures", fail_path};
  assert_int_equal(fx_capture(vc_cmd_export, 4, exp, &out), VC_EXIT_OK);
  free(out);
  /* the same results against their own failures: the gate passes */
  const char *same[] = {"compare", fail_path, db_path};
  assert_int_equal(fx_capture(vc_cmd_compare, 3, same, &out), VC_EXIT_OK);
  assert_non_null(strstr(out, "gate: PASS"));
  free(out);
  /* a new failure fails it */
  const fx_prog cand[] = {
      {"a", "ppd", 10, 0}, {"b", "pdu", 2.5, 0}, {"c,q", "epp", 1, 0}, {"d", "ppw", 1, 0}};
  fx_write_run(cand_path, &(fx_run){.progs = cand, .nprogs = 4});
  const char *worse[] = {"compare", fail_path, cand_path};
  assert_int_equal(fx_capture(vc_cmd_compare, 3, worse, &out), VC_EXIT_FAIL);
  assert_non_null(strstr(out, "gate: FAIL"));
  free(out);
  /* a bad line: its file and line, exit 4 */
  const char bad[] = "program,mode,status,duration_ms\nb,host-split,diverge\nb,sideways,error\n";
  fx_write_file(fail_path, bad, strlen(bad));
  assert_int_equal(fx_capture_err(vc_cmd_compare, 3, worse, &out, &err), VC_EXIT_INPUT);
  assert_non_null(strstr(err, "failures.csv:3: unknown mode 'sideways'"));
  free(out);
  free(err);
}

static void bad_failures_files(void **state) {
  (void)state;
  const fx_prog cand[] = {{"a", "ppp", 10, 0}};
  fx_write_run(cand_path, &(fx_run){.progs = cand, .nprogs = 1});
  vc_run_data *c = NULL, *b = NULL;
  vc_error err = {0};
  assert_int_equal(vc_run_load(cand_path, VC_RUN_LAST_COMPLETE, &c, &err), 0);
  struct {
    const char *text, *want;
  } cases[] = {
      {"a,native,diverge\n", "failures.csv:1: expected the header"},
      {"program,mode,status,duration_ms\na,native\n", ":2: expected program,mode,status"},
      {"program,mode,status,duration_ms\na,native,pass,1\n", ":2: status 'pass' is not a failure"},
      {"program,mode,status,duration_ms\na,native,broken\n", ":2: unknown status 'broken'"},
      {"program,mode,status,duration_ms\n\"a,native,error\n", ":2: expected program,mode,status"},
      {"program,mode,status,duration_ms\na,native,error\na,native,crash\n",
       ":3: a in native is listed twice"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    fx_write_file(fail_path, cases[i].text, strlen(cases[i].text));
    assert_int_equal(vc_run_from_failures_csv(fail_path, c, &b, &err), VC_ERR_PARSE);
    if (!strstr(err.msg, cases[i].want)) fprintf(stderr, "case %zu: %s\n", i, err.msg);
    assert_non_null(strstr(err.msg, cases[i].want));
    assert_null(b);
  }
  vc_run_free(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(export_writes_cells_and_failures, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(failures_csv_is_a_baseline, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(compare_command_takes_a_failures_file, setup,
                                      fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(bad_failures_files, setup, fx_tmp_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
