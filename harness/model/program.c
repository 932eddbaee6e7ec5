#include "harness/model/program.h"

#include <stdlib.h>
#include <string.h>

vc_program *vc_program_new(void) {
  vc_program *p = calloc(1, sizeof *p);
  if (!p) abort();
  vc_arena_init(&p->arena);
  p->workgroup[0] = p->workgroup[1] = p->workgroup[2] = 1;
  p->grid[0] = p->grid[1] = p->grid[2] = 1;
  return p;
}

void vc_program_free(vc_program *p) {
  if (!p) return;
  vc_arena_free(&p->arena);
  free(p);
}

vc_node *vc_node_new(vc_program *p, vc_node_kind kind, vc_loc loc, uint32_t nkids) {
  vc_node *n = vc_arena_alloc(&p->arena, sizeof *n);
  n->kind = kind;
  n->loc = loc;
  n->type = VC_VOID;
  n->nkids = nkids;
  n->kcap = nkids;
  if (nkids) n->kids = vc_arena_alloc(&p->arena, nkids * sizeof *n->kids);
  return n;
}

void vc_node_append(vc_program *p, vc_node *list, vc_node *kid) {
  if (list->nkids == list->kcap) {
    uint32_t cap = list->kcap ? list->kcap * 2 : 4;
    vc_node **k = vc_arena_alloc(&p->arena, cap * sizeof *k);
    if (list->nkids) memcpy(k, list->kids, list->nkids * sizeof *k);
    list->kids = k;
    list->kcap = cap;
  }
  list->kids[list->nkids++] = kid;
}

vc_node *vc_node_copy_fields(vc_program *dst, const vc_node *n) {
  vc_node *c = vc_node_new(dst, n->kind, n->loc, n->nkids);
  c->op = n->op;
  c->axis = n->axis;
  c->space = n->space;
  c->type = n->type;
  c->ref = n->ref;
  c->bits = n->bits;
  return c;
}

vc_node *vc_node_clone(vc_program *dst, const vc_node *n) {
  if (!n) return NULL;
  vc_node *c = vc_node_copy_fields(dst, n);
  for (uint32_t i = 0; i < n->nkids; i++) c->kids[i] = vc_node_clone(dst, n->kids[i]);
  return c;
}

/* words: per element, vc_type_words of the buffer's type */
static void clone_init(vc_arena *a, vc_init *d, const vc_init *s, uint32_t words) {
  *d = *s;
  if (s->nvalues) {
    size_t bytes = (size_t)s->nvalues * words * sizeof *d->values;
    d->values = vc_arena_alloc(a, bytes);
    memcpy(d->values, s->values, bytes);
  }
  if (s->nbytes) {
    d->bytes = vc_arena_alloc(a, s->nbytes);
    memcpy(d->bytes, s->bytes, s->nbytes);
  }
}

vc_program *vc_program_clone(const vc_program *p) {
  vc_program *c = vc_program_new();
  vc_arena *a = &c->arena;
  c->name = vc_arena_strdup(a, p->name);
  c->doc = vc_arena_strdup(a, p->doc);
  c->path = vc_arena_strdup(a, p->path);
  memcpy(c->workgroup, p->workgroup, sizeof c->workgroup);
  memcpy(c->grid, p->grid, sizeof c->grid);
  c->nbuffers = p->nbuffers;
  if (p->nbuffers) c->buffers = vc_arena_alloc(a, p->nbuffers * sizeof *c->buffers);
  for (uint32_t i = 0; i < p->nbuffers; i++) {
    c->buffers[i] = p->buffers[i];
    c->buffers[i].name = vc_arena_strdup(a, p->buffers[i].name);
    clone_init(a, &c->buffers[i].init, &p->buffers[i].init, vc_type_words(p->buffers[i].type));
  }
  c->nshared = p->nshared;
  if (p->nshared) c->shared = vc_arena_alloc(a, p->nshared * sizeof *c->shared);
  for (uint32_t i = 0; i < p->nshared; i++) {
    c->shared[i] = p->shared[i];
    c->shared[i].name = vc_arena_strdup(a, p->shared[i].name);
  }
  c->nsyms = p->nsyms;
  if (p->nsyms) c->syms = vc_arena_alloc(a, p->nsyms * sizeof *c->syms);
  for (uint32_t i = 0; i < p->nsyms; i++) {
    c->syms[i] = p->syms[i];
    c->syms[i].name = vc_arena_strdup(a, p->syms[i].name);
  }
  c->entry = vc_node_clone(c, p->entry);
  c->fixpoint = p->fixpoint;
  c->nexpects = p->nexpects;
  if (p->nexpects) c->expects = vc_arena_alloc(a, p->nexpects * sizeof *c->expects);
  for (uint32_t i = 0; i < p->nexpects; i++) {
    c->expects[i] = p->expects[i];
    c->expects[i].text = vc_arena_strdup(a, p->expects[i].text);
    if (p->expects[i].nvalues) {
      uint32_t ref = p->expects[i].ref;
      size_t bytes = (size_t)p->expects[i].nvalues * sizeof *p->expects[i].values *
                     (ref < p->nbuffers ? vc_type_words(p->buffers[ref].type) : 1u);
      c->expects[i].values = vc_arena_alloc(a, bytes);
      memcpy(c->expects[i].values, p->expects[i].values, bytes);
    }
  }
  c->ntags = p->ntags;
  if (p->ntags) c->tags = vc_arena_alloc(a, p->ntags * sizeof *c->tags);
  for (uint32_t i = 0; i < p->ntags; i++) c->tags[i] = vc_arena_strdup(a, p->tags[i]);
  return c;
}

