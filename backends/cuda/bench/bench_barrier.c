/* b: the native kernel's grid barrier against a raw cooperative
 * grid.sync() at the same grid. Per barrier is the difference of device
 * times with B barriers and with none, over B, on both sides: the native
 * program of B + 1 trivial segments against the one of 1, and a
 * hand-written kernel doing B rounds of the same work and grid.sync()
 * against 0 rounds, launched cooperatively with as many blocks as the
 * native launch had. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/cuda_nvrtc.h"
#include "backends/cuda/bench/bench.h"

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

typedef struct raw_sync {
  CUmodule mod;
  CUfunction fn;
  CUdeviceptr o;
  CUevent ev[2];
  uint32_t blocks;
} raw_sync;

static int raw_open(bench *b, const char *include, raw_sync *r, vc_error *err) {
  char dir[512], *ptx = NULL, *log = NULL;
  int rc = vc_nvrtc_include_dir(include, dir, sizeof dir, err);
  if (rc == 0) rc = vc_nvrtc_compile(raw_source, b->arch, dir, "raw grid.sync kernel", &ptx, &log,
                                     err);
  free(log);
  if (rc == 0) rc = bench_raw_module(b, ptx, "vc_raw_sync", &r->mod, &r->fn, err);
  free(ptx);
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
}

/* Blocks for the raw kernel: the native launch's, at most its own
   co-resident limit. */
static int raw_blocks(bench *b, raw_sync *r, uint32_t native_blocks, vc_error *err) {
  int per_sm = 0, sms = 0;
  CUresult cr = b->cu->cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, r->fn, 256, 0);
  if (cr == CUDA_SUCCESS)
    cr = b->cu->cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, b->device);
  if (cr != CUDA_SUCCESS) return bench_raw_fail(b, err, cr, "occupancy of the raw kernel");
  uint32_t most = (uint32_t)per_sm * (uint32_t)sms;
  r->blocks = native_blocks < most ? native_blocks : most;
  if (r->blocks < native_blocks)
    bench_note("the raw kernel fits %u co-resident blocks, fewer than native's %u", most,
               native_blocks);
  return r->blocks ? 0 : vc_fail(err, VC_ERR_LIMIT, "the raw kernel has no co-resident block");
}

/* One cooperative launch of n rounds; its device time in ns. */
static int raw_run(bench *b, raw_sync *r, uint32_t n, double *ns, vc_error *err) {
  void *params[] = {&r->o, &n};
  CUresult cr = b->cu->cuMemsetD32Async(r->o, 0, 1024, b->stream);
  if (cr == CUDA_SUCCESS) cr = b->cu->cuEventRecord(r->ev[0], b->stream);
  if (cr == CUDA_SUCCESS)
    cr = b->cu->cuLaunchCooperativeKernel(r->fn, r->blocks, 1, 1, 256, 1, 1, 0, b->stream,
                                          params);
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

typedef struct series {
  double *native_b, *native_0, *raw_b, *raw_0;
} series;

static int series_alloc(series *s, uint32_t n) {
  s->native_b = calloc(n, sizeof(double));
  s->native_0 = calloc(n, sizeof(double));
  s->raw_b = calloc(n, sizeof(double));
  s->raw_0 = calloc(n, sizeof(double));
  return s->native_b && s->native_0 && s->raw_b && s->raw_0 ? 0 : -1;
}

static void series_free(series *s) {
  free(s->native_b);
  free(s->native_0);
  free(s->raw_b);
  free(s->raw_0);
}

static void report(series *s, uint32_t runs, uint32_t barriers, const vc_native_stats *st,
                   uint32_t raw_blocks) {
  double nb = bench_median(s->native_b, runs), n0 = bench_median(s->native_0, runs);
  double rb = bench_median(s->raw_b, runs), r0 = bench_median(s->raw_0, runs);
  double native = (nb - n0) / barriers / 1e3, raw = (rb - r0) / barriers / 1e3;
  bench_note("native: %u blocks took part (%u program workgroups each at most), raw: %u blocks",
             st->participants, st->virtual_per_participant, raw_blocks);
  bench_figure("b.native_us_per_barrier", native, "us",
               "(median device time of native with B barriers - with 0) / B");
  bench_figure("b.raw_us_per_barrier", raw, "us",
               "(median device time of the raw kernel with B grid.sync() rounds - 0 rounds) / B");
  bench_figure("b.ratio", raw > 0 ? native / raw : 0, "", "native / raw per barrier (goal <= 1.2)");
  bench_figure("b.native_us_B", nb / 1e3, "us", "median device time of the native launch, B barriers");
  bench_figure("b.native_us_0", n0 / 1e3, "us", "median device time of the native launch, 0 barriers");
  bench_figure("b.raw_us_B", rb / 1e3, "us", "median device time of the raw launch, B rounds");
  bench_figure("b.raw_us_0", r0 / 1e3, "us", "median device time of the raw launch, 0 rounds");
  bench_note("goal b.ratio <= 1.2: %s", raw > 0 && native / raw <= 1.2 ? "met" : "MISSED");
}

static int rounds(bench *b, bench_prog *many, bench_prog *none, raw_sync *r, uint32_t barriers,
                  series *s, vc_native_stats *st, vc_error *err) {
  vc_native_stats st0;
  double warm;
  /* warm-up: compiles the native kernels, sizes the raw grid */
  int rc = native_run(many, &warm, st, err);
  if (rc == 0) rc = native_run(none, &warm, &st0, err);
  if (rc == 0) rc = raw_blocks(b, r, st->participants, err);
  if (rc == 0) rc = raw_run(b, r, barriers, &warm, err);
  for (uint32_t i = 0; rc == 0 && i < b->repeat; i++) {
    rc = native_run(many, &s->native_b[i], st, err);
    if (rc == 0) rc = native_run(none, &s->native_0[i], &st0, err);
    if (rc == 0) rc = raw_run(b, r, barriers, &s->raw_b[i], err);
    if (rc == 0) rc = raw_run(b, r, 0, &s->raw_0[i], err);
  }
  return rc;
}

int bench_barrier(bench *b, uint32_t barriers, vc_error *err) {
  char what[256];
  snprintf(what, sizeof what,
           "B = %u grid barriers of trivial work, grid %u x 256 threads; %u runs of each, "
           "interleaved, after one warm-up",
           barriers, BENCH_GRID, b->repeat);
  bench_section("b: native grid barrier against raw cooperative grid.sync()", what);
  bench_prog many, none;
  raw_sync r;
  series s;
  memset(&r, 0, sizeof r);
  memset(&s, 0, sizeof s);
  int rc = bench_chain_prog(barriers + 1, BENCH_GRID, &many, err);
  if (rc == 0) rc = bench_chain_prog(1, BENCH_GRID, &none, err);
  else memset(&none, 0, sizeof none);
  if (rc == 0) {
    bench_prog_exec(b, &many);
    bench_prog_exec(b, &none);
    rc = raw_open(b, b->include, &r, err);
  }
  if (rc == 0 && series_alloc(&s, b->repeat) != 0)
    rc = vc_fail(err, VC_ERR_NOMEM, "no memory for %u samples", b->repeat);
  vc_native_stats st;
  if (rc == 0) rc = rounds(b, &many, &none, &r, barriers, &s, &st, err);
  if (rc == 0) report(&s, b->repeat, barriers, &st, r.blocks);
  series_free(&s);
  raw_close(b, &r);
  bench_prog_free(&none);
  bench_prog_free(&many);
  return rc;
}
