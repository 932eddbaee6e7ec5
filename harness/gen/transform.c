/* vc_gen_transform: parse, apply one or more transformations, print; and the
 * statement-list and effect helpers the transformations share. */
#include <stdlib.h>
#include <string.h>

#include "harness/gen/transform_internal.h"
#include "harness/lang/parse.h"
#include "harness/lang/print.h"

typedef uint32_t (*xf_fn)(vc_program *p, vc_rng *r);

static const struct {
  const char *name, *what;
} table[] = {
#define VC_GEN_X(id, name, what) {name, what},
    VC_GEN_TRANSFORM_TABLE(VC_GEN_X)
#undef VC_GEN_X
};
static const xf_fn fns[VC_GEN_TRANSFORM_COUNT] = {
    vc_xf_empty_segments, vc_xf_wrap_blocks, vc_xf_rename,
    vc_xf_dead_code,      vc_xf_reorder,     vc_xf_move_barrier};

const char *vc_gen_transform_name(vc_gen_transform_id t) {
  return t < VC_GEN_TRANSFORM_COUNT ? table[t].name : "?";
}
const char *vc_gen_transform_what(vc_gen_transform_id t) {
  return t < VC_GEN_TRANSFORM_COUNT ? table[t].what : "?";
}

int vc_gen_transform(const char *name, const char *src, uint64_t seed, vc_strbuf *out,
                     vc_error *err) {
  int which = -2; /* -1: all, -3: random chain */
  if (strcmp(name, "all") == 0) which = -1;
  else if (strcmp(name, "random") == 0) which = -3;
  for (int i = 0; i < VC_GEN_TRANSFORM_COUNT; i++)
    if (strcmp(name, table[i].name) == 0) which = i;
  if (which == -2) {
    vc_strbuf k;
    vc_sb_init(&k);
    for (int i = 0; i < VC_GEN_TRANSFORM_COUNT; i++) vc_sb_printf(&k, "%s, ", table[i].name);
    int rc = vc_fail(err, VC_ERR_USAGE, "unknown transformation '%s' (known: %sall, random)",
                     name, vc_sb_str(&k));
    vc_sb_free(&k);
    return rc;
  }
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = vc_parse("input", src, strlen(src), &d);
  if (!p) {
    int rc = vc_fail(err, VC_ERR_PARSE, "%u:%u: %s", d.count ? d.items[0].loc.line : 0,
                     d.count ? d.items[0].loc.col : 0, d.count ? d.items[0].msg : "no program");
    vc_diags_free(&d);
    return rc;
  }
  vc_diags_free(&d);
  vc_rng r;
  vc_rng_seed(&r, seed, 0, 0x7472616e73666f72ull); /* "transfor" */
  if (which >= 0) {
    fns[which](p, &r);
  } else if (which == -1) {
    for (int i = 0; i < VC_GEN_TRANSFORM_COUNT; i++) fns[i](p, &r);
  } else {
    uint32_t n = 1 + vc_rng_below(&r, 6);
    for (uint32_t i = 0; i < n; i++) fns[vc_rng_below(&r, VC_GEN_TRANSFORM_COUNT)](p, &r);
  }
  vc_print_program(p, out);
  vc_program_free(p);
  return 0;
}

/* ---- statement lists ---- */

static void push(vc_xf_lists *l, vc_node *n, uint32_t first, bool top, uint32_t loops) {
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 16;
    l->items = realloc(l->items, l->cap * sizeof *l->items);
    if (!l->items) abort();
  }
  l->items[l->n++] = (vc_xf_list){n, first, top, loops};
}

static void walk(vc_node *n, bool top, uint32_t loops, vc_xf_lists *l) {
  if (!n) return;
  switch (n->kind) {
  case VC_S_BLOCK:
    push(l, n, 0, top, loops);
    for (uint32_t i = 0; i < n->nkids; i++) walk(n->kids[i], top, loops, l);
    break;
  case VC_S_LOOP:
    push(l, n, 2, false, loops + 1);
    for (uint32_t i = 2; i < n->nkids; i++) walk(n->kids[i], false, loops + 1, l);
    break;
  case VC_S_WHILE:
    push(l, n, 1, false, loops + 1);
    for (uint32_t i = 1; i < n->nkids; i++) walk(n->kids[i], false, loops + 1, l);
    break;
  case VC_S_IF:
    for (uint32_t i = 1; i < n->nkids; i++) walk(n->kids[i], false, loops, l);
    break;
  default:
    break;
  }
}

