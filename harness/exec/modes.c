#include "harness/exec/modes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/clock.h"
#include "harness/base/mutant.h"

void vc_exec_init(vc_exec *x, const vc_backend *be, vc_dev *dev, const vc_program *prog,
                  const vc_split *split) {
  memset(x, 0, sizeof *x);
  x->be = be;
  x->dev = dev;
  x->prog = prog;
  x->split = split;
  x->seg_kern = calloc(split->nsegs, sizeof *x->seg_kern);
  x->seg_compile_ns = calloc(split->nsegs, sizeof *x->seg_compile_ns);
  x->seg_cache_hit = calloc(split->nsegs ? split->nsegs : 1, sizeof *x->seg_cache_hit);
  if (!x->seg_kern || !x->seg_compile_ns || !x->seg_cache_hit) abort();
}

void vc_exec_free(vc_exec *x) {
  for (uint32_t k = 0; x->seg_kern && k < x->split->nsegs; k++)
    if (x->seg_kern[k]) x->be->free_kernel(x->dev, x->seg_kern[k]);
  if (x->native_kern) x->be->free_kernel(x->dev, x->native_kern);
  free(x->seg_kern);
  free(x->seg_compile_ns);
  free(x->seg_cache_hit);
  memset(x, 0, sizeof *x);
}

static int compile_segments(vc_exec *x, uint64_t *compile_ns, uint32_t *hits, vc_error *err) {
  *compile_ns = 0;
  *hits = 0;
  for (uint32_t k = 0; k < x->split->nsegs; k++) {
    if (!x->seg_kern[k]) {
      char label[64];
      snprintf(label, sizeof label, "segment %u", k);
      vc_kernel_desc d = {VC_KERNEL_SEGMENT, x->split->segs[k].prog, NULL, label};
      vc_compile_info ci = {0, NULL, false};
      int rc = x->be->compile(x->dev, &d, &x->seg_kern[k], &ci, err);
      free(ci.log);
      if (rc) return rc;
      x->seg_compile_ns[k] = ci.compile_ns;
      x->seg_cache_hit[k] = ci.cache_hit;
    }
    *compile_ns += x->seg_compile_ns[k];
    *hits += x->seg_cache_hit[k];
  }
  return 0;
}

static int compile_native(vc_exec *x, vc_error *err) {
  if (x->native_kern) return 0;
  vc_split_native_desc(x->split, &x->native_desc);
  vc_kernel_desc d = {VC_KERNEL_NATIVE, x->prog, &x->native_desc, "native"};
  vc_compile_info ci = {0, NULL, false};
  int rc = x->be->compile(x->dev, &d, &x->native_kern, &ci, err);
  free(ci.log);
  x->native_compile_ns = ci.compile_ns;
  x->native_cache_hit = ci.cache_hit;
  return rc;
}

/* Device buffers of the plan table, allocated on first use. */
typedef struct dev_bufs {
  vc_buf **b;
  uint32_t n;
} dev_bufs;

static int dev_buf(vc_exec *x, dev_bufs *d, uint32_t i, vc_error *err) {
  if (d->b[i]) return 0;
  const vc_buffer *pb = &x->split->buffers[i];
  int rc = x->be->alloc(x->dev, vc_buffer_bytes(pb), &d->b[i], err);
  if (rc)
    vc_fail_wrap(err, "allocating buffer %s (%llu bytes)", pb->name,
                 (unsigned long long)vc_buffer_bytes(pb));
  return rc;
}

/* The mode's device buffers, made before the device phase: every plan
   buffer (all), or those a segment binds (host-split). */
static int alloc_bound(vc_exec *x, dev_bufs *d, bool all, vc_error *err) {
  const vc_split *s = x->split;
  int rc = 0;
  if (all) {
    for (uint32_t i = 0; i < s->nbuffers && !rc; i++) rc = dev_buf(x, d, i, err);
    return rc;
  }
  for (uint32_t k = 0; k < s->nsegs && !rc; k++)
    for (uint32_t j = 0; j < s->segs[k].nbind && !rc; j++)
      rc = dev_buf(x, d, s->segs[k].bind[j], err);
  return rc;
}

/* The device phase (vc_device_gate): entered once the mode's memory is
   made, left before it is given back. Allocating, freeing and the host's
   copies into and out of the plugin's host memory stay outside: they use
   no engine of the device, and for a 256 MiB program they cost a third of
   a second that another program could use the device in. */
