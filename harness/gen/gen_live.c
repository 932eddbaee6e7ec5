/* The generator's dead-output analysis (docs/fuzzing.md, "Live programs"):
 * on the parsed program, does a computed value reach an output, does a
 * value that a barrier orders reach one, is every phase of shared memory
 * written read after a workgroup barrier, and does any f32 whose bits the
 * semantics leaves open (an arithmetic NaN) reach an integer through
 * bitcast. Static and conservative: control dependence is ignored, a symbol
 * holds an ordered value once any assignment gives it one. */
#include <stdlib.h>
#include <string.h>

#include "harness/gen/gen.h"

enum { F_COMPUTED = 1, F_ORDERED = 2 };
#define NONE UINT32_MAX

typedef struct lw {
  const vc_program *p;
  uint8_t *taint;          /* per symbol: holds an ordered value */
  uint32_t *buf_store_seg; /* per buffer: segment of the first store seen, NONE */
  uint32_t *sh_epoch;      /* per shared array: epoch of its last store in this segment */
  bool *sh_pending;        /* written in this segment and not yet read after a barrier */
  bool changed;
  uint32_t seg, epoch;
  vc_gen_live *out;
} lw;

/* The generator's bookkeeping buffers are not outputs that a program computes:
   the fixpoint's flag and pass counter, and fq (quotients compared within ulp). */
static bool is_output(const lw *w, uint32_t b) {
  const vc_buffer *x = &w->p->buffers[b];
  if (x->access == VC_READ || x->role != VC_ROLE_USER) return false;
  if (w->p->fixpoint.has_flag && w->p->fixpoint.flag == b) return false;
  return strcmp(x->name, "pc") != 0 && strcmp(x->name, "fq") != 0;
}

bool vc_gen_nan_guarded(const vc_node *n) {
  if (n->kind == VC_E_LIT) return true; /* a literal's bits are its own */
  return n->kind == VC_E_BINARY && (n->op == VC_MAX || n->op == VC_MIN) && n->nkids == 2 &&
         n->kids[1]->kind == VC_E_LIT && (uint32_t)n->kids[1]->bits == 0x7fc00000u;
}

static void mark_store(lw *w, const vc_node *n) {
  if (n->space == VC_SPACE_SHARED) {
    w->sh_epoch[n->ref] = w->epoch;
    w->sh_pending[n->ref] = true;
  } else if (w->buf_store_seg[n->ref] == NONE) {
    w->buf_store_seg[n->ref] = w->seg;
  }
}

/* Is the memory n reads stored where a barrier orders it before n? */
static bool ordered_mem(lw *w, const vc_node *n) {
  if (n->space == VC_SPACE_SHARED) {
    bool o = w->sh_epoch[n->ref] != NONE && w->sh_epoch[n->ref] < w->epoch;
    if (o) w->sh_pending[n->ref] = false;
    return o;
  }
  return w->buf_store_seg[n->ref] != NONE && w->buf_store_seg[n->ref] < w->seg;
}

static unsigned expr(lw *w, const vc_node *n) {
  unsigned f = 0;
  switch (n->kind) {
  case VC_E_LIT: return 0;
  case VC_E_NAME: return F_COMPUTED | (w->taint[n->ref] ? F_ORDERED : 0);
  case VC_E_BUILTIN: return F_COMPUTED;
  case VC_E_LOAD:
  case VC_E_ATOMIC:
    for (uint32_t i = 0; i < n->nkids; i++) f |= expr(w, n->kids[i]);
    f |= F_COMPUTED | (ordered_mem(w, n) ? F_ORDERED : 0);
    if (n->kind == VC_E_ATOMIC && n->op != VC_AT_LOAD) mark_store(w, n);
    return f;
  case VC_E_BITCAST:
    if (vc_type_is_int(n->type) && n->kids[0]->type == VC_F32 && !vc_gen_nan_guarded(n->kids[0]))
      w->out->open_bitcasts++;
    break;
  default: break;
  }
  for (uint32_t i = 0; i < n->nkids; i++) f |= expr(w, n->kids[i]);
  return f;
}

