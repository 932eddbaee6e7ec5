/* vyre-conform verify PACKAGE: whether a qualification package is complete
 * and consistent (results/package/package.h). */
#include <stdio.h>
#include <string.h>

#include "harness/base/exitcodes.h"
#include "harness/cli/cmd_util.h"
#include "harness/cli/commands_results.h"
#include "results/package/package.h"

#define USAGE "vyre-conform verify PACKAGE"
static const char usage[] = USAGE;
static const char help[] =
    "usage: " USAGE "\n"
    "\n"
    "Checks a package that `vyre-conform package` wrote, the folder or its\n"
    ".tar.gz: every file against SHA256SUMS; the database's runs are the ones\n"
    "manifest.json names, each complete, whole (no shard) and without planted\n"
    "faults, its fields as the manifest says; every program of the corpus\n"
    "manifest has exactly one result in every mode the run was asked for, each\n"
    "repeat, and no run has a program beyond it; every unsupported result has\n"
    "a reason of a known class (device limit, missing feature, harness limit);\n"
    "every expectations file a run was judged by is in the package with the\n"
    "hash the manifest and the run recorded; the checkout was clean. Each\n"
    "problem is one line \"invalid: ...\", each warning \"warning: ...\", naming\n"
    "the file, run, program or mode; the last line says what the package is.\n"
    "Warnings: a package made with --allow-dirty (NOT FOR SUBMISSION), a file\n"
    "not listed in SHA256SUMS, runs with a cold and a warm kernel cache, new\n"
    "failures (the package is valid, its verdict FAIL).\n"
    "\n"
    "Exit status: 0 valid; 11 invalid; 12 valid with warnings; 2 usage error;\n"
    "4 PACKAGE cannot be read or unpacked.\n";

int vc_cmd_verify(int argc, char **argv) {
  if (vc_cmd_help(argc, argv, help)) return VC_EXIT_OK;
  const char *path = NULL;
  for (int i = 1; i < argc; i++) {
    if (argv[i][0] == '-' && argv[i][1])
      return vc_cmd_usage_error("verify", usage, "unknown option %s", argv[i]);
    if (path) return vc_cmd_usage_error("verify", usage, "one package, not %s too", argv[i]);
    path = argv[i];
  }
  if (!path) return vc_cmd_usage_error("verify", usage, "the package is missing");
  vc_verify_counts c;
  vc_error err = {0};
  if (vc_package_verify(path, stdout, &c, &err)) {
    vc_cmd_error("verify", &err);
    return VC_EXIT_INPUT;
  }
  if (c.problems) {
    printf("verify: %s: INVALID: %u problem%s, %u warning%s\n", path, c.problems,
           c.problems == 1 ? "" : "s", c.warnings, c.warnings == 1 ? "" : "s");
    return VC_EXIT_PKG_INVALID;
  }
  if (c.warnings) {
    printf("verify: %s: valid with %u warning%s\n", path, c.warnings, c.warnings == 1 ? "" : "s");
    return VC_EXIT_PKG_WARNINGS;
  }
  printf("verify: %s: valid\n", path);
  return VC_EXIT_OK;
}
