#include "program_gen.h"

#include <stdio.h>
#include <string.h>

typedef struct gen {
  vc_program *p;
  uint64_t state;
  uint32_t *visible; /* symbols in scope, innermost last */
  uint32_t nvisible, cap_visible;
  uint32_t cap_syms;
  int f32_buffer; /* an f32 buffer with an ulp expectation, or -1 */
  uint32_t loops; /* loops around the statement being generated (for break, continue) */
} gen;

static uint64_t next(gen *g) {
  uint64_t z = (g->state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static uint32_t below(gen *g, uint32_t n) { return (uint32_t)(next(g) % n); }

/* prefix and number, e.g. "b3" */
static char *fmt(gen *g, const char *prefix, uint32_t i) {
  char buf[32];
  snprintf(buf, sizeof buf, "%s%u", prefix, i);
  return vc_arena_strdup(&g->p->arena, buf);
}

/* Interesting bits for each type: edges, specials, and random ones. */
static uint64_t literal_bits(gen *g, vc_type t) {
  static const uint32_t f32_edges[] = {0x00000000, 0x80000000, 0x00000001, 0x807fffff,
                                       0x7f7fffff, 0x7fc00000, 0xffc12345, 0x7f800000,
                                       0xff800000, 0x3f800000, 0x3dcccccd, 0x4b800001};
  static const uint32_t int_edges[] = {0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 2};
  static const uint64_t wide_edges[] = {0, 1, 0x7fffffffffffffffu, 0x8000000000000000u,
                                        0xffffffffffffffffu, 0x100000000u, 0xffffffffu};
  if (vc_type_is_64(t)) {
    switch (below(g, 3)) {
    case 0: return wide_edges[below(g, 7)];
    case 1: return below(g, 100);
    default: return next(g);
    }
  }
  switch (below(g, 3)) {
  case 0:
    return t == VC_F32 ? f32_edges[below(g, 12)] : int_edges[below(g, 6)];
  case 1:
    return below(g, 100);
  default:
    return (uint32_t)next(g);
  }
}

/* u32, i32, f32, and now and then u64 or i64. */
static vc_type any_type(gen *g) {
  vc_type t = (vc_type)below(g, 4);
  return t == VC_VOID ? (below(g, 2) ? VC_U64 : VC_I64) : t;
}

/* A type of the same size as t, for bitcast. */
static vc_type same_size(gen *g, vc_type t) {
  if (vc_type_is_64(t)) return below(g, 2) ? VC_U64 : VC_I64;
  return (vc_type)below(g, 3);
}

static void buffers(gen *g) {
  vc_program *p = g->p;
  p->nbuffers = 1 + below(g, 5);
  p->buffers = vc_arena_alloc(&p->arena, p->nbuffers * sizeof *p->buffers);
  g->f32_buffer = -1;
  for (uint32_t i = 0; i < p->nbuffers; i++) {
    vc_buffer *b = &p->buffers[i];
    b->name = fmt(g, "b", i);
    b->type = any_type(g);
    b->count = 1 + below(g, 64);
    b->access = (vc_access)below(g, 3);
    vc_init *in = &b->init;
    in->kind = b->access == VC_WRITE ? VC_INIT_NONE : (vc_init_kind)(1 + below(g, 7));
    if (in->kind == VC_INIT_RANDOM_F32 && b->type != VC_F32) in->kind = VC_INIT_IOTA;
    in->bits = literal_bits(g, b->type);
    in->seed = below(g, 2) ? next(g) : below(g, 1000);
    in->lo = 0xbf800000u; /* -1 */
    in->hi = 0x40490fdbu; /* pi */
    if (in->kind == VC_INIT_VALUES) {
      in->nvalues = below(g, b->count + 1);
      in->values = vc_arena_alloc(&p->arena, 2 * (in->nvalues + 1) * sizeof *in->values);
      for (uint32_t k = 0; k < in->nvalues; k++)
        vc_elem_put(in->values, k, b->type, literal_bits(g, b->type));
    }
    if (in->kind == VC_INIT_HEX) {
      in->nbytes = below(g, 4 * vc_type_words(b->type) * b->count + 1);
      in->bytes = vc_arena_alloc(&p->arena, in->nbytes + 1);
      for (uint32_t k = 0; k < in->nbytes; k++) in->bytes[k] = (uint8_t)next(g);
    }
    if (in->kind != VC_INIT_FILL) in->bits = 0;
    if (in->kind != VC_INIT_RANDOM && in->kind != VC_INIT_RANDOM_F32) in->seed = 0;
    if (in->kind != VC_INIT_RANDOM_F32) in->lo = in->hi = 0;
    if (b->type == VC_F32 && g->f32_buffer < 0) g->f32_buffer = (int)i;
  }
}

static void shared(gen *g) {
  vc_program *p = g->p;
  p->nshared = below(g, 3);
  if (p->nshared) p->shared = vc_arena_alloc(&p->arena, p->nshared * sizeof *p->shared);
  for (uint32_t i = 0; i < p->nshared; i++)
    p->shared[i] = (vc_shared){fmt(g, "s", i), any_type(g), 1 + below(g, 256), {0, 0}};
}

static void attributes(gen *g) {
  vc_program *p = g->p;
  p->name = fmt(g, "gen", (uint32_t)g->state);
  if (below(g, 2)) p->doc = below(g, 2) ? "a \"doc\" with \\ escapes" : "";
  for (int i = 0; i < 3; i++) {
    p->workgroup[i] = i == 0 || below(g, 3) == 0 ? 1 + below(g, 8) : 1;
    p->grid[i] = i == 0 || below(g, 3) == 0 ? 1 + below(g, 100) : 1;
  }
  p->ntags = below(g, 3);
  p->tags = vc_arena_alloc(&p->arena, 3 * sizeof *p->tags);
  for (uint32_t i = 0; i < p->ntags; i++) p->tags[i] = fmt(g, "tag", i);
  for (uint32_t i = 0; i < p->nbuffers && !p->fixpoint.present; i++) {
    const vc_buffer *b = &p->buffers[i];
    if (b->type == VC_U32 && b->access != VC_READ && below(g, 2)) {
      p->fixpoint = (vc_fixpoint){true, 1 + below(g, 50), true, i, {0, 0}};
    }
  }
  if (!p->fixpoint.present && below(g, 4) == 0)
    p->fixpoint = (vc_fixpoint){true, 3, false, 0, {0, 0}};
  p->expects = vc_arena_alloc(&p->arena, 5 * sizeof *p->expects);
  /* what the parser accepts: passes up to max (exactly max without a flag),
     converges with a flag */
  const vc_fixpoint *fx = &p->fixpoint;
  if (fx->present && below(g, 2))
    p->expects[p->nexpects++] = (vc_expect){
        .kind = VC_EXPECT_PASSES, .n = fx->has_flag ? 1 + below(g, fx->max) : fx->max};
  if (fx->present && fx->has_flag && below(g, 2))
    p->expects[p->nexpects++] = (vc_expect){.kind = VC_EXPECT_CONVERGES};
  if (g->f32_buffer >= 0)
    p->expects[p->nexpects++] =
        (vc_expect){.kind = VC_EXPECT_ULP, .ref = (uint32_t)g->f32_buffer, .n = below(g, 8)};
  if (below(g, 3) == 0)
    p->expects[p->nexpects++] = (vc_expect){.kind = VC_EXPECT_OUT_OF_BOUNDS};
}

/* ---- code ---- */

static vc_node *node(gen *g, vc_node_kind k, uint32_t nkids) {
  return vc_node_new(g->p, k, (vc_loc){0, 0}, nkids);
}

/* A memory target of element type t (writable when asked); false if none. */
static bool memory(gen *g, vc_type t, bool writes, bool atomic, vc_node *n) {
  vc_program *p = g->p;
  uint32_t total = p->nbuffers + p->nshared, start = below(g, total);
  for (uint32_t k = 0; k < total; k++) {
    uint32_t i = (start + k) % total;
    bool is_shared = i >= p->nbuffers;
    vc_type mt = is_shared ? p->shared[i - p->nbuffers].type : p->buffers[i].type;
    bool read_only = !is_shared && p->buffers[i].access == VC_READ;
    if (mt != t || (writes && read_only) || (atomic && t == VC_F32)) continue;
    n->space = is_shared ? VC_SPACE_SHARED : VC_SPACE_BUFFER;
    n->ref = is_shared ? i - p->nbuffers : i;
    return true;
  }
  return false;
}

static int visible_of(gen *g, vc_type t, bool var_only) {
  uint32_t start = g->nvisible ? below(g, g->nvisible) : 0;
  for (uint32_t k = 0; k < g->nvisible; k++) {
    uint32_t s = g->visible[(start + k) % g->nvisible];
    if (g->p->syms[s].type == t && (!var_only || g->p->syms[s].kind == VC_SYM_VAR)) return (int)s;
  }
  return -1;
}

static vc_node *expr(gen *g, vc_type t, int depth);

static vc_node *literal(gen *g, vc_type t) {
  vc_node *n = node(g, VC_E_LIT, 0);
  n->type = t;
  n->bits = literal_bits(g, t);
  return n;
}

static vc_node *binary(gen *g, vc_type t, int depth) {
  static const vc_binop any[] = {VC_ADD, VC_SUB, VC_MUL, VC_DIV, VC_MIN, VC_MAX};
  static const vc_binop ints[] = {VC_REM, VC_AND, VC_OR, VC_XOR, VC_SHL, VC_SHR};
  vc_binop op = below(g, 2) || t == VC_F32 ? any[below(g, 6)] : ints[below(g, 6)];
  if (op == VC_DIV && t == VC_F32 && g->f32_buffer < 0) op = VC_MUL;
  vc_node *n = node(g, VC_E_BINARY, 2);
  n->op = (uint8_t)op;
  n->type = t;
  n->kids[0] = expr(g, t, depth - 1);
  n->kids[1] = expr(g, t, depth - 1);
  return n;
}

/* A u32 truth value: comparisons and logic. */
static vc_node *truth(gen *g, int depth) {
  vc_node *n;
  if (below(g, 3) == 0) {
    n = node(g, VC_E_UNARY, 1);
    n->op = VC_LNOT;
    n->kids[0] = expr(g, VC_U32, depth - 1);
  } else if (below(g, 2)) {
    n = node(g, VC_E_BINARY, 2);
    n->op = (uint8_t)(below(g, 2) ? VC_LAND : VC_LOR);
    n->kids[0] = expr(g, VC_U32, depth - 1);
    n->kids[1] = expr(g, VC_U32, depth - 1);
  } else {
    vc_type a = any_type(g);
    n = node(g, VC_E_BINARY, 2);
    n->op = (uint8_t)(VC_EQ + below(g, 6));
    n->kids[0] = expr(g, a, depth - 1);
    n->kids[1] = expr(g, a, depth - 1);
  }
  n->type = VC_U32;
  return n;
}

static vc_node *unary(gen *g, vc_type t, int depth) {
  vc_unop op = VC_NEG;
  if (t == VC_I32) op = (vc_unop)below(g, 3); /* neg abs not */
  if (t == VC_F32) op = (vc_unop)below(g, 2); /* neg abs */
  if (t == VC_U32 || t == VC_U64) op = below(g, 2) ? VC_NEG : VC_NOT;
  if (t == VC_I64) op = (vc_unop)below(g, 3);
  vc_node *n = node(g, VC_E_UNARY, 1);
  n->op = (uint8_t)op;
  n->type = t;
  n->kids[0] = expr(g, t, depth - 1);
  return n;
}

static vc_node *atomic(gen *g, vc_type t, vc_node_kind kind, int depth) {
  vc_node *probe = node(g, kind, 0);
  if (t == VC_F32 || !memory(g, t, true, true, probe)) return NULL;
  vc_atomic_op op = (vc_atomic_op)below(g, VC_ATOMIC_OP_COUNT);
  /* a load gives a value, a store none */
  if (op == VC_AT_STORE && kind == VC_E_ATOMIC) op = VC_AT_LOAD;
  if (op == VC_AT_LOAD && kind == VC_S_ATOMIC) op = VC_AT_STORE;
  vc_node *n = node(g, kind, op == VC_AT_CMPXCHG ? 3 : op == VC_AT_LOAD ? 1 : 2);
  n->op = (uint8_t)op;
  n->space = probe->space;
  n->ref = probe->ref;
  n->type = kind == VC_E_ATOMIC ? t : VC_VOID;
  n->kids[0] = expr(g, VC_U32, depth - 1);
  for (uint32_t i = 1; i < n->nkids; i++) n->kids[i] = expr(g, t, depth - 1);
  return n;
}

static vc_node *expr(gen *g, vc_type t, int depth) {
  uint32_t pick = depth <= 0 ? below(g, 3) : below(g, 11);
  vc_node *n = NULL;
  switch (pick) {
  case 0:
    return literal(g, t);
  case 1: {
    int s = visible_of(g, t, false);
    if (s < 0) return literal(g, t);
    n = node(g, VC_E_NAME, 0);
    n->ref = (uint32_t)s;
    n->type = t;
    return n;
  }
  case 2:
    if (t != VC_U32) return literal(g, t);
    n = node(g, VC_E_BUILTIN, 0);
    n->op = (uint8_t)below(g, VC_BUILTIN_COUNT);
    n->axis = (uint8_t)below(g, 3);
    n->type = VC_U32;
    return n;
  case 3:
    n = node(g, VC_E_LOAD, 1);
    if (!memory(g, t, false, false, n)) return literal(g, t);
    n->type = t;
    n->kids[0] = expr(g, VC_U32, depth - 1);
    return n;
  case 4:
  case 5:
    return binary(g, t, depth);
  case 6:
    return t == VC_U32 ? truth(g, depth) : unary(g, t, depth);
  case 7:
    n = node(g, VC_E_SELECT, 3);
    n->type = t;
    n->kids[0] = expr(g, VC_U32, depth - 1);
    n->kids[1] = expr(g, t, depth - 1);
    n->kids[2] = expr(g, t, depth - 1);
    return n;
  case 8:
  case 9:
    n = node(g, pick == 8 ? VC_E_CAST : VC_E_BITCAST, 1);
    n->type = t;
    n->kids[0] = expr(g, pick == 8 ? any_type(g) : same_size(g, t), depth - 1);
    return n;
  default:
    n = atomic(g, t, VC_E_ATOMIC, depth);
    return n ? n : unary(g, t, depth);
  }
}

/* ---- statements ---- */

static const char *const names[] = {"x", "y", "z", "i", "acc", "v_1"};

static void declare(gen *g, vc_node *n, vc_sym_kind kind, vc_type t) {
  vc_program *p = g->p;
  const char *name = NULL;
  for (uint32_t k = 0, start = below(g, 6); k < 6 && !name; k++) {
    const char *c = names[(start + k) % 6];
    bool taken = false;
    for (uint32_t j = 0; j < g->nvisible; j++) taken |= strcmp(p->syms[g->visible[j]].name, c) == 0;
    if (!taken) name = c;
  }
  if (!name) name = fmt(g, "extra", p->nsyms);
  if (p->nsyms == g->cap_syms) {
    g->cap_syms = g->cap_syms ? 2 * g->cap_syms : 16;
    vc_symbol *s = vc_arena_alloc(&p->arena, g->cap_syms * sizeof *s);
    if (p->nsyms) memcpy(s, p->syms, p->nsyms * sizeof *s);
    p->syms = s;
  }
  p->syms[p->nsyms] = (vc_symbol){name, t, kind, {0, 0}};
  if (g->nvisible == g->cap_visible) {
    g->cap_visible = g->cap_visible ? 2 * g->cap_visible : 16;
    uint32_t *v = vc_arena_alloc(&p->arena, g->cap_visible * sizeof *v);
    if (g->nvisible) memcpy(v, g->visible, g->nvisible * sizeof *v);
    g->visible = v;
  }
  g->visible[g->nvisible++] = p->nsyms;
  n->ref = p->nsyms++;
}

static vc_node *stmt(gen *g, int depth, bool top);

static vc_node *scoped(gen *g, int depth) {
  uint32_t mark = g->nvisible;
  vc_node *n = stmt(g, depth, false);
  g->nvisible = mark;
  return n;
}

static void statements(gen *g, vc_node *list, uint32_t n, int depth, bool top) {
  uint32_t mark = g->nvisible;
  for (uint32_t i = 0; i < n; i++) vc_node_append(g->p, list, stmt(g, depth, top));
  g->nvisible = mark;
}

static vc_node *stmt(gen *g, int depth, bool top) {
  uint32_t pick = depth <= 0 ? below(g, 6) : below(g, 11);
  vc_node *n;
  vc_type t = any_type(g);
  switch (pick) {
  case 0:
  case 1: {
    n = node(g, pick == 0 ? VC_S_LET : VC_S_VAR, 1);
    n->kids[0] = expr(g, t, 3);
    declare(g, n, pick == 0 ? VC_SYM_LET : VC_SYM_VAR, t);
    return n;
  }
  case 2: {
    int s = visible_of(g, t, true);
    if (s < 0) break;
    n = node(g, VC_S_SET, 1);
    n->ref = (uint32_t)s;
    n->kids[0] = expr(g, t, 3);
    return n;
  }
  case 3:
    n = node(g, VC_S_STORE, 2);
    if (!memory(g, t, true, false, n)) break;
    n->kids[0] = expr(g, VC_U32, 2);
    n->kids[1] = expr(g, t, 3);
    return n;
  case 4:
    n = atomic(g, (vc_type[]){VC_U32, VC_I32, VC_U64, VC_I64}[below(g, 4)], VC_S_ATOMIC, 2);
    if (n) return n;
    break;
  case 5:
    n = node(g, VC_S_BARRIER, 0);
    n->op = top && below(g, 2) ? VC_BARRIER_GRID : VC_BARRIER_WORKGROUP;
    return n;
  case 6:
    n = node(g, VC_S_IF, below(g, 2) ? 3 : 2);
    n->kids[0] = expr(g, VC_U32, 2);
    for (uint32_t i = 1; i < n->nkids; i++) n->kids[i] = scoped(g, depth - 1);
    return n;
  case 7: {
    vc_type lt = below(g, 2) ? VC_U32 : VC_I32;
    n = node(g, VC_S_LOOP, 2);
    n->kids[0] = expr(g, lt, 1);
    n->kids[1] = expr(g, lt, 1);
    uint32_t mark = g->nvisible;
    declare(g, n, VC_SYM_LOOP, lt);
    g->loops++;
    statements(g, n, below(g, 3), depth - 1, false);
    g->loops--;
    g->nvisible = mark;
    return n;
  }
  case 8:
    n = node(g, VC_S_BLOCK, 0);
    statements(g, n, below(g, 3), depth - 1, top);
    return n;
  case 9:
    return node(g, VC_S_RETURN, 0);
  case 10:
    if (g->loops) return node(g, below(g, 2) ? VC_S_BREAK : VC_S_CONTINUE, 0);
    break;
  default:
    break;
  }
  n = node(g, VC_S_STORE, 2); /* a fallback every program can take: shared or a writable buffer */
  if (memory(g, VC_U32, true, false, n) || memory(g, VC_I32, true, false, n) ||
      memory(g, VC_F32, true, false, n)) {
    n->kids[0] = expr(g, VC_U32, 1);
    n->kids[1] = expr(g, vc_node_mem_type(g->p, n), 1);
    return n;
  }
  return node(g, VC_S_RETURN, 0);
}

vc_program *pg_generate(uint64_t seed) {
  gen g = {.p = vc_program_new(), .state = seed};
  buffers(&g);
  shared(&g);
  attributes(&g);
  g.p->entry = node(&g, VC_S_BLOCK, 0);
  statements(&g, g.p->entry, 1 + below(&g, 12), 3, true);
  return g.p;
}
