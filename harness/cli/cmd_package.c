/* vyre-conform package -o DIR DB: the qualification package of a results
 * file (results/package/package.h, docs/qualification/README.md). */
#include <stdio.h>
#include <string.h>

#include "harness/base/exitcodes.h"
#include "harness/cli/buildinfo.h"
#include "harness/cli/cmd_util.h"
#include "harness/cli/commands_results.h"
#include "results/package/package.h"

#define USAGE                                                                      \
  "vyre-conform package -o DIR DB [--source DIR] [--log FILE]... [--backends FILE]\n" \
  "       [--product TEXT] [--driver TEXT] [--os TEXT] [--allow-dirty]"
static const char usage[] = USAGE;
static const char help[] =
    "usage: " USAGE "\n"
    "\n"
    "Writes the qualification package of every run of DB: the folder DIR and\n"
    "DIR.tar.gz (made by tar), holding results.db (a consistent copy of DB),\n"
    "records/ (the report of the runs: Markdown, HTML, JUnit), logs/,\n"
    "backends.txt, expectations/ (every expectations file a run was judged by),\n"
    "tree/ (git-status.txt, git-log.txt, diff.patch when dirty), statement.txt\n"
    "(to fill in and sign), manifest.json and SHA256SUMS (docs/qualification/\n"
    "README.md). `vyre-conform verify DIR` checks it.\n"
    "\n"
    "  -o DIR           the package's folder; neither DIR nor DIR.tar.gz may exist\n"
    "  --source DIR     the checkout whose state is recorded (default: .)\n"
    "  --log FILE       a log to include under logs/ (repeatable): a run's output,\n"
    "                   its standard error\n"
    "  --backends FILE  the `vyre-conform backends` listing, as backends.txt\n"
    "  --product TEXT   the product, driver and operating system the statement\n"
    "  --driver TEXT    names; each left out reads FILL IN\n"
    "  --os TEXT\n"
    "  --allow-dirty    package a checkout with uncommitted changes: manifest.json\n"
    "                   (\"for_submission\": false), statement.txt and every record\n"
    "                   say NOT FOR SUBMISSION\n"
    "\n"
    "A run that is not complete or had planted faults is packaged with a\n"
    "warning: such a package does not verify.\n"
    "\n"
    "Exit status: 0 written; 2 usage error, DIR there already, or the checkout\n"
    "has uncommitted changes (named) without --allow-dirty; 4 a file cannot be\n"
    "read or written (a log, the listing, a run's expectations file, which is\n"
    "named, or one that changed since the run), or git or tar failed; 5 the\n"
    "database cannot be read.\n";

enum { MAX_LOGS = 64 };

static int parse_args(int argc, char **argv, vc_package_opts *o, const char **logs) {
  for (int i = 1; i < argc; i++) {
    const char *val = NULL;
    const char **slot = NULL;
    const int at = i;
    if (vc_cmd_option(argc, argv, &i, "-o", &val))
      slot = &o->out;
    else if (vc_cmd_option(argc, argv, &i, "--source", &val))
      slot = &o->source;
    else if (vc_cmd_option(argc, argv, &i, "--backends", &val))
      slot = &o->backends;
    else if (vc_cmd_option(argc, argv, &i, "--product", &val))
      slot = &o->product;
    else if (vc_cmd_option(argc, argv, &i, "--driver", &val))
      slot = &o->driver;
    else if (vc_cmd_option(argc, argv, &i, "--os", &val))
      slot = &o->os;
    else if (vc_cmd_option(argc, argv, &i, "--log", &val)) {
      if (!val || !val[0]) return vc_cmd_no_value("package", usage, argc, argv, at, "a file");
      if (o->nlogs == MAX_LOGS)
        return vc_cmd_usage_error("package", usage, "at most %d --log files", MAX_LOGS);
      logs[o->nlogs++] = val;
      continue;
    } else if (strcmp(argv[i], "--allow-dirty") == 0) {
      o->allow_dirty = true;
      continue;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return vc_cmd_usage_error("package", usage, "unknown option %s", argv[i]);
    } else if (!o->db) {
      o->db = argv[i];
      continue;
    } else {
      return vc_cmd_usage_error("package", usage, "one database, not %s too", argv[i]);
    }
    if (!val || !val[0]) return vc_cmd_no_value("package", usage, argc, argv, at, "a value");
    *slot = val;
  }
  if (!o->db) return vc_cmd_usage_error("package", usage, "the results database is missing");
  if (!o->out) return vc_cmd_usage_error("package", usage, "-o DIR is missing");
  return 0;
}

int vc_cmd_package(int argc, char **argv) {
  if (vc_cmd_help(argc, argv, help)) return VC_EXIT_OK;
  const char *logs[MAX_LOGS];
  vc_package_opts o = {.source = ".", .logs = logs, .build = vc_build_info()};
  int rc = parse_args(argc, argv, &o, logs);
  if (rc) return rc;
  vc_error err = {0};
  if (vc_package_make(&o, stderr, &err)) {
    vc_cmd_error("package", &err);
    return err.code == VC_ERR_USAGE ? VC_EXIT_USAGE : vc_cmd_exit_for(&err);
  }
  printf("package: %s and %s.tar.gz\n", o.out, o.out);
  return VC_EXIT_OK;
}
