/* a: what resident-split costs per segment over a raw loop of
 * cuLaunchKernel launching the same kernels (the plugin's own PTX through
 * compile_offline, the same grid) on one stream, then one synchronise.
 * The harness runs on the bench's device (its options: launch=graph,
 * timing=stamps by default) and on more devices opened with the other
 * launch path, with graph-update=instantiate, with timing=launch (an event
 * node per launch) and with the other stamp memory, so that each is
 * measured side by side. Runs of all interleave, so that clock and cache
 * drift hit each. Last, what the stamps can resolve: the smallest step of
 * %globaltimer one thread sees. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/bench/bench.h"
#include "backends/cuda/cuda_internal.h"
#include "backends/cuda/cuda_nvrtc.h"
#include "harness/base/clock.h"

/* Timing in a raw run: none, one event after each launch (the first
   launch starts at an event of its own), or a pair around each. */
enum { RAW_PLAIN, RAW_CHAINED, RAW_PAIRED, RAW_KINDS };

typedef struct raw_chain {
  uint32_t n;         /* segments */
  CUmodule *mods;
  CUfunction *fns;
  CUdeviceptr *bufs;  /* per plan buffer */
  CUdeviceptr *ptrs;  /* per segment: its bound buffers' addresses, then 0 (no stamp) */
  void **params;      /* pointing into ptrs */
  uint32_t *first;    /* segment k's first entry in ptrs and params */
  CUevent *events;    /* 2 n */
  uint32_t nevents;
} raw_chain;

typedef struct raw_time {
  double wall_ns, enqueue_ns, device_ns;
} raw_time;

static void raw_free(bench *b, raw_chain *r) {
  b->cu->cuCtxSetCurrent(b->ctx);
  b->cu->cuStreamSynchronize(b->stream);
  for (uint32_t i = 0; r->events && i < r->nevents; i++) b->cu->cuEventDestroy(r->events[i]);
  for (uint32_t k = 0; r->mods && k < r->n; k++)
    if (r->mods[k]) b->cu->cuModuleUnload(r->mods[k]);
  free(r->mods);
  free(r->fns);
  free(r->ptrs);
  free(r->params);
  free(r->first);
  free(r->events);
  r->n = 0;
}

static void raw_free_bufs(bench *b, raw_chain *r, uint32_t nbufs) {
  for (uint32_t i = 0; r->bufs && i < nbufs; i++)
    if (r->bufs[i]) b->cu->cuMemFree(r->bufs[i]);
  free(r->bufs);
}

/* Segment k's module from the PTX compile_offline gives for the device. */
static int raw_segment(bench *b, const vc_split *s, uint32_t k, raw_chain *r, vc_error *err) {
  char label[32];
  snprintf(label, sizeof label, "segment %u", k);
  vc_kernel_desc d = {VC_KERNEL_SEGMENT, s->segs[k].prog, NULL, label};
  void *ptx = NULL;
  size_t size = 0;
  int rc = b->be->compile_offline(&d, b->target, &ptx, &size, NULL, err);
  if (rc == 0) rc = bench_raw_module(b, ptx, NULL, &r->mods[k], &r->fns[k], err);
  free(ptx);
  return rc;
}

