/* b: the native kernel's grid barrier against a raw cooperative
 * grid.sync() at the same grid. Per barrier is the difference of device
 * times with B barriers and with none, over B, on every side: the native
 * program of B + 1 trivial segments against the one of 1, with the
 * plugin's default barrier (barrier=inline, inline-order=release) and with
 * barrier=cg and the other inline orders (a device of its own each), side
 * by side; and two hand-written
 * kernels doing B rounds of the same work and grid.sync() against 0
 * rounds, launched cooperatively with as many blocks as the native launch
 * had: one loop around one body, and the fair baseline, a loop with a
 * switch into B + 1 distinct body functions, as the native kernel has one
 * function per segment (cold code on both sides). The cold-code share is
 * what the distinct bodies add to the raw barrier. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/cuda_nvrtc.h"
#include "backends/cuda/bench/bench.h"
#include "harness/base/strbuf.h"

static const char raw_source[] =
    "#include <cooperative_groups.h>\n"
    "extern \"C\" __global__ void __launch_bounds__(256)\n"
    "vc_raw_sync(unsigned int *o, unsigned int n) {\n"
    "  cooperative_groups::grid_group g = cooperative_groups::this_grid();\n"
    "  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  for (unsigned int k = 0u; k < n; k++) {\n"
    "    if (i < 1024u) o[i] = o[i] + 1u;\n"
    "    g.sync();\n"
    "  }\n"
    "}\n";

/* The fair baseline: round k calls body k, each a function of its own as
   the native kernel's segments are (same text, so that the compiler treats
   both alike), through a switch in the loop, as the native kernel's pass
   loop does. */
static void distinct_source(uint32_t bodies, vc_strbuf *sb) {
  vc_sb_puts(sb, "#include <cooperative_groups.h>\n");
  for (uint32_t k = 0; k < bodies; k++)
    vc_sb_printf(sb,
                 "static __device__ void vc_body%u(unsigned int *o, unsigned int i) {\n"
                 "  if (i < 1024u) o[i] = o[i] + 1u;\n"
                 "}\n",
                 k);
  vc_sb_puts(sb, "extern \"C\" __global__ void __launch_bounds__(256)\n"
                 "vc_raw_distinct(unsigned int *o, unsigned int n) {\n"
                 "  cooperative_groups::grid_group g = cooperative_groups::this_grid();\n"
                 "  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                 "  for (unsigned int k = 0u; k < n; k++) {\n"
                 "    switch (k) {\n");
  for (uint32_t k = 0; k < bodies; k++)
    vc_sb_printf(sb, "    case %uu: vc_body%u(o, i); break;\n", k, k);
  vc_sb_puts(sb, "    default: break;\n    }\n    g.sync();\n  }\n}\n");
}

typedef struct raw_sync {
  CUmodule mod, dmod;
  CUfunction fn, dfn; /* one body; distinct bodies */
  CUdeviceptr o;
  CUevent ev[2];
  uint32_t blocks;
} raw_sync;

static int raw_compile(bench *b, const char *dir, const char *src, const char *name,
                       CUmodule *mod, CUfunction *fn, vc_error *err) {
  char *ptx = NULL, *log = NULL;
  int rc = vc_nvrtc_compile(src, b->arch, dir, name, &ptx, &log, err);
  free(log);
  if (rc == 0) rc = bench_raw_module(b, ptx, name, mod, fn, err);
  free(ptx);
  return rc;
}

static int raw_open(bench *b, const char *include, uint32_t barriers, raw_sync *r,
                    vc_error *err) {
  char dir[512];
  int rc = vc_nvrtc_include_dir(include, dir, sizeof dir, err);
  if (rc == 0) rc = raw_compile(b, dir, raw_source, "vc_raw_sync", &r->mod, &r->fn, err);
  if (rc == 0) {
    vc_strbuf sb;
    vc_sb_init(&sb);
    distinct_source(barriers + 1, &sb);
    rc = raw_compile(b, dir, vc_sb_str(&sb), "vc_raw_distinct", &r->dmod, &r->dfn, err);
    vc_sb_free(&sb);
  }
  if (rc != 0) return rc;
  CUresult cr = b->cu->cuMemAlloc(&r->o, 1024 * sizeof(uint32_t));
  for (int i = 0; cr == CUDA_SUCCESS && i < 2; i++)
    cr = b->cu->cuEventCreate(&r->ev[i], CU_EVENT_DEFAULT);
  return cr == CUDA_SUCCESS ? 0 : bench_raw_fail(b, err, cr, "cuMemAlloc or cuEventCreate");
}

static void raw_close(bench *b, raw_sync *r) {
  b->cu->cuCtxSetCurrent(b->ctx);
  b->cu->cuStreamSynchronize(b->stream);
  for (int i = 0; i < 2; i++)
    if (r->ev[i]) b->cu->cuEventDestroy(r->ev[i]);
  if (r->o) b->cu->cuMemFree(r->o);
  if (r->mod) b->cu->cuModuleUnload(r->mod);
  if (r->dmod) b->cu->cuModuleUnload(r->dmod);
}

/* Blocks for the raw kernels: the native launch's, at most their own
   co-resident limit. */
static int raw_blocks(bench *b, raw_sync *r, uint32_t native_blocks, vc_error *err) {
  int per_sm = 0, dper_sm = 0, sms = 0;
  CUresult cr = b->cu->cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, r->fn, 256, 0);
  if (cr == CUDA_SUCCESS)
    cr = b->cu->cuOccupancyMaxActiveBlocksPerMultiprocessor(&dper_sm, r->dfn, 256, 0);
  if (cr == CUDA_SUCCESS)
    cr = b->cu->cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, b->device);
  if (cr != CUDA_SUCCESS) return bench_raw_fail(b, err, cr, "occupancy of the raw kernels");
  if (dper_sm < per_sm) per_sm = dper_sm;
  uint32_t most = (uint32_t)per_sm * (uint32_t)sms;
  r->blocks = native_blocks < most ? native_blocks : most;
  if (r->blocks < native_blocks)
    bench_note("the raw kernel fits %u co-resident blocks, fewer than native's %u", most,
               native_blocks);
  return r->blocks ? 0 : vc_fail(err, VC_ERR_LIMIT, "the raw kernel has no co-resident block");
}

