/* vc-cuda-bench [--device N] [--options K=V,...] [--repeat R] [--segments S]
 *               [--barriers B] [--large PATH] [--only PARTS] [--goals]
 *
 * Opens CUDA device N through the plugin beside this binary, and the driver
 * itself for the raw baselines, and prints the figures of parts a, b and c
 * (or those --only names; d too), each with its definition. --goals runs
 * a, b, c and d and ends with every figure that has a goal beside it
 * (docs/performance.md, "Close to the metal"). Exit status: 0 when every part ran
 * (a goal missed is still 0), 1 when a part failed, 2 usage, 3 no plugin,
 * driver or device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/bench/bench.h"
#include "backends/cuda/cuda_internal.h"
#include "harness/base/clock.h"
#include "harness/base/exitcodes.h"
#include "harness/exec/plugin.h"

#ifndef VC_BENCH_LARGE
#define VC_BENCH_LARGE "corpus/size/large_accumulator.vyre"
#endif

typedef struct args {
  uint32_t device, repeat, segments, barriers;
  const char *options, *large, *only;
  bool goals;
} args;

static int number(const char *s, uint32_t lo, uint32_t hi, uint32_t *out) {
  char *end;
  unsigned long v = strtoul(s, &end, 10);
  if (*s < '0' || *s > '9' || *end || v < lo || v > hi) return -1;
  *out = (uint32_t)v;
  return 0;
}

static int parse_args(int argc, char **argv, args *a) {
  *a = (args){.repeat = 20, .segments = 200, .barriers = 100, .large = VC_BENCH_LARGE,
              .only = "abc"};
  for (int i = 1; i < argc; i++) {
    const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(o, "--goals") == 0) {
      a->goals = true;
      a->only = "abcd";
      continue;
    }
    int rc = v ? 0 : -1;
    if (rc == 0 && strcmp(o, "--device") == 0) rc = number(v, 0, 1023, &a->device);
    else if (rc == 0 && strcmp(o, "--repeat") == 0) rc = number(v, 1, 1000, &a->repeat);
    else if (rc == 0 && strcmp(o, "--segments") == 0) rc = number(v, 2, 10000, &a->segments);
    else if (rc == 0 && strcmp(o, "--barriers") == 0) rc = number(v, 1, 10000, &a->barriers);
    else if (rc == 0 && strcmp(o, "--options") == 0) a->options = v;
    else if (rc == 0 && strcmp(o, "--large") == 0) a->large = v;
    else if (rc == 0 && strcmp(o, "--only") == 0) a->only = v;
    else rc = -1;
    if (rc != 0) return -1;
    i++;
  }
  return a->only[strspn(a->only, "abcd,")] == '\0' ? 0 : -1;
}

static void print_identity(const vc_device_info *i, const bench *b) {
  printf("device   %s (uuid %s), %u SMs\n", i->device_name, i->uuid, i->compute_units);
  printf("driver   CUDA %s, %s %s; kernels for %s\n", i->api_version, i->driver_name,
         i->driver_version, b->arch);
  /* the extra lines that say which NVRTC and headers built the kernels */
  for (const char *l = i->extra; *l;) {
    size_t len = strcspn(l, "\n");
    if (strncmp(l, "nvrtc=", 6) == 0 || strncmp(l, "native_include=", 15) == 0)
      printf("         %.*s\n", (int)len, l);
    l += len + (l[len] == '\n');
  }
  fflush(stdout);
}

static int open_all(bench *b, const args *a, vc_plugin *plugin, vc_error *e) {
  int rc = vc_plugin_load("cuda", plugin, e);
  if (rc != 0) return rc;
  b->be = plugin->ops;
  rc = b->be->open(a->device, a->options, &b->dev, e);
  if (rc == 0) rc = bench_raw_open(b, a->device, e);
  vc_device_info info;
  if (rc == 0) rc = b->be->describe(b->dev, &info, e);
  if (rc == 0) print_identity(&info, b);
  return rc;
}

/* Runs the parts asked for; a failed part is reported and the next runs. */
static int run_parts(bench *b, const args *a) {
  int failed = 0;
  for (const char *p = a->only; *p; p++) {
    vc_error e;
    vc_error_clear(&e);
    int rc = 0;
    if (*p == 'a') rc = bench_overhead(b, a->segments, &e);
    else if (*p == 'b') rc = bench_barrier(b, a->barriers, &e);
    else if (*p == 'c') rc = bench_traffic(b, a->large, &e);
    else if (*p == 'd') rc = bench_backends(b, a->barriers, &e);
    else continue;
    if (rc != 0) {
      printf("FAILED   part %c: %s (%s)\n", *p, e.msg, vc_errcode_name(e.code));
      failed = 1;
    }
  }
  return failed;
}

int main(int argc, char **argv) {
  args a;
  if (parse_args(argc, argv, &a) != 0) {
    fprintf(stderr, "usage: vc-cuda-bench [--device N] [--options K=V,...] [--repeat R] "
                    "[--segments S] [--barriers B] [--large PATH] [--only a,b,c,d] [--goals]\n");
    return VC_EXIT_USAGE;
  }
  /* the include folder the plugin uses, for the raw kernel too, read by the
     plugin's own option parser (which refuses what the plugin would) */
  vc_cuda_options copts;
  vc_error e;
  if (vc_cuda_parse_options(a.options, &copts, &e) != 0) {
    fprintf(stderr, "vc-cuda-bench: %s\n", e.msg);
    return VC_EXIT_USAGE;
  }
  bench b = {.repeat = a.repeat, .include = copts.include[0] ? copts.include : NULL,
             .options = a.options, .index = a.device};
  vc_plugin plugin = {0};
  uint64_t t0 = vc_now_ns();
  int rc = open_all(&b, &a, &plugin, &e);
  int status = VC_EXIT_OK;
  if (rc != 0) {
    fprintf(stderr, "vc-cuda-bench: %s (%s)\n", e.msg, vc_errcode_name(e.code));
    status = rc == VC_ERR_USAGE ? VC_EXIT_USAGE : VC_EXIT_NO_BACKEND;
  } else {
    status = run_parts(&b, &a) ? VC_EXIT_FAIL : VC_EXIT_OK;
    if (a.goals) bench_goal_summary();
    printf("\ntotal    %.1f s\n", (double)(vc_now_ns() - t0) / 1e9);
  }
  bench_raw_close(&b);
  if (b.dev) b.be->close(b.dev);
  if (plugin.ops) vc_plugin_unload(&plugin);
  return status;
}
