/* d: native mode on the three backends of one machine, through the mode
 * driver: the device time of a program without a grid barrier (one
 * trivial segment), the cost per grid barrier (B + 1 segments against 1)
 * and the participants, on CUDA (the device the bench opened) and on
 * device 0 of the Vulkan and OpenCL plugins where they load. Vulkan and
 * OpenCL are measured with each grid barrier (gridbar=flip, their default;
 * gridbar=counter and gridbar=lead, each on a device of its own of the same
 * plugin; a variant the device refuses as unsupported is a note), side by side,
 * against CUDA's cooperative launch (no barrier), against part b's raw
 * grid.sync() (per barrier) and against the blocks CUDA's occupancy API
 * gives for the same kernel shape (participants). Beside them the launch
 * floor: the same one-segment program in resident-split, one plain launch
 * of the plugin timed the same way, so that the record shows how much of
 * the no-barrier time is the native kernel and how much the driver's
 * launch. A backend that does not load or has no device is a note, not a
 * failure; a CUDA part that fails does not keep Vulkan and OpenCL from
 * being measured. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/bench/bench.h"
#include "harness/exec/plugin.h"

/* The grid barriers of the Vulkan and OpenCL plugins, the default first:
   the device options that select them (after the bench's own for CUDA,
   none for the others). */
static const struct {
  const char *key, *options;
} gridbars[] = {{"flip", NULL}, {"counter", "gridbar=counter"}, {"lead", "gridbar=lead"}};
#define GRIDBARS (sizeof gridbars / sizeof gridbars[0])

typedef struct backend_figures {
  uint32_t variants;                    /* 1 (CUDA) or GRIDBARS */
  double none_us[GRIDBARS], per_barrier_us[GRIDBARS];
  bool off[GRIDBARS];                   /* the device refused the variant (unsupported) */
  double floor_us;                      /* resident-split, one launch */
  uint32_t participants, participants_none;
} backend_figures;

/* One run of bp in mode m: checked bytes, a trustworthy native run, its
   device time. */
static int run_once(bench_prog *bp, vc_mode m, const char *be, double *ns, vc_native_stats *st,
                    vc_error *err) {
  vc_mode_out mo;
  int rc = vc_exec_run(&bp->exec, m, (const uint32_t *const *)bp->inputs, &mo, err);
  uint32_t segs = bp->split->nsegs;
  const char *mode = m == VC_MODE_NATIVE ? "native" : "resident-split";
  const char *why = rc == 0 ? bench_chain_check(mo.outputs[0], segs) : NULL;
  if (why) rc = vc_fail(err, VC_ERR_INTERNAL, "%s %s, %u segments: %s", be, mode, segs, why);
  if (rc == 0 && m == VC_MODE_NATIVE && mo.native.untrustworthy)
    rc = vc_fail(err, VC_ERR_DEVICE, "%s native, %u segments: untrustworthy run: %s", be, segs,
                 mo.native.note);
  *ns = (double)mo.device_ns;
  if (st && m == VC_MODE_NATIVE) *st = mo.native;
  vc_mode_out_free(&mo);
  return rc;
}

typedef struct variant {
  bench_prog many, none;
  vc_dev *own; /* a device opened for this variant, or NULL */
  double *tb, *t0;
} variant;

static void variant_free(const vc_backend *be, variant *v) {
  bench_prog_free(&v->none);
  bench_prog_free(&v->many);
  if (v->own) be->close(v->own);
  free(v->tb);
  free(v->t0);
  memset(v, 0, sizeof *v);
}

/* nv variants on be: variant 0 on dev, the others on a device of the
   plugin opened with their gridbar option; the samples interleaved. */
