/* vyre-conform report DB: HTML, Markdown and JUnit reports of one run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli/commands_results.h"
#include "harness/base/exitcodes.h"
#include "harness/cli/cmd_util.h"
#include "results/report/report.h"

static const char usage[] =
    "vyre-conform report DB[:RUN] [--run ID] [--html FILE] [--md FILE] [--junit FILE]\n"
    "       (with no output named, the Markdown summary goes to standard output)";

typedef int (*writer_fn)(const vc_run_data *r, vc_strbuf *out, vc_error *err);

typedef struct report_args {
  const char *db;
  long long run;
  const char *html, *md, *junit;
} report_args;

static int parse_args(int argc, char **argv, report_args *a) {
  for (int i = 1; i < argc; i++) {
    const char *val = NULL;
    const char **slot = NULL;
    if (vc_cmd_option(argc, argv, &i, "--html", &val))
      slot = &a->html;
    else if (vc_cmd_option(argc, argv, &i, "--md", &val))
      slot = &a->md;
    else if (vc_cmd_option(argc, argv, &i, "--junit", &val))
      slot = &a->junit;
    else if (vc_cmd_option(argc, argv, &i, "--run", &val)) {
      char *end;
      a->run = val ? strtoll(val, &end, 10) : 0;
      if (!val || *end || a->run < 1)
        return vc_cmd_usage_error("report", usage, "--run takes a run id, 1 or more");
      continue;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return vc_cmd_usage_error("report", usage, "unknown option %s", argv[i]);
    } else if (!a->db) {
      a->db = argv[i];
      continue;
    } else {
      return vc_cmd_usage_error("report", usage, "one database, not %s too", argv[i]);
    }
    if (!val || !val[0]) return vc_cmd_usage_error("report", usage, "%s needs a file", argv[i]);
    *slot = val;
  }
  if (!a->db) return vc_cmd_usage_error("report", usage, "the results database is missing");
  return 0;
}

static int write_one(const vc_run_data *r, writer_fn fn, const char *path, vc_error *err) {
  vc_strbuf sb;
  vc_sb_init(&sb);
  int rc = fn(r, &sb, err);
  if (!rc && path) rc = vc_cmd_write_file(path, &sb, err);
  if (!rc && !path) fputs(vc_sb_str(&sb), stdout);
  vc_sb_free(&sb);
  return rc;
}

static int write_reports(const report_args *a, const vc_run_data *r, vc_error *err) {
  int rc = 0;
  if (!a->html && !a->md && !a->junit) return write_one(r, vc_report_markdown, NULL, err);
  if (a->html) rc = write_one(r, vc_report_html, a->html, err);
  if (!rc && a->md) rc = write_one(r, vc_report_markdown, a->md, err);
  if (!rc && a->junit) rc = write_one(r, vc_report_junit, a->junit, err);
  return rc;
}

int vc_cmd_report(int argc, char **argv) {
  if (vc_cmd_help(argc, argv, usage)) return VC_EXIT_OK;
  report_args a = {0};
  int status = parse_args(argc, argv, &a);
  if (status) return status;
  vc_error err = {0};
  vc_run_data *r = NULL;
  int rc = a.run ? vc_run_load(a.db, a.run, &r, &err) : vc_run_load_spec(a.db, &r, &err);
  if (!rc) vc_report_unfinished_stderr("report", r);
  if (!rc) rc = write_reports(&a, r, &err);
  vc_run_free(r);
  if (rc) {
    vc_cmd_error("report", &err);
    return vc_cmd_exit_for(&err);
  }
  return VC_EXIT_OK;
}
