/* dead-code: statements under a condition that is false at run time but not
 * to a compiler: it loads an added input buffer (one u32, zero). The dead
 * code stores into outputs, returns, breaks, or repeats a sibling statement;
 * a live statement may also move into the true branch of such a test. The
 * added buffer is `read`, so the outputs and their digest stay the same. */
#include <stdio.h>
#include <string.h>

#include "harness/base/arena.h"
#include "harness/gen/transform_internal.h"

/* A name no buffer, shared array or symbol has. */
static const char *fresh(vc_program *p, vc_rng *r) {
  char name[32];
  for (;;) {
    snprintf(name, sizeof name, "dead%u", vc_rng_below(r, 100000));
    bool used = false;
    for (uint32_t i = 0; i < p->nbuffers && !used; i++) used = !strcmp(p->buffers[i].name, name);
    for (uint32_t i = 0; i < p->nshared && !used; i++) used = !strcmp(p->shared[i].name, name);
    for (uint32_t i = 0; i < p->nsyms && !used; i++)
      used = p->syms[i].name && !strcmp(p->syms[i].name, name);
    if (!used) return vc_arena_strdup(&p->arena, name);
  }
}

static uint32_t add_buffer(vc_program *p, vc_rng *r) {
  vc_buffer *b = vc_arena_alloc(&p->arena, (p->nbuffers + 1) * sizeof *b);
  memcpy(b, p->buffers, p->nbuffers * sizeof *b);
  vc_buffer *d = &b[p->nbuffers];
  memset(d, 0, sizeof *d);
  d->name = fresh(p, r);
  d->type = VC_U32;
  d->count = 1;
  d->access = VC_READ;
  d->init.kind = VC_INIT_ZERO;
  d->role = VC_ROLE_USER;
  p->buffers = b;
  return p->nbuffers++;
}

/* (load DEAD 0u), or (ne (load DEAD 0u) 0u); negated: (eq ... 0u), true. */
static vc_node *test(vc_program *p, uint32_t buf, bool negated, vc_rng *r) {
  vc_node *ld = vc_node_new(p, VC_E_LOAD, (vc_loc){0, 0}, 1);
  ld->space = VC_SPACE_BUFFER;
  ld->ref = buf;
  ld->type = VC_U32;
  ld->kids[0] = vc_xf_lit(p, VC_U32, 0);
  if (!negated && vc_rng_below(r, 2)) return ld;
  vc_node *c = vc_node_new(p, VC_E_BINARY, (vc_loc){0, 0}, 2);
  c->op = negated ? VC_EQ : VC_NE;
  c->type = VC_U32;
  c->kids[0] = ld;
  c->kids[1] = vc_xf_lit(p, VC_U32, 0);
  return c;
}

static vc_node *dead_stmt(vc_program *p, const vc_xf_list *L, uint32_t pos, uint32_t dead,
                          vc_rng *r) {
  switch (vc_rng_below(r, 4)) {
  case 0:
    return vc_node_new(p, VC_S_RETURN, (vc_loc){0, 0}, 0);
  case 1:
    if (L->loops)
      return vc_node_new(p, vc_rng_below(r, 2) ? VC_S_BREAK : VC_S_CONTINUE, (vc_loc){0, 0}, 0);
    break;
  case 2: /* a sibling before pos again, when it declares nothing here and has no barrier */
    if (pos > L->first) {
      const vc_node *s = L->node->kids[L->first + vc_rng_below(r, pos - L->first)];
      if (s->kind != VC_S_LET && s->kind != VC_S_VAR && !vc_xf_contains(s, VC_S_BARRIER))
        return vc_node_clone(p, s);
    }
    break;
  default:
    break;
  }
  /* a store of a literal into an output */
  uint32_t outs = 0;
  for (uint32_t i = 0; i < p->nbuffers; i++) outs += i != dead && p->buffers[i].access != VC_READ;
  if (!outs) return vc_node_new(p, VC_S_RETURN, (vc_loc){0, 0}, 0);
  uint32_t k = vc_rng_below(r, outs), b = 0;
  for (uint32_t i = 0; i < p->nbuffers; i++)
    if (i != dead && p->buffers[i].access != VC_READ && k-- == 0) b = i;
  vc_node *st = vc_node_new(p, VC_S_STORE, (vc_loc){0, 0}, 2);
  st->space = VC_SPACE_BUFFER;
  st->ref = b;
  st->kids[0] = vc_xf_lit(p, VC_U32, vc_rng_below(r, p->buffers[b].count));
  uint64_t bits = vc_rng_next(r);
  vc_type t = p->buffers[b].type;
  st->kids[1] = vc_xf_lit(p, t, vc_type_is_64(t) ? bits : (uint32_t)bits);
  return st;
}

uint32_t vc_xf_dead_code(vc_program *p, vc_rng *r) {
  if (p->nbuffers >= VC_MAX_BUFFERS) return 0;
  uint32_t dead = add_buffer(p, r);
  uint32_t changes = 0, want = 1 + vc_rng_below(r, 4);
  for (uint32_t t = 0; t < 12 && changes < want; t++) {
    vc_xf_lists l;
    vc_xf_lists_collect(p, &l);
    vc_xf_list L = l.items[vc_rng_below(r, l.n)];
    vc_xf_lists_free(&l);
    vc_node *list = L.node;
    uint32_t pos = L.first + vc_rng_below(r, list->nkids - L.first + 1);
    vc_node *body = dead_stmt(p, &L, pos, dead, r);
    vc_node *live = pos < list->nkids ? list->kids[pos] : NULL;
    bool wrap = live && live->kind != VC_S_LET && live->kind != VC_S_VAR &&
                !vc_xf_contains(live, VC_S_BARRIER) && vc_rng_below(r, 2);
    vc_node *f = vc_node_new(p, VC_S_IF, (vc_loc){0, 0}, wrap ? 3 : 2);
    if (wrap) { /* (if (eq (load dead 0u) 0u) LIVE DEAD) */
      f->kids[0] = test(p, dead, true, r);
      f->kids[1] = live;
      f->kids[2] = body;
      list->kids[pos] = f;
    } else {
      f->kids[0] = test(p, dead, false, r);
      f->kids[1] = body;
      vc_xf_insert(p, list, pos, f);
    }
    changes++;
  }
  return changes;
}
