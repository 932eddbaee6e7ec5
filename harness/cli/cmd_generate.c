/* vyre-conform generate: writes generated programs, each checked on the oracle. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "harness/base/plural.h"
#include "harness/base/file.h"
#include "harness/base/clock.h"
#include "harness/base/exitcodes.h"
#include "harness/cli/args.h"
#include "harness/cli/commands.h"
#include "harness/gen/gen.h"

static const char help[] =
    "usage: vyre-conform generate --seed S --count N --out DIR [options]\n"
    "\n"
    "Writes N programs DIR/gen_S_I.vyre (I = 0 ... N-1), valid by construction:\n"
    "no data races, no out-of-bounds access unless declared, atomic results used\n"
    "only where their order cannot show, bounded loops, fixpoints that converge\n"
    "within their max or say that they do not. Each program is parsed, run on the\n"
    "oracle and checked split-on-oracle (as `check` does) before it is written;\n"
    "one the check refuses is a generator bug: generate stops with exit 7, naming\n"
    "seed and index. The same seed and options give the same bytes.\n"
    "\n"
    "  --seed S           the sequence's seed (0 ... 2^64-1)\n"
    "  --count N          programs to write (1 ... 10000000)\n"
    "  --out DIR          where (created if missing)\n"
    "  --size SIZE        small (the default), medium or large\n"
    "  --features LIST    comma-separated constructs to use (default all); NAME=PCT\n"
    "                     scales one's rate to PCT %% of its default (0 ... 1000,\n"
    "                     0 leaves it out), e.g. all,shared=300,hex=0:\n"
    "%s"
    "  --stats            print how often each construct occurred, what the\n"
    "                     dead-output analysis found (live programs, phases of\n"
    "                     shared memory never read, NaN bits reaching integers),\n"
    "                     and the time\n"
    "  --no-check         write without the oracle check (a benchmark of the\n"
    "                     generator alone; the programs are the same bytes)\n"
    "\n"
    "Exit status: 0 written; 2 usage error; 4 DIR or a file cannot be written;\n"
    "7 a generated program failed its check (a generator bug).\n";

static void print_help(void) {
  vc_strbuf f;
  vc_sb_init(&f);
  for (uint32_t i = 0; i < VC_GEN_FEATURE_COUNT; i++)
    vc_sb_printf(&f, "                       %-15s %s\n", vc_gen_feature_name((vc_gen_feature)i),
                 vc_gen_feature_what((vc_gen_feature)i));
  printf(help, vc_sb_str(&f));
  vc_sb_free(&f);
}

int vc_cmd_generate(int argc, char **argv) {
  if (vc_wants_help(argc, argv)) {
    print_help();
    return VC_EXIT_OK;
  }
  vc_opt opts[] = {VC_OPT("seed", true, false),     VC_OPT("count", true, false),
                   VC_OPT("out", true, false),      VC_OPT("size", true, false),
                   VC_OPT("features", true, false), VC_OPT("stats", false, false),
                   VC_OPT("no-check", false, false)};
  const uint32_t nopts = sizeof opts / sizeof opts[0];
  vc_args a;
  vc_error e;
  vc_error_clear(&e);
  vc_gen_opts go;
  vc_gen_opts_default(&go);
  uint64_t seed = 0;
  uint32_t count = 0;
  vc_opt *o;
  if (vc_args_parse(argc, argv, opts, nopts, &a, &e)) goto usage;
  if (a.npos) {
    vc_fail(&e, VC_ERR_USAGE, "unexpected argument '%s'", a.pos[0]);
    goto usage;
  }
  if (!(o = vc_args_get(opts, nopts, "seed"))) {
    vc_fail(&e, VC_ERR_USAGE, "--seed is required");
    goto usage;
  }
  if (vc_args_u64(o, &seed, &e)) goto usage;
  if (!(o = vc_args_get(opts, nopts, "count"))) {
    vc_fail(&e, VC_ERR_USAGE, "--count is required");
    goto usage;
  }
  if (vc_args_u32(o, 1, 10000000, &count, &e)) goto usage;
  const char *dir = (o = vc_args_get(opts, nopts, "out")) ? o->value : NULL;
  if (!dir || !*dir) {
    vc_fail(&e, VC_ERR_USAGE, "--out DIR is required");
    goto usage;
  }
  if ((o = vc_args_get(opts, nopts, "size")) && vc_gen_size_parse(o->value, &go.size, &e))
    goto usage;
  if ((o = vc_args_get(opts, nopts, "features")) &&
      vc_gen_opts_features_parse(o->value, &go, &e))
    goto usage;
  bool stats_on = vc_args_get(opts, nopts, "stats") != NULL;
  bool check = vc_args_get(opts, nopts, "no-check") == NULL;
  vc_args_free(opts, nopts, &a);

  if (mkdir(dir, 0777) && errno != EEXIST) {
    fprintf(stderr, "vyre-conform generate: cannot create %s: %s\n", dir, strerror(errno));
    return VC_EXIT_INPUT;
  }
  vc_gen_stats st;
  memset(&st, 0, sizeof st);
  vc_strbuf text, path;
  vc_sb_init(&text);
  vc_sb_init(&path);
  int status = VC_EXIT_OK;
  uint64_t t0 = vc_now_ns(), bytes = 0;
  for (uint32_t i = 0; i < count; i++) {
    text.len = 0;
    if (vc_gen_program_ex(&go, seed, i, check, stats_on ? &st : NULL, &text, &e)) {
      fprintf(stderr, "vyre-conform generate: %s\n", e.msg);
      status = VC_EXIT_INTERNAL;
      break;
    }
    path.len = 0;
    vc_sb_printf(&path, "%s/gen_%" PRIu64 "_%u.vyre", dir, seed, i);
    if (vc_file_write(vc_sb_str(&path), &text, &e)) {
      fprintf(stderr, "vyre-conform generate: %s\n", e.msg);
      status = VC_EXIT_INPUT;
      break;
    }
    bytes += text.len;
  }
  double s = (double)(vc_now_ns() - t0) / 1e9;
  if (stats_on) {
    printf("%-16s %12s\n", "construct", "occurrences");
    for (uint32_t f = 0; f < VC_GEN_FEATURE_COUNT; f++)
      printf("%-16s %12" PRIu64 "\n", vc_gen_feature_name((vc_gen_feature)f), st.count[f]);
    /* the dead-output analysis (vc_gen_liveness): docs/fuzzing.md, "Live programs" */
    double n = st.programs ? (double)st.programs : 1.0;
    printf("%-16s %12" PRIu64 "  %5.1f %%\n", "live", st.live, 100.0 * (double)st.live / n);
    printf("%-16s %12" PRIu64 "  %5.1f %%\n", "dead-output", st.dead_output,
           100.0 * (double)st.dead_output / n);
    printf("%-16s %12" PRIu64 "  %5.1f %%\n", "no-ordered-flow", st.no_flow,
           100.0 * (double)st.no_flow / n);
    printf("%-16s %12" PRIu64 "\n", "shared-unread", st.shared_unread);
    printf("%-16s %12" PRIu64 "\n", "open-bitcasts", st.open_bitcasts);
    printf("%" PRIu64 " %s, %" PRIu64 " bytes in %.3f s: %.0f programs/s (%s)\n",
           st.programs, vc_plural(st.programs, "program", "programs"), bytes, s, s > 0 ? (double)st.programs / s : 0.0,
           check ? "generated and checked" : "generated, not checked");
  }
  vc_sb_free(&text);
  vc_sb_free(&path);
  return status;
usage:
  vc_args_free(opts, nopts, &a);
  return vc_usage_error("generate", e.msg);
}
