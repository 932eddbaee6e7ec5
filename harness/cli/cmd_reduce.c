/* vyre-conform reduce FILE --out FILE: shrinks a failing program to a
 * smaller one that fails the same way (harness/reduce). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/file.h"
#include "harness/base/exitcodes.h"
#include "harness/base/kcache.h"
#include "harness/base/strbuf.h"
#include "harness/cli/args.h"
#include "harness/cli/cmd_util.h"
#include "harness/cli/outpath.h"
#include "harness/base/plural.h"
#include "harness/cli/commands.h"
#include "harness/exec/plugin.h"
#include "harness/reduce/reduce.h"
#include "harness/run/runopts.h"

static const char help[] =
    "usage: vyre-conform reduce FILE --backend B [--mode LIST] [options] --out FILE\n"
    "       vyre-conform reduce FILE --check --out FILE\n"
    "\n"
    "Shrinks a program that fails to a smaller one that fails the same way:\n"
    "the same mode, status, first differing buffer and divergence class (for an\n"
    "error or untrustworthy result, the same reason with its numbers left out).\n"
    "It drops statements, grid barriers, buffers and other forms, unwraps blocks,\n"
    "loops and ifs, replaces expressions by an operand or a literal, inlines\n"
    "lets and shrinks numbers (grids, workgroups, buffer sizes, loop bounds),\n"
    "keeping each change that keeps the failure, until none does. Every\n"
    "candidate is parsed and checked by the CPU oracle in a child process first\n"
    "and must be valid; the device runs candidates in a child process that a\n"
    "crash or a hang costs only itself. The steps and the sizes before and\n"
    "after are printed; the output's (doc ...) names FILE and the signature.\n"
    "\n"
    "  --out FILE           where the reduced program goes (required; `-`: standard\n"
    "                       output, the steps then on standard error); never FILE\n"
    "  --backend B          the device's backend plugin\n"
    "  --check              reduce a failure of `vyre-conform check` instead (a\n"
    "                       split-on-oracle mismatch, an oracle crash or hang): no\n"
    "                       device\n"
    "  --device N           device index (0)\n"
    "  --device-options S   backend options, key=value,...\n"
    "  --mode LIST          the modes to look at; the first that fails is kept\n"
    "                       (all)\n"
    "  --timeout S          seconds per candidate before its process is killed (60)\n"
    "  --oracle-order O     forward, reverse or shuffle:SEED (forward)\n"
    "  --max-buffer-bytes N refuse programs whose buffers need more (no limit)\n"
    "  --cache DIR, --no-cache   the kernel cache, as for run\n"
    "  --quiet              print only the sizes, not every step\n"
    "\n"
    "For testing the harness itself (as for run):\n"
    "  --inject-flip M:BUF:I, --inject-crash GLOB[@MODE], --inject-hang GLOB[@MODE]\n"
    "\n"
    "Exit status: 0 reduced and written; 2 usage error (--out naming FILE\n"
    "included); 3 no usable backend or\n"
    "device; 4 FILE cannot be read or is not a program, or --out cannot be\n"
    "written; 8 nothing to reduce: the program does not fail (or the oracle\n"
    "refuses it).\n";

static void print_size(FILE *f, const char *what, const vc_reduce_size *s) {
  fprintf(f, "%s statements %u, buffers %u, segments %u, invocations %llu\n", what, s->statements,
          s->buffers, s->segments, (unsigned long long)s->invocations);
}

int vc_cmd_reduce(int argc, char **argv) {
  if (vc_wants_help(argc, argv)) {
    fputs(help, stdout);
    return VC_EXIT_OK;
  }
  enum { O_OUT, O_BACKEND, O_CHECK, O_DEVICE, O_DEVOPTS, O_MODE, O_TIMEOUT, O_ORDER, O_MAXB,
         O_CACHE, O_NOCACHE, O_QUIET, O_FLIP, O_CRASH, O_HANG, O_COUNT };
  vc_opt opts[O_COUNT] = {[O_OUT] = VC_OPT("out", true, false),
                          [O_BACKEND] = VC_OPT("backend", true, false),
                          [O_CHECK] = VC_OPT("check", false, false),
                          [O_DEVICE] = VC_OPT("device", true, false),
                          [O_DEVOPTS] = VC_OPT("device-options", true, false),
                          [O_MODE] = VC_OPT("mode", true, false),
                          [O_TIMEOUT] = VC_OPT("timeout", true, false),
                          [O_ORDER] = VC_OPT("oracle-order", true, false),
                          [O_MAXB] = VC_OPT("max-buffer-bytes", true, false),
                          [O_CACHE] = VC_OPT("cache", true, false),
                          [O_NOCACHE] = VC_OPT("no-cache", false, false),
                          [O_QUIET] = VC_OPT("quiet", false, false),
                          [O_FLIP] = VC_OPT("inject-flip", true, false),
                          [O_CRASH] = VC_OPT("inject-crash", true, false),
                          [O_HANG] = VC_OPT("inject-hang", true, false)};
  vc_args a;
  vc_error e;
  vc_error_clear(&e);
  vc_reduce_opts ro;
  memset(&ro, 0, sizeof ro);
  ro.conform.repeat = 1;
  ro.conform.nmodes = VC_MODE_COUNT;
  for (int m = 0; m < VC_MODE_COUNT; m++) ro.conform.modes[m] = (vc_mode)m;
  ro.timeout_s = 60;
  char flipbuf[256];
  char *devopts = NULL;
  vc_strbuf text;
  vc_sb_init(&text);
  int status = VC_EXIT_OK;
  if (vc_args_parse(argc, argv, opts, O_COUNT, &a, &e)) goto usage;
  vc_opt *o;
  ro.check = vc_args_get(opts, O_COUNT, "check") != NULL;
  if ((o = vc_args_get(opts, O_COUNT, "backend"))) ro.backend = o->value;
  if (ro.check && ro.backend) {
    vc_fail(&e, VC_ERR_USAGE, "--check runs no device: leave out --backend");
    goto usage;
  }
  if (!ro.check && !ro.backend) {
    char names[2048];
    vc_plugin_names(names, sizeof names);
    vc_fail(&e, VC_ERR_USAGE, "--backend or --check is required (backends found: %s)", names);
    goto usage;
  }
  const char *out_path = (o = vc_args_get(opts, O_COUNT, "out")) ? o->value : NULL;
  if (!out_path) {
    vc_fail(&e, VC_ERR_USAGE, "--out FILE is required");
    goto usage;
  }
  if (a.npos != 1) {
    vc_fail(&e, VC_ERR_USAGE, a.npos ? "one FILE only" : "no FILE given");
    goto usage;
  }
  {
    /* `reduce F --out F` would replace the failing program by its reduction */
    const vc_io_file out = {"--out", out_path, false}, in = {"the program", a.pos[0], false};
    if (vc_out_check(&out, 1, &in, 1, &e)) goto usage;
  }
  /* --out -: the program alone on standard output, the steps on standard error */
  const bool to_stdout = vc_out_is_stdout(out_path);
  FILE *steps = to_stdout ? stderr : stdout;
  if ((o = vc_args_get(opts, O_COUNT, "device")) && vc_args_u32(o, 0, 1024, &ro.device, &e))
    goto usage;
  if ((o = vc_args_get(opts, O_COUNT, "device-options"))) ro.device_options = o->value;
  o = vc_args_get(opts, O_COUNT, "cache");
  if (!ro.check &&
      vc_kcache_device_options(o ? o->value : NULL, vc_args_get(opts, O_COUNT, "no-cache") != NULL,
                               ro.device_options, &ro.device_options, &devopts, &e))
    goto usage;
  if ((o = vc_args_get(opts, O_COUNT, "mode")) && vc_parse_modes(o->value, &ro.conform, &e))
    goto usage;
  if ((o = vc_args_get(opts, O_COUNT, "timeout")) && vc_args_u32(o, 1, 86400, &ro.timeout_s, &e))
    goto usage;
  if ((o = vc_args_get(opts, O_COUNT, "oracle-order")) &&
      vc_parse_oracle_order(o->value, &ro.conform.oracle, &e))
    goto usage;
  if ((o = vc_args_get(opts, O_COUNT, "max-buffer-bytes")) &&
      vc_args_u64(o, &ro.conform.max_buffer_bytes, &e))
    goto usage;
  if ((o = vc_args_get(opts, O_COUNT, "inject-flip")) &&
      vc_parse_flip(o->value, &ro.conform, NULL, flipbuf, sizeof flipbuf, &e))
    goto usage;
  if ((o = vc_args_get(opts, O_COUNT, "inject-crash"))) ro.inject_crash = o->value;
  if ((o = vc_args_get(opts, O_COUNT, "inject-hang"))) ro.inject_hang = o->value;
  if (ro.check && (ro.conform.flip_mode || ro.inject_crash || ro.inject_hang)) {
    vc_fail(&e, VC_ERR_USAGE, "--inject-* act on a device run: not with --check");
    goto usage;
  }
  ro.origin = a.pos[0];
  ro.log = vc_args_get(opts, O_COUNT, "quiet") ? NULL : steps;

  if (vc_file_read(a.pos[0], &text, &e)) {
    fprintf(stderr, "vyre-conform reduce: %s\n", e.msg);
    status = VC_EXIT_INPUT;
    goto done;
  }
  vc_reduce_result r;
  int rc = vc_reduce(a.pos[0], text.data, text.len, &ro, &r, &e);
  if (rc) {
    fprintf(stderr, "vyre-conform reduce: %s\n", e.msg);
    status = rc == VC_ERR_PARSE || rc == VC_ERR_IO ? VC_EXIT_INPUT
             : rc == VC_ERR_NO_DRIVER || rc == VC_ERR_NO_DEVICE || rc == VC_ERR_ABI
                 ? VC_EXIT_NO_BACKEND
                 : VC_EXIT_FAIL;
    vc_reduce_result_free(&r);
    goto done;
  }
  if (r.nothing) {
    fprintf(stderr, "vyre-conform reduce: %s: nothing to reduce: %s\n", a.pos[0], r.nothing_why);
    status = VC_EXIT_NOTHING;
    goto done;
  }
  char sig[512];
  vc_reduce_sig_text(&r.sig, sig, sizeof sig);
  fprintf(steps, "signature: %s\n", sig);
  print_size(steps, "before:", &r.before);
  print_size(steps, "after: ", &r.after);
  fprintf(steps, "%u %s kept of %u candidate %s (%u run), %.1f s\n", r.steps,
          vc_plural(r.steps, "step", "steps"), r.parsed, vc_plural(r.parsed, "program", "programs"),
          r.ran, (double)r.wall_ns / 1e9);
  vc_strbuf outb = {r.text, strlen(r.text), strlen(r.text) + 1};
  if (vc_out_write(out_path, &outb, &e)) {
    fprintf(stderr, "vyre-conform reduce: %s\n", e.msg);
    status = VC_EXIT_INPUT;
  } else if (!to_stdout) {
    printf("wrote %s\n", out_path);
  }
  vc_reduce_result_free(&r);
done:
  vc_sb_free(&text);
  free(devopts);
  vc_args_free(opts, O_COUNT, &a);
  return status;
usage:
  vc_sb_free(&text);
  free(devopts);
  vc_args_free(opts, O_COUNT, &a);
  return vc_usage_error("reduce", e.msg);
}