static void end_segment(lw *w) {
  for (uint32_t i = 0; i < w->p->nshared; i++) {
    if (w->sh_pending[i]) w->out->shared_unread++;
    w->sh_pending[i] = false;
    w->sh_epoch[i] = NONE;
  }
}

static void stmt(lw *w, const vc_node *n) {
  unsigned f = 0;
  switch (n->kind) {
  case VC_S_LET:
  case VC_S_VAR:
  case VC_S_SET:
    if ((expr(w, n->kids[0]) & F_ORDERED) && !w->taint[n->ref]) {
      w->taint[n->ref] = 1;
      w->changed = true;
    }
    return;
  case VC_S_STORE:
  case VC_S_ATOMIC: {
    unsigned val = 0;
    for (uint32_t i = 0; i < n->nkids; i++) {
      unsigned k = expr(w, n->kids[i]);
      f |= k;
      if (i + 1 == n->nkids) val = k;
    }
    /* an atomic's effect depends on the old value: computed, and ordered
       when that value was stored before a barrier */
    bool atomic = n->kind == VC_S_ATOMIC && n->op != VC_AT_STORE;
    if (atomic && ordered_mem(w, n)) f |= F_ORDERED;
    if (n->space == VC_SPACE_BUFFER && is_output(w, n->ref)) {
      if (atomic || (val & F_COMPUTED))
        w->out->output_computed = true;
      if (f & F_ORDERED) w->out->ordered_flow = true;
    }
    mark_store(w, n);
    return;
  }
  case VC_S_LOOP:
    if (((expr(w, n->kids[0]) | expr(w, n->kids[1])) & F_ORDERED) && !w->taint[n->ref]) {
      w->taint[n->ref] = 1;
      w->changed = true;
    }
    for (uint32_t i = 2; i < n->nkids; i++) stmt(w, n->kids[i]);
    return;
  case VC_S_IF:
  case VC_S_WHILE:
    expr(w, n->kids[0]);
    for (uint32_t i = 1; i < n->nkids; i++) stmt(w, n->kids[i]);
    return;
  case VC_S_BLOCK:
    for (uint32_t i = 0; i < n->nkids; i++) stmt(w, n->kids[i]);
    return;
  case VC_S_BARRIER:
    w->out->barriers++;
    if (n->op == VC_BARRIER_GRID) {
      end_segment(w);
      w->seg++;
      w->epoch = 0;
    } else {
      w->epoch++;
    }
    return;
  default: return;
  }
}

int vc_gen_liveness(const vc_program *p, vc_gen_live *out) {
  lw w;
  memset(&w, 0, sizeof w);
  w.p = p;
  w.taint = calloc(p->nsyms + 1u, 1);
  w.buf_store_seg = malloc((p->nbuffers + 1u) * sizeof *w.buf_store_seg);
  w.sh_epoch = malloc((p->nshared + 1u) * sizeof *w.sh_epoch);
  w.sh_pending = calloc(p->nshared + 1u, sizeof *w.sh_pending);
  int rc = 0;
  if (!w.taint || !w.buf_store_seg || !w.sh_epoch || !w.sh_pending) {
    rc = VC_ERR_INTERNAL;
    goto done;
  }
  /* taint only grows: at most one walk per symbol, then one that changes nothing */
  do {
    memset(out, 0, sizeof *out);
    w.out = out;
    w.changed = false;
    w.seg = w.epoch = 0;
    for (uint32_t i = 0; i < p->nbuffers; i++) w.buf_store_seg[i] = NONE;
    for (uint32_t i = 0; i < p->nshared; i++) {
      w.sh_epoch[i] = NONE;
      w.sh_pending[i] = false;
    }
    stmt(&w, p->entry);
    end_segment(&w);
  } while (w.changed);
  out->live = out->output_computed && out->ordered_flow;
done:
  free(w.taint);
  free(w.buf_store_seg);
  free(w.sh_epoch);
  free(w.sh_pending);
  return rc;
}
