/* c: on a program with much live state carried through many segments
 * (corpus/size/large_accumulator.vyre: 256 MiB through 101 segments),
 * the bytes host-split moves against what the split plan predicts, and
 * host-split's wall time against resident-split's. Host-split runs on the
 * device as opened (host copies in the plugin's pinned memory, by default)
 * and, alternating with it, on a second device of the same GPU opened with
 * host-memory=malloc (pageable host copies, through the staging buffer):
 * both copy rates side by side. Every run's outputs must match the
 * program's golden digest when it has one, and the modes must agree. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/bench/bench.h"
#include "harness/model/digest.h"

#define HOST_RUNS 2u
#define RESIDENT_RUNS 5u
#define GIB (1024.0 * 1024.0 * 1024.0)
#define MIB (1024.0 * 1024.0)

typedef struct mode_figures {
  double wall_ns, device_ns;
  uint64_t up, down;
  vc_traffic plan;
  char digest[65];
} mode_figures;

static const char *golden(const vc_program *p) {
  for (uint32_t i = 0; i < p->nexpects; i++)
    if (p->expects[i].kind == VC_EXPECT_DIGEST) return p->expects[i].text;
  return NULL;
}

/* One run; its traffic must be the plan's to the byte, its outputs the
   golden digest's. */
static int run(bench_prog *bp, vc_exec *x, vc_mode m, mode_figures *f, vc_error *err) {
  vc_mode_out mo;
  int rc = vc_exec_run(x, m, (const uint32_t *const *)bp->inputs, &mo, err);
  if (rc != 0) {
    vc_mode_out_free(&mo);
    return vc_fail_wrap(err, "%s", vc_mode_name(m));
  }
  vc_traffic plan = vc_plan_traffic(bp->split, m, mo.passes);
  f->plan = plan;
  vc_output_digest(bp->prog, (const uint32_t *const *)mo.outputs, f->digest);
  const char *want = golden(bp->prog);
  if (mo.bytes_up != plan.up || mo.bytes_down != plan.down || mo.launches != plan.launches)
    rc = vc_fail(err, VC_ERR_INTERNAL,
                 "%s moved %llu bytes up and %llu down in %u launches; the plan says %llu, %llu "
                 "and %u",
                 vc_mode_name(m), (unsigned long long)mo.bytes_up,
                 (unsigned long long)mo.bytes_down, mo.launches, (unsigned long long)plan.up,
                 (unsigned long long)plan.down, plan.launches);
  else if (want && strcmp(want, f->digest) != 0)
    rc = vc_fail(err, VC_ERR_INTERNAL, "%s: output digest %s, the program expects %s",
                 vc_mode_name(m), f->digest, want);
  f->wall_ns = (double)mo.wall_ns;
  f->device_ns = (double)mo.device_ns;
  f->up = mo.bytes_up;
  f->down = mo.bytes_down;
  vc_mode_out_free(&mo);
  return rc;
}

/* runs of one mode: the median wall and device time, the traffic (the
   same every run: the plan's) and the digest (checked the same). With a
   second executor (x2, f2), each run is followed by one there. */
static int runs_of(bench_prog *bp, vc_exec *x2, vc_mode m, uint32_t n, mode_figures *out,
                   mode_figures *out2, vc_error *err) {
  double wall[RESIDENT_RUNS], device[RESIDENT_RUNS], wall2[RESIDENT_RUNS], device2[RESIDENT_RUNS];
  int rc = 0;
  for (uint32_t i = 0; rc == 0 && i < n; i++) {
    rc = run(bp, &bp->exec, m, out, err);
    wall[i] = out->wall_ns;
    device[i] = out->device_ns;
    if (rc == 0 && x2) {
      rc = run(bp, x2, m, out2, err);
      if (rc != 0) vc_fail_wrap(err, "with host-memory=malloc");
      wall2[i] = out2->wall_ns;
      device2[i] = out2->device_ns;
    }
  }
  out->wall_ns = bench_median(wall, n);
  out->device_ns = bench_median(device, n);
  if (x2) {
    out2->wall_ns = bench_median(wall2, n);
    out2->device_ns = bench_median(device2, n);
  }
  return rc;
}

static uint64_t live_bytes(const vc_split *s) {
  uint64_t n = 0;
  for (uint32_t i = 0; i < s->nbuffers; i++) n += vc_buffer_bytes(&s->buffers[i]);
  return n;
}

