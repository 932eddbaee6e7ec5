/* vyre-conform compile --backend B PATH...: compile every segment kernel and
 * the native kernel of every program without a device (CUDA through NVRTC,
 * Vulkan through glslang), optionally keeping the binaries. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness/cli/args.h"
#include "harness/cli/commands.h"
#include "harness/lang/corpus.h"
#include "harness/base/exitcodes.h"
#include "harness/base/plural.h"
#include "harness/lang/parse.h"
#include "harness/exec/plugin.h"
#include "harness/split/split.h"

static const char help[] =
    "usage: vyre-conform compile --backend B [--target T] [--out-dir D] PATH...\n"
    "\n"
    "Compiles, without a device, every segment kernel and the native kernel\n"
    "of every program, with a backend that can (the CUDA plugin gives PTX\n"
    "through NVRTC, target e.g. sm_90; the Vulkan plugin SPIR-V through\n"
    "glslang, target e.g. spirv1.3). With --out-dir each binary is written\n"
    "there as NAME.segK.EXT and NAME.native.EXT, EXT as the plugin names its\n"
    "binaries (ptx, spv), for ptxas or spirv-val to check.\n"
    "\n"
    "  --filter GLOB   only programs whose name or relative path matches (one\n"
    "                  that matches none is a usage error)\n"
    "\n"
    "Exit status: 0 all compiled; 1 a kernel failed to compile; 2 usage error;\n"
    "3 no such backend, or it cannot compile without a device; 4 a program is\n"
    "malformed.\n";

typedef struct compile_ctx {
  const vc_backend *be;
  const char *target, *out_dir, *ext;
} compile_ctx;

static int write_binary(const compile_ctx *c, const char *rel, const char *what, const void *bin,
                        size_t size, vc_error *err) {
  char name[4096];
  snprintf(name, sizeof name, "%s", rel);
  for (char *q = name; *q; q++)
    if (*q == '/') *q = '_';
  char *dot = strrchr(name, '.');
  if (dot) *dot = '\0';
  char path[8192];
  snprintf(path, sizeof path, "%s/%s.%s.%s", c->out_dir, name, what, c->ext);
  FILE *f = fopen(path, "wb");
  int bad = !f || fwrite(bin, 1, size, f) != size;
  if (f && fclose(f)) bad = 1;
  return bad ? vc_fail(err, VC_ERR_IO, "cannot write %s: %s", path, strerror(errno)) : 0;
}

/* 0 compiled, VC_ERR_UNSUPPORTED with reason, or another error. */
static int compile_kernel(const compile_ctx *c, const vc_kernel_desc *k, const char *rel,
                          const char *what, vc_error *err) {
  void *bin = NULL;
  size_t size = 0;
  char *log = NULL;
  int rc = c->be->compile_offline(k, c->target, &bin, &size, &log, err);
  if (rc == 0 && c->out_dir) rc = write_binary(c, rel, what, bin, size, err);
  free(bin);
  free(log);
  return rc;
}

static int compile_program(const compile_ctx *c, const vc_corpus_file *f, char *line, size_t n) {
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = vc_parse_file(f->path, &d);
  if (!p) {
    bool expected = d.expect_reject && vc_diags_contain(&d, d.expect_reject);
    if (!expected) vc_diags_print(&d, stderr);
    snprintf(line, n, "%s %s: %s", expected ? "skip " : "FAIL ", f->path,
             expected ? "refused as expected" : "does not parse");
    vc_diags_free(&d);
    return expected ? VC_EXIT_OK : VC_EXIT_INPUT;
  }
  vc_diags_free(&d);
  vc_split *s = NULL;
  vc_error e;
  vc_error_clear(&e);
  int status = VC_EXIT_OK;
  if (vc_split_program(p, &s, &e)) {
    snprintf(line, n, "FAIL  %s: split: %s", f->path, e.msg);
    vc_program_free(p);
    return VC_EXIT_FAIL;
  }
  for (uint32_t k = 0; k < s->nsegs; k++) {
    char label[64], what[32];
    snprintf(label, sizeof label, "segment %u", k);
    snprintf(what, sizeof what, "seg%u", k);
    vc_kernel_desc kd = {VC_KERNEL_SEGMENT, s->segs[k].prog, NULL, label};
    if (compile_kernel(c, &kd, f->rel, what, &e)) {
      snprintf(line, n, "FAIL  %s: %s: %s", f->path, label, e.msg);
      status = VC_EXIT_FAIL;
      goto done;
    }
  }
  vc_native_desc nd;
  vc_split_native_desc(s, &nd);
  vc_kernel_desc kd = {VC_KERNEL_NATIVE, p, &nd, "native"};
  int rc = compile_kernel(c, &kd, f->rel, "native", &e);
  if (rc && rc != VC_ERR_UNSUPPORTED) {
    snprintf(line, n, "FAIL  %s: native: %s", f->path, e.msg);
    status = VC_EXIT_FAIL;
  } else {
    snprintf(line, n, "ok    %s: %u segment kernel%s, native %s%s%s", f->path, s->nsegs,
             s->nsegs == 1 ? "" : "s", rc ? "unsupported (" : "compiled", rc ? e.msg : "",
             rc ? ")" : "");
  }
done:
  vc_split_free(s);
  vc_program_free(p);
  return status;
}

