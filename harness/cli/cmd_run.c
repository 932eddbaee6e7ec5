/* vyre-conform [run] --backend B [options] PATH... */
#define _GNU_SOURCE /* sched_getaffinity: --jobs defaults to the CPUs this process may use */
#include <fnmatch.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/cli/args.h"
#include "harness/cli/cmd_util.h"
#include "harness/cli/commands.h"
#include "harness/base/exitcodes.h"
#include "harness/base/kcache.h"
#include "harness/exec/plugin.h"
#include "harness/lang/caselist.h"
#include "harness/run/runner.h"
#include "harness/run/runopts.h"

static const char help[] =
    "usage: vyre-conform [run] --backend B [options] PATH...\n"
    "       vyre-conform [run] --resume RUN [--db FILE]\n"
    "\n"
    "Runs every program under PATH (files, or directories searched for *.vyre)\n"
    "on one device, in each mode, compares every output byte with the CPU\n"
    "oracle, and appends a run to the results database. A value that starts\n"
    "with -- is written --name=VALUE (`--filter --db x` is refused: the glob\n"
    "was forgotten).\n"
    "\n"
    "  --backend B          a backend plugin's name, as listed below (required)\n"
    "  --device N           device index as `vyre-conform backends` lists it (0)\n"
    "  --device-options S   backend options, key=value,... (see docs/backend-*.md)\n"
    "  --mode LIST          comma-separated: native,host-split,resident-split (all)\n"
    "  --filter GLOB        only programs whose declared name, file name or relative\n"
    "                       path matches (repeatable: any of them; one that matches\n"
    "                       no program is a usage error)\n"
    "  --caselist FILE      only programs a line of FILE names (a name or glob a\n"
    "                       line, # comments; repeatable; added to --filter's; a\n"
    "                       line that matches no program is a usage error)\n"
    "  --exclude-tag T      leave out programs tagged T (repeatable)\n"
    "  --repeat N           run each mode N times; outputs that change are\n"
    "                       flagged nondeterministic (1)\n"
    "  --db FILE            results database (vyre-conform.db)\n"
    "  --db-timeout S       seconds a write waits for the database's lock while\n"
    "                       another process holds it, saying so, before the run\n"
    "                       fails (exit 5; rows recorded before are kept) (60)\n"
    "  --shard K/N          run shard K of N (0 <= K < N): the selection's programs\n"
    "                       go costliest first, each to the shard with the least\n"
    "                       cost so far (equal costs by name), so every shard\n"
    "                       computes the same plan on any machine\n"
    "  --shard-costs SPEC   costs for --shard: a results database DB[:RUN] (each\n"
    "                       program's worker time in its last complete run, or\n"
    "                       RUN), or a .csv of name,cost lines or export's CSV;\n"
    "                       programs it lacks get the static estimate (invocations\n"
    "                       + buffer bytes) scaled to its units. Without it: the\n"
    "                       static estimate. One that cannot be read: exit 4\n"
    "  --shard-plan N       print the plan for N shards of the selection (each\n"
    "                       shard's summed cost, its programs and their costs),\n"
    "                       open no device, write nothing; --backend not needed\n"
    "  --timeout S          seconds per program before its worker is killed, for\n"
    "                       programs without an (expect (timeout S)) of their own (60)\n"
    "  --max-buffer-bytes N refuse programs whose buffers need more (no limit)\n"
    "  --oracle-order O     forward, reverse or shuffle:SEED: the order in which\n"
    "                       the oracle runs workgroups and invocations (forward)\n"
    "  --resume RUN         continue an unfinished run with its own options and PATH\n"
    "                       (none needed; one given must equal the run's), skipping\n"
    "                       the programs it finished; refused (exit 2) while the\n"
    "                       run's own process is alive\n"
    "  --jobs N             programs prepared and run at once, each in its own\n"
    "                       worker process (the CPUs it may use, as nproc counts,\n"
    "                       whatever the load); never more workers than programs\n"
    "                       to run (after --resume; a worker runs every mode and\n"
    "                       repeat of one)\n"
    "  --device-jobs M      programs in their device phase at once (1: a launch has\n"
    "                       the device to itself; more only for CPU devices)\n"
    "  --device-lock FILE   hold an flock on FILE (made if missing) during device\n"
    "                       phases, so that runs sharing FILE (on other backends of\n"
    "                       this machine) never overlap theirs; waiting for it is\n"
    "                       waiting for the device, not counted in --timeout\n"
    "  --flake-reruns N     rerun a mode that fails unexpectedly (or that only flake\n"
    "                       entries excuse) up to N times in a fresh worker (2); one\n"
    "                       that then passes is recorded flake, a failure unless a\n"
    "                       flake entry of the expectations lists it\n"
    "  --progress P         auto, tty or plain (auto: tty on a terminal)\n"
    "  --cache DIR          compiled kernels are kept and reused in DIR (default\n"
    "                       $XDG_CACHE_HOME/vyre-conform, else ~/.cache/vyre-conform)\n"
    "  --no-cache           compile every kernel, keep nothing\n"
    "  --reference-cache DIR  the oracle's outputs are kept and reused in DIR, once\n"
    "                       per program and build, by every backend's run (default\n"
    "                       $XDG_CACHE_HOME/vyre-conform/reference, else\n"
    "                       ~/.cache/vyre-conform/reference)\n"
    "  --no-reference-cache run the oracle for every program, keep nothing\n"
    "  --expectations FILE  known failures, flakes and skips (docs/gating.md): the\n"
    "                       results they cover do not fail the run, skipped ones\n"
    "                       do not run; an entry past its expiry date for this\n"
    "                       device does (exit 6). Default: the project's list for\n"
    "                       the backend, ci/expectations/B.txt of the checkout in\n"
    "                       the working directory, else of the source tree of a\n"
    "                       build-tree binary, else installed in\n"
    "                       share/vyre-conform/expectations; entries apply where\n"
    "                       they match the device; `none`: no expectations. The\n"
    "                       run names the file (or where it looked) first, and\n"
    "                       records it: report and compare judge by it\n"
    "\n"
    "For testing the harness itself:\n"
    "  --inject-flip M:BUF:I[@N]  flip a bit of element I of BUF in mode M's output\n"
    "                       (@N: on the first N attempts only, a flake)\n"
    "  --inject-crash GLOB[@STEP]  the worker crashes on programs matching GLOB,\n"
    "                       at STEP: setup (the default), reference, oracle or a mode\n"
    "  --inject-hang GLOB[@STEP]   the same, hanging\n"
    "\n"
    "Exit status: 0 all passed; 1 a divergence, error, crash, timeout or unlisted\n"
    "flake; 2 usage error (also a selection of no program, or device options the\n"
    "backend refuses; no run is written); 3 no usable backend or device; 4 a program could not be read or is\n"
    "invalid; 5 results database error; 6 an expectation expired; 9 nothing ran (every\n"
    "result skipped or unsupported: no coverage); 130 interrupted (SIGINT, SIGTERM or\n"
    "SIGHUP; the run is marked interrupted).\n"
    "Where several apply: 130, 2, 3, 5, 7, 4, 6, 1, 9, 0 (docs/usage.md).\n";

