/* vyre-conform compare BASELINE CANDIDATE: the nightly gate (docs/gating.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli/commands_results.h"
#include "harness/base/exitcodes.h"
#include "harness/cli/cmd_util.h"
#include "results/gate/compare.h"
#include "results/gate/judged_by.h"
#include "results/gate/results_csv.h"
#include "results/report/report.h"

#define USAGE                                                                               \
  "vyre-conform compare BASELINE[:RUN]|FAILURES.csv CANDIDATE[:RUN] [--expectations FILE|none]\n" \
  "       [--strict-expectations] [--threshold PCT] [--min-delta-ms MS] [--no-timing]\n"      \
  "       [--json]"
static const char usage[] = USAGE;
static const char help[] =
    "usage: " USAGE "\n"
    "\n"
    "The CI gate (docs/gating.md): compares the candidate run with the baseline\n"
    "program by program and mode and prints each finding (NEW FAILURE, NEWLY\n"
    "UNSUPPORTED, NEWLY SKIPPED, SLOWER, MISSING, FIXED, EXPECTED FAILURE, ...)\n"
    "and a summary. Timing is judged only between cells whose kernels came\n"
    "from the kernel cache alike (cold or warm on both sides).\n"
    "Each side is a results file (its last complete run) or FILE:RUN; the\n"
    "baseline may instead be a failures file written by `export --failures`\n"
    "(then no timing is judged).\n"
    "\n"
    "  --expectations FILE    known failures, flakes and skips (docs/gating.md):\n"
    "                         failures they cover are expected, programs a skip\n"
    "                         entry covers may be missing; both sides are judged\n"
    "                         by it. Default: the file the candidate run recorded;\n"
    "                         `none`: no expectations\n"
    "  --strict-expectations  an IMPROVEMENT (a pass where a fail entry names the\n"
    "                         program) fails the gate too, so stale entries go\n"
    "  --threshold PCT        SLOWER or FASTER only beyond PCT percent of the\n"
    "                         baseline's median wall time (20)\n"
    "  --min-delta-ms MS      ... and beyond MS milliseconds (1)\n"
    "  --no-timing            judge no timing (shared machines; the summary says so)\n"
    "  --json                 the findings as one JSON object instead of text\n"
    "\n"
    "Exit status: 0 nothing fails the gate; 1 a finding fails it; 2 usage error;\n"
    "4 the expectations or failures file cannot be read or parsed; 5 a results\n"
    "file cannot be opened or has no complete run; 6 an expectation has expired;\n"
    "9 no cell of the candidate ran (NOT RUN: all skipped or unsupported);\n"
    "10 a side was made with planted faults (--inject-*, --fault, a mutant\n"
    "build): no gate (REFUSED).\n"
    "Where several apply: 130, 2, 3, 5, 7, 10, 4, 6, 1, 9, 0 (docs/usage.md).\n";

typedef struct compare_args {
  const char *sides[2];
  const char *expectations;
  bool json;
  vc_compare_opts opts;
} compare_args;

static int parse_number(const char *text, double lo, double hi, double *out) {
  char *end;
  double v = text ? strtod(text, &end) : NAN;
  if (!text || end == text || *end || !isfinite(v) || v < lo || v > hi) return -1;
  *out = v;
  return 0;
}

static int parse_args(int argc, char **argv, compare_args *a) {
  int nsides = 0;
  double v;
  vc_compare_opts_default(&a->opts);
  for (int i = 1; i < argc; i++) {
    const char *val;
    const int at = i; /* the option's index: i moves past a separate value */
    if (strcmp(argv[i], "--json") == 0) {
      a->json = true;
    } else if (strcmp(argv[i], "--no-timing") == 0) {
      a->opts.timing = false;
    } else if (strcmp(argv[i], "--strict-expectations") == 0) {
      a->opts.strict_expectations = true;
    } else if (vc_cmd_option(argc, argv, &i, "--expectations", &val)) {
      if (!val || !val[0]) return vc_cmd_no_value("compare", usage, argc, argv, at, "a file or none");
      a->expectations = val;
    } else if (vc_cmd_option(argc, argv, &i, "--threshold", &val)) {
      if (!val) return vc_cmd_no_value("compare", usage, argc, argv, at, "a percentage");
      if (parse_number(val, 0, 100000, &v))
        return vc_cmd_usage_error("compare", usage, "--threshold takes a percentage, 0 or more");
      a->opts.threshold_pct = v;
    } else if (vc_cmd_option(argc, argv, &i, "--min-delta-ms", &val)) {
      if (!val) return vc_cmd_no_value("compare", usage, argc, argv, at, "milliseconds");
      if (parse_number(val, 0, 1e9, &v))
        return vc_cmd_usage_error("compare", usage, "--min-delta-ms takes milliseconds, 0 or more");
      a->opts.min_delta_ns = (uint64_t)(v * 1e6);
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return vc_cmd_usage_error("compare", usage, "unknown option %s", argv[i]);
    } else if (nsides < 2) {
      a->sides[nsides++] = argv[i];
    } else {
      return vc_cmd_usage_error("compare", usage, "one baseline and one candidate, not %s too",
                                argv[i]);
    }
  }
  if (nsides != 2)
    return vc_cmd_usage_error("compare", usage, "a baseline and a candidate are needed");
  return 0;
}

static int run_compare(compare_args *a, vc_judged_by *judge, vc_run_data **runs) {
  vc_error err = {0};
  /* a failures file (export --failures) as the baseline: read against the
     candidate, without timings (docs/gating.md) */
  bool csv = vc_is_csv_path(a->sides[0]);
  for (int s = csv ? 1 : 0; s < 2; s++)
    if (vc_run_load_spec(a->sides[s], &runs[s], &err)) goto fail;
  /* Both sides are judged by the candidate's expectations: the file its
     run recorded, unless one is given (docs/gating.md, "One judge"). */
  if (vc_judged_by_load(runs[1], a->expectations, "compare", judge, &err)) goto fail;
  a->opts.exps = judge->loaded ? &judge->exps : NULL;
  a->opts.exps_text = judge->text;
  if (csv) {
    if (vc_run_from_failures_csv(a->sides[0], runs[1], &runs[0], &err)) goto fail;
    a->opts.timing = false;
  }
  for (int s = 0; s < 2; s++) vc_report_unfinished_stderr("compare", runs[s]);
  vc_comparison c;
  if (vc_compare_runs(runs[0], runs[1], &a->opts, &c, &err)) goto fail;
  if (a->json)
    vc_comparison_print_json(&c, stdout);
  else
    vc_comparison_print_text(&c, stdout);
  fflush(stdout);
  int status = c.exit_code;
  vc_comparison_free(&c);
  return status;
fail:
  vc_cmd_error("compare", &err);
  return vc_cmd_exit_for(&err);
}

int vc_cmd_compare(int argc, char **argv) {
  if (vc_cmd_help(argc, argv, help)) return VC_EXIT_OK;
  compare_args a = {0};
  int status = parse_args(argc, argv, &a);
  if (status) return status;
  vc_judged_by judge = {0};
  vc_run_data *runs[2] = {NULL, NULL};
  status = run_compare(&a, &judge, runs);
  vc_run_free(runs[0]);
  vc_run_free(runs[1]);
  vc_judged_by_free(&judge);
  return status;
}