static int raw_setup(bench *b, const vc_split *s, raw_chain *r, vc_error *err) {
  memset(r, 0, sizeof *r);
  r->n = s->nsegs;
  uint32_t nptrs = 0;
  for (uint32_t k = 0; k < s->nsegs; k++) nptrs += s->segs[k].nbind + 1;
  r->mods = calloc(r->n, sizeof *r->mods);
  r->fns = calloc(r->n, sizeof *r->fns);
  r->bufs = calloc(s->nbuffers, sizeof *r->bufs);
  r->ptrs = calloc(nptrs ? nptrs : 1, sizeof *r->ptrs);
  r->params = calloc(nptrs ? nptrs : 1, sizeof *r->params);
  r->first = calloc(r->n, sizeof *r->first);
  r->events = calloc(2 * r->n, sizeof *r->events);
  if (!r->mods || !r->fns || !r->bufs || !r->ptrs || !r->params || !r->first || !r->events)
    return vc_fail(err, VC_ERR_NOMEM, "raw baseline: no memory for %u segments", r->n);
  CUresult cr = b->cu->cuCtxSetCurrent(b->ctx);
  for (uint32_t i = 0; cr == CUDA_SUCCESS && i < s->nbuffers; i++)
    cr = b->cu->cuMemAlloc(&r->bufs[i], vc_buffer_bytes(&s->buffers[i]));
  for (uint32_t i = 0; cr == CUDA_SUCCESS && i < 2 * r->n; i++, r->nevents++)
    cr = b->cu->cuEventCreate(&r->events[i], CU_EVENT_DEFAULT);
  if (cr != CUDA_SUCCESS) return bench_raw_fail(b, err, cr, "cuMemAlloc or cuEventCreate");
  for (uint32_t k = 0, at = 0; k < r->n; k++) {
    int rc = raw_segment(b, s, k, r, err);
    if (rc != 0) return rc;
    r->first[k] = at;
    for (uint32_t j = 0; j < s->segs[k].nbind; j++, at++) {
      r->ptrs[at] = r->bufs[s->segs[k].bind[j]];
      r->params[at] = &r->ptrs[at];
    }
    /* the kernel's stamp slot (its last parameter): none, the kernel skips it */
    r->ptrs[at] = 0;
    r->params[at] = &r->ptrs[at];
    at++;
  }
  return 0;
}

/* Zeroes every buffer (the chain's inputs are zeros), outside the time. */
static int raw_reset(bench *b, const vc_split *s, raw_chain *r, vc_error *err) {
  CUresult cr = CUDA_SUCCESS;
  for (uint32_t i = 0; cr == CUDA_SUCCESS && i < s->nbuffers; i++)
    cr = b->cu->cuMemsetD32Async(r->bufs[i], 0, vc_buffer_bytes(&s->buffers[i]) / 4, b->stream);
  if (cr == CUDA_SUCCESS) cr = b->cu->cuStreamSynchronize(b->stream);
  return cr == CUDA_SUCCESS ? 0 : bench_raw_fail(b, err, cr, "cuMemsetD32Async");
}

static CUresult record(bench *b, raw_chain *r, uint32_t i) {
  return b->cu->cuEventRecord(r->events[i], b->stream);
}

/* The event after launch k: chained, k + 1; paired, 2k + 1 (2k before
   it). The last launch ends at event 2n - 1 either way. */
static uint32_t end_event(int kind, uint32_t k, uint32_t n) {
  if (k + 1 == n) return 2 * n - 1;
  return kind == RAW_PAIRED ? 2 * k + 1 : k + 1;
}

/* One run of every segment; the device time is the first event to the
   last (timed kinds only). */
static int raw_run(bench *b, const vc_split *s, raw_chain *r, int kind, raw_time *t,
                   vc_error *err) {
  int rc = raw_reset(b, s, r, err);
  if (rc != 0) return rc;
  const uint32_t *g = s->segs[0].prog->grid, *wg = s->segs[0].prog->workgroup;
  uint64_t t0 = vc_now_ns();
  CUresult cr = kind == RAW_PLAIN ? CUDA_SUCCESS : record(b, r, 0);
  for (uint32_t k = 0; cr == CUDA_SUCCESS && k < r->n; k++) {
    if (kind == RAW_PAIRED && k > 0) cr = record(b, r, 2 * k);
    if (cr == CUDA_SUCCESS)
      cr = b->cu->cuLaunchKernel(r->fns[k], g[0], g[1], g[2], wg[0], wg[1], wg[2], 0, b->stream,
                                 &r->params[r->first[k]], NULL);
    if (cr == CUDA_SUCCESS && kind != RAW_PLAIN) cr = record(b, r, end_event(kind, k, r->n));
  }
  uint64_t t1 = vc_now_ns();
  if (cr == CUDA_SUCCESS) cr = b->cu->cuStreamSynchronize(b->stream);
  uint64_t t2 = vc_now_ns();
  if (cr != CUDA_SUCCESS) return bench_raw_fail(b, err, cr, "a launch loop");
  t->wall_ns = (double)(t2 - t0);
  t->enqueue_ns = (double)(t1 - t0);
  t->device_ns = 0;
  if (kind != RAW_PLAIN) {
    float ms = 0;
    cr = b->cu->cuEventElapsedTime(&ms, r->events[0], r->events[2 * r->n - 1]);
    if (cr != CUDA_SUCCESS) return bench_raw_fail(b, err, cr, "cuEventElapsedTime");
    t->device_ns = (double)ms * 1e6;
  }
  return 0;
}

