/* vyre-conform fuzz --backend B --out DIR: programs run in every mode and
 * recorded as normal runs; every failure is reduced and written into DIR
 * with a command that reproduces it, findings deduplicated by signature.
 * This file parses the arguments; the campaign is harness/fuzz/campaign.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/base/exitcodes.h"
#include "harness/base/kcache.h"
#include "harness/cli/args.h"
#include "harness/cli/cmd_util.h"
#include "harness/cli/commands.h"
#include "harness/exec/plugin.h"
#include "harness/fuzz/campaign.h"
#include "harness/run/runopts.h"

static const char help[] =
    "usage: vyre-conform fuzz --backend B [--mode LIST] [--seed S] [--count N | --time T]\n"
    "                         [--jobs N] [options] --out DIR\n"
    "\n"
    "Generates programs (or draws them from --from), each also transformed into\n"
    "an equivalent twin, runs each in every selected mode on the device exactly\n"
    "as `run` does, and records them in the results database as normal\n"
    "runs, each program with its source. Every program that diverges, crashes,\n"
    "times out, errs or is untrustworthy is reduced (`vyre-conform reduce`)\n"
    "in each failing mode, so that a cause that shows in one mode only is\n"
    "filed whatever the others show. A reduced program is written into\n"
    "DIR/findings with a one-line command that reproduces it. Findings are\n"
    "deduplicated by signature: backend, status, divergence class and the\n"
    "reduced program's shape, within a campaign and across the campaigns that\n"
    "share a results database (its findings table: modes, programs, first and\n"
    "last run); the summary (printed, and DIR/summary.txt) lists the distinct\n"
    "ones this campaign showed.\n"
    "\n"
    "  --out DIR            programs, findings, summary and (by default) the\n"
    "                       results database DIR/fuzz.db (required)\n"
    "  --backend B          the device's backend plugin (required)\n"
    "  --mode LIST          modes to run (all)\n"
    "  --seed S             which programs: the same seed and options give the\n"
    "                       same programs (1)\n"
    "  --count N            this many programs (and their twins), one run (100)\n"
    "  --time T             instead: runs of --batch programs until T seconds\n"
    "                       have passed\n"
    "  --batch N            programs per run with --time (20)\n"
    "  --jobs N             programs of a run prepared and run at once (1); the\n"
    "                       device phases still run one at a time (docs/usage.md)\n"
    "  --from PATH          draw the programs from PATH (files or folders) instead of\n"
    "                       generating them; without the generator (a build with no\n"
    "                       harness/gen) the default is corpus. Each program is\n"
    "                       renamed fz_S_I after its seed and index\n"
    "  --size S, --features LIST   the generator's (`generate --help`)\n"
    "  --transform T        with the generator: each program also runs transformed\n"
    "                       (fz_S_I_t) by T, a transformation's name, random (the\n"
    "                       default) or none\n"
    "  --db FILE            results database (DIR/fuzz.db)\n"
    "  --timeout S          seconds per program in the run (600)\n"
    "  --reduce-timeout S   seconds per candidate of a reduction (60)\n"
    "  --no-reduce          write the failing programs as they are\n"
    "  --device N, --device-options S, --cache DIR, --no-cache, --progress P:\n"
    "                       as for run\n"
    "  --inject-flip M:BUF:I, --inject-crash GLOB[@STEP], --inject-hang GLOB[@STEP]:\n"
    "                       as for run, in the runs and the reductions (for\n"
    "                       testing the harness)\n"
    "\n"
    "Exit status: 0 no finding; 1 findings (listed); 2 usage error; 3 no usable\n"
    "backend or device; 4 a program of --from cannot be read; 5 results database\n"
    "error; 7 the generator made a program the check refuses, or a transformation\n"
    "failed (a bug of the harness; the message names seed and index).\n";

int vc_cmd_fuzz(int argc, char **argv) {
  if (vc_wants_help(argc, argv)) {
    fputs(help, stdout);
    return VC_EXIT_OK;
  }
  enum { O_OUT, O_BACKEND, O_MODE, O_SEED, O_COUNT_, O_TIME, O_BATCH, O_JOBS, O_FROM, O_DB,
         O_TIMEOUT, O_RTIMEOUT, O_NOREDUCE, O_DEVICE, O_DEVOPTS, O_CACHE, O_NOCACHE, O_PROGRESS,
         O_SIZE, O_FEATURES, O_TRANSFORM, O_FLIP, O_CRASH, O_HANG, O_COUNT };
  vc_opt opts[O_COUNT] = {[O_OUT] = VC_OPT("out", true, false),
                          [O_BACKEND] = VC_OPT("backend", true, false),
                          [O_MODE] = VC_OPT("mode", true, false),
                          [O_SEED] = VC_OPT("seed", true, false),
                          [O_COUNT_] = VC_OPT("count", true, false),
                          [O_TIME] = VC_OPT("time", true, false),
                          [O_BATCH] = VC_OPT("batch", true, false),
                          [O_JOBS] = VC_OPT("jobs", true, false),
                          [O_FROM] = VC_OPT("from", true, true),
                          [O_DB] = VC_OPT("db", true, false),
                          [O_TIMEOUT] = VC_OPT("timeout", true, false),
                          [O_RTIMEOUT] = VC_OPT("reduce-timeout", true, false),
                          [O_NOREDUCE] = VC_OPT("no-reduce", false, false),
                          [O_DEVICE] = VC_OPT("device", true, false),
                          [O_DEVOPTS] = VC_OPT("device-options", true, false),
                          [O_CACHE] = VC_OPT("cache", true, false),
                          [O_NOCACHE] = VC_OPT("no-cache", false, false),
                          [O_PROGRESS] = VC_OPT("progress", true, false),
                          [O_SIZE] = VC_OPT("size", true, false),
                          [O_FEATURES] = VC_OPT("features", true, false),
                          [O_TRANSFORM] = VC_OPT("transform", true, false),
                          [O_FLIP] = VC_OPT("inject-flip", true, false),
                          [O_CRASH] = VC_OPT("inject-crash", true, false),
                          [O_HANG] = VC_OPT("inject-hang", true, false)};
  vc_args a;
  vc_error e;
  vc_error_clear(&e);
  vc_fuzz_opts z;
  memset(&z, 0, sizeof z);
  z.seed = 1;
  vc_runner_opts *r = &z.run;
  r->conform.repeat = 1;
  r->conform.nmodes = VC_MODE_COUNT;
  for (int m = 0; m < VC_MODE_COUNT; m++) r->conform.modes[m] = (vc_mode)m;
  r->timeout_s = 600;
  r->expectations = "none"; /* every failure is a finding; the gate is not fuzz's */
  r->progress = isatty(STDERR_FILENO);
  z.reduce_timeout_s = 60;
  z.count = 100;
  z.batch = 20;
  char *devopts = NULL, dbbuf[4200], flipbuf[512];
  uint32_t jobs = 1;
  int status = VC_EXIT_OK;
  if (vc_args_parse(argc, argv, opts, O_COUNT, &a, &e)) goto usage;
  vc_opt *o;
  if (a.npos) {
    vc_fail(&e, VC_ERR_USAGE, "unexpected argument '%s' (programs come from --from)", a.pos[0]);
    goto usage;
  }
  if (!(o = vc_args_get(opts, O_COUNT, "backend"))) {
    char names[2048];
    vc_plugin_names(names, sizeof names);
    vc_fail(&e, VC_ERR_USAGE, "--backend is required (backends found: %s)", names);
    goto usage;
  }
  z.backend = r->backend = o->value;
  if (!(o = vc_args_get(opts, O_COUNT, "out"))) {
    vc_fail(&e, VC_ERR_USAGE, "--out DIR is required");
    goto usage;
  }
  z.dir = o->value;
  if ((o = vc_args_get(opts, O_COUNT, "mode")) && vc_parse_modes(o->value, &r->conform, &e))
    goto usage;
  if ((o = vc_args_get(opts, O_COUNT, "seed")) && vc_args_u64(o, &z.seed, &e)) goto usage;
  if (vc_args_get(opts, O_COUNT, "count") && vc_args_get(opts, O_COUNT, "time")) {
    vc_fail(&e, VC_ERR_USAGE, "--count and --time exclude each other");
    goto usage;
  }
  if ((o = vc_args_get(opts, O_COUNT, "count")) && vc_args_u32(o, 1, 1000000, &z.count, &e))
    goto usage;
  if ((o = vc_args_get(opts, O_COUNT, "time")) && vc_args_u32(o, 1, 7 * 86400, &z.time_s, &e))
    goto usage;
  if ((o = vc_args_get(opts, O_COUNT, "batch")) && vc_args_u32(o, 1, 100000, &z.batch, &e))
    goto usage;
  if ((o = vc_args_get(opts, O_COUNT, "jobs")) && vc_args_u32(o, 1, 1024, &jobs, &e)) goto usage;
  r->jobs = jobs;
  r->device_jobs = 1;
  if ((o = vc_args_get(opts, O_COUNT, "timeout")) && vc_args_u32(o, 1, 86400, &r->timeout_s, &e))
    goto usage;
  if ((o = vc_args_get(opts, O_COUNT, "reduce-timeout")) &&
      vc_args_u32(o, 1, 86400, &z.reduce_timeout_s, &e))
    goto usage;
  z.reduce = !vc_args_get(opts, O_COUNT, "no-reduce");
  if ((o = vc_args_get(opts, O_COUNT, "inject-flip")) &&
      vc_parse_flip(o->value, &r->conform, NULL, flipbuf, sizeof flipbuf, &e))
    goto usage;
  if ((o = vc_args_get(opts, O_COUNT, "inject-crash"))) r->inject_crash = o->value;
  if ((o = vc_args_get(opts, O_COUNT, "inject-hang"))) r->inject_hang = o->value;
  if ((o = vc_args_get(opts, O_COUNT, "device")) && vc_args_u32(o, 0, 1024, &r->device, &e))
    goto usage;
  if ((o = vc_args_get(opts, O_COUNT, "device-options"))) r->device_options = o->value;
  o = vc_args_get(opts, O_COUNT, "cache");
  if (vc_kcache_device_options(o ? o->value : NULL, vc_args_get(opts, O_COUNT, "no-cache") != NULL,
                               r->device_options, &r->device_options, &devopts, &e))
    goto usage;
  if ((o = vc_args_get(opts, O_COUNT, "progress"))) {
    if (strcmp(o->value, "tty") == 0)
      r->progress = 1;
    else if (strcmp(o->value, "plain") == 0)
      r->progress = 0;
    else if (strcmp(o->value, "auto") != 0) {
      vc_fail(&e, VC_ERR_USAGE, "--progress: '%s' is not auto, tty or plain", o->value);
      goto usage;
    }
  }
  snprintf(dbbuf, sizeof dbbuf, "%s/fuzz.db", z.dir);
  z.db = r->db_path = (o = vc_args_get(opts, O_COUNT, "db")) ? o->value : dbbuf;
  r->command_line = "fuzz";
  vc_opt *from = vc_args_get(opts, O_COUNT, "from");
  if (from) {
    z.from = from->values;
    z.nfrom = from->count;
  }
