/* vyre-conform: command dispatch, --help and --version. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli/args.h"
#include "harness/cli/buildinfo.h"
#include "harness/cli/commands.h"
#include "harness/cli/commands_results.h"
#include "harness/base/exitcodes.h"
#include "harness/base/mutant.h"
#include "harness/base/version.h"
#include "harness/model/digest.h"


typedef struct command {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *summary;
} command;

static const command commands[] = {
    {"run", vc_cmd_run, "run a corpus on a device in every mode (the default command)"},
    {"check", vc_cmd_check, "parse, validate, oracle, split-on-oracle and golden digests"},
    {"split", vc_cmd_split, "show how a program is cut into segments, and the plan"},
    {"emit", vc_cmd_emit, "print the kernel source a backend generates"},
    {"compile", vc_cmd_compile, "compile every kernel of a corpus without a device"},
    {"backends", vc_cmd_backends, "list backend plugins and their devices"},
    {"generate", vc_cmd_generate, "write generated programs, each checked on the oracle"},
    {"transform", vc_cmd_transform, "rewrite a program into an equivalent one"},
    {"reduce", vc_cmd_reduce, "shrink a failing program, keeping how it fails"},
    {"fuzz", vc_cmd_fuzz, "run generated programs in every mode, reduce what fails"},
    {"litmus", vc_cmd_litmus, "litmus tests of the grid-sync contract under stress"},
    {"compare", vc_cmd_compare, "compare a candidate run with a baseline (CI gate)"},
    {"merge", vc_cmd_merge, "merge the shards of one run into one database"},
    {"report", vc_cmd_report, "write HTML, Markdown and JUnit reports of a run"},
    {"export", vc_cmd_export, "write a run as CSV: every result, or the failures"},
    {"verdict", vc_cmd_verdict, "exit with a recorded run's own verdict, no baseline"},
    {"package", vc_cmd_package, "write a qualification package a third party can verify"},
    {"verify", vc_cmd_verify, "check that a qualification package is complete and consistent"},
};
static const unsigned ncommands = sizeof commands / sizeof commands[0];

static void usage(FILE *out) {
  fprintf(out,
          "usage: vyre-conform --backend B [options] PATH...\n"
          "       vyre-conform COMMAND [options] [ARGS]\n"
          "\n"
          "vyre-conform checks that splitting GPU programs at their grid barriers is\n"
          "exact: it runs every program unsplit (native), split with buffers through\n"
          "the host (host-split) and split with buffers on the device\n"
          "(resident-split), compares every output byte with a CPU oracle and records\n"
          "the results in SQLite.\n\ncommands:\n");
  for (unsigned i = 0; i < ncommands; i++)
    fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fprintf(out, "\n`vyre-conform COMMAND --help` describes each; docs/usage.md has the guide.\n"
               "  --version  print the version, the commit it was built from, the build id\n"
               "             (SHA-256 of this binary, as runs record it), the compiler, the\n"
               "             build type and the CMake options\n"
               "  mutants    list the planted faults of a -DVC_MUTANTS=ON build (docs/detection.md);\n"
               "             --killers: each with the programs and tests that kill it\n");
}

int vc_usage_error(const char *cmd, const char *msg) {
  fprintf(stderr, "vyre-conform %s: %s\nTry 'vyre-conform %s --help'.\n", cmd, msg, cmd);
  return VC_EXIT_USAGE;
}

int vc_wants_help(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0) return 0;
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return VC_EXIT_USAGE;
  }
  if (strcmp(argv[1], "--version") == 0) {
    vc_package_build b = vc_build_info();
    printf("vyre-conform %s (commit %s)\nbuild: %s\n", b.version, b.commit, b.build_id);
    printf("compiler: %s\nbuild type: %s\noptions: %s\n", b.compiler, b.build_type, b.cmake_options);
    if (vc_mutants_built()) printf("planted faults: %d (VC_MUTANTS; `vyre-conform mutants` lists them)\n", VC_MUT_COUNT);
    return VC_EXIT_OK;
  }
  for (int i = 1; i < argc; i++) /* --fault NAME: a driver fault, mutant builds only */
    if (strcmp(argv[i], "--fault") == 0) {
      if (i + 1 == argc || vc_args_looks_like_option(argv[i + 1])) {
        fprintf(stderr, "vyre-conform: --fault needs the name of a planted fault "
                        "(`vyre-conform mutants` lists them)\n");
        return VC_EXIT_USAGE;
      }
      setenv("VYRE_CONFORM_FAULT", argv[i + 1], 1);
      memmove(argv + i, argv + i + 2, (size_t)(argc - i - 1) * sizeof *argv);
      argc -= 2;
      break;
    }
  if (vc_mutants_check_env(stderr)) return VC_EXIT_USAGE;
  if (strcmp(argv[1], "mutants") == 0) return vc_cmd_mutants(argc - 1, argv + 1);
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    usage(stdout);
    return VC_EXIT_OK;
  }
  if (strcmp(argv[1], "help") == 0) {
    if (argc < 3) {
      usage(stdout);
      return VC_EXIT_OK;
    }
    char *sub[] = {argv[2], "--help", NULL};
    for (unsigned i = 0; i < ncommands; i++)
      if (strcmp(commands[i].name, argv[2]) == 0) return commands[i].run(2, sub);
    return vc_usage_error("help", "unknown command");
  }
  for (unsigned i = 0; i < ncommands; i++)
    if (strcmp(commands[i].name, argv[1]) == 0) return commands[i].run(argc - 1, argv + 1);
  if (argv[1][0] != '-') {
    /* A path as the first argument still means `run`; a typo of a command does not. */
    FILE *f = fopen(argv[1], "r");
    if (!f) {
      fprintf(stderr, "vyre-conform: unknown command '%s'\n", argv[1]);
      usage(stderr);
      return VC_EXIT_USAGE;
    }
    fclose(f);
  }
  return vc_cmd_run(argc, argv);
}