/* One cooperative launch of fn with n rounds; its device time in ns. */
static int raw_run(bench *b, raw_sync *r, CUfunction fn, uint32_t n, double *ns, vc_error *err) {
  void *params[] = {&r->o, &n};
  CUresult cr = b->cu->cuMemsetD32Async(r->o, 0, 1024, b->stream);
  if (cr == CUDA_SUCCESS) cr = b->cu->cuEventRecord(r->ev[0], b->stream);
  if (cr == CUDA_SUCCESS)
    cr = b->cu->cuLaunchCooperativeKernel(fn, r->blocks, 1, 1, 256, 1, 1, 0, b->stream, params);
  if (cr == CUDA_SUCCESS) cr = b->cu->cuEventRecord(r->ev[1], b->stream);
  if (cr == CUDA_SUCCESS) cr = b->cu->cuStreamSynchronize(b->stream);
  float ms = 0;
  if (cr == CUDA_SUCCESS) cr = b->cu->cuEventElapsedTime(&ms, r->ev[0], r->ev[1]);
  if (cr != CUDA_SUCCESS) return bench_raw_fail(b, err, cr, "cooperative grid.sync launch");
  *ns = (double)ms * 1e6;
  static uint32_t words[1024];
  int rc = bench_raw_read(b, r->o, words, sizeof words, err);
  if (rc != 0) return rc;
  const char *why = bench_chain_check(words, n);
  return why ? vc_fail(err, VC_ERR_INTERNAL, "raw grid.sync kernel, %u rounds: %s", n, why) : 0;
}

/* One native run: its device time, checked bytes and control words. */
static int native_run(bench_prog *bp, double *ns, vc_native_stats *st, vc_error *err) {
  vc_mode_out mo;
  int rc = vc_exec_run(&bp->exec, VC_MODE_NATIVE, (const uint32_t *const *)bp->inputs, &mo, err);
  uint32_t segs = bp->split->nsegs;
  const char *why = rc == 0 ? bench_chain_check(mo.outputs[0], segs) : NULL;
  if (why) rc = vc_fail(err, VC_ERR_INTERNAL, "native, %u segments: %s", segs, why);
  if (rc == 0 && mo.native.untrustworthy)
    rc = vc_fail(err, VC_ERR_DEVICE, "native, %u segments: untrustworthy run: %s", segs,
                 mo.native.note);
  if (rc == 0 && mo.native.barriers != segs - 1)
    rc = vc_fail(err, VC_ERR_INTERNAL, "native, %u segments: %llu barriers", segs,
                 (unsigned long long)mo.native.barriers);
  *ns = (double)mo.device_ns;
  *st = mo.native;
  vc_mode_out_free(&mo);
  return rc;
}

/* The native sides: the plugin's default barrier (barrier=inline,
   inline-order=release) on the bench's device, then cooperative_groups'
   grid sync and the other inline orders, each on a device of its own,
   opened with the bench's options and these after. */
static const struct {
  const char *key, *options, *what;
} natives[] = {
    {"native", NULL, "the default, barrier=inline,inline-order=release"},
    {"cg", "barrier=cg", "barrier=cg (cooperative_groups' grid.sync())"},
    {"inline", "barrier=inline,inline-order=fenced",
     "barrier=inline,inline-order=fenced (fence.sc.gpu both sides, acq_rel add)"},
    {"inline_relaxed", "barrier=inline,inline-order=relaxed",
     "barrier=inline,inline-order=relaxed (release add, relaxed polls, one acquire fence)"},
};
#define NATIVES (sizeof natives / sizeof natives[0])