int vc_cmd_compile(int argc, char **argv) {
  if (vc_wants_help(argc, argv)) {
    char names[2048];
    vc_plugin_names(names, sizeof names);
    printf("%s\nBackends found: %s.\n", help, names);
    return VC_EXIT_OK;
  }
  vc_opt opts[] = {VC_OPT("backend", true, false), VC_OPT("target", true, false),
                   VC_OPT("out-dir", true, false), VC_OPT("filter", true, false)};
  const uint32_t nopts = 4;
  vc_args a;
  vc_error e;
  vc_error_clear(&e);
  vc_plugin plugin = {0};
  vc_corpus corpus = {0};
  int status = VC_EXIT_OK;
  if (vc_args_parse(argc, argv, opts, nopts, &a, &e)) goto usage;
  vc_opt *ob = vc_args_get(opts, nopts, "backend"), *o;
  if (!ob) {
    char names[2048];
    vc_plugin_names(names, sizeof names);
    vc_fail(&e, VC_ERR_USAGE, "--backend is required (backends found: %s)", names);
    goto usage;
  }
  if (!a.npos) {
    vc_fail(&e, VC_ERR_USAGE, "no PATH given");
    goto usage;
  }
  compile_ctx c = {NULL, NULL, NULL, NULL};
  if ((o = vc_args_get(opts, nopts, "target"))) c.target = o->value;
  if ((o = vc_args_get(opts, nopts, "out-dir"))) {
    c.out_dir = o->value;
    if (mkdir(c.out_dir, 0777) != 0 && errno != EEXIST) {
      fprintf(stderr, "vyre-conform: cannot create %s: %s\n", c.out_dir, strerror(errno));
      status = VC_EXIT_FAIL;
      goto done;
    }
  }
  if (vc_plugin_load(ob->value, &plugin, &e)) {
    fprintf(stderr, "vyre-conform: %s\n", e.msg);
    status = VC_EXIT_NO_BACKEND;
    goto done;
  }
  c.be = plugin.ops;
  c.ext = c.be->offline_ext ? c.be->offline_ext : "bin";
  if (!c.be->compile_offline) {
    fprintf(stderr, "vyre-conform: backend %s cannot compile without a device\n", ob->value);
    status = VC_EXIT_NO_BACKEND;
    goto done;
  }
  if (vc_corpus_collect(&corpus, a.pos, a.npos, &e)) {
    fprintf(stderr, "vyre-conform: %s\n", e.msg);
    status = VC_EXIT_INPUT;
    goto done;
  }
  const uint32_t found = corpus.n;
  if ((o = vc_args_get(opts, nopts, "filter")) && !vc_corpus_filter(&corpus, o->value)) {
    /* a typo selects nothing: "0 programs checked" would read as a pass */
    fprintf(stderr, "vyre-conform compile: --filter %s matches none of the %u %s under PATH\n",
            o->value, found, vc_plural(found, "program", "programs"));
    status = VC_EXIT_USAGE;
    goto done;
  }
  uint32_t failed = 0;
  for (uint32_t i = 0; i < corpus.n; i++) {
    char line[2048];
    int st = compile_program(&c, &corpus.files[i], line, sizeof line);
    printf("%s\n", line);
    fflush(stdout);
    if (st) {
      failed++;
      if (status != VC_EXIT_FAIL) status = st;
    }
  }
  printf("%u program%s, %u failed\n", corpus.n, corpus.n == 1 ? "" : "s", failed);
  goto done;
usage:
  status = vc_usage_error("compile", e.msg);
done:
  vc_corpus_free(&corpus);
  vc_plugin_unload(&plugin);
  vc_args_free(opts, nopts, &a);
  return status;
}