#ifdef VC_HAVE_GEN
  vc_gen_opts_default(&z.gen);
  z.transform = "random";
  if ((o = vc_args_get(opts, O_COUNT, "size")) && vc_gen_size_parse(o->value, &z.gen.size, &e))
    goto usage;
  if ((o = vc_args_get(opts, O_COUNT, "features")) &&
      vc_gen_opts_features_parse(o->value, &z.gen, &e))
    goto usage;
  if ((o = vc_args_get(opts, O_COUNT, "transform")))
    z.transform = strcmp(o->value, "none") == 0 ? NULL : o->value;
#else
  for (const char *const *g = (const char *const[]){"size", "features", "transform", NULL}; *g; g++)
    if (vc_args_get(opts, O_COUNT, *g)) {
      vc_fail(&e, VC_ERR_USAGE, "--%s needs the program generator, which this build lacks", *g);
      goto usage;
    }
#endif
  vc_error_clear(&e);
  status = vc_fuzz_campaign(&z, &e);
  if (status == VC_EXIT_USAGE && e.code == VC_ERR_USAGE) goto usage;
  free(devopts);
  vc_args_free(opts, O_COUNT, &a);
  return status;
usage:
  free(devopts);
  vc_args_free(opts, O_COUNT, &a);
  return vc_usage_error("fuzz", e.msg);
}