/* Device times per run, with B barriers and with none, of each side:
   the natives (the default first, then cg), then the two raw kernels. */
enum { S_DEF = 0, S_RAW = NATIVES, S_DISTINCT, SIDES };

typedef struct series {
  double *with_b[SIDES], *with_0[SIDES];
} series;

static int series_alloc(series *s, uint32_t n) {
  int ok = 1;
  for (int i = 0; i < SIDES; i++) {
    s->with_b[i] = calloc(n, sizeof(double));
    s->with_0[i] = calloc(n, sizeof(double));
    ok = ok && s->with_b[i] && s->with_0[i];
  }
  return ok ? 0 : -1;
}

static void series_free(series *s) {
  for (int i = 0; i < SIDES; i++) {
    free(s->with_b[i]);
    free(s->with_0[i]);
  }
}

static void report(bench *b_, series *s, uint32_t runs, uint32_t barriers,
                   const vc_native_stats *st, uint32_t raw_blocks) {
  double b[SIDES], z[SIDES], per[SIDES];
  for (int i = 0; i < SIDES; i++) {
    b[i] = bench_median(s->with_b[i], runs);
    z[i] = bench_median(s->with_0[i], runs);
    per[i] = (b[i] - z[i]) / barriers / 1e3;
  }
  double fair = per[S_DISTINCT];
  bench_note("native: %u blocks took part (%u program workgroups each at most), raw: %u blocks",
             st->participants, st->virtual_per_participant, raw_blocks);
  char key[64], what[256];
  bench_figure("b.native_us_per_barrier", per[S_DEF], "us",
               "(median device time of native with B barriers - with 0) / B, the default "
               "(barrier=inline,inline-order=release)");
  for (size_t v = 1; v < NATIVES; v++) {
    snprintf(key, sizeof key, "b.%s_us_per_barrier", natives[v].key);
    snprintf(what, sizeof what, "the same with %s (a device of its own, same run)",
             natives[v].what);
    bench_figure(key, per[v], "us", what);
  }
  bench_figure("b.raw_distinct_us_per_barrier", fair, "us",
               "the same for the raw kernel with B + 1 distinct bodies (the fair baseline)");
  bench_figure("b.raw_us_per_barrier", per[S_RAW], "us",
               "the same for the raw kernel with one body in a loop around grid.sync()");
  bench_figure("b.cold_code_share", fair > 0 ? (fair - per[S_RAW]) / fair : 0, "",
               "(raw distinct - raw one body) / raw distinct per barrier");
  double ratio[NATIVES];
  for (size_t v = 0; v < NATIVES; v++) ratio[v] = fair > 0 ? per[v] / fair : 0;
  bench_figure("b.ratio", ratio[S_DEF], "",
               "native (the default) / raw distinct per barrier (goal <= 1.2)");
  for (size_t v = 1; v < NATIVES; v++) {
    snprintf(key, sizeof key, "b.%s_ratio", natives[v].key);
    snprintf(what, sizeof what, "native (%s) / raw distinct per barrier", natives[v].options);
    bench_figure(key, ratio[v], "", what);
  }
  for (size_t v = 1; v < NATIVES; v++) {
    snprintf(key, sizeof key, "b.%s_vs_default", natives[v].key);
    snprintf(what, sizeof what, "native (%s) / native (the default) per barrier",
             natives[v].options);
    bench_figure(key, per[S_DEF] > 0 ? per[v] / per[S_DEF] : 0, "", what);
  }
  bench_figure("b.loop_ratio", per[S_RAW] > 0 ? per[S_DEF] / per[S_RAW] : 0, "",
               "native (the default) / raw one body per barrier (the earlier, unfair baseline)");
  for (int i = 0; i < SIDES; i++) {
    const char *side = i < (int)NATIVES ? natives[i].key : i == S_RAW ? "raw" : "raw_distinct";
    snprintf(key, sizeof key, "b.%s_us_B", side);
    bench_figure(key, b[i] / 1e3, "us", "median device time of the launch, B barriers");
    snprintf(key, sizeof key, "b.%s_us_0", side);
    bench_figure(key, z[i] / 1e3, "us", "median device time of the launch, 0 barriers");
  }
  /* the goal on the default; cg and the other orders are figures beside it */
  bench_goal("b.ratio", ratio[S_DEF], true, 1.2);
  b_->raw_sync_us = per[S_RAW];
}

typedef struct sides {
  bench_prog many[NATIVES], none[NATIVES];
  vc_dev *dev[NATIVES]; /* NULL: the bench's device */
  raw_sync r;
} sides;

