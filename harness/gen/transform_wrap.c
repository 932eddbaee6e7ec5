/* wrap-blocks: a run of statements in a (block ...). A let or var at the top
 * of the run would go out of scope at the block's end, so a run holds none
 * unless it reaches the end of its list (where the scope ends anyway); an if
 * branch is wrapped whole. */
#include "harness/gen/transform_internal.h"

static bool declares(const vc_node *n) { return n->kind == VC_S_LET || n->kind == VC_S_VAR; }

uint32_t vc_xf_wrap_blocks(vc_program *p, vc_rng *r) {
  uint32_t changes = 0, want = 1 + vc_rng_below(r, 4);
  for (uint32_t t = 0; t < 12 && changes < want; t++) {
    vc_xf_lists l;
    vc_xf_lists_collect(p, &l);
    vc_xf_list *L = &l.items[vc_rng_below(r, l.n)];
    vc_node *list = L->node;
    uint32_t n = list->nkids - L->first;
    if (n) {
      uint32_t i = L->first + vc_rng_below(r, n);
      uint32_t j = i + 1 + vc_rng_below(r, list->nkids - i); /* [i, j) */
      bool ok = j == list->nkids;
      for (uint32_t k = i; !ok && k < j; k++)
        if (declares(list->kids[k])) break;
        else if (k + 1 == j) ok = true;
      if (ok) {
        vc_node *b = vc_xf_block(p);
        for (uint32_t k = i; k < j; k++) vc_node_append(p, b, list->kids[k]);
        for (uint32_t k = i; k < j; k++) vc_xf_remove(list, i);
        vc_xf_insert(p, list, i, b);
        changes++;
      } else if (list->kids[i]->kind == VC_S_IF) {
        vc_node *f = list->kids[i];
        uint32_t br = 1 + vc_rng_below(r, f->nkids - 1);
        vc_node *b = vc_xf_block(p);
        vc_node_append(p, b, f->kids[br]);
        f->kids[br] = b;
        changes++;
      }
    }
    vc_xf_lists_free(&l);
  }
  return changes;
}