static int raw_check(bench *b, raw_chain *r, uint32_t segments, vc_error *err) {
  static uint32_t words[1024];
  int rc = bench_raw_read(b, r->bufs[0], words, sizeof words, err);
  if (rc != 0) return rc;
  const char *why = bench_chain_check(words, segments);
  return why ? vc_fail(err, VC_ERR_INTERNAL, "raw baseline, %u segments: %s", segments, why) : 0;
}

/* The harness side: vc_exec_run in resident-split, timed by the driver. */
typedef struct harness_time {
  double wall_ns, enqueue_ns, device_ns;
} harness_time;

static int harness_run(bench_prog *bp, harness_time *t, vc_error *err) {
  vc_mode_out mo;
  int rc = vc_exec_run(&bp->exec, VC_MODE_RESIDENT_SPLIT, (const uint32_t *const *)bp->inputs,
                       &mo, err);
  if (rc == 0) {
    const char *why = bench_chain_check(mo.outputs[0], bp->split->nsegs);
    if (why) rc = vc_fail(err, VC_ERR_INTERNAL, "resident-split, %u segments: %s",
                          bp->split->nsegs, why);
  }
  if (rc == 0 && mo.nsegs != bp->split->nsegs)
    rc = vc_fail(err, VC_ERR_INTERNAL, "resident-split recorded %u segments of %u", mo.nsegs,
                 bp->split->nsegs);
  t->wall_ns = (double)mo.wall_ns;
  t->enqueue_ns = t->device_ns = 0;
  for (uint32_t i = 0; i < mo.nsegs; i++) {
    t->enqueue_ns += (double)mo.segs[i].wall_ns;
    t->device_ns += (double)mo.segs[i].device_ns;
  }
  vc_mode_out_free(&mo);
  return rc;
}

/* The harness's other sides: the other launch path, a graph instantiated
   for every batch, event nodes instead of stamps, the other stamp memory. */
enum { ALT_OTHER, ALT_INSTANTIATE, ALT_EVENTS, ALT_STAMP_MEMORY, ALTS };

/* Both sides of one program: the mode driver and the raw loop; the
   alternatives of the many-segment program only. */
typedef struct side {
  bench_prog bp;
  raw_chain raw;
  vc_dev *alt_dev[ALTS];
  bench_prog alt[ALTS];
} side;

static int side_open(bench *b, uint32_t segments, side *sd, vc_error *err) {
  memset(sd, 0, sizeof *sd);
  int rc = bench_chain_prog(segments, BENCH_GRID, &sd->bp, err);
  if (rc != 0) return rc;
  bench_prog_exec(b, &sd->bp);
  return raw_setup(b, sd->bp.split, &sd->raw, err);
}

/* The stamp memory the alternative uses: the one the bench's device does
   not. */
static const char *other_stamp_memory(const vc_cuda_options *o) {
  return o->stamp_memory == VC_CUDA_STAMP_DEVICE ? "host" : "device";
}

/* The bench's options, then the alternative's keys (a key given twice
   keeps the last value). */