static void report(const mode_figures *h, const mode_figures *m, const mode_figures *r) {
  bench_note("host-split moved %llu bytes up and %llu down a run, resident-split %llu and %llu: "
             "as the plan predicts",
             (unsigned long long)h->up, (unsigned long long)h->down, (unsigned long long)r->up,
             (unsigned long long)r->down);
  bench_figure("c.host_up_gib", (double)h->up / GIB, "GiB", "bytes host-split uploaded, a run");
  bench_figure("c.plan_up_gib", (double)h->plan.up / GIB, "GiB", "what the split plan predicts");
  bench_figure("c.host_down_gib", (double)h->down / GIB, "GiB",
               "bytes host-split downloaded, a run");
  bench_figure("c.plan_down_gib", (double)h->plan.down / GIB, "GiB",
               "what the split plan predicts");
  bench_figure("c.resident_up_mib", (double)r->up / MIB, "MiB", "bytes resident-split uploaded");
  bench_figure("c.resident_down_mib", (double)r->down / MIB, "MiB",
               "bytes resident-split downloaded");
  bench_figure("c.host_wall_s", h->wall_ns / 1e9, "s", "median wall of host-split, a run");
  bench_figure("c.resident_wall_s", r->wall_ns / 1e9, "s", "median wall of resident-split");
  bench_figure("c.wall_ratio", h->wall_ns / r->wall_ns, "", "host-split / resident-split wall");
  bench_figure("c.host_wall_malloc_s", m->wall_ns / 1e9, "s",
               "median wall of host-split with host-memory=malloc");
  bench_figure("c.host_copy_gbps", (double)(h->up + h->down) / h->wall_ns, "GB/s",
               "host-split bytes moved both ways / its wall (copies and launches), host copies "
               "as the device was opened (default: the plugin's pinned memory)");
  bench_figure("c.host_copy_gbps_malloc", (double)(m->up + m->down) / m->wall_ns, "GB/s",
               "the same with host-memory=malloc (pageable host copies, through staging)");
  bench_figure("c.host_copy_ratio", m->wall_ns / h->wall_ns, "",
               "host-split wall with host-memory=malloc / as opened");
  bench_goal("c.host_copy_gbps", (double)(h->up + h->down) / h->wall_ns, false, 40);
  bench_figure("c.host_device_ms", h->device_ns / 1e6, "ms",
               "host-split device time, summed over its launches");
  bench_figure("c.resident_device_ms", r->device_ns / 1e6, "ms",
               "resident-split device time, summed over its launches");
}

int bench_traffic(bench *b, const char *path, vc_error *err) {
  bench_prog bp;
  int rc = bench_file_prog(path, &bp, err);
  if (rc != 0) {
    bench_prog_free(&bp);
    return rc;
  }
  char what[512];
  snprintf(what, sizeof what,
           "%s: %.1f MiB of live state (plan buffers), %u segments, %llu invocations; "
           "host-split %u runs, resident-split %u, after one resident-split run that compiles",
           path, (double)live_bytes(bp.split) / MIB, bp.split->nsegs,
           (unsigned long long)vc_program_invocations(bp.prog), HOST_RUNS, RESIDENT_RUNS);
  bench_section("c: host-split traffic against the plan, host-split against resident-split", what);
  bench_prog_exec(b, &bp);
  /* the same GPU again, its host copies in malloc memory (the key given
     last wins) */
  char opts[1024];
  snprintf(opts, sizeof opts, "%s%shost-memory=malloc", b->options ? b->options : "",
           b->options && *b->options ? "," : "");
  vc_dev *dev2 = NULL;
  vc_exec x2;
  memset(&x2, 0, sizeof x2);
  rc = b->be->open(b->index, opts, &dev2, err);
  if (rc != 0) vc_fail_wrap(err, "a second device with %s", opts);
  else vc_exec_init(&x2, b->be, dev2, bp.prog, bp.split);
  mode_figures h, m, r;
  /* warm-up: compiles the segment kernels both modes share, on both devices */
  if (rc == 0) rc = run(&bp, &bp.exec, VC_MODE_RESIDENT_SPLIT, &r, err);
  if (rc == 0) rc = run(&bp, &x2, VC_MODE_RESIDENT_SPLIT, &m, err);
  if (rc == 0) rc = runs_of(&bp, &x2, VC_MODE_HOST_SPLIT, HOST_RUNS, &h, &m, err);
  if (rc == 0) rc = runs_of(&bp, NULL, VC_MODE_RESIDENT_SPLIT, RESIDENT_RUNS, &r, NULL, err);
  if (rc == 0 && strcmp(h.digest, r.digest) != 0)
    rc = vc_fail(err, VC_ERR_INTERNAL, "host-split's outputs (digest %s) differ from "
                 "resident-split's (%s)", h.digest, r.digest);
  if (rc == 0 && strcmp(m.digest, h.digest) != 0)
    rc = vc_fail(err, VC_ERR_INTERNAL, "host-split's outputs with host-memory=malloc (digest %s) "
                 "differ from those as opened (%s)", m.digest, h.digest);
  if (rc == 0) {
    if (!golden(bp.prog)) bench_note("%s has no golden digest: the modes agree, no more", path);
    report(&h, &m, &r);
  }
  if (x2.be) vc_exec_free(&x2);
  if (dev2) b->be->close(dev2);
  bench_prog_free(&bp);
  return rc;
}
