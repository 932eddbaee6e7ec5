/* vc_oracle_run: passes, segments, workgroups and their phases.
 *
 * One workgroup runs at a time. In each phase every invocation still in the
 * segment runs until it waits at a workgroup barrier or finishes; then the
 * barrier is released (each waiter continues after the barrier it waits at)
 * and the next phase begins, until all have finished. Registers exist for the
 * invocations of the current workgroup only; the few that carry values across
 * a grid barrier are saved per invocation (o->persist) at the end of a
 * segment and restored at the start of the next. */
#include <stdlib.h>
#include <string.h>

#include "harness/base/clock.h"
#include "harness/model/inputs.h"
#include "oracles/issues.h"
#include "oracles/machine.h"
#include "oracles/order.h"

/* Shadow records are forgotten when the phase counter passes this at a
   segment start, so that it never wraps inside a segment in practice. */
#define PHASE_RESTART 0x80000000u

static void *alloc_array(vc_machine *m, uint64_t n, size_t size, const char *what) {
  void *p = NULL;
  if (n <= SIZE_MAX / size / 2) p = calloc((size_t)n + 1, size);
  if (!p && !m->failed)
    m->failed = vc_fail(m->err, VC_ERR_NOMEM, "oracle: %s: cannot allocate %llu bytes for %s",
                        m->o->name, (unsigned long long)(n * size), what);
  return p;
}

static void machine_free(vc_machine *m) {
  vc_shadows_free(m);
  free(m->slot);
  free(m->shared);
  free(m->regs);
  free(m->inv);
  free(m->iters);
  free(m->lid);
  free(m->persist);
}

static int machine_init(vc_machine *m, const vc_oracle *o, uint32_t *const *buffers,
                        const vc_oracle_opts *opts, vc_oracle_scratch *scratch,
                        vc_oracle_report *rep, vc_error *err) {
  memset(m, 0, sizeof *m);
  m->phase = scratch->phase; /* above every phase of the pool's records */
  m->o = o;
  m->rep = rep;
  m->err = err;
  m->checks = !opts->no_checks;
  m->deadline_ns = opts->deadline_ns;
  uint64_t wg_size = (uint64_t)o->workgroup[0] * o->workgroup[1] * o->workgroup[2];
  m->nwg = (uint64_t)o->grid[0] * o->grid[1] * o->grid[2];
  if (wg_size == 0 || m->nwg == 0 || wg_size > VC_MAX_WORKGROUP_INVOCATIONS ||
      m->nwg * wg_size > UINT32_MAX)
    return vc_fail(err, VC_ERR_LIMIT,
                   "oracle: %s: %llu workgroups of %llu invocations (1 to 2^32-1 in all, "
                   "at most %u per workgroup)",
                   o->name, (unsigned long long)m->nwg, (unsigned long long)wg_size,
                   VC_MAX_WORKGROUP_INVOCATIONS);
  m->wg_size = (uint32_t)wg_size;
  uint64_t invocations = m->nwg * wg_size;
  m->slot = alloc_array(m, o->nmem, sizeof *m->slot, "memory slots");
  m->shared = alloc_array(m, o->shared_words, sizeof *m->shared, "workgroup memory");
  m->regs = alloc_array(m, (uint64_t)m->wg_size * o->xnregs, sizeof *m->regs, "registers");
  m->inv = alloc_array(m, m->wg_size, sizeof *m->inv, "invocation states");
  m->iters = alloc_array(m, m->wg_size, sizeof *m->iters, "loop counters");
  m->lid = alloc_array(m, (uint64_t)m->wg_size * 3, sizeof *m->lid, "local ids");
  if (o->nsegs > 1 && o->npersist)
    m->persist = alloc_array(m, invocations * o->npersist, sizeof *m->persist,
                             "values live across grid barriers");
  if (!m->failed && m->checks) m->failed = vc_shadows_init(m, &scratch->pool, err);
  if (m->failed) return m->failed;
  for (uint32_t i = 0; i < o->nmem; i++) {
    const vc_oracle_mem *mem = &o->mem[i];
    m->slot[i].count = mem->count;
    m->slot[i].words = vc_type_words(mem->type);
    m->slot[i].data = mem->space == VC_SPACE_SHARED ? m->shared + mem->offset : buffers[i];
    m->slot[i].watch = m->checks && mem->tracked;
    m->slot[i].shared = mem->space == VC_SPACE_SHARED;
  }
  for (uint32_t l = 0; l < m->wg_size; l++) {
    m->lid[l * 3] = l % o->workgroup[0];
    m->lid[l * 3 + 1] = l / o->workgroup[0] % o->workgroup[1];
    m->lid[l * 3 + 2] = l / (o->workgroup[0] * o->workgroup[1]);
  }
  return 0;
}

