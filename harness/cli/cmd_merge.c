/* vyre-conform merge -o OUT SHARD.db...: one run from the shards of one. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/plural.h"
#include "harness/cli/commands_results.h"
#include "harness/base/exitcodes.h"
#include "harness/cli/cmd_util.h"
#include "harness/cli/outpath.h"
#include "results/store/load.h"
#include "results/gate/merge.h"

static const char usage[] = "vyre-conform merge [--allow-mixed] -o OUT SHARD.db[:RUN]...";
static const char help[] =
    "usage: vyre-conform merge [--allow-mixed] -o OUT SHARD.db[:RUN]...\n"
    "\n"
    "Joins the shard files of one sharded run (`vyre-conform --shard K/N`, each\n"
    "shard into its own file) into one run that reads as if the selection had\n"
    "run at once, appended to OUT (docs/gating.md). Each SHARD is its latest run\n"
    "unless :RUN names one. Refused, writing nothing, naming the files: shards\n"
    "cut from different selections (each run records the digest of its\n"
    "selection before --shard) or into different N, a shard given twice or\n"
    "missing, a program in two shards or outside the selection, complete shards\n"
    "whose programs are not the whole selection, an OUT that is one of the\n"
    "shards; and shards that differ in harness version, build (the SHA-256 of\n"
    "the binary), plugin, backend, modes, device, driver, repeat, timeout,\n"
    "device options, flake reruns or max buffer bytes. Planted faults of any\n"
    "shard are carried into the merged run (compare refuses it, exit 10).\n"
    "\n"
    "  -o OUT, --output OUT   the results file the merged run goes to (created\n"
    "                         if absent; an existing one keeps its runs; not `-`)\n"
    "  --allow-mixed          merge shards that differ in the fields of the last\n"
    "                         list anyway; the merged run records them as its\n"
    "                         option mixed=FIELD,... and the report shows it\n"
    "\n"
    "Exit status: 0 a complete run was written; 1 a shard was not complete (the\n"
    "merged run is then interrupted or failed); 2 usage error; 4 the shards\n"
    "were refused (they do not make one run); 5 a results file cannot be read\n"
    "or written.\n";

enum { MERGE_BUSY_MS = 10000 };

/* Reports the merged run; a run that is not complete fails the command. */
static int announce(const char *out, int64_t run_id, int nshards) {
  vc_error err = {0};
  vc_run_data *r;
  if (vc_run_load(out, run_id, &r, &err)) {
    vc_cmd_error("merge", &err);
    return vc_cmd_exit_for(&err);
  }
  printf("merged %d %s into %s run %lld: %s, %u %s\n", nshards,
         vc_plural((uint64_t)nshards, "shard", "shards"), out, (long long)run_id, r->status,
         r->nprogs, vc_plural(r->nprogs, "program", "programs"));
  int status = strcmp(r->status, "complete") == 0 ? VC_EXIT_OK : VC_EXIT_FAIL;
  if (status)
    fprintf(stderr, "vyre-conform merge: the merged run is %s: a shard was not complete\n",
            r->status);
  vc_run_free(r);
  return status;
}

static int parse_args(int argc, char **argv, const char **out, const char **inputs, int *n,
                      bool *allow_mixed) {
  for (int i = 1; i < argc; i++) {
    const char *val;
    const int at = i; /* the option's index: i moves past a separate value */
    if (strcmp(argv[i], "--allow-mixed") == 0) {
      *allow_mixed = true;
    } else if (vc_cmd_option(argc, argv, &i, "-o", &val) ||
        vc_cmd_option(argc, argv, &i, "--output", &val)) {
      if (!val || !*val) return vc_cmd_no_value("merge", usage, argc, argv, at, "a file");
      *out = val;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return vc_cmd_usage_error("merge", usage, "unknown option %s", argv[i]);
    } else {
      inputs[(*n)++] = argv[i];
    }
  }
  if (!*out) return vc_cmd_usage_error("merge", usage, "the output file (-o OUT) is missing");
  if (vc_out_is_stdout(*out))
    return vc_cmd_usage_error("merge", usage,
                              "-o -: a results database cannot go to standard output; name a file");
  if (!*n) return vc_cmd_usage_error("merge", usage, "no shard files given");
  return VC_EXIT_OK;
}

int vc_cmd_merge(int argc, char **argv) {
  if (vc_cmd_help(argc, argv, help)) return VC_EXIT_OK;
  const char *out = NULL;
  const char **inputs = calloc((size_t)argc + 1, sizeof *inputs);
  if (!inputs) return VC_EXIT_FAIL;
  int n = 0;
  bool allow_mixed = false;
  int status = parse_args(argc, argv, &out, inputs, &n, &allow_mixed);
  if (status == VC_EXIT_OK) {
    vc_error err = {0};
    int64_t run_id;
    if (vc_merge(out, inputs, (uint32_t)n, MERGE_BUSY_MS, allow_mixed, &run_id, &err)) {
      vc_cmd_error("merge", &err);
      /* shards that do not make one run are bad input, not a regression */
      status = err.code == VC_ERR_USAGE ? VC_EXIT_INPUT : vc_cmd_exit_for(&err);
    } else {
      status = announce(out, run_id, n);
    }
  }
  free(inputs);
  return status;
}
