/* vyre-conform transform FILE: an equivalent program, by the transformations
 * of harness/gen. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/file.h"
#include "harness/base/exitcodes.h"
#include "harness/cli/args.h"
#include "harness/cli/commands.h"
#include "harness/cli/outpath.h"
#include "harness/gen/gen.h"

static const char help[] =
    "usage: vyre-conform transform FILE --seed S [--only NAME] [--verify] [--out FILE]\n"
    "\n"
    "Writes a program that must give FILE's output bytes in every mode, made by\n"
    "equivalence transformations (docs/fuzzing.md, \"Transformations\"):\n"
    "%s"
    "\n"
    "  --seed S      chooses where and how (the same seed, the same output)\n"
    "  --only NAME   one transformation (default: random, a seed-chosen chain\n"
    "                of them; all: each once, in the order above)\n"
    "  --verify      run both programs on the oracle and fail (exit 7) when\n"
    "                their outputs differ\n"
    "  --out FILE    write there instead of standard output (`-`: standard\n"
    "                output; never FILE itself)\n"
    "\n"
    "Exit status: 0 written; 2 usage error; 4 FILE cannot be read or parsed, or\n"
    "the output cannot be written; 7 --verify found a difference.\n";

int vc_cmd_transform(int argc, char **argv) {
  if (vc_wants_help(argc, argv)) {
    vc_strbuf t;
    vc_sb_init(&t);
    for (int i = 0; i < VC_GEN_TRANSFORM_COUNT; i++)
      vc_sb_printf(&t, "  %-15s %s\n", vc_gen_transform_name((vc_gen_transform_id)i),
                   vc_gen_transform_what((vc_gen_transform_id)i));
    printf(help, vc_sb_str(&t));
    vc_sb_free(&t);
    return VC_EXIT_OK;
  }
  vc_opt opts[] = {VC_OPT("seed", true, false), VC_OPT("only", true, false),
                   VC_OPT("out", true, false), VC_OPT("verify", false, false)};
  const uint32_t nopts = sizeof opts / sizeof opts[0];
  vc_args a;
  vc_error e;
  vc_error_clear(&e);
  uint64_t seed = 0;
  vc_opt *o;
  if (vc_args_parse(argc, argv, opts, nopts, &a, &e)) goto usage;
  if (a.npos != 1) {
    vc_fail(&e, VC_ERR_USAGE, "transform takes exactly one FILE");
    goto usage;
  }
  if (!(o = vc_args_get(opts, nopts, "seed"))) {
    vc_fail(&e, VC_ERR_USAGE, "--seed is required");
    goto usage;
  }
  if (vc_args_u64(o, &seed, &e)) goto usage;
  const char *only = (o = vc_args_get(opts, nopts, "only")) ? o->value : "random";
  const char *out_path = (o = vc_args_get(opts, nopts, "out")) ? o->value : NULL;
  bool verify = vc_args_get(opts, nopts, "verify") != NULL;
  {
    const vc_io_file out = {"--out", out_path, false}, in = {"the program", a.pos[0], false};
    if (vc_out_check(&out, 1, &in, 1, &e)) goto usage;
  }
  char *src = vc_file_read_all(a.pos[0]);
  if (!src) {
    fprintf(stderr, "vyre-conform transform: cannot read %s\n", a.pos[0]);
    vc_args_free(opts, nopts, &a);
    return VC_EXIT_INPUT;
  }
  vc_strbuf out;
  vc_sb_init(&out);
  int status = VC_EXIT_OK;
  int rc = vc_gen_transform(only, src, seed, &out, &e);
  if (rc == VC_ERR_USAGE) {
    free(src);
    vc_sb_free(&out);
    goto usage;
  }
  if (rc) {
    fprintf(stderr, "%s:%s\n", a.pos[0], e.msg);
    status = VC_EXIT_INPUT;
  } else if (verify && vc_gen_equivalent(src, vc_sb_str(&out), &e)) {
    fprintf(stderr, "vyre-conform transform: %s: not equivalent: %s\n", a.pos[0], e.msg);
    status = VC_EXIT_INTERNAL;
  } else if (out_path) {
    if (vc_out_write(out_path, &out, &e)) {
      fprintf(stderr, "vyre-conform transform: cannot write %s\n", out_path);
      status = VC_EXIT_INPUT;
    }
  } else {
    fputs(vc_sb_str(&out), stdout);
  }
  free(src);
  vc_sb_free(&out);
  vc_args_free(opts, nopts, &a);
  return status;
usage:
  vc_args_free(opts, nopts, &a);
  return vc_usage_error("transform", e.msg);
}