static bool str_eq(const char *a, const char *b) {
  if (!a || !b) return a == b;
  return strcmp(a, b) == 0;
}

bool vc_node_equal(const vc_node *a, const vc_node *b) {
  if (!a || !b) return a == b;
  if (a->kind != b->kind || a->op != b->op || a->axis != b->axis || a->space != b->space ||
      a->type != b->type || a->ref != b->ref || a->bits != b->bits || a->nkids != b->nkids)
    return false;
  for (uint32_t i = 0; i < a->nkids; i++)
    if (!vc_node_equal(a->kids[i], b->kids[i])) return false;
  return true;
}

static bool init_equal(const vc_init *a, const vc_init *b, uint32_t words) {
  if (a->kind != b->kind || a->bits != b->bits || a->nvalues != b->nvalues ||
      a->nbytes != b->nbytes || a->seed != b->seed || a->lo != b->lo || a->hi != b->hi)
    return false;
  if (a->nvalues && memcmp(a->values, b->values, (size_t)a->nvalues * words * sizeof *a->values))
    return false;
  if (a->nbytes && memcmp(a->bytes, b->bytes, a->nbytes)) return false;
  return true;
}

bool vc_program_equal(const vc_program *a, const vc_program *b) {
  if (!str_eq(a->name, b->name) || !str_eq(a->doc, b->doc)) return false;
  if (memcmp(a->workgroup, b->workgroup, sizeof a->workgroup) ||
      memcmp(a->grid, b->grid, sizeof a->grid))
    return false;
  if (a->nbuffers != b->nbuffers || a->nshared != b->nshared || a->nsyms != b->nsyms ||
      a->nexpects != b->nexpects || a->ntags != b->ntags)
    return false;
  for (uint32_t i = 0; i < a->nbuffers; i++) {
    const vc_buffer *x = &a->buffers[i], *y = &b->buffers[i];
    if (!str_eq(x->name, y->name) || x->type != y->type || x->count != y->count ||
        x->access != y->access || x->role != y->role ||
        !init_equal(&x->init, &y->init, vc_type_words(x->type)))
      return false;
  }
  for (uint32_t i = 0; i < a->nshared; i++) {
    const vc_shared *x = &a->shared[i], *y = &b->shared[i];
    if (!str_eq(x->name, y->name) || x->type != y->type || x->count != y->count) return false;
  }
  for (uint32_t i = 0; i < a->nsyms; i++) {
    const vc_symbol *x = &a->syms[i], *y = &b->syms[i];
    if (!str_eq(x->name, y->name) || x->type != y->type || x->kind != y->kind) return false;
  }
  if (a->fixpoint.present != b->fixpoint.present || a->fixpoint.max != b->fixpoint.max ||
      a->fixpoint.has_flag != b->fixpoint.has_flag || a->fixpoint.flag != b->fixpoint.flag)
    return false;
  for (uint32_t i = 0; i < a->nexpects; i++) {
    const vc_expect *x = &a->expects[i], *y = &b->expects[i];
    if (x->kind != y->kind || !str_eq(x->text, y->text) || x->ref != y->ref || x->n != y->n ||
        x->nvalues != y->nvalues)
      return false;
    uint32_t words = x->ref < a->nbuffers ? vc_type_words(a->buffers[x->ref].type) : 1u;
    if (x->nvalues && memcmp(x->values, y->values, (size_t)x->nvalues * words * sizeof *x->values))
      return false;
  }
  for (uint32_t i = 0; i < a->ntags; i++)
    if (!str_eq(a->tags[i], b->tags[i])) return false;
  return vc_node_equal(a->entry, b->entry);
}

uint32_t vc_program_workgroup_size(const vc_program *p) {
  return p->workgroup[0] * p->workgroup[1] * p->workgroup[2];
}

uint64_t vc_program_workgroups(const vc_program *p) {
  return (uint64_t)p->grid[0] * p->grid[1] * p->grid[2];
}

