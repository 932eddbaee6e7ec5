/* d: native mode on the three backends of one machine, through the mode
 * driver: the device time of a program without a grid barrier (one
 * trivial segment), the cost per grid barrier (B + 1 segments against 1)
 * and the participants, on CUDA (the device the bench opened) and on
 * device 0 of the Vulkan and OpenCL plugins where they load. Vulkan and
 * OpenCL are measured against CUDA's cooperative launch (no barrier),
 * against part b's raw grid.sync() (per barrier) and against the blocks
 * CUDA's occupancy API gives for the same kernel shape (participants). A
 * backend that does not load or has no device is a note, not a failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/bench/bench.h"
#include "harness/exec/plugin.h"

typedef struct backend_figures {
  double none_us, per_barrier_us;
  uint32_t participants, participants_none;
} backend_figures;

/* One native run of bp: checked bytes, a trustworthy run, its device time. */
static int native_once(bench_prog *bp, const char *be, double *ns, vc_native_stats *st,
                       vc_error *err) {
  vc_mode_out mo;
  int rc = vc_exec_run(&bp->exec, VC_MODE_NATIVE, (const uint32_t *const *)bp->inputs, &mo, err);
  uint32_t segs = bp->split->nsegs;
  const char *why = rc == 0 ? bench_chain_check(mo.outputs[0], segs) : NULL;
  if (why) rc = vc_fail(err, VC_ERR_INTERNAL, "%s native, %u segments: %s", be, segs, why);
  if (rc == 0 && mo.native.untrustworthy)
    rc = vc_fail(err, VC_ERR_DEVICE, "%s native, %u segments: untrustworthy run: %s", be, segs,
                 mo.native.note);
  *ns = (double)mo.device_ns;
  *st = mo.native;
  vc_mode_out_free(&mo);
  return rc;
}

static int measure(bench *b, const vc_backend *be, vc_dev *dev, const char *name,
                   uint32_t barriers, backend_figures *f, vc_error *err) {
  bench_prog many, none;
  memset(&none, 0, sizeof none);
  int rc = bench_chain_prog(barriers + 1, BENCH_GRID, &many, err);
  if (rc == 0) rc = bench_chain_prog(1, BENCH_GRID, &none, err);
  double *tb = calloc(b->repeat, sizeof *tb), *t0 = calloc(b->repeat, sizeof *t0);
  if (rc == 0 && (!tb || !t0)) rc = vc_fail(err, VC_ERR_NOMEM, "no memory for samples");
  if (rc == 0) {
    vc_exec_init(&many.exec, be, dev, many.prog, many.split);
    vc_exec_init(&none.exec, be, dev, none.prog, none.split);
  }
  vc_native_stats sb, s0;
  double warm;
  /* warm-up: compiles both kernels */
  if (rc == 0) rc = native_once(&many, name, &warm, &sb, err);
  if (rc == 0) rc = native_once(&none, name, &warm, &s0, err);
  for (uint32_t i = 0; rc == 0 && i < b->repeat; i++) {
    rc = native_once(&many, name, &tb[i], &sb, err);
    if (rc == 0) rc = native_once(&none, name, &t0[i], &s0, err);
  }
  if (rc == 0) {
    double mb = bench_median(tb, b->repeat), m0 = bench_median(t0, b->repeat);
    f->none_us = m0 / 1e3;
    f->per_barrier_us = (mb - m0) / barriers / 1e3;
    f->participants = sb.participants;
    f->participants_none = s0.participants;
  }
  free(tb);
  free(t0);
  bench_prog_free(&none);
  bench_prog_free(&many);
  return rc;
}