enum {
  O_BACKEND,
  O_DEVICE,
  O_DEVOPTS,
  O_MODE,
  O_FILTER,
  O_EXCLUDE,
  O_REPEAT,
  O_DB,
  O_SHARD,
  O_TIMEOUT,
  O_MAXBYTES,
  O_ORDER,
  O_RESUME,
  O_PROGRESS,
  O_EXPECT,
  O_FLIP,
  O_CRASH,
  O_HANG,
  O_CASELIST,
  O_CACHE,
  O_NOCACHE,
  O_JOBS,
  O_DEVJOBS,
  O_DEVLOCK,
  O_FLAKE,
  O_DBTIMEOUT,
  O_SHARDCOSTS,
  O_SHARDPLAN,
  O_REFCACHE,
  O_NOREFCACHE,
  O_COUNT
};

int vc_cmd_run(int argc, char **argv) {
  if (vc_wants_help(argc, argv)) {
    char names[2048];
    vc_plugin_names(names, sizeof names);
    printf("%s\nBackends found: %s.\n", help, names);
    return VC_EXIT_OK;
  }
  vc_opt opts[O_COUNT] = {[O_BACKEND] = VC_OPT("backend", true, false),
                          [O_DEVICE] = VC_OPT("device", true, false),
                          [O_DEVOPTS] = VC_OPT("device-options", true, false),
                          [O_MODE] = VC_OPT("mode", true, false),
                          [O_FILTER] = VC_OPT("filter", true, true),
                          [O_EXCLUDE] = VC_OPT("exclude-tag", true, true),
                          [O_REPEAT] = VC_OPT("repeat", true, false),
                          [O_DB] = VC_OPT("db", true, false),
                          [O_SHARD] = VC_OPT("shard", true, false),
                          [O_TIMEOUT] = VC_OPT("timeout", true, false),
                          [O_MAXBYTES] = VC_OPT("max-buffer-bytes", true, false),
                          [O_ORDER] = VC_OPT("oracle-order", true, false),
                          [O_RESUME] = VC_OPT("resume", true, false),
                          [O_PROGRESS] = VC_OPT("progress", true, false),
                          [O_EXPECT] = VC_OPT("expectations", true, false),
                          [O_FLIP] = VC_OPT("inject-flip", true, false),
                          [O_CRASH] = VC_OPT("inject-crash", true, false),
                          [O_HANG] = VC_OPT("inject-hang", true, false),
                          [O_CASELIST] = VC_OPT("caselist", true, true),
                          [O_CACHE] = VC_OPT("cache", true, false),
                          [O_NOCACHE] = VC_OPT("no-cache", false, false),
                          [O_JOBS] = VC_OPT("jobs", true, false),
                          [O_DEVJOBS] = VC_OPT("device-jobs", true, false),
                          [O_DEVLOCK] = VC_OPT("device-lock", true, false),
                          [O_FLAKE] = VC_OPT("flake-reruns", true, false),
                          [O_DBTIMEOUT] = VC_OPT("db-timeout", true, false),
                          [O_SHARDCOSTS] = VC_OPT("shard-costs", true, false),
                          [O_SHARDPLAN] = VC_OPT("shard-plan", true, false),
                          [O_REFCACHE] = VC_OPT("reference-cache", true, false),
                          [O_NOREFCACHE] = VC_OPT("no-reference-cache", false, false)};
  vc_args a;
  vc_error e;
  vc_error_clear(&e);
  vc_runner_opts r;
  memset(&r, 0, sizeof r);
  r.conform.repeat = 1;
  r.timeout_s = VC_RUN_DEFAULT_TIMEOUT_S;
  r.db_path = "vyre-conform.db";
  /* as nproc counts them: the CPUs this process may run on */
  cpu_set_t set;
  long cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set)
                                                          : sysconf(_SC_NPROCESSORS_ONLN);
  r.jobs = cpus > 0 ? (uint32_t)(cpus > 256 ? 256 : cpus) : 1;
  r.device_jobs = 1;
  r.flake_reruns = 2;
  r.conform.nmodes = VC_MODE_COUNT;
  for (int m = 0; m < VC_MODE_COUNT; m++) r.conform.modes[m] = (vc_mode)m;
  char flipbuf[256];
  char *devopts = NULL;
  vc_caselist caselist = {0};
  const char **selection = NULL, **origins = NULL;
  int status = VC_EXIT_OK;
  vc_run_restored restored;
  memset(&restored, 0, sizeof restored);
  if (vc_args_parse(argc, argv, opts, O_COUNT, &a, &e)) goto usage;
  vc_opt *o;
  bool resuming = vc_args_get(opts, O_COUNT, "resume") != NULL;
  if ((o = vc_args_get(opts, O_COUNT, "shard-plan"))) {
    if (vc_args_u32(o, 1, 100000, &r.shard_plan, &e)) goto usage;
    if (resuming || vc_args_get(opts, O_COUNT, "shard")) {
      vc_fail(&e, VC_ERR_USAGE, "--shard-plan prints every shard: give it without --shard or --resume");
      goto usage;
    }
  }
  if (!(o = vc_args_get(opts, O_COUNT, "backend")) && !resuming && !r.shard_plan) {
    char names[2048];
    vc_plugin_names(names, sizeof names);
    vc_fail(&e, VC_ERR_USAGE, "--backend is required (backends found: %s)", names);
    goto usage;
  }
  if (o) r.backend = o->value;
  if ((o = vc_args_get(opts, O_COUNT, "device")) && vc_args_u32(o, 0, 1024, &r.device, &e))
    goto usage;
  if ((o = vc_args_get(opts, O_COUNT, "device-options"))) r.device_options = o->value;
  o = vc_args_get(opts, O_COUNT, "cache");
  if (vc_kcache_device_options(o ? o->value : NULL, vc_args_get(opts, O_COUNT, "no-cache") != NULL,
                               r.device_options, &r.device_options, &devopts, &e))
    goto usage;
  o = vc_args_get(opts, O_COUNT, "reference-cache");
  if (vc_refcache_init(&r.conform.reference_cache, o ? o->value : NULL,
                       vc_args_get(opts, O_COUNT, "no-reference-cache") != NULL, &e))
    goto usage;
  if ((o = vc_args_get(opts, O_COUNT, "mode")) && vc_parse_modes(o->value, &r.conform, &e))
    goto usage;
  if ((o = vc_args_get(opts, O_COUNT, "filter"))) {
    r.filters = o->values;
    r.nfilters = o->count;
  }
  /* a caselist's globs select like --filter's: a program matching any runs */
  if ((o = vc_args_get(opts, O_COUNT, "caselist"))) {
    for (uint32_t i = 0; i < o->count; i++)
      if (vc_caselist_read(o->values[i], &caselist, &e)) goto usage;
    if (vc_caselist_with_filters(&caselist, r.filters, r.nfilters, &selection, &origins, &e))
      goto usage;
    r.filters = selection;
    r.filter_origins = origins;
    r.nfilters = r.nfilters + caselist.n;
  }
  if ((o = vc_args_get(opts, O_COUNT, "exclude-tag"))) {
    r.exclude_tags = o->values;
    r.nexclude_tags = o->count;
  }
  if ((o = vc_args_get(opts, O_COUNT, "repeat")) && vc_args_u32(o, 1, 1000, &r.conform.repeat, &e))
    goto usage;
  if ((o = vc_args_get(opts, O_COUNT, "db"))) r.db_path = o->value;
  r.db_timeout_s = VC_RUN_DEFAULT_DB_TIMEOUT_S;
  if ((o = vc_args_get(opts, O_COUNT, "db-timeout")) &&
      vc_args_u32(o, 1, 86400, &r.db_timeout_s, &e))
    goto usage;
  if ((o = vc_args_get(opts, O_COUNT, "shard"))) {
    unsigned k, n;
    char c;
    if (sscanf(o->value, "%u/%u%c", &k, &n, &c) != 2 || n == 0 || k >= n) {
      vc_fail(&e, VC_ERR_USAGE, "--shard wants K/N with 0 <= K < N, not '%s'", o->value);
      goto usage;
    }
    r.shard_k = k;
    r.shard_n = n;
  }
  if ((o = vc_args_get(opts, O_COUNT, "shard-costs"))) {
    if (!r.shard_n && !r.shard_plan) {
      vc_fail(&e, VC_ERR_USAGE, "--shard-costs balances shards: give it with --shard or --shard-plan");
      goto usage;
    }
    r.shard_costs = o->value;
  }
  if ((o = vc_args_get(opts, O_COUNT, "timeout")) && vc_args_u32(o, 1, 86400, &r.timeout_s, &e))
    goto usage;
  if ((o = vc_args_get(opts, O_COUNT, "max-buffer-bytes")) &&
      vc_args_u64(o, &r.conform.max_buffer_bytes, &e))
    goto usage;
  if ((o = vc_args_get(opts, O_COUNT, "oracle-order")) &&
      vc_parse_oracle_order(o->value, &r.conform.oracle, &e))
    goto usage;
  if ((o = vc_args_get(opts, O_COUNT, "resume"))) {
    uint64_t v;
    if (vc_args_u64(o, &v, &e)) goto usage;
    r.resume_run = (int64_t)v;
  }
  r.progress = isatty(STDERR_FILENO);
  if ((o = vc_args_get(opts, O_COUNT, "progress"))) {
    if (strcmp(o->value, "tty") == 0)
      r.progress = 1;
    else if (strcmp(o->value, "plain") == 0)
      r.progress = 0;
    else if (strcmp(o->value, "auto") != 0) {
      vc_fail(&e, VC_ERR_USAGE, "--progress: '%s' is not auto, tty or plain", o->value);
      goto usage;
    }
  }
  if ((o = vc_args_get(opts, O_COUNT, "jobs")) && vc_args_u32(o, 1, 256, &r.jobs, &e)) goto usage;
  if ((o = vc_args_get(opts, O_COUNT, "device-jobs")) && vc_args_u32(o, 1, 256, &r.device_jobs, &e))
    goto usage;
  if ((o = vc_args_get(opts, O_COUNT, "flake-reruns")) &&
      vc_args_u32(o, 0, 100, &r.flake_reruns, &e))
    goto usage;
  if ((o = vc_args_get(opts, O_COUNT, "expectations"))) r.expectations = o->value;
  if ((o = vc_args_get(opts, O_COUNT, "inject-flip")) &&
      vc_parse_flip(o->value, &r.conform, &r.flip_attempts, flipbuf, sizeof flipbuf, &e))
    goto usage;
  if ((o = vc_args_get(opts, O_COUNT, "inject-crash"))) r.inject_crash = o->value;
  if ((o = vc_args_get(opts, O_COUNT, "inject-hang"))) r.inject_hang = o->value;
  if ((o = vc_args_get(opts, O_COUNT, "device-lock"))) r.device_lock = o->value;
  if (a.npos == 0 && !resuming) {
    vc_fail(&e, VC_ERR_USAGE, "no PATH given: name program files or corpus directories");
    goto usage;
  }
  r.paths = a.pos;
  r.npaths = a.npos;
  if (resuming) {
    /* The run's own settings; those given here must agree with them. */
    uint32_t given = 0;
    for (int k = 0; k < VC_SET_COUNT; k++)
      if (k == VC_SET_PATH ? a.npos > 0
                           : vc_args_get(opts, O_COUNT, vc_run_setting_key((vc_run_setting)k)) != NULL)
        given |= 1u << k;
    int rc = vc_run_restore_settings(&r, given, &restored, &e);
    r.filter_origins = NULL; /* the run's own filters, as stored */
    if (rc == VC_ERR_USAGE) goto usage;
    if (rc) {
      fprintf(stderr, "vyre-conform: %s\n", e.msg);
      vc_args_free(opts, O_COUNT, &a);
      return VC_EXIT_DB;
    }
  }
  char *cmdline = vc_cmd_join_args(argc, argv);
  r.command_line = cmdline;
  status = vc_run_corpus(&r);
  free(cmdline);
  vc_run_restored_free(&restored);
  free(devopts);
  free(selection);
  free(origins);
  vc_caselist_free(&caselist);
  vc_args_free(opts, O_COUNT, &a);
  return status;
usage:
  vc_run_restored_free(&restored);
  free(devopts);
  free(selection);
  free(origins);
  vc_caselist_free(&caselist);
  vc_args_free(opts, O_COUNT, &a);
  return vc_usage_error("run", e.msg);
}
