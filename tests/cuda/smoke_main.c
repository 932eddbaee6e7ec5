/* vc-cuda-smoke [--device N] [--options K=V,...] [--no-figures] PROGRAM.vyre...
 *
 * Opens CUDA device N through the plugin beside this binary, prints its
 * identity, checks the plugin's promises, runs each program and compares
 * every output byte with the oracle, then measures a few figures. Exit
 * status: 0 all passed, 1 a failure, 2 usage, 3 no driver or device. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/exitcodes.h"
#include "harness/lang/parse.h"
#include "harness/exec/plugin.h"
#include "tests/cuda/smoke.h"

void smoke_report(smoke *s, bool ok, const char *what, const char *fmt, ...) {
  char detail[1024] = "";
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(detail, sizeof detail, fmt, ap);
  va_end(ap);
  printf("%s  %s%s%s\n", ok ? "PASS" : "FAIL", what, detail[0] ? ": " : "", detail);
  fflush(stdout);
  if (ok) s->passed++;
  else s->failed++;
}

vc_program *smoke_parse_text(const char *name, const char *text) {
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = vc_parse(name, text, strlen(text), &d);
  if (!p) vc_diags_print(&d, stderr);
  vc_diags_free(&d);
  return p;
}

static void print_identity(const vc_device_info *i) {
  printf("device   %s (uuid %s)\n", i->device_name, i->uuid);
  printf("api      %s %s, driver %s %s, pci %04x:%04x\n", i->api, i->api_version, i->driver_name,
         i->driver_version, i->vendor_id, i->device_id);
  printf("limits   %u SMs, %u threads/block (%u x %u x %u), grid %u x %u x %u, "
         "%llu B shared/block\n",
         i->compute_units, i->max_workgroup_invocations, i->max_workgroup_size[0],
         i->max_workgroup_size[1], i->max_workgroup_size[2], i->max_grid[0], i->max_grid[1],
         i->max_grid[2], (unsigned long long)i->max_shared_bytes);
  printf("memory   %llu B, cooperative %s, timestamps %s\n",
         (unsigned long long)i->global_mem_bytes, i->cooperative ? "yes" : "no",
         i->timestamps ? "yes" : "no");
  printf("float    %s\n", i->float_env);
  printf("extra\n%s", i->extra);
  fflush(stdout);
}

typedef struct args {
  uint32_t device;
  const char *options;
  bool figures;
  char **programs;
  int nprograms;
} args;

static int parse_args(int argc, char **argv, args *a) {
  memset(a, 0, sizeof *a);
  a->figures = true;
  int i = 1;
  for (; i < argc && argv[i][0] == '-'; i++) {
    if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) a->device = (uint32_t)atoi(argv[++i]);
    else if (strcmp(argv[i], "--options") == 0 && i + 1 < argc) a->options = argv[++i];
    else if (strcmp(argv[i], "--no-figures") == 0) a->figures = false;
    else return -1;
  }
  a->programs = argv + i;
  a->nprograms = argc - i;
  return 0;
}

static int open_device(smoke *s, const args *a, vc_plugin *plugin) {
  vc_error e;
  if (vc_plugin_load("cuda", plugin, &e) != 0) {
    fprintf(stderr, "vc-cuda-smoke: %s\n", e.msg);
    return VC_EXIT_NO_BACKEND;
  }
  s->be = plugin->ops;
  if (s->be->open(a->device, a->options, &s->dev, &e) != 0) {
    fprintf(stderr, "vc-cuda-smoke: %s (%s)\n", e.msg, vc_errcode_name(e.code));
    return e.code == VC_ERR_USAGE ? VC_EXIT_USAGE : VC_EXIT_NO_BACKEND;
  }
  vc_device_info info;
  if (s->be->describe(s->dev, &info, &e) != 0) {
    fprintf(stderr, "vc-cuda-smoke: describe: %s\n", e.msg);
    return VC_EXIT_FAIL;
  }
  print_identity(&info);
  return VC_EXIT_OK;
}

int main(int argc, char **argv) {
  args a;
  if (parse_args(argc, argv, &a) != 0) {
    fprintf(stderr, "usage: vc-cuda-smoke [--device N] [--options K=V,...] [--no-figures] "
                    "PROGRAM.vyre...\n");
    return VC_EXIT_USAGE;
  }
  smoke s = {0};
  vc_plugin plugin;
  int rc = open_device(&s, &a, &plugin);
  if (rc == VC_EXIT_OK) {
    smoke_checks(&s);
    for (int i = 0; i < a.nprograms; i++) smoke_program(&s, a.programs[i]);
    if (a.figures) smoke_figures(&s);
    printf("summary  %u passed, %u failed, %u skipped\n", s.passed, s.failed, s.skipped);
    rc = s.failed ? VC_EXIT_FAIL : VC_EXIT_OK;
  }
  if (s.dev) s.be->close(s.dev);
  if (s.be) vc_plugin_unload(&plugin);
  return rc;
}
