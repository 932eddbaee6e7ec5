/* reorder: swaps adjacent statements that are independent: neither holds a
 * barrier, return, break or continue, neither writes a symbol or memory
 * object the other reads or writes (a declaration writes its symbol, an
 * atomic its array). Within one invocation nothing else can tell the order,
 * and between invocations a valid program has no race to reveal it. */
#include "harness/gen/transform_internal.h"

uint32_t vc_xf_reorder(vc_program *p, vc_rng *r) {
  vc_xf_lists l;
  vc_xf_lists_collect(p, &l);
  uint32_t changes = 0;
  for (uint32_t i = 0; i < l.n; i++) {
    vc_node *list = l.items[i].node;
    for (uint32_t j = l.items[i].first; j + 1 < list->nkids; j++) {
      if (vc_rng_below(r, 2)) continue;
      vc_node *a = list->kids[j], *b = list->kids[j + 1];
      if (vc_xf_has_control(a) || vc_xf_has_control(b)) continue;
      vc_xf_effects ea, eb;
      vc_xf_effects_of(p, a, &ea);
      vc_xf_effects_of(p, b, &eb);
      if (vc_xf_independent(p, &ea, &eb)) {
        list->kids[j] = b;
        list->kids[j + 1] = a;
        changes++;
        j++; /* a moved on; leave it there */
      }
      vc_xf_effects_free(&ea);
      vc_xf_effects_free(&eb);
    }
  }
  vc_xf_lists_free(&l);
  return changes;
}
