/* vyre-conform split [--programs] FILE: the segments and the plan. */
#include <stdio.h>

#include "harness/cli/args.h"
#include "harness/cli/commands.h"
#include "harness/base/exitcodes.h"
#include "harness/lang/parse.h"
#include "harness/split/split.h"

static const char help[] =
    "usage: vyre-conform split [--programs] FILE\n"
    "\n"
    "Prints how FILE is cut at its grid barriers: per segment the buffers it\n"
    "binds and how (read, write, read_write), the values it reloads from and\n"
    "saves to spill buffers, the lets it recomputes, and the bytes host-split\n"
    "moves; then what resident-split moves.\n"
    "\n"
    "  --programs   also print every segment program\n";

int vc_cmd_split(int argc, char **argv) {
  if (vc_wants_help(argc, argv)) {
    fputs(help, stdout);
    return VC_EXIT_OK;
  }
  vc_opt opts[] = {VC_OPT("programs", false, false)};
  vc_args a;
  vc_error e;
  vc_error_clear(&e);
  if (vc_args_parse(argc, argv, opts, 1, &a, &e)) {
    vc_args_free(opts, 1, &a);
    return vc_usage_error("split", e.msg);
  }
  if (a.npos != 1) {
    vc_args_free(opts, 1, &a);
    return vc_usage_error("split", "split takes exactly one FILE");
  }
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = vc_parse_file(a.pos[0], &d);
  int status = VC_EXIT_OK;
  if (!p) {
    vc_diags_print(&d, stderr);
    status = VC_EXIT_INPUT;
  } else {
    vc_split *s = NULL;
    if (vc_split_program(p, &s, &e)) {
      fprintf(stderr, "vyre-conform: %s\n", e.msg);
      status = VC_EXIT_FAIL;
    } else {
      vc_strbuf out;
      vc_sb_init(&out);
      vc_split_describe(s, vc_args_get(opts, 1, "programs") != NULL, &out);
      fputs(vc_sb_str(&out), stdout);
      vc_sb_free(&out);
    }
    vc_split_free(s);
  }
  vc_program_free(p);
  vc_diags_free(&d);
  vc_args_free(opts, 1, &a);
  return status;
}