static int next_phase(vc_machine *m) {
  if (m->phase == UINT32_MAX)
    return m->failed = vc_fail(m->err, VC_ERR_LIMIT,
                               "oracle: %s: segment %u needs more than 2^31 workgroup phases",
                               m->o->name, m->seg);
  m->phase++;
  return 0;
}

/* Fresh registers (zero) and the values carried into this segment, which
   are its first registers (bytecode.h, xcode). */
static void start_invocations(vc_machine *m) {
  const vc_oracle *o = m->o;
  uint32_t n = o->seg_nregs[m->seg];
  for (uint32_t l = 0; l < m->wg_size; l++) {
    m->inv[l].pc = o->seg_pc[m->seg];
    m->inv[l].status = VC_INV_RUN;
    m->iters[l] = 0;
    uint64_t *r = m->regs + (size_t)l * o->xnregs;
    for (uint32_t k = 0; k < n; k++) r[k] = 0; /* a few words: no call to memset */
    if (m->seg == 0 || !m->persist) continue;
    const uint64_t *saved = m->persist + (size_t)(m->wg_base + l) * o->npersist;
    for (uint32_t k = 0; k < o->npersist; k++) r[k] = saved[k];
  }
}

static void save_invocations(vc_machine *m) {
  const vc_oracle *o = m->o;
  if (!m->persist || m->seg + 1 >= o->nsegs) return;
  for (uint32_t l = 0; l < m->wg_size; l++) {
    const uint64_t *r = m->regs + (size_t)l * o->xnregs;
    uint64_t *saved = m->persist + (size_t)(m->wg_base + l) * o->npersist;
    for (uint32_t k = 0; k < o->npersist; k++) saved[k] = r[k];
  }
}

static void poison_shared(vc_machine *m) {
  const vc_oracle *o = m->o;
  for (uint32_t s = 0; s < o->nshared; s++) {
    if (!o->seg_shared[(size_t)m->seg * o->nshared + s]) continue;
    const vc_oracle_mem *mem = &o->mem[o->nbuffers + s];
    uint64_t words = (uint64_t)mem->count * vc_type_words(mem->type);
    for (uint64_t k = 0; k < words; k++) m->shared[mem->offset + k] = VC_ORACLE_POISON;
  }
}

/* After a phase: true when every invocation finished. Otherwise releases the
   waiters, noting a barrier that not all of them reached. */
static bool release_barrier(vc_machine *m) {
  uint32_t waiter = UINT32_MAX, other = UINT32_MAX;
  for (uint32_t l = 0; l < m->wg_size && waiter == UINT32_MAX; l++)
    if (m->inv[l].status == VC_INV_WAIT) waiter = l;
  if (waiter == UINT32_MAX) return true;
  for (uint32_t l = 0; l < m->wg_size && other == UINT32_MAX; l++)
    if (m->inv[l].status != VC_INV_WAIT || m->inv[l].pc != m->inv[waiter].pc) other = l;
  if (other != UINT32_MAX) vc_note_barrier(m, waiter, other);
  for (uint32_t l = 0; l < m->wg_size; l++)
    if (m->inv[l].status == VC_INV_WAIT) {
      m->inv[l].status = VC_INV_RUN;
      m->inv[l].pc++;
    }
  return false;
}

static uint64_t mix(uint64_t seed, uint64_t a, uint64_t b) {
  uint64_t s = seed ^ a * 0x9E3779B97F4A7C15ull;
  s = vc_splitmix64_next(&s) ^ b;
  return vc_splitmix64_next(&s);
}

/* A run past its deadline fails with VC_ERR_TIMEOUT; the caller's time limit
   (check --timeout) then holds without killing the process. */
bool vc_machine_past_deadline(vc_machine *m) {
  if (!m->deadline_ns || vc_now_ns() <= m->deadline_ns) return false;
  if (!m->failed)
    m->failed = vc_fail(m->err, VC_ERR_TIMEOUT, "oracle: %s: not finished within the time limit",
                        m->o->name);
  return true;
}

static void run_workgroup(vc_machine *m, const vc_oracle_opts *opts, uint32_t wg) {
  const vc_oracle *o = m->o;
  m->wg = wg;
  m->group[0] = wg % o->grid[0];
  m->group[1] = wg / o->grid[0] % o->grid[1];
  m->group[2] = wg / (o->grid[0] * o->grid[1]);
  m->wg_base = wg * m->wg_size;
  poison_shared(m);
  start_invocations(m);
  if (next_phase(m)) return;
  m->wg_first = m->phase;
  for (;;) {
    vc_perm perm;
    vc_perm_init(&perm, opts->order, m->wg_size, mix(opts->seed, 1, m->phase));
    vc_exec_phase(m, &perm);
    if (m->failed || release_barrier(m) || next_phase(m) || vc_machine_past_deadline(m)) break;
  }
  save_invocations(m);
}