static int measure(bench *b, const vc_backend *be, vc_dev *dev, uint32_t index, const char *name,
                   uint32_t nv, uint32_t barriers, backend_figures *f, vc_error *err) {
  variant v[GRIDBARS];
  memset(v, 0, sizeof v);
  memset(f, 0, sizeof *f);
  f->variants = nv;
  double *tf = calloc(b->repeat, sizeof *tf);
  int rc = tf ? 0 : vc_fail(err, VC_ERR_NOMEM, "no memory for samples");
  for (uint32_t i = 0; rc == 0 && i < nv; i++) {
    rc = bench_chain_prog(barriers + 1, BENCH_GRID, &v[i].many, err);
    if (rc == 0) rc = bench_chain_prog(1, BENCH_GRID, &v[i].none, err);
    v[i].tb = calloc(b->repeat, sizeof(double));
    v[i].t0 = calloc(b->repeat, sizeof(double));
    if (rc == 0 && (!v[i].tb || !v[i].t0)) rc = vc_fail(err, VC_ERR_NOMEM, "no memory for samples");
    if (rc == 0 && gridbars[i].options && i > 0) {
      rc = be->open(index, gridbars[i].options, &v[i].own, err);
      if (rc) rc = vc_fail_wrap(err, "%s: opening device %u with %s", name, index,
                                gridbars[i].options);
    }
    if (rc == 0) {
      vc_dev *d = v[i].own ? v[i].own : dev;
      vc_exec_init(&v[i].many.exec, be, d, v[i].many.prog, v[i].many.split);
      vc_exec_init(&v[i].none.exec, be, d, v[i].none.prog, v[i].none.split);
    }
  }
  vc_native_stats sb, s0;
  double warm;
  /* warm-up: compiles every kernel (the floor's segment kernel too); a
     variant other than the default that the device cannot run is left out */
  for (uint32_t i = 0; rc == 0 && i < nv; i++) {
    rc = run_once(&v[i].many, VC_MODE_NATIVE, name, &warm, &sb, err);
    if (rc == 0) rc = run_once(&v[i].none, VC_MODE_NATIVE, name, &warm, &s0, err);
    if (rc == VC_ERR_UNSUPPORTED && i > 0) {
      bench_note("%s: %s not measured: %s", name, gridbars[i].options, err->msg);
      f->off[i] = true;
      vc_error_clear(err);
      rc = 0;
    }
  }
  if (rc == 0) rc = run_once(&v[0].none, VC_MODE_RESIDENT_SPLIT, name, &warm, NULL, err);
  for (uint32_t r = 0; rc == 0 && r < b->repeat; r++) {
    for (uint32_t i = 0; rc == 0 && i < nv; i++) {
      if (f->off[i]) continue;
      rc = run_once(&v[i].many, VC_MODE_NATIVE, name, &v[i].tb[r], i == 0 ? &sb : NULL, err);
      if (rc == 0)
        rc = run_once(&v[i].none, VC_MODE_NATIVE, name, &v[i].t0[r], i == 0 ? &s0 : NULL, err);
    }
    if (rc == 0) rc = run_once(&v[0].none, VC_MODE_RESIDENT_SPLIT, name, &tf[r], NULL, err);
  }
  if (rc == 0) {
    for (uint32_t i = 0; i < nv; i++) {
      double mb = bench_median(v[i].tb, b->repeat), m0 = bench_median(v[i].t0, b->repeat);
      f->none_us[i] = m0 / 1e3;
      f->per_barrier_us[i] = (mb - m0) / barriers / 1e3;
    }
    f->floor_us = bench_median(tf, b->repeat) / 1e3;
    f->participants = sb.participants;
    f->participants_none = s0.participants;
  }
  free(tf);
  for (uint32_t i = nv; i-- > 0;) variant_free(be, &v[i]);
  return rc;
}

