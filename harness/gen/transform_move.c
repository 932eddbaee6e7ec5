/* move-barrier: a statement beside a top grid barrier moves to its other
 * side. Legal for a let, var or set whose value reads only symbols, builtins
 * and `read` buffers (nothing another invocation writes), when the segment
 * before the barrier holds no (return): a return there would skip the
 * statement on one side of the barrier and not on the other. */
#include <stdlib.h>

#include "harness/gen/transform_internal.h"

/* The top-level statements of entry in order, blocks flattened. */
typedef struct flat {
  const vc_node **n;
  uint32_t len, cap;
} flat;

static void flatten(const vc_node *list, flat *f) {
  for (uint32_t i = 0; i < list->nkids; i++) {
    const vc_node *k = list->kids[i];
    if (k->kind == VC_S_BLOCK) {
      flatten(k, f);
      continue;
    }
    if (f->len == f->cap) {
      f->cap = f->cap ? 2 * f->cap : 32;
      f->n = realloc(f->n, f->cap * sizeof *f->n);
      if (!f->n) abort();
    }
    f->n[f->len++] = k;
  }
}

/* Does the segment that ends at barrier b hold a return? */
static bool returns_before(const flat *f, const vc_node *b) {
  uint32_t at = 0;
  while (at < f->len && f->n[at] != b) at++;
  for (uint32_t i = at; i-- > 0;) {
    if (f->n[i]->kind == VC_S_BARRIER && f->n[i]->op == VC_BARRIER_GRID) break;
    if (vc_xf_contains(f->n[i], VC_S_RETURN)) return true;
  }
  return false;
}

static bool movable(const vc_program *p, const vc_node *s) {
  if (s->kind != VC_S_LET && s->kind != VC_S_VAR && s->kind != VC_S_SET) return false;
  vc_xf_effects e;
  vc_xf_effects_of(p, s, &e);
  bool ok = !e.reads_writable;
  vc_xf_effects_free(&e);
  return ok;
}

uint32_t vc_xf_move_barrier(vc_program *p, vc_rng *r) {
  vc_xf_lists l;
  vc_xf_lists_collect(p, &l);
  flat f = {0};
  flatten(p->entry, &f);
  uint32_t changes = 0;
  for (uint32_t i = 0; i < l.n; i++) {
    if (!l.items[i].top) continue;
    vc_node *list = l.items[i].node;
    for (uint32_t j = 0; j < list->nkids; j++) {
      vc_node *b = list->kids[j];
      if (b->kind != VC_S_BARRIER || b->op != VC_BARRIER_GRID || vc_rng_below(r, 3) == 0)
        continue;
      if (returns_before(&f, b)) continue;
      bool back = vc_rng_below(r, 2); /* move the statement after b to before it */
      if (back && j + 1 < list->nkids && movable(p, list->kids[j + 1])) {
        list->kids[j] = list->kids[j + 1];
        list->kids[j + 1] = b;
        changes++;
      } else if (!back && j > 0 && movable(p, list->kids[j - 1])) {
        list->kids[j] = list->kids[j - 1];
        list->kids[j - 1] = b;
        changes++;
        j++;
      }
    }
  }
  free(f.n);
  vc_xf_lists_free(&l);
  return changes;
}