static void alt_options(const bench *b, int alt, char *out, size_t n) {
  vc_cuda_options o;
  vc_error e;
  if (vc_cuda_parse_options(b->options, &o, &e) != 0) vc_cuda_parse_options(NULL, &o, &e);
  char memory[64];
  snprintf(memory, sizeof memory, "launch=graph,timing=stamps,stamp-memory=%s",
           other_stamp_memory(&o));
  const char *key = alt == ALT_OTHER         ? (o.launch_stream ? "launch=graph" : "launch=stream")
                    : alt == ALT_INSTANTIATE ? "launch=graph,graph-update=instantiate"
                    : alt == ALT_EVENTS      ? "launch=graph,timing=launch"
                                             : memory;
  snprintf(out, n, "%s%s%s", b->options ? b->options : "", b->options && *b->options ? "," : "",
           key);
}

static int alt_open(bench *b, uint32_t segments, side *sd, vc_error *err) {
  for (int a = 0; a < ALTS; a++) {
    char opts[1024];
    alt_options(b, a, opts, sizeof opts);
    int rc = b->be->open(b->index, opts, &sd->alt_dev[a], err);
    if (rc != 0) return vc_fail_wrap(err, "opening the device with %s", opts);
    rc = bench_chain_prog(segments, BENCH_GRID, &sd->alt[a], err);
    if (rc != 0) return rc;
    vc_exec_init(&sd->alt[a].exec, b->be, sd->alt_dev[a], sd->alt[a].prog, sd->alt[a].split);
  }
  return 0;
}

static void side_close(bench *b, side *sd) {
  if (sd->bp.split) {
    raw_free(b, &sd->raw);
    raw_free_bufs(b, &sd->raw, sd->bp.split->nbuffers);
  }
  bench_prog_free(&sd->bp);
  for (int a = 0; a < ALTS; a++) {
    bench_prog_free(&sd->alt[a]);
    if (sd->alt_dev[a]) b->be->close(sd->alt_dev[a]);
  }
}

/* Per-run samples, in ns. */
typedef struct samples {
  double *h_wall, *h_enq, *h_dev, *h1_wall;
  double *r_wall[RAW_KINDS], *r_enq, *r_dev, *r1_wall;
  double *alt_wall[ALTS], *alt_dev[ALTS];
} samples;

#define SAMPLE_COLUMNS (8 + RAW_KINDS + 2 * ALTS)

/* Every column of s, for allocating and freeing them alike. */
static void columns(samples *s, double ***out) {
  size_t k = 0;
  out[k++] = &s->h_wall;
  out[k++] = &s->h_enq;
  out[k++] = &s->h_dev;
  out[k++] = &s->h1_wall;
  for (int i = 0; i < RAW_KINDS; i++) out[k++] = &s->r_wall[i];
  out[k++] = &s->r_enq;
  out[k++] = &s->r_dev;
  out[k++] = &s->r1_wall;
  for (int a = 0; a < ALTS; a++) {
    out[k++] = &s->alt_wall[a];
    out[k++] = &s->alt_dev[a];
  }
  out[k++] = NULL;
}

static int samples_alloc(samples *s, uint32_t n) {
  memset(s, 0, sizeof *s);
  double **all[SAMPLE_COLUMNS + 1];
  columns(s, all);
  int ok = 1;
  for (size_t i = 0; all[i]; i++) ok &= (*all[i] = calloc(n ? n : 1, sizeof(double))) != NULL;
  return ok ? 0 : -1;
}

static void samples_free(samples *s) {
  double **all[SAMPLE_COLUMNS + 1];
  columns(s, all);
  for (size_t i = 0; all[i]; i++) free(*all[i]);
}