void vc_xf_lists_collect(const vc_program *p, vc_xf_lists *out) {
  memset(out, 0, sizeof *out);
  walk(p->entry, true, 0, out);
}

void vc_xf_lists_free(vc_xf_lists *l) {
  free(l->items);
  memset(l, 0, sizeof *l);
}

void vc_xf_insert(vc_program *p, vc_node *list, uint32_t pos, vc_node *kid) {
  vc_node_append(p, list, kid);
  memmove(&list->kids[pos + 1], &list->kids[pos], (list->nkids - 1 - pos) * sizeof *list->kids);
  list->kids[pos] = kid;
}

vc_node *vc_xf_remove(vc_node *list, uint32_t pos) {
  vc_node *k = list->kids[pos];
  memmove(&list->kids[pos], &list->kids[pos + 1], (list->nkids - 1 - pos) * sizeof *list->kids);
  list->nkids--;
  return k;
}

bool vc_xf_contains(const vc_node *n, vc_node_kind kind) {
  if (!n) return false;
  if (n->kind == kind) return true;
  for (uint32_t i = 0; i < n->nkids; i++)
    if (vc_xf_contains(n->kids[i], kind)) return true;
  return false;
}

bool vc_xf_has_control(const vc_node *n) {
  return vc_xf_contains(n, VC_S_BARRIER) || vc_xf_contains(n, VC_S_RETURN) ||
         vc_xf_contains(n, VC_S_BREAK) || vc_xf_contains(n, VC_S_CONTINUE);
}

/* ---- effects ---- */

static void effects(const vc_program *p, const vc_node *n, vc_xf_effects *e) {
  if (!n) return;
  uint32_t mem = n->space == VC_SPACE_SHARED ? p->nbuffers + n->ref : n->ref;
  switch (n->kind) {
  case VC_E_NAME:
    e->sym_read[n->ref] = 1;
    break;
  case VC_S_LET:
  case VC_S_VAR:
  case VC_S_SET:
  case VC_S_LOOP:
    e->sym_write[n->ref] = 1;
    break;
  case VC_E_LOAD:
    e->mem_read[mem] = 1;
    if (n->space == VC_SPACE_SHARED || p->buffers[n->ref].access != VC_READ)
      e->reads_writable = true;
    break;
  case VC_S_STORE:
  case VC_S_ATOMIC:
  case VC_E_ATOMIC:
    e->mem_write[mem] = 1;
    e->mem_read[mem] = 1;
    e->reads_writable = true;
    break;
  default:
    break;
  }
  for (uint32_t i = 0; i < n->nkids; i++) effects(p, n->kids[i], e);
}

void vc_xf_effects_of(const vc_program *p, const vc_node *n, vc_xf_effects *e) {
  uint32_t ns = p->nsyms ? p->nsyms : 1, nm = p->nbuffers + p->nshared + 1;
  e->sym_read = calloc(ns, 1);
  e->sym_write = calloc(ns, 1);
  e->mem_read = calloc(nm, 1);
  e->mem_write = calloc(nm, 1);
  if (!e->sym_read || !e->sym_write || !e->mem_read || !e->mem_write) abort();
  e->reads_writable = false;
  effects(p, n, e);
}

void vc_xf_effects_free(vc_xf_effects *e) {
  free(e->sym_read);
  free(e->sym_write);
  free(e->mem_read);
  free(e->mem_write);
}

bool vc_xf_independent(const vc_program *p, const vc_xf_effects *a, const vc_xf_effects *b) {
  for (uint32_t i = 0; i < p->nsyms; i++)
    if ((a->sym_write[i] && (b->sym_read[i] || b->sym_write[i])) ||
        (b->sym_write[i] && a->sym_read[i]))
      return false;
  for (uint32_t i = 0; i < p->nbuffers + p->nshared; i++)
    if ((a->mem_write[i] && (b->mem_read[i] || b->mem_write[i])) ||
        (b->mem_write[i] && a->mem_read[i]))
      return false;
  return true;
}

vc_node *vc_xf_lit(vc_program *p, vc_type t, uint64_t bits) {
  vc_node *n = vc_node_new(p, VC_E_LIT, (vc_loc){0, 0}, 0);
  n->type = t;
  n->bits = bits;
  return n;
}

vc_node *vc_xf_block(vc_program *p) { return vc_node_new(p, VC_S_BLOCK, (vc_loc){0, 0}, 0); }
