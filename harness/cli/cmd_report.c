/* vyre-conform report DB: HTML, Markdown and JUnit reports of one run or of
 * several (the qualification record of a device over its backends). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli/commands_results.h"
#include "harness/base/exitcodes.h"
#include "harness/cli/cmd_util.h"
#include "harness/cli/outpath.h"
#include "results/report/report.h"

#define USAGE                                                                        \
  "vyre-conform report DB[:RUN] [--run ID[,ID...]] [--baseline DB[:RUN]]\n"          \
  "       [--expectations FILE|none] [--html FILE] [--md FILE] [--junit FILE]\n"     \
  "       [--junit-limit N] [--junit-link TEMPLATE]"
static const char usage[] = USAGE;
static const char help[] =
    "usage: " USAGE "\n"
    "\n"
    "Writes the report of the runs named (default: DB's last complete run, or\n"
    "DB:RUN): the verdict (PASS, PASS WITH KNOWN ISSUES, NOT RUN: nothing was\n"
    "checked, FAIL), counts, known issues, the matrix and every failure\n"
    "(docs/reports.md). Several runs (one per backend, say) go side by side in\n"
    "one report.\n"
    "\n"
    "  --run ID[,ID...]     the runs of DB to report, at most 16\n"
    "  --baseline DB[:RUN]  what changed against that run: new failures, fixes,\n"
    "                       programs missing\n"
    "  --expectations FILE  judge by FILE (or none) instead of the file each run\n"
    "                       recorded\n"
    "  --html FILE          the HTML qualification report\n"
    "  --md FILE            the Markdown record\n"
    "  --junit FILE         JUnit XML, one testcase a program and mode\n"
    "  --junit-limit N      write the first N new failures of the JUnit file in\n"
    "                       full, the others in one line (0: all in full)\n"
    "  --junit-link T       a line \"T\" in each new failure, {{testcase}}, {{mode}},\n"
    "                       {{backend}} and {{run}} replaced\n"
    "\n"
    "With no output named, the Markdown report goes to standard output; FILE `-`\n"
    "writes that one there. An output that is one of the files read (DB, the\n"
    "baseline, the expectations, or their -wal/-journal files) or that another\n"
    "output names too is refused before anything is written.\n"
    "\n"
    "Exit status: 0 written, whatever the verdict; 2 usage error (an output\n"
    "over an input included); 4 a report file cannot be written or the\n"
    "expectations file cannot be read; 5 a database cannot be read or has no\n"
    "such run.\n";

typedef int (*writer_fn)(const vc_qual *q, vc_strbuf *out, vc_error *err);

enum { MAX_RUNS = 16 };

typedef struct report_args {
  const char *db;
  long long runs[MAX_RUNS];
  uint32_t nruns;
  const char *html, *md, *junit, *baseline;
  vc_report_opts opts;
} report_args;

static int parse_runs(const char *val, report_args *a) {
  const char *p = val;
  a->nruns = 0;
  while (p && *p) {
    char *end;
    long long id = strtoll(p, &end, 10);
    if (end == p || id < 1 || (*end && *end != ',') || a->nruns == MAX_RUNS)
      return vc_cmd_usage_error("report", usage,
                                "--run takes run ids, 1 or more, separated by commas (at most %d)",
                                MAX_RUNS);
    a->runs[a->nruns++] = id;
    p = *end ? end + 1 : end;
  }
  if (!a->nruns) return vc_cmd_usage_error("report", usage, "--run takes a run id, 1 or more");
  return 0;
}

/* No report over what it reads (the database, the baseline, the
   expectations), nor two reports into one file. */
static int check_outputs(const report_args *a, vc_error *err) {
  char db[4096], base[4096];
  int64_t id;
  vc_run_spec_split(a->db, db, &id);
  if (a->baseline) vc_run_spec_split(a->baseline, base, &id);
  const vc_io_file outs[] = {{"--html", a->html, false}, {"--md", a->md, false},
                             {"--junit", a->junit, false}};
  const vc_io_file ins[] = {{"the results database", db, true},
                            {"the baseline", a->baseline ? base : NULL, true},
                            {"--expectations", a->opts.expectations, false}};
  return vc_out_check(outs, 3, ins, 3, err);
}