/* Run i of every series, interleaved. */
static int one_round(bench *b, side *many, side *one, samples *s, uint32_t i, vc_error *err) {
  harness_time h, h1, alt[ALTS];
  raw_time r[RAW_KINDS], r1;
  int rc = harness_run(&many->bp, &h, err);
  for (int a = 0; rc == 0 && a < ALTS; a++) rc = harness_run(&many->alt[a], &alt[a], err);
  for (int k = 0; rc == 0 && k < RAW_KINDS; k++)
    rc = raw_run(b, many->bp.split, &many->raw, k, &r[k], err);
  if (rc == 0) rc = raw_check(b, &many->raw, many->raw.n, err);
  if (rc == 0) rc = harness_run(&one->bp, &h1, err);
  if (rc == 0) rc = raw_run(b, one->bp.split, &one->raw, RAW_PLAIN, &r1, err);
  if (rc != 0) return rc;
  s->h_wall[i] = h.wall_ns;
  s->h_enq[i] = h.enqueue_ns;
  s->h_dev[i] = h.device_ns;
  s->h1_wall[i] = h1.wall_ns;
  for (int k = 0; k < RAW_KINDS; k++) s->r_wall[k][i] = r[k].wall_ns;
  s->r_enq[i] = r[RAW_PLAIN].enqueue_ns;
  s->r_dev[i] = r[RAW_CHAINED].device_ns;
  s->r1_wall[i] = r1.wall_ns;
  for (int a = 0; a < ALTS; a++) {
    s->alt_wall[a][i] = alt[a].wall_ns;
    s->alt_dev[a][i] = alt[a].device_ns;
  }
  return 0;
}

/* Median of runs 1..runs (run 0 warmed up). */
static double med(double *v, uint32_t runs) { return bench_median(v + 1, runs); }

static void report(const samples *s, uint32_t runs, uint32_t n, const vc_cuda_options *o) {
  bool stream = o->launch_stream;
  double us = 1e-3 / n, marginal = 1e-3 / (n > 1 ? n - 1 : 1);
  double hw = med(s->h_wall, runs), rw = med(s->r_wall[RAW_PLAIN], runs);
  double h1 = med(s->h1_wall, runs), r1 = med(s->r1_wall, runs);
  double hm = (hw - h1) * marginal, rm = (rw - r1) * marginal;
  const char *mine = stream ? "launch=stream" : "launch=graph", *other =
      stream ? "launch=graph" : "launch=stream";
  char def[256];
  snprintf(def, sizeof def,
           "median wall of vc_exec_run(resident-split) / segments (upload, launches, finish, "
           "download), %s, timing=%s",
           mine,
           o->timing == VC_CUDA_TIMING_STAMPS   ? "stamps"
           : o->timing == VC_CUDA_TIMING_LAUNCH ? "launch"
                                                : "none");
  bench_figure("a.harness_us_per_segment", hw * us, "us", def);
  snprintf(def, sizeof def, "the same with %s (a second device, same run)", other);
  bench_figure(stream ? "a.graph_us_per_segment" : "a.stream_us_per_segment",
               med(s->alt_wall[ALT_OTHER], runs) * us, "us", def);
  bench_figure("a.instantiate_us_per_segment", med(s->alt_wall[ALT_INSTANTIATE], runs) * us,
               "us", "the same with launch=graph,graph-update=instantiate (a new graph per run)");
  bench_figure("a.raw_us_per_segment", rw * us, "us",
               "median wall of cuLaunchKernel of every segment on one stream + "
               "cuStreamSynchronize / segments");
  bench_figure("a.ratio", hw / rw, "", "harness / raw per segment (goal <= 1.1)");
  snprintf(def, sizeof def, "harness with %s / raw per segment", other);
  bench_figure("a.other_ratio", med(s->alt_wall[ALT_OTHER], runs) / rw, "", def);
  bench_figure("a.events_us_per_segment", med(s->alt_wall[ALT_EVENTS], runs) * us, "us",
               "the same with launch=graph,timing=launch: an event node after every launch "
               "instead of stamps (a second device, same run)");
  bench_figure("a.events_ratio", med(s->alt_wall[ALT_EVENTS], runs) / rw, "",
               "harness with timing=launch / raw per segment");
  snprintf(def, sizeof def,
           "the same with launch=graph,timing=stamps,stamp-memory=%s (a second device, same run)",
           other_stamp_memory(o));
  bench_figure("a.stamp_alt_us_per_segment", med(s->alt_wall[ALT_STAMP_MEMORY], runs) * us, "us",
               def);
  snprintf(def, sizeof def, "harness with stamp-memory=%s / raw per segment",
           other_stamp_memory(o));
  bench_figure("a.stamp_alt_ratio", med(s->alt_wall[ALT_STAMP_MEMORY], runs) / rw, "", def);
  bench_figure("a.harness_marginal_us", hm, "us",
               "(harness wall of this program - of a 1-segment program) / (segments - 1)");
  bench_figure("a.raw_marginal_us", rm, "us", "the same for the raw loop");
  bench_figure("a.marginal_ratio", rm > 0 ? hm / rm : 0, "",
               "harness / raw per added segment: the fixed copies left out");
  bench_figure("a.raw_chained_us_per_segment", med(s->r_wall[RAW_CHAINED], runs) * us,
               "us", "raw loop with one cuEventRecord after each launch (the plugin's timing)");
  bench_figure("a.raw_paired_us_per_segment", med(s->r_wall[RAW_PAIRED], runs) * us,
               "us", "raw loop with a cuEventRecord before and after each launch");
  bench_figure("a.harness_enqueue_us", med(s->h_enq, runs) * us, "us",
               "host time of the plugin's launch call per segment (resident-split rows)");
  bench_figure("a.raw_enqueue_us", med(s->r_enq, runs) * us, "us",
               "host time of cuLaunchKernel per segment in the raw loop");
  bench_figure("a.harness_device_us", med(s->h_dev, runs) * us, "us",
               "device time per segment the plugin recorded (stamps: from one launch's start "
               "to the next; events: between the event nodes)");
  snprintf(def, sizeof def, "the same with %s", other);
  bench_figure("a.harness_other_device_us", med(s->alt_dev[ALT_OTHER], runs) * us, "us", def);
  bench_figure("a.events_device_us", med(s->alt_dev[ALT_EVENTS], runs) * us, "us",
               "device time per segment with timing=launch (between event nodes)");
  bench_figure("a.raw_device_us", med(s->r_dev, runs) * us, "us",
               "device time per segment, first to last event of the chained raw loop");
  bench_goal("a.ratio", hw / rw, true, 1.1);
}