static int phase_enter(vc_exec *x, bool *in, vc_error *err) {
  if (x->gate.enter) {
    int rc = x->gate.enter(x->gate.ctx, err);
    if (rc) return rc;
  }
  *in = true;
  return 0;
}

static void phase_leave(vc_exec *x, bool *in) {
  if (*in && x->gate.leave) x->gate.leave(x->gate.ctx);
  *in = false;
}

static void free_dev_bufs(vc_exec *x, dev_bufs *d) {
  for (uint32_t i = 0; i < d->n; i++)
    if (d->b[i]) x->be->free_buffer(x->dev, d->b[i]);
  free(d->b);
}

static void add_seg_row(vc_mode_out *out, uint32_t pass, uint32_t seg, uint32_t cap) {
  if (out->nsegs == cap) return;
  vc_segment_timing *t = &out->segs[out->nsegs++];
  memset(t, 0, sizeof *t);
  t->pass = pass;
  t->segment = seg;
  t->launches = 1;
}

static uint32_t pass_limit(const vc_program *p) {
  return p->fixpoint.present ? p->fixpoint.max - (p->fixpoint.max > 1 && VC_MUTANT(FIXPOINT_ONE_PASS_SHORT)) : 1;
}

static void alloc_outputs(const vc_split *s, vc_mode_out *out) {
  out->noutputs = s->nuser;
  out->outputs = calloc(s->nuser ? s->nuser : 1, sizeof *out->outputs);
  if (!out->outputs) abort();
}

/* What both split modes do first: the figures of every segment kernel's
   compile (done by vc_exec_run before the device phase), and room for one
   timing row per segment of each pass. */
static int split_begin(vc_exec *x, vc_mode_out *out, uint32_t *maxp, uint32_t *cap, vc_error *err) {
  int rc = compile_segments(x, &out->compile_ns, &out->cache_hits, err);
  if (rc) return rc;
  *maxp = pass_limit(x->prog);
  *cap = x->split->nsegs * *maxp;
  out->segs = calloc(*cap, sizeof *out->segs);
  if (!out->segs) abort();
  return 0;
}

/* Host-split's copies of the plan buffers: memory the device copies to and
   from directly when the plugin offers it (host_alloc), else malloc. */
static bool backend_host(const vc_backend *be) { return be->host_alloc && be->host_free; }

static int host_copy_alloc(vc_exec *x, const vc_buffer *b, uint32_t **p, vc_error *err) {
  uint64_t bytes = vc_buffer_bytes(b);
  *p = NULL;
  if (!backend_host(x->be)) {
    *p = malloc(bytes);
    return *p ? 0 : vc_fail(err, VC_ERR_NOMEM, "no host memory for a copy of %s", b->name);
  }
  void *v = NULL;
  int rc = x->be->host_alloc(x->dev, bytes, &v, err);
  if (rc)
    return vc_fail_wrap(err, "host copy of %s (%llu bytes)", b->name, (unsigned long long)bytes);
  *p = v;
  return 0;
}

static void host_copy_free(vc_exec *x, uint32_t *p) {
  if (!p) return;
  if (backend_host(x->be)) x->be->host_free(x->dev, p);
  else free(p);
}

/* An output as the caller frees it (free()): malloc memory is handed over,
   the plugin's is copied out. */
static int host_copy_output(vc_exec *x, const vc_buffer *b, uint32_t **host, uint32_t **out,
                            vc_error *err) {
  if (!backend_host(x->be)) {
    *out = *host;
    *host = NULL;
    return 0;
  }
  *out = malloc(vc_buffer_bytes(b));
  if (!*out) return vc_fail(err, VC_ERR_NOMEM, "no host memory for output %s", b->name);
  memcpy(*out, *host, vc_buffer_bytes(b));
  return 0;
}