uint64_t vc_program_invocations(const vc_program *p) {
  return vc_program_workgroups(p) * vc_program_workgroup_size(p);
}

uint64_t vc_buffer_bytes(const vc_buffer *b) {
  return (uint64_t)b->count * 4u * vc_type_words(b->type);
}

bool vc_program_has_tag(const vc_program *p, const char *tag) {
  for (uint32_t i = 0; i < p->ntags; i++)
    if (strcmp(p->tags[i], tag) == 0) return true;
  return false;
}

static uint32_t grid_barriers(const vc_node *n) {
  if (!n) return 0;
  if (n->kind == VC_S_BARRIER) return n->op == VC_BARRIER_GRID;
  uint32_t c = 0;
  for (uint32_t i = 0; i < n->nkids; i++) c += grid_barriers(n->kids[i]);
  return c;
}

uint32_t vc_program_grid_barriers(const vc_program *p) { return grid_barriers(p->entry); }

const vc_expect *vc_program_expect(const vc_program *p, vc_expect_kind kind) {
  for (uint32_t i = 0; i < p->nexpects; i++)
    if (p->expects[i].kind == kind) return &p->expects[i];
  return NULL;
}

uint32_t vc_program_timeout_s(const vc_program *p) {
  const vc_expect *e = vc_program_expect(p, VC_EXPECT_TIMEOUT);
  return e ? e->n : 0;
}

int vc_program_find_buffer(const vc_program *p, const char *name) {
  for (uint32_t i = 0; i < p->nbuffers; i++)
    if (strcmp(p->buffers[i].name, name) == 0) return (int)i;
  return -1;
}

bool vc_node_is_expr(const vc_node *n) { return n->kind <= VC_E_BUILTIN; }

bool vc_node_has_barrier(const vc_node *n, vc_barrier_scope scope) {
  if (!n) return false;
  if (n->kind == VC_S_BARRIER && n->op == scope) return true;
  for (uint32_t i = 0; i < n->nkids; i++)
    if (vc_node_has_barrier(n->kids[i], scope)) return true;
  return false;
}

vc_type vc_node_mem_type(const vc_program *p, const vc_node *n) {
  return n->space == VC_SPACE_SHARED ? p->shared[n->ref].type : p->buffers[n->ref].type;
}

uint32_t vc_node_mem_count(const vc_program *p, const vc_node *n) {
  return n->space == VC_SPACE_SHARED ? p->shared[n->ref].count : p->buffers[n->ref].count;
}

const char *vc_node_mem_name(const vc_program *p, const vc_node *n) {
  return n->space == VC_SPACE_SHARED ? p->shared[n->ref].name : p->buffers[n->ref].name;
}

const char *vc_type_name(vc_type t) {
  static const char *const names[VC_TYPE_COUNT] = {"u32", "i32", "f32", "void", "u64", "i64"};
  return (unsigned)t < VC_TYPE_COUNT ? names[t] : "?";
}

const char *vc_access_name(vc_access a) {
  static const char *const names[] = {"read", "write", "read_write"};
  return (unsigned)a < 3 ? names[a] : "?";
}

const char *vc_unop_name(vc_unop op) {
  static const char *const names[] = {"neg", "abs", "not", "lnot"};
  return (unsigned)op < VC_UNOP_COUNT ? names[op] : "?";
}

const char *vc_binop_name(vc_binop op) {
  static const char *const names[] = {"add", "sub", "mul", "div", "rem", "min", "max",
                                      "and", "or",  "xor", "shl", "shr", "eq",  "ne",
                                      "lt",  "le",  "gt",  "ge",  "land", "lor"};
  return (unsigned)op < VC_BINOP_COUNT ? names[op] : "?";
}

const char *vc_atomic_op_name(vc_atomic_op op) {
  static const char *const names[] = {"add", "sub", "and", "or",     "xor",
                                      "min", "max", "exchange", "cmpxchg", "load",
                                      "store"};
  return (unsigned)op < VC_ATOMIC_OP_COUNT ? names[op] : "?";
}

const char *vc_builtin_name(vc_builtin b) {
  static const char *const names[] = {"global_id", "local_id", "group_id", "num_groups",
                                      "group_size"};
  return (unsigned)b < VC_BUILTIN_COUNT ? names[b] : "?";
}

const char *vc_node_kind_name(vc_node_kind k) {
  static const char *const names[] = {
      "literal", "name",  "load", "atomic", "unary", "binary", "select", "cast",  "bitcast",
      "builtin", "let",   "var",  "set",    "store", "atomic", "if",     "loop",  "return",
      "block",   "barrier", "while", "break", "continue"};
  return (unsigned)k < VC_NODE_KIND_COUNT ? names[k] : "?";
}

bool vc_binop_is_compare(vc_binop op) { return op >= VC_EQ && op <= VC_GE; }