/* One thread reading %globaltimer in a tight loop: the smallest step it
   sees between two reads, over the first 64 steps (out[1]), and how many
   steps it saw (out[0]) in 4M reads. */
static const char resolution_source[] =
    "extern \"C\" __global__ void vc_resolution(unsigned long long *out) {\n"
    "  unsigned long long prev, best = 0, steps = 0;\n"
    "  asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(prev));\n"
    "  for (unsigned int i = 0; i < (1u << 22) && steps < 64u; i++) {\n"
    "    unsigned long long t;\n"
    "    asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t));\n"
    "    if (t != prev) {\n"
    "      if (best == 0 || t - prev < best) best = t - prev;\n"
    "      prev = t;\n"
    "      steps++;\n"
    "    }\n"
    "  }\n"
    "  out[0] = steps;\n"
    "  out[1] = best;\n"
    "}\n";

static int stamp_resolution(bench *b, vc_error *err) {
  char *ptx = NULL, *log = NULL;
  CUmodule mod = NULL;
  CUfunction fn = NULL;
  CUdeviceptr out = 0;
  uint64_t got[2] = {0, 0};
  int rc = vc_nvrtc_compile(resolution_source, b->arch, NULL, "vc_resolution", &ptx, &log, err);
  free(log);
  if (rc == 0) rc = bench_raw_module(b, ptx, "vc_resolution", &mod, &fn, err);
  free(ptx);
  CUresult cr = CUDA_SUCCESS;
  if (rc == 0) {
    cr = b->cu->cuMemAlloc(&out, sizeof got);
    if (cr == CUDA_SUCCESS) cr = b->cu->cuMemsetD8Async(out, 0, sizeof got, b->stream);
    void *params[] = {&out};
    if (cr == CUDA_SUCCESS)
      cr = b->cu->cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, b->stream, params, NULL);
    if (cr != CUDA_SUCCESS) rc = bench_raw_fail(b, err, cr, "the %globaltimer resolution kernel");
  }
  if (rc == 0) rc = bench_raw_read(b, out, got, sizeof got, err);
  if (out) b->cu->cuMemFree(out);
  if (mod) b->cu->cuModuleUnload(mod);
  if (rc != 0) return rc;
  /* a device that did not run the kernel (a fake driver) leaves no such pair */
  bool whole = got[0] > 0 && got[0] <= 64 && got[1] > 0;
  bench_figure("a.stamp_resolution_ns", whole ? (double)got[1] : 0, "ns",
               "smallest nonzero step between consecutive %globaltimer reads of one thread in a "
               "tight loop (over its first 64 steps): what a stamp resolves");
  if (!whole)
    bench_note("no resolution measured: %llu steps of %%globaltimer seen in 4M reads, smallest "
               "%llu ns",
               (unsigned long long)got[0], (unsigned long long)got[1]);
  return 0;
}