static void report(const char *name, const backend_figures *f, const backend_figures *cuda,
                   double raw_sync_us) {
  char key[96], what[192];
  snprintf(key, sizeof key, "d.%s.no_barrier_us", name);
  bench_figure(key, f->none_us[0], "us", f->variants > 1
                   ? "median device time of native, one segment, no barrier (gridbar=flip)"
                   : "median device time of native, one segment, no barrier");
  snprintf(key, sizeof key, "d.%s.launch_floor_us", name);
  bench_figure(key, f->floor_us, "us",
               "median device time of the same program in resident-split (one plain launch)");
  snprintf(key, sizeof key, "d.%s.no_barrier_over_floor", name);
  bench_figure(key, f->floor_us > 0 ? f->none_us[0] / f->floor_us : 0, "",
               "native no-barrier device time / the launch floor");
  snprintf(key, sizeof key, "d.%s.us_per_barrier", name);
  bench_figure(key, f->per_barrier_us[0], "us", f->variants > 1
                   ? "(native with B barriers - with 0) / B, gridbar=flip (the default)"
                   : "(native with B barriers - with 0) / B");
  for (uint32_t i = 1; i < f->variants; i++) {
    if (f->off[i]) continue;
    snprintf(key, sizeof key, "d.%s.%s_no_barrier_us", name, gridbars[i].key);
    snprintf(what, sizeof what, "the no-barrier device time with %s (a device of its own)",
             gridbars[i].options);
    bench_figure(key, f->none_us[i], "us", what);
    snprintf(key, sizeof key, "d.%s.%s_us_per_barrier", name, gridbars[i].key);
    snprintf(what, sizeof what, "per barrier with %s (a device of its own, same run)",
             gridbars[i].options);
    bench_figure(key, f->per_barrier_us[i], "us", what);
    snprintf(key, sizeof key, "d.%s.%s_vs_flip", name, gridbars[i].key);
    snprintf(what, sizeof what, "per barrier with %s / with gridbar=flip", gridbars[i].options);
    bench_figure(key, f->per_barrier_us[0] > 0 ? f->per_barrier_us[i] / f->per_barrier_us[0] : 0,
                 "", what);
  }
  snprintf(key, sizeof key, "d.%s.participants", name);
  bench_figure(key, f->participants, "", "participants of the run with B barriers");
  snprintf(key, sizeof key, "d.%s.participants_no_barrier", name);
  bench_figure(key, f->participants_none, "", "participants of the run without a barrier");
  if (raw_sync_us > 0) {
    for (uint32_t i = 1; i < f->variants; i++) {
      if (f->off[i]) continue;
      snprintf(key, sizeof key, "d.%s.%s_barrier_ratio", name, gridbars[i].key);
      snprintf(what, sizeof what, "per barrier with %s / part b's raw grid.sync()",
               gridbars[i].options);
      bench_figure(key, f->per_barrier_us[i] / raw_sync_us, "", what);
    }
  }
  if (!cuda) return;
  snprintf(key, sizeof key, "d.%s.no_barrier_ratio", name);
  double r = cuda->none_us[0] > 0 ? f->none_us[0] / cuda->none_us[0] : 0;
  bench_figure(key, r, "", "no-barrier device time / CUDA's cooperative launch of it");
  bench_goal(key, r, true, 2.0);
  snprintf(key, sizeof key, "d.%s.barrier_ratio", name);
  if (raw_sync_us > 0) {
    r = f->per_barrier_us[0] / raw_sync_us;
    bench_figure(key, r, "", "per barrier (gridbar=flip) / part b's raw grid.sync() per barrier");
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
  for (const char *l = info.extra; *l;) { /* which ordering the native kernels use */
    size_t len = strcspn(l, "\n");
    if (strncmp(l, "native_ordering=", 16) == 0) bench_note("%s: %.*s", name, (int)len, l);
    l += len + (l[len] == '\n');
  }
  backend_figures f;
  rc = measure(b, plugin.ops, dev, 0, name, GRIDBARS, barriers, &f, err);
  if (rc == 0) report(name, &f, cuda, b->raw_sync_us);
  plugin.ops->close(dev);
  vc_plugin_unload(&plugin);
  return rc;
}

int bench_backends(bench *b, uint32_t barriers, vc_error *err) {
  char what[256];
  snprintf(what, sizeof what,
           "native mode, grid %u x 256 threads: one trivial segment (no barrier), and B = %u "
           "barriers; %u runs of each, interleaved, after one warm-up",
           BENCH_GRID, barriers, b->repeat);
  bench_section("d: native mode on Vulkan and OpenCL against CUDA's", what);
  backend_figures cuda;
  int first = measure(b, b->be, b->dev, b->index, "cuda", 1, barriers, &cuda, err);
  if (first == 0) report("cuda", &cuda, NULL, 0);
  else bench_note("cuda: not measured (the part's error follows); Vulkan and OpenCL are, "
                  "without CUDA's ratios");
  static const char *const names[] = {"vulkan", "opencl"};
  for (int i = 0; i < 2; i++) {
    vc_error e;
    vc_error_clear(&e);
    int rc = other(b, names[i], barriers, first == 0 ? &cuda : NULL, &e);
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
