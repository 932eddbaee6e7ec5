/* vyre-conform export DB[:RUN] [--run N] --csv FILE --failures FILE:
 * a run as plain text (results/gate/results_csv.h, docs/gating.md), so
 * that a baseline can live in git and be diffed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/exitcodes.h"
#include "harness/cli/cmd_util.h"
#include "harness/cli/outpath.h"
#include "harness/cli/commands_results.h"
#include "results/gate/results_csv.h"
#include "results/report/report.h"

#define USAGE                                                                 \
  "vyre-conform export DB[:RUN] [--run N] [--csv FILE] [--failures FILE]\n" \
  "       [--expectations FILE|none]"
static const char usage[] = USAGE;
static const char help[] =
    "usage: " USAGE "\n"
    "\n"
    "Writes run N of DB (default: the last complete run) as CSV,\n"
    "program,mode,status,duration_ms, one line per program and mode (its repeats\n"
    "summarised: the first failing repeat's status, the median wall time):\n"
    "  --run N          the run (or DB:N)\n"
    "  --csv FILE       every program and mode\n"
    "  --failures FILE  only those that failed; compare takes this file as a\n"
    "                   baseline (docs/gating.md)\n"
    "At least one of them; `-` writes to standard output (one of them only). A\n"
    "FILE that is DB (or its -wal/-journal file) or the other output's is\n"
    "refused before anything is written.\n"
    "  --expectations   judge by FILE (or none) instead of the file the run\n"
    "                   recorded; the verdict and the file go to standard error\n"
    "\n"
    "Exit status: 0 written, whatever the verdict; 2 usage error (an output over\n"
    "the database included); 4 a file cannot be written or the expectations\n"
    "given cannot be read; 5 the database cannot be read.\n";

/* The run's verdict by the one rule of every command (results/gate/judged_by.h),
   on standard error: the CSV stays the run's facts. */
static int judge(const vc_run_data *r, const char *exps, vc_error *err) {
  vc_report_opts o = {0};
  o.expectations = exps;
  vc_qual q;
  if (vc_qual_build(&r, 1, &o, &q, err)) return -1;
  fprintf(stderr, "export: run %lld judged by %s: %s (%s)\n", (long long)r->id,
          q.runs[0].exps_text, vc_verdict_word(q.verdict), q.runs[0].why);
  vc_qual_free(&q);
  return 0;
}

int vc_cmd_export(int argc, char **argv) {
  if (vc_cmd_help(argc, argv, help)) return VC_EXIT_OK;
  const char *db = NULL, *csv = NULL, *failures = NULL, *run = NULL, *exps = NULL, *val;
  for (int i = 1; i < argc; i++) {
    const int at = i; /* the option's index: i moves past a separate value */
    if (vc_cmd_option(argc, argv, &i, "--csv", &val)) {
      if (!val || !*val) return vc_cmd_no_value("export", usage, argc, argv, at, "a file");
      csv = val;
    } else if (vc_cmd_option(argc, argv, &i, "--failures", &val)) {
      if (!val || !*val) return vc_cmd_no_value("export", usage, argc, argv, at, "a file");
      failures = val;
    } else if (vc_cmd_option(argc, argv, &i, "--expectations", &val)) {
      if (!val || !*val) return vc_cmd_no_value("export", usage, argc, argv, at, "a file or none");
      exps = val;
    } else if (vc_cmd_option(argc, argv, &i, "--run", &val)) {
      if (!val) return vc_cmd_no_value("export", usage, argc, argv, at, "a run id");
      if (!*val || strspn(val, "0123456789") != strlen(val))
        return vc_cmd_usage_error("export", usage, "--run takes a run id");
      run = val;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return vc_cmd_usage_error("export", usage, "unknown option %s", argv[i]);
    } else if (!db) {
      db = argv[i];
    } else {
      return vc_cmd_usage_error("export", usage, "one database, not %s too", argv[i]);
    }
  }
  if (!db) return vc_cmd_usage_error("export", usage, "a results database is needed");
  if (!csv && !failures) return vc_cmd_usage_error("export", usage, "--csv or --failures is needed");
  char spec[4200];
  if (run) {
    char path[4096];
    int64_t id;
    vc_run_spec_split(db, path, &id);
    if (id) return vc_cmd_usage_error("export", usage, "the run is named twice (%s and --run)", db);
  }
  snprintf(spec, sizeof spec, "%s%s%s", db, run ? ":" : "", run ? run : "");
  vc_error err = {0};
  {
    char path[4096];
    int64_t id;
    if (strlen(db) >= sizeof path) return vc_cmd_usage_error("export", usage, "a path too long");
    vc_run_spec_split(db, path, &id);
    const vc_io_file outs[] = {{"--csv", csv, false}, {"--failures", failures, false}};
    const vc_io_file ins[] = {{"the results database", path, true},
                              {"--expectations", exps, false}};
    if (vc_out_check(outs, 2, ins, 2, &err)) return vc_cmd_usage_error("export", usage, "%s", err.msg);
  }
  vc_run_data *r = NULL;
  int status = VC_EXIT_OK;
  if (vc_run_load_spec(spec, &r, &err)) goto fail;
  vc_report_unfinished_stderr("export", r);
  if (judge(r, exps, &err)) goto fail;
  const char *paths[2] = {csv, failures};
  for (int k = 0; k < 2; k++) {
    if (!paths[k]) continue;
    vc_strbuf sb;
    vc_sb_init(&sb);
    int rc = vc_results_csv(r, k == 1, &sb, &err);
    if (!rc) rc = vc_out_write(paths[k], &sb, &err);
    vc_sb_free(&sb);
    if (rc) goto fail;
  }
  vc_run_free(r);
  return status;
fail:
  vc_cmd_error("export", &err);
  vc_run_free(r);
  return vc_cmd_exit_for(&err);
}