/* One run of every side, B barriers and none. */
static int round_of(bench *b, sides *sd, uint32_t barriers, series *s, uint32_t i,
                    vc_native_stats *st, vc_error *err) {
  vc_native_stats st0;
  int rc = 0;
  for (size_t v = 0; rc == 0 && v < NATIVES; v++) {
    rc = native_run(&sd->many[v], &s->with_b[v][i], v == S_DEF ? st : &st0, err);
    if (rc == 0) rc = native_run(&sd->none[v], &s->with_0[v][i], &st0, err);
  }
  if (rc == 0) rc = raw_run(b, &sd->r, sd->r.fn, barriers, &s->with_b[S_RAW][i], err);
  if (rc == 0) rc = raw_run(b, &sd->r, sd->r.fn, 0, &s->with_0[S_RAW][i], err);
  if (rc == 0) rc = raw_run(b, &sd->r, sd->r.dfn, barriers, &s->with_b[S_DISTINCT][i], err);
  if (rc == 0) rc = raw_run(b, &sd->r, sd->r.dfn, 0, &s->with_0[S_DISTINCT][i], err);
  return rc;
}

static int rounds(bench *b, sides *sd, uint32_t barriers, series *s, vc_native_stats *st,
                  vc_error *err) {
  vc_native_stats st0;
  double warm;
  int rc = 0;
  /* warm-up: compiles the native kernels, sizes the raw grid */
  for (size_t v = 0; rc == 0 && v < NATIVES; v++) {
    rc = native_run(&sd->many[v], &warm, v == S_DEF ? st : &st0, err);
    if (rc == 0) rc = native_run(&sd->none[v], &warm, &st0, err);
  }
  if (rc == 0) rc = raw_blocks(b, &sd->r, st->participants, err);
  if (rc == 0) rc = raw_run(b, &sd->r, sd->r.fn, barriers, &warm, err);
  if (rc == 0) rc = raw_run(b, &sd->r, sd->r.dfn, barriers, &warm, err);
  for (uint32_t i = 0; rc == 0 && i < b->repeat; i++) rc = round_of(b, sd, barriers, s, i, st, err);
  return rc;
}

/* The plugin's device again, with the variant's options after the bench's. */
static int open_variant(bench *b, const char *extra, vc_dev **dev, vc_error *err) {
  char opts[1024];
  snprintf(opts, sizeof opts, "%s%s%s", b->options ? b->options : "",
           b->options && *b->options ? "," : "", extra);
  int rc = b->be->open(b->index, opts, dev, err);
  return rc ? vc_fail_wrap(err, "opening the device with %s", opts) : 0;
}

int bench_barrier(bench *b, uint32_t barriers, vc_error *err) {
  char what[256];
  snprintf(what, sizeof what,
           "B = %u grid barriers of trivial work, grid %u x 256 threads; %u runs of each, "
           "interleaved, after one warm-up",
           barriers, BENCH_GRID, b->repeat);
  bench_section("b: native grid barrier against raw cooperative grid.sync()", what);
  sides sd;
  series s;
  memset(&sd, 0, sizeof sd);
  memset(&s, 0, sizeof s);
  int rc = 0;
  for (size_t v = 0; rc == 0 && v < NATIVES; v++) {
    rc = bench_chain_prog(barriers + 1, BENCH_GRID, &sd.many[v], err);
    if (rc == 0) rc = bench_chain_prog(1, BENCH_GRID, &sd.none[v], err);
    if (rc == 0 && natives[v].options) rc = open_variant(b, natives[v].options, &sd.dev[v], err);
    if (rc == 0) {
      vc_dev *dev = sd.dev[v] ? sd.dev[v] : b->dev;
      vc_exec_init(&sd.many[v].exec, b->be, dev, sd.many[v].prog, sd.many[v].split);
      vc_exec_init(&sd.none[v].exec, b->be, dev, sd.none[v].prog, sd.none[v].split);
    }
  }
  if (rc == 0) rc = raw_open(b, b->include, barriers, &sd.r, err);
  if (rc == 0 && series_alloc(&s, b->repeat) != 0)
    rc = vc_fail(err, VC_ERR_NOMEM, "no memory for %u samples", b->repeat);
  vc_native_stats st;
  if (rc == 0) rc = rounds(b, &sd, barriers, &s, &st, err);
  if (rc == 0) report(b, &s, b->repeat, barriers, &st, sd.r.blocks);
  series_free(&s);
  raw_close(b, &sd.r);
  for (size_t v = NATIVES; v-- > 0;) {
    bench_prog_free(&sd.none[v]);
    bench_prog_free(&sd.many[v]);
    if (sd.dev[v]) b->be->close(sd.dev[v]);
  }
  return rc;
}
