/* vyre-conform emit --backend B FILE [--mode M] [--segment K]: the source a
 * backend generates. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli/args.h"
#include "harness/cli/commands.h"
#include "harness/base/exitcodes.h"
#include "harness/exec/modes.h"
#include "harness/lang/parse.h"
#include "harness/exec/plugin.h"
#include "harness/split/split.h"

static const char help[] = "usage: vyre-conform emit --backend B [--mode M] [--segment K] FILE\n"
                           "\n"
                           "Prints the kernel source backend B generates for FILE: for the split\n"
                           "modes (the default) every segment kernel, or only segment K; for\n"
                           "--mode native the one native kernel. Needs no device.\n";

static int emit_one(const vc_backend *be, const vc_kernel_desc *k) {
  vc_error e;
  vc_error_clear(&e);
  char *src = NULL;
  if (be->emit(k, NULL, &src, &e)) {
    fprintf(stderr, "vyre-conform: %s: %s\n", k->label, e.msg);
    free(src);
    return VC_EXIT_FAIL;
  }
  fputs(src, stdout);
  free(src);
  return VC_EXIT_OK;
}

int vc_cmd_emit(int argc, char **argv) {
  if (vc_wants_help(argc, argv)) {
    char names[2048];
    vc_plugin_names(names, sizeof names);
    printf("%s\nBackends found: %s.\n", help, names);
    return VC_EXIT_OK;
  }
  vc_opt opts[] = {VC_OPT("backend", true, false), VC_OPT("mode", true, false),
                   VC_OPT("segment", true, false)};
  vc_args a;
  vc_error e;
  vc_error_clear(&e);
  int status = VC_EXIT_OK;
  vc_program *p = NULL;
  vc_split *s = NULL;
  vc_plugin plugin = {0};
  vc_diags d;
  vc_diags_init(&d);
  if (vc_args_parse(argc, argv, opts, 3, &a, &e)) goto usage;
  vc_opt *ob = vc_args_get(opts, 3, "backend"), *om = vc_args_get(opts, 3, "mode"),
         *os = vc_args_get(opts, 3, "segment");
  if (!ob) {
    char names[2048];
    vc_plugin_names(names, sizeof names);
    vc_fail(&e, VC_ERR_USAGE, "--backend is required (backends found: %s)", names);
    goto usage;
  }
  if (a.npos != 1) {
    vc_fail(&e, VC_ERR_USAGE, "emit takes exactly one FILE");
    goto usage;
  }
  int mode = om ? vc_mode_from_name(om->value) : VC_MODE_HOST_SPLIT;
  if (mode < 0) {
    vc_fail(&e, VC_ERR_USAGE, "unknown mode '%s'", om->value);
    goto usage;
  }
  if (!(p = vc_parse_file(a.pos[0], &d))) {
    vc_diags_print(&d, stderr);
    status = VC_EXIT_INPUT;
    goto done;
  }
  if (vc_split_program(p, &s, &e)) {
    fprintf(stderr, "vyre-conform: %s\n", e.msg);
    status = VC_EXIT_FAIL;
    goto done;
  }
  uint32_t seg = 0;
  if (os && vc_args_u32(os, 0, s->nsegs - 1, &seg, &e)) goto usage;
  if (vc_plugin_load(ob->value, &plugin, &e)) {
    fprintf(stderr, "vyre-conform: %s\n", e.msg);
    status = VC_EXIT_NO_BACKEND;
    goto done;
  }
  if (mode == VC_MODE_NATIVE) {
    vc_native_desc nd;
    vc_split_native_desc(s, &nd);
    vc_kernel_desc k = {VC_KERNEL_NATIVE, p, &nd, "native"};
    status = emit_one(plugin.ops, &k);
  } else {
    for (uint32_t i = os ? seg : 0; i < (os ? seg + 1 : s->nsegs) && !status; i++) {
      char label[64];
      snprintf(label, sizeof label, "segment %u", i);
      if (!os) printf("// ---- segment %u of %u ----\n", i, s->nsegs); /* C-like sources */
      vc_kernel_desc k = {VC_KERNEL_SEGMENT, s->segs[i].prog, NULL, label};
      status = emit_one(plugin.ops, &k);
    }
  }
  goto done;
usage:
  status = vc_usage_error("emit", e.msg);
done:
  vc_plugin_unload(&plugin);
  vc_split_free(s);
  vc_program_free(p);
  vc_diags_free(&d);
  vc_args_free(opts, 3, &a);
  return status;
}