int bench_overhead(bench *b, uint32_t segments, vc_error *err) {
  char what[256];
  snprintf(what, sizeof what,
           "%u segments of trivial work, grid %u x 256 threads; %u runs of each, interleaved, "
           "after one warm-up",
           segments, BENCH_GRID, b->repeat);
  bench_section("a: resident-split per-segment overhead against raw cuLaunchKernel", what);
  side many, one;
  samples s;
  memset(&many, 0, sizeof many);
  memset(&one, 0, sizeof one);
  memset(&s, 0, sizeof s);
  int rc = side_open(b, segments, &many, err);
  if (rc == 0) rc = alt_open(b, segments, &many, err);
  if (rc == 0) rc = side_open(b, 1, &one, err);
  if (rc == 0 && samples_alloc(&s, b->repeat + 1) != 0)
    rc = vc_fail(err, VC_ERR_NOMEM, "no memory for %u samples", b->repeat);
  /* run 0 warms up (and compiles the plugin's kernels); it is not counted */
  for (uint32_t i = 0; rc == 0 && i <= b->repeat; i++) rc = one_round(b, &many, &one, &s, i, err);
  vc_cuda_options o;
  if (vc_cuda_parse_options(b->options, &o, err) != 0) vc_cuda_parse_options(NULL, &o, err);
  if (rc == 0) report(&s, b->repeat, segments, &o);
  /* what the graph path did on each device (the plugin's own counters:
     the bench is built with the plugin's struct, cuda_internal.h) */
  vc_dev *devs[1 + ALTS] = {b->dev, many.alt_dev[ALT_OTHER], many.alt_dev[ALT_INSTANTIATE],
                            many.alt_dev[ALT_EVENTS], many.alt_dev[ALT_STAMP_MEMORY]};
  static const char *const names[1 + ALTS] = {"the bench's device", "the other", "instantiate",
                                              "events", "the other stamp memory"};
  for (int d = 0; rc == 0 && d < 1 + ALTS; d++) {
    const vc_cuda_graph_stats *g = &devs[d]->gstats;
    bench_note("%s (launch=%s): %llu batches, %llu sent as graphs, %llu instantiated, %llu nodes "
               "set in place, %llu launches without a time (a stamp missing or out of order)",
               names[d], devs[d]->use_graph ? "graph" : "stream", (unsigned long long)g->batches,
               (unsigned long long)g->graphs, (unsigned long long)g->instantiated,
               (unsigned long long)g->node_updates, (unsigned long long)devs[d]->stamps.untimed);
  }
  if (rc == 0) rc = stamp_resolution(b, err);
  samples_free(&s);
  side_close(b, &one);
  side_close(b, &many);
  return rc;
}