static int run_host_split(vc_exec *x, const uint32_t *const *inputs, vc_mode_out *out,
                          vc_error *err) {
  const vc_split *s = x->split;
  const vc_backend *be = x->be;
  const vc_fixpoint *fx = &x->prog->fixpoint;
  uint32_t maxp, cap;
  int rc = split_begin(x, out, &maxp, &cap, err);
  if (rc) return rc;
  uint32_t **host = calloc(s->nbuffers ? s->nbuffers : 1, sizeof *host);
  dev_bufs d = {calloc(s->nbuffers ? s->nbuffers : 1, sizeof(vc_buf *)), s->nbuffers};
  vc_buf **bound = calloc(s->nbuffers ? s->nbuffers : 1, sizeof *bound);
  if (!host || !d.b || !bound) abort();
  bool in = false;
  for (uint32_t i = 0; i < s->nbuffers; i++) {
    if ((rc = host_copy_alloc(x, &s->buffers[i], &host[i], err))) goto done;
    if (i < s->nuser)
      memcpy(host[i], inputs[i], vc_buffer_bytes(&s->buffers[i]));
    else
      memset(host[i], 0, vc_buffer_bytes(&s->buffers[i]));
  }
  if ((rc = alloc_bound(x, &d, false, err)) || (rc = phase_enter(x, &in, err))) goto done;
  uint64_t start = vc_now_ns();
  for (uint32_t pass = 0; pass < maxp; pass++) {
    if (fx->has_flag && !VC_MUTANT(FIXPOINT_FLAG_NOT_RESET)) host[fx->flag][0] = 0;
    for (uint32_t k = 0; k < s->nsegs; k++) {
      const vc_split_segment *g = &s->segs[k];
      uint64_t t0 = vc_now_ns();
      add_seg_row(out, pass, k, cap);
      vc_segment_timing *row = &out->segs[out->nsegs - 1];
      for (uint32_t j = 0; j < g->nbind; j++) {
        uint32_t i = g->bind[j];
        uint64_t bytes = vc_buffer_bytes(&s->buffers[i]);
        if (g->prog->buffers[j].access == VC_WRITE) {
          rc = be->zero(x->dev, d.b[i], err);
        } else {
          rc = be->upload(x->dev, d.b[i], host[i], bytes, err);
          row->bytes_up += bytes;
        }
        if (rc) goto done;
        bound[j] = d.b[i];
      }
      if ((rc = be->launch(x->dev, x->seg_kern[k], bound, g->nbind, err))) goto done;
      uint64_t dns = 0;
      uint32_t cnt = 0;
      if ((rc = be->finish(x->dev, &dns, 1, &cnt, err))) goto done;
      row->device_ns = cnt ? dns : 0;
      for (uint32_t j = 0; j < g->nbind; j++) {
        if (g->prog->buffers[j].access == VC_READ) continue;
        uint32_t i = g->bind[j];
        if (VC_MUTANT(HOST_SKIP_DOWNLOAD) && i >= s->nuser) { row->bytes_down += vc_buffer_bytes(&s->buffers[i]); continue; }
        uint64_t bytes = vc_buffer_bytes(&s->buffers[i]);
        if ((rc = be->download(x->dev, d.b[i], host[i], bytes, err))) goto done;
        row->bytes_down += bytes;
      }
      row->wall_ns = vc_now_ns() - t0;
      out->bytes_up += row->bytes_up;
      out->bytes_down += row->bytes_down;
      out->device_ns += row->device_ns;
      out->launches++;
    }
    out->passes++;
    if (fx->has_flag && host[fx->flag][0] == 0) break;
  }
  out->wall_ns = vc_now_ns() - start;
  phase_leave(x, &in);
  alloc_outputs(s, out);
  for (uint32_t i = 0; i < s->nuser; i++)
    if (vc_split_is_output(s, i) &&
        (rc = host_copy_output(x, &s->buffers[i], &host[i], &out->outputs[i], err)))
      goto done;
done:
  phase_leave(x, &in);
  for (uint32_t i = 0; i < s->nbuffers; i++) host_copy_free(x, host[i]);
  free(host);
  free(bound);
  free_dev_bufs(x, &d);
  return rc;
}

/* For planted faults (harness/base/mutant.h): does segment g bind plan
   buffer i; the how-manyth output buffer i is. */
static bool bound_by(const vc_split_segment *g, uint32_t i) {
  for (uint32_t j = 0; j < g->nbind; j++)
    if (g->bind[j] == i) return true;
  return false;
}

static uint32_t output_position(const vc_split *s, uint32_t i) {
  uint32_t k = 0;
  for (uint32_t j = 0; j < i; j++) k += vc_split_is_output(s, j) != 0;
  return k;
}

/* Uploads initial contents of user buffers, zeroes the rest (every plan
   buffer made already: alloc_bound). */
static int upload_all(vc_exec *x, dev_bufs *d, const uint32_t *const *inputs, vc_mode_out *out,
                      vc_error *err) {
  const vc_split *s = x->split;
  for (uint32_t i = 0; i < s->nbuffers; i++) {
    int rc;
    const vc_buffer *b = &s->buffers[i];
    if (i < s->nuser && b->access != VC_WRITE && !(VC_MUTANT(RESIDENT_ZERO_UNBOUND) && !bound_by(&s->segs[0], i))) {
      rc = x->be->upload(x->dev, d->b[i], inputs[i], vc_buffer_bytes(b), err);
      out->bytes_up += vc_buffer_bytes(b);
    } else {
      rc = x->be->zero(x->dev, d->b[i], err);
    }
    if (rc) return rc;
  }
  return 0;
}