static void report(const char *name, const backend_figures *f, const backend_figures *cuda,
                   double raw_sync_us) {
  char key[64];
  snprintf(key, sizeof key, "d.%s.no_barrier_us", name);
  bench_figure(key, f->none_us, "us", "median device time of native, one segment, no barrier");
  snprintf(key, sizeof key, "d.%s.us_per_barrier", name);
  bench_figure(key, f->per_barrier_us, "us", "(native with B barriers - with 0) / B");
  snprintf(key, sizeof key, "d.%s.participants", name);
  bench_figure(key, f->participants, "", "participants of the run with B barriers");
  snprintf(key, sizeof key, "d.%s.participants_no_barrier", name);
  bench_figure(key, f->participants_none, "", "participants of the run without a barrier");
  if (!cuda) return;
  snprintf(key, sizeof key, "d.%s.no_barrier_ratio", name);
  double r = cuda->none_us > 0 ? f->none_us / cuda->none_us : 0;
  bench_figure(key, r, "", "no-barrier device time / CUDA's cooperative launch of it");
  bench_goal(key, r, true, 2.0);
  snprintf(key, sizeof key, "d.%s.barrier_ratio", name);
  if (raw_sync_us > 0) {
    r = f->per_barrier_us / raw_sync_us;
    bench_figure(key, r, "", "per barrier / part b's raw grid.sync() per barrier");
    bench_goal(key, r, true, 2.0);
  } else {
    bench_note("%s: no raw grid.sync() figure (part b did not run before d)", key);
  }
  snprintf(key, sizeof key, "d.%s.participants_ratio", name);
  r = cuda->participants ? (double)f->participants / cuda->participants : 0;
  bench_figure(key, r, "", "participants / CUDA's (its occupancy API, same kernel shape)");
  bench_goal(key, r, false, 1.0);
}

/* Vulkan or OpenCL device 0, measured; a note when there is none. */
static int other(bench *b, const char *name, uint32_t barriers, const backend_figures *cuda,
                 vc_error *err) {
  vc_plugin plugin = {0};
  vc_dev *dev = NULL;
  vc_error e;
  vc_error_clear(&e);
  int rc = vc_plugin_load(name, &plugin, &e);
  if (rc == 0) rc = plugin.ops->open(0, NULL, &dev, &e);
  vc_device_info info;
  if (rc == 0) rc = plugin.ops->describe(dev, &info, &e);
  if (rc != 0) {
    bench_note("%s: not measured: %s", name, e.msg);
    if (dev) plugin.ops->close(dev);
    if (plugin.ops) vc_plugin_unload(&plugin);
    return 0;
  }
  bench_note("%s: device 0, %s (%s %s), %u compute units", name, info.device_name,
             info.driver_name, info.driver_version, info.compute_units);
  backend_figures f;
  rc = measure(b, plugin.ops, dev, name, barriers, &f, err);
  if (rc == 0) report(name, &f, cuda, b->raw_sync_us);
  plugin.ops->close(dev);
  vc_plugin_unload(&plugin);
  return rc;
}

int bench_backends(bench *b, uint32_t barriers, vc_error *err) {
  char what[256];
  snprintf(what, sizeof what,
           "native mode, grid %u x 256 threads: one trivial segment (no barrier), and B = %u "
           "barriers; %u runs of each, after one warm-up",
           BENCH_GRID, barriers, b->repeat);
  bench_section("d: native mode on Vulkan and OpenCL against CUDA's", what);
  backend_figures cuda;
  int rc = measure(b, b->be, b->dev, "cuda", barriers, &cuda, err);
  if (rc != 0) return rc;
  report("cuda", &cuda, NULL, 0);
  int first = 0;
  static const char *const names[] = {"vulkan", "opencl"};
  for (int i = 0; i < 2; i++) {
    vc_error e;
    vc_error_clear(&e);
    rc = other(b, names[i], barriers, &cuda, &e);
    if (rc != 0) {
      printf("FAILED   part d, %s: %s (%s)\n", names[i], e.msg, vc_errcode_name(e.code));
      if (!first) {
        first = rc;
        *err = e;
      }
    }
  }
  return first;
}