static int parse_args(int argc, char **argv, report_args *a) {
  for (int i = 1; i < argc; i++) {
    const char *val = NULL;
    const char **slot = NULL;
    const int at = i; /* the option's index: i moves past a separate value */
    if (vc_cmd_option(argc, argv, &i, "--html", &val))
      slot = &a->html;
    else if (vc_cmd_option(argc, argv, &i, "--md", &val))
      slot = &a->md;
    else if (vc_cmd_option(argc, argv, &i, "--junit", &val))
      slot = &a->junit;
    else if (vc_cmd_option(argc, argv, &i, "--baseline", &val))
      slot = &a->baseline;
    else if (vc_cmd_option(argc, argv, &i, "--expectations", &val))
      slot = &a->opts.expectations;
    else if (vc_cmd_option(argc, argv, &i, "--junit-link", &val))
      slot = &a->opts.junit_link;
    else if (vc_cmd_option(argc, argv, &i, "--junit-limit", &val)) {
      if (!val) return vc_cmd_no_value("report", usage, argc, argv, at, "a count");
      char *end;
      long long n = strtoll(val, &end, 10);
      if (!val || !val[0] || *end || n < 0 || n > 1000000000)
        return vc_cmd_usage_error("report", usage, "--junit-limit takes a count, 0 or more");
      a->opts.junit_limit = (uint32_t)n;
      continue;
    } else if (vc_cmd_option(argc, argv, &i, "--run", &val)) {
      if (!val) return vc_cmd_no_value("report", usage, argc, argv, at, "a run id");
      int rc = parse_runs(val, a);
      if (rc) return rc;
      continue;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return vc_cmd_usage_error("report", usage, "unknown option %s", argv[i]);
    } else if (!a->db) {
      a->db = argv[i];
      continue;
    } else {
      return vc_cmd_usage_error("report", usage, "one database, not %s too", argv[i]);
    }
    if (!val || !val[0]) return vc_cmd_no_value("report", usage, argc, argv, at, "a value");
    *slot = val;
  }
  if (!a->db) return vc_cmd_usage_error("report", usage, "the results database is missing");
  if (strlen(a->db) >= 4096 || (a->baseline && strlen(a->baseline) >= 4096))
    return vc_cmd_usage_error("report", usage, "a database path longer than 4095 bytes");
  vc_error err = {0};
  if (check_outputs(a, &err)) return vc_cmd_usage_error("report", usage, "%s", err.msg);
  return 0;
}

static int write_one(const vc_qual *q, writer_fn fn, const char *path, vc_error *err) {
  vc_strbuf sb;
  vc_sb_init(&sb);
  int rc = fn(q, &sb, err);
  if (!rc) rc = vc_out_write(path, &sb, err);
  vc_sb_free(&sb);
  return rc;
}

static int write_reports(const report_args *a, const vc_qual *q, vc_error *err) {
  int rc = 0;
  if (!a->html && !a->md && !a->junit) return write_one(q, vc_report_markdown, "-", err);
  if (a->html) rc = write_one(q, vc_report_html, a->html, err);
  if (!rc && a->md) rc = write_one(q, vc_report_markdown, a->md, err);
  if (!rc && a->junit) rc = write_one(q, vc_report_junit, a->junit, err);
  return rc;
}

static int load_runs(const report_args *a, vc_run_data **runs, uint32_t *n, vc_error *err) {
  *n = 0;
  if (!a->nruns) {
    int rc = vc_run_load_spec(a->db, &runs[0], err);
    if (!rc) *n = 1;
    return rc;
  }
  for (uint32_t i = 0; i < a->nruns; i++) {
    int rc = vc_run_load(a->db, a->runs[i], &runs[i], err);
    if (rc) return rc;
    *n = i + 1;
  }
  return 0;
}

int vc_cmd_report(int argc, char **argv) {
  if (vc_cmd_help(argc, argv, help)) return VC_EXIT_OK;
  report_args a = {0};
  int status = parse_args(argc, argv, &a);
  if (status) return status;
  vc_error err = {0};
  vc_run_data *runs[MAX_RUNS] = {0}, *base = NULL;
  uint32_t n = 0;
  int rc = load_runs(&a, runs, &n, &err);
  if (!rc && a.baseline) rc = vc_run_load_spec(a.baseline, &base, &err);
  a.opts.baseline = base;
  for (uint32_t i = 0; !rc && i < n; i++) vc_report_unfinished_stderr("report", runs[i]);
  vc_qual q;
  bool built = false;
  if (!rc) {
    rc = vc_qual_build((const vc_run_data *const *)runs, n, &a.opts, &q, &err);
    built = rc == 0;
  }
  if (!rc) rc = write_reports(&a, &q, &err);
  if (built) vc_qual_free(&q);
  for (uint32_t i = 0; i < n; i++) vc_run_free(runs[i]);
  vc_run_free(base);
  if (rc) {
    vc_cmd_error("report", &err);
    return vc_cmd_exit_for(&err);
  }
  return VC_EXIT_OK;
}