static int download_outputs(vc_exec *x, dev_bufs *d, vc_mode_out *out, vc_error *err) {
  const vc_split *s = x->split;
  alloc_outputs(s, out);
  for (uint32_t i = 0; i < s->nuser; i++) {
    if (!vc_split_is_output(s, i)) continue;
    uint64_t bytes = vc_buffer_bytes(&s->buffers[i]);
    out->outputs[i] = malloc(bytes);
    if (!out->outputs[i])
      return vc_fail(err, VC_ERR_NOMEM, "no host memory for output %s", s->buffers[i].name);
    int rc = x->be->download(x->dev, d->b[VC_MUTANT(OUTPUTS_BY_POSITION) ? output_position(s, i) : i], out->outputs[i], bytes, err);
    if (rc) return rc;
    out->bytes_down += bytes;
  }
  return 0;
}

static int run_resident_split(vc_exec *x, const uint32_t *const *inputs, vc_mode_out *out,
                              vc_error *err) {
  const vc_split *s = x->split;
  const vc_backend *be = x->be;
  const vc_fixpoint *fx = &x->prog->fixpoint;
  uint32_t maxp, cap;
  int rc = split_begin(x, out, &maxp, &cap, err);
  if (rc) return rc;
  dev_bufs d = {calloc(s->nbuffers ? s->nbuffers : 1, sizeof(vc_buf *)), s->nbuffers};
  vc_buf **bound = calloc(s->nbuffers ? s->nbuffers : 1, sizeof *bound);
  uint64_t *times = calloc(cap, sizeof *times);
  if (!d.b || !bound || !times) abort();
  bool in = false;
  if ((rc = alloc_bound(x, &d, true, err)) || (rc = phase_enter(x, &in, err))) goto done;
  uint64_t start = vc_now_ns();
  if ((rc = upload_all(x, &d, inputs, out, err))) goto done;
  uint32_t pending = 0; /* rows launched since the last finish */
  for (uint32_t pass = 0; pass < maxp; pass++) {
    if (fx->has_flag && !VC_MUTANT(FIXPOINT_FLAG_NOT_RESET)) {
      static const uint32_t zero = 0;
      if ((rc = be->upload(x->dev, d.b[fx->flag], &zero, 4, err))) goto done;
      out->bytes_up += 4;
    }
    for (uint32_t k = 0; k < s->nsegs; k++) {
      const vc_split_segment *g = &s->segs[k];
      uint64_t t0 = vc_now_ns();
      for (uint32_t j = 0; j < g->nbind; j++) bound[j] = d.b[g->bind[j]];
      if ((rc = be->launch(x->dev, x->seg_kern[k], bound, g->nbind, err))) goto done;
      add_seg_row(out, pass, k, cap);
      out->segs[out->nsegs - 1].wall_ns = vc_now_ns() - t0; /* enqueue time only */
      out->launches++;
      pending++;
    }
    out->passes++;
    bool last = pass + 1 == maxp;
    if (fx->has_flag || last) {
      uint32_t cnt = 0;
      if ((rc = be->finish(x->dev, times, pending, &cnt, err))) goto done;
      for (uint32_t i = 0; i < cnt && i < pending; i++) {
        out->segs[out->nsegs - pending + i].device_ns = times[i];
        out->device_ns += times[i];
      }
      pending = 0;
    }
    if (fx->has_flag) {
      uint32_t flag = 0;
      if ((rc = be->download(x->dev, d.b[fx->flag], &flag, 4, err))) goto done;
      out->bytes_down += 4;
      if (flag == 0) break;
    }
  }
  rc = download_outputs(x, &d, out, err);
  out->wall_ns = vc_now_ns() - start;
done:
  phase_leave(x, &in);
  free(times);
  free(bound);
  free_dev_bufs(x, &d);
  return rc;
}