static void run_segment(vc_machine *m, const vc_oracle_opts *opts, uint32_t pass, uint32_t seg) {
  m->seg = seg;
  if (m->checks) vc_shadows_recycle(m);
  if (m->phase >= PHASE_RESTART) {
    if (m->checks) vc_shadows_clear(m);
    m->phase = 0;
  }
  m->seg_first = m->phase + 1;
  vc_perm perm;
  vc_perm_init(&perm, opts->order, m->nwg, mix(opts->seed, 2, (uint64_t)pass << 32 | seg));
  for (uint64_t k = 0; k < m->nwg && !m->failed && !vc_machine_past_deadline(m); k++)
    run_workgroup(m, opts, opts->order == VC_ORDER_FORWARD ? (uint32_t)k : (uint32_t)vc_perm_at(&perm, k));
}

static void run_passes(vc_machine *m, uint32_t *const *buffers, const vc_oracle_opts *opts) {
  const vc_fixpoint *fp = &m->o->fixpoint;
  uint32_t max = fp->present ? fp->max : 1;
  uint32_t *flag = fp->present && fp->has_flag ? buffers[fp->flag] : NULL;
  for (uint32_t pass = 0; pass < max && !m->failed; pass++) {
    m->pass = pass;
    if (flag) flag[0] = 0;
    for (uint32_t seg = 0; seg < m->o->nsegs && !m->failed; seg++) run_segment(m, opts, pass, seg);
    m->rep->passes = pass + 1;
    if (flag && flag[0] == 0) {
      m->rep->converged = true;
      break;
    }
  }
}

uint64_t vc_oracle_run_bytes(const vc_oracle *o, bool checks) {
  uint64_t wg = (uint64_t)o->workgroup[0] * o->workgroup[1] * o->workgroup[2];
  uint64_t inv = wg * o->grid[0] * o->grid[1] * o->grid[2];
  uint64_t b = o->nmem * sizeof(vc_slot) + o->shared_words * 4u + wg * o->xnregs * 8u +
               wg * (sizeof(vc_inv) + 12u);
  if (o->nsegs > 1) b += inv * o->npersist * 8u;
  if (checks)
    for (uint32_t i = 0; i < o->nmem; i++) b += (uint64_t)o->mem[i].count * sizeof(vc_shadow);
  return b;
}

vc_oracle_scratch *vc_oracle_scratch_new(void) { return calloc(1, sizeof(vc_oracle_scratch)); }

void vc_oracle_scratch_free(vc_oracle_scratch *s) {
  if (!s) return;
  vc_shadow_pool_free(&s->pool);
  free(s);
}

int vc_oracle_run_with(vc_oracle *o, uint32_t *const *buffers, const vc_oracle_opts *opts,
                       vc_oracle_scratch *scratch, vc_oracle_report *report, vc_error *err) {
  static const vc_oracle_opts defaults = {VC_ORDER_FORWARD, 0, false, 0, 0};
  vc_oracle_report rep_scratch;
  if (!opts) opts = &defaults;
  if (!report) report = &rep_scratch;
  memset(report, 0, sizeof *report);
  if (!o || (o->nbuffers && !buffers))
    return vc_fail(err, VC_ERR_USAGE, "oracle: run without a program or buffers");
  for (uint32_t i = 0; i < o->nbuffers; i++)
    if (!buffers[i])
      return vc_fail(err, VC_ERR_USAGE, "oracle: %s: no memory for buffer %s", o->name,
                     o->mem[i].name);
  if (o->fixpoint.present && o->fixpoint.has_flag && o->mem[o->fixpoint.flag].count == 0)
    return vc_fail(err, VC_ERR_USAGE, "oracle: %s: empty fixpoint flag buffer", o->name);
  vc_oracle_scratch own;
  memset(&own, 0, sizeof own);
  vc_oracle_scratch *sc = scratch ? scratch : &own;
  vc_machine m;
  int rc = machine_init(&m, o, buffers, opts, sc, report, err);
  if (!rc) {
    run_passes(&m, buffers, opts);
    rc = m.failed;
  }
  report->segments = o->nsegs;
  report->ops = m.ops;
  sc->phase = m.phase;
  machine_free(&m);
  if (!scratch) vc_shadow_pool_free(&own.pool);
  return rc;
}

int vc_oracle_run(vc_oracle *o, uint32_t *const *buffers, const vc_oracle_opts *opts,
                  vc_oracle_report *report, vc_error *err) {
  return vc_oracle_run_with(o, buffers, opts, NULL, report, err);
}
