/* vyre-conform verdict DB[:RUN]: the exit status a recorded run gave, read
 * back from its file, so that a merged run is judged as one run would be. */
#include <stdio.h>
#include <string.h>

#include "harness/base/exitcodes.h"
#include "harness/cli/cmd_util.h"
#include "harness/cli/commands_results.h"
#include "results/gate/judged_by.h"
#include "results/gate/run_verdict.h"

#define USAGE "vyre-conform verdict DB[:RUN] [--expectations FILE|none]"
static const char usage[] = USAGE;
static const char help[] =
    "usage: " USAGE "\n"
    "\n"
    "Judges the results of one run (default: DB's last complete run, or DB:RUN)\n"
    "on its own, without a baseline, and exits with the status the run itself\n"
    "gave: every result against the expectations (the file the run recorded, or\n"
    "--expectations FILE|none), on the day it started. For a merged run this is\n"
    "the status the corpus run at once would have had. One line on standard\n"
    "output says the verdict and why.\n"
    "\n"
    "  --expectations FILE  judge by FILE (or none) instead of the file the run\n"
    "                       recorded\n"
    "\n"
    "Exit status: 0 passed (failures all expected); 1 a new failure, or the run\n"
    "is not complete (running, interrupted, failed: not every program ran);\n"
    "4 an invalid program, or the expectations file cannot be read; 6 an\n"
    "expectation for the device expired; 9 nothing was checked (everything\n"
    "skipped or unsupported); 10 the run was made with planted faults\n"
    "(--inject-*, --fault, a mutant build): it qualifies nothing, as compare\n"
    "says; 2 usage error; 5 the database cannot be read or has no such run.\n"
    "Where several apply, the precedence of docs/usage.md, \"Exit status\".\n";

static int parse_args(int argc, char **argv, const char **db, const char **exps) {
  for (int i = 1; i < argc; i++) {
    const char *val = NULL;
    const int at = i;
    if (vc_cmd_option(argc, argv, &i, "--expectations", &val)) {
      if (!val || !val[0]) return vc_cmd_no_value("verdict", usage, argc, argv, at, "a file");
      *exps = val;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return vc_cmd_usage_error("verdict", usage, "unknown option %s", argv[i]);
    } else if (!*db) {
      *db = argv[i];
    } else {
      return vc_cmd_usage_error("verdict", usage, "one database, not %s too", argv[i]);
    }
  }
  if (!*db) return vc_cmd_usage_error("verdict", usage, "the results database is missing");
  return 0;
}

static void print_why(const vc_run_data *r, const vc_file_verdict *v, const vc_judged_by *j) {
  const vc_run_verdict *rv = &v->rv;
  printf("verdict: %s run %lld of %s (%s): exit %d:", v->exit ? "FAIL" : "PASS", (long long)r->id,
         r->path, r->status, v->exit);
  const char *sep = " ";
  if (rv->failures)
    printf("%s%u failing result%s", sep, rv->failures, rv->failures == 1 ? "" : "s"), sep = "; ";
  if (rv->invalid) printf("%s%u invalid", sep, rv->invalid), sep = "; ";
  if (rv->expired)
    printf("%s%u expectation%s expired", sep, rv->expired, rv->expired == 1 ? "" : "s"), sep = "; ";
  if (vc_run_verdict_not_run(rv)) printf("%snothing was checked", sep), sep = "; ";
  if (strcmp(r->status, "complete") != 0)
    printf("%sthe run is %s: not every program ran", sep, r->status), sep = "; ";
  if (v->planted[0])
    printf("%splanted faults (%s): it qualifies nothing", sep, v->planted), sep = "; ";
  if (!v->exit)
    printf(" %u covered, %u expected failure%s", rv->covered, rv->excused,
           rv->excused == 1 ? "" : "s");
  printf("; expectations: %s\n", j->text);
}

int vc_cmd_verdict(int argc, char **argv) {
  if (vc_cmd_help(argc, argv, help)) return VC_EXIT_OK;
  const char *db = NULL, *exps = NULL;
  int rc = parse_args(argc, argv, &db, &exps);
  if (rc) return rc;
  vc_error err = {0};
  vc_run_data *r = NULL;
  if (vc_run_load_spec(db, &r, &err)) {
    vc_cmd_error("verdict", &err);
    return vc_cmd_exit_for(&err);
  }
  vc_judged_by j;
  if (vc_judged_by_load(r, exps, "verdict", &j, &err)) {
    vc_cmd_error("verdict", &err);
    vc_run_free(r);
    return VC_EXIT_INPUT;
  }
  vc_file_verdict v;
  vc_file_verdict_of(r, j.loaded ? &j.exps : NULL, &v);
  print_why(r, &v, &j);
  vc_judged_by_free(&j);
  vc_run_free(r);
  return v.exit;
}