static int run_native(vc_exec *x, const uint32_t *const *inputs, vc_mode_out *out, vc_error *err) {
  const vc_split *s = x->split;
  int rc = compile_native(x, err);
  out->compile_ns = x->native_compile_ns;
  out->cache_hits = x->native_cache_hit;
  if (rc) return rc;
  dev_bufs d = {calloc(s->nbuffers ? s->nbuffers : 1, sizeof(vc_buf *)), s->nbuffers};
  if (!d.b) abort();
  bool in = false;
  if ((rc = alloc_bound(x, &d, true, err)) || (rc = phase_enter(x, &in, err))) goto done;
  uint64_t start = vc_now_ns();
  if ((rc = upload_all(x, &d, inputs, out, err))) goto done;
  if ((rc = x->be->launch(x->dev, x->native_kern, d.b, s->nbuffers, err))) goto done;
  out->launches = 1;
  uint64_t dns = 0;
  uint32_t cnt = 0;
  if ((rc = x->be->finish(x->dev, &dns, 1, &cnt, err))) goto done;
  out->device_ns = cnt ? dns : 0;
  if ((rc = x->be->native_stats(x->dev, x->native_kern, &out->native, err))) goto done;
  out->passes = out->native.passes;
  rc = download_outputs(x, &d, out, err);
  out->wall_ns = vc_now_ns() - start;
done:
  phase_leave(x, &in);
  free_dev_bufs(x, &d);
  return rc;
}

/* Every pass starts with the flag at 0 and a pass that changes something
   sets it, so the flag as the run left it says whether the last pass
   changed nothing: the same in every mode. */
static void note_converged(const vc_exec *x, vc_mode_out *out) {
  const vc_fixpoint *fx = &x->prog->fixpoint;
  out->converged = fx->present && fx->has_flag && fx->flag < out->noutputs &&
                   out->outputs[fx->flag] && out->outputs[fx->flag][0] == 0;
}

/* A mode's kernels, compiled before its device phase so that compiles of
   programs in other workers overlap with it. */
static int compile_mode(vc_exec *x, vc_mode m, vc_mode_out *out, vc_error *err) {
  if (m != VC_MODE_NATIVE) return compile_segments(x, &out->compile_ns, &out->cache_hits, err);
  int rc = compile_native(x, err);
  out->compile_ns = x->native_compile_ns;
  out->cache_hits = x->native_cache_hit;
  return rc;
}

int vc_exec_run(vc_exec *x, vc_mode m, const uint32_t *const *inputs, vc_mode_out *out,
                vc_error *err) {
  memset(out, 0, sizeof *out);
  if (m >= VC_MODE_COUNT) return vc_fail(err, VC_ERR_USAGE, "unknown mode %d", (int)m);
  int rc = compile_mode(x, m, out, err);
  if (rc) return rc;
  switch (m) {
  case VC_MODE_HOST_SPLIT:
    rc = run_host_split(x, inputs, out, err);
    break;
  case VC_MODE_RESIDENT_SPLIT:
    rc = run_resident_split(x, inputs, out, err);
    break;
  case VC_MODE_NATIVE:
    rc = run_native(x, inputs, out, err);
    break;
  default:
    rc = vc_fail(err, VC_ERR_USAGE, "unknown mode %d", (int)m);
    break;
  }
  if (!rc) note_converged(x, out);
  return rc;
}

void vc_mode_note_convergence(const vc_program *p, const vc_mode_out *mo, vc_result *r) {
  r->converged = mo->converged;
  if (!p->fixpoint.present || !p->fixpoint.has_flag || mo->converged) return;
  size_t used = strlen(r->reason);
  snprintf(r->reason + used, sizeof r->reason - used,
           "%sthe fixpoint did not converge in %u pass%s (its max)", used ? "; " : "", mo->passes,
           mo->passes == 1 ? "" : "es");
}

void vc_mode_out_free(vc_mode_out *o) {
  for (uint32_t i = 0; o->outputs && i < o->noutputs; i++) free(o->outputs[i]);
  free(o->outputs);
  free(o->segs);
  memset(o, 0, sizeof *o);
}

vc_traffic vc_plan_traffic(const vc_split *s, vc_mode m, uint32_t passes) {
  vc_traffic t = {0, 0, 0};
  switch (m) {
  case VC_MODE_HOST_SPLIT:
    for (uint32_t k = 0; k < s->nsegs; k++) {
      t.up += s->segs[k].up_bytes * passes;
      t.down += s->segs[k].down_bytes * passes;
    }
    t.launches = s->nsegs * passes;
    break;
  case VC_MODE_RESIDENT_SPLIT:
    t.up = s->resident_up_once + s->flag_bytes_per_pass * passes;
    t.down = s->resident_down_once + s->flag_bytes_per_pass * passes;
    t.launches = s->nsegs * passes;
    break;
  default:
    t.up = s->resident_up_once;
    t.down = s->resident_down_once;
    t.launches = 1;
    break;
  }
  return t;
}
