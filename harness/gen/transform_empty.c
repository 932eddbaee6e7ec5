/* empty-segments: grid barriers that add an empty segment. Only where no
 * segment is cut: at the start or end of entry, or beside an existing top
 * grid barrier; a barrier inside a segment would change where a (return)
 * resumes and what shared memory holds. */
#include "harness/gen/transform_internal.h"

static vc_node *grid_barrier(vc_program *p) {
  vc_node *b = vc_node_new(p, VC_S_BARRIER, (vc_loc){0, 0}, 0);
  b->op = VC_BARRIER_GRID;
  return b;
}

static bool is_grid_barrier(const vc_node *n) {
  return n->kind == VC_S_BARRIER && n->op == VC_BARRIER_GRID;
}

uint32_t vc_xf_empty_segments(vc_program *p, vc_rng *r) {
  uint32_t changes = 0, want = 1 + vc_rng_below(r, 3);
  for (uint32_t t = 0; t < 8 && changes < want; t++) {
    uint32_t k = vc_rng_below(r, 3);
    if (k == 0) {
      vc_xf_insert(p, p->entry, 0, grid_barrier(p));
      changes++;
    } else if (k == 1) {
      vc_xf_insert(p, p->entry, p->entry->nkids, grid_barrier(p));
      changes++;
    } else {
      vc_xf_lists l;
      vc_xf_lists_collect(p, &l);
      uint32_t n = 0;
      for (uint32_t i = 0; i < l.n; i++)
        for (uint32_t j = l.items[i].first; l.items[i].top && j < l.items[i].node->nkids; j++)
          n += is_grid_barrier(l.items[i].node->kids[j]);
      if (n) {
        uint32_t pick = vc_rng_below(r, n);
        for (uint32_t i = 0; i < l.n; i++)
          for (uint32_t j = l.items[i].first; l.items[i].top && j < l.items[i].node->nkids; j++)
            if (is_grid_barrier(l.items[i].node->kids[j]) && pick-- == 0) {
              vc_xf_insert(p, l.items[i].node, j + 1, grid_barrier(p));
              changes++;
              i = l.n;
              break;
            }
      }
      vc_xf_lists_free(&l);
    }
  }
  return changes;
}
