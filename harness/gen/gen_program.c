/* The program generator: writes one program's text from (opts, seed, index).
 *
 * Validity comes from bookkeeping while the text is written, not from
 * retries. Between two grid barriers (a segment) every writable buffer has
 * one role: OWN (each invocation stores and reads only the elements it owns,
 * id + k*N), ANY (read at any index, written by nobody) or ATOM (contended
 * atomics of one commutative family, results discarded, read by nobody).
 * Shared arrays go through phases separated by workgroup barriers: written
 * at the own slot, then readable everywhere, then atomics of one family.
 * Loops count up to small bounds; while loops step their counter first, so
 * that a continue cannot skip it; a flag fixpoint counts its passes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/gen/gen_internal.h"
#include "harness/gen/prng.h"
#include "harness/lang/print.h"

#define MAX_BUFS 16
#define MAX_SYMS 512
#define MAX_SHARED 2

typedef enum role { ROLE_ANY = 0, ROLE_OWN, ROLE_ATOM } role;
/* Commutative atomic families: any order of these gives the same element. */
typedef enum afam { FAM_ADD = 0, FAM_AND, FAM_OR, FAM_XOR, FAM_MIN, FAM_MAX, FAM_COUNT } afam;
static const char *const fam_ops[FAM_COUNT][2] = {
    {"add", "sub"}, {"and", "and"}, {"or", "or"}, {"xor", "xor"}, {"min", "min"}, {"max", "max"}};

typedef enum shstate { SH_NONE = 0, SH_OWN, SH_ALL, SH_ATOM } shstate;

typedef struct gbuf {
  char name[16];
  vc_type type;
  uint32_t count, mult; /* mult: owned elements per invocation (0: read-only buffer) */
  vc_access access;
  bool partial;         /* stores only where a predicate of id holds */
  uint32_t pred_mod, pred_rem;
  role role;
  afam fam;
} gbuf;

typedef struct gshared {
  char name[16];
  vc_type type;
  shstate state;
  afam fam;
} gshared;

typedef enum symkind { SYM_LET = 0, SYM_VAR, SYM_LOOP, SYM_COUNTER } symkind;

typedef struct gsym {
  uint32_t id; /* spelled v<id> */
  vc_type type;
  symkind kind;
  uint32_t seg; /* the segment it was declared in */
  bool atomic;  /* a let of an atomic's result */
} gsym;

typedef struct gen {
  vc_rng r;
  vc_strbuf *o;
  uint64_t feat;
  uint32_t size;
  uint64_t count[VC_GEN_FEATURE_COUNT];
  uint32_t wg[3], grid[3], dims;
  uint32_t N, W;
  gbuf bufs[MAX_BUFS];
  uint32_t nbufs;
  gshared sh[MAX_SHARED];
  uint32_t nsh;
  gsym syms[MAX_SYMS];
  uint32_t nsyms, next_name;
  uint32_t seg, nseg;
  bool seg_return;  /* a return stands in this segment: no workgroup barrier may follow */
  uint32_t loops;   /* loops around the current statement */
  uint32_t depth;   /* statement nesting within the segment */
  int32_t budget;   /* statements left */
  uint32_t max_expr;
  bool pc;          /* the pass counter of a flag fixpoint exists */
  bool oob;         /* the program declares and makes an out-of-bounds access */
  vc_type types[5];
  uint32_t ntypes;
  uint32_t indent;
} gen;

static bool on(const gen *g, vc_gen_feature f) { return (g->feat >> f) & 1u; }
static void note(gen *g, vc_gen_feature f) { g->count[f]++; }
static uint32_t rnd(gen *g, uint32_t n) { return vc_rng_below(&g->r, n); }
static bool pct(gen *g, uint32_t p) { return vc_rng_pct(&g->r, p); }
static void put(gen *g, const char *s) { vc_sb_puts(g->o, s); }

static void nl(gen *g) {
  vc_sb_putc(g->o, '\n');
  for (uint32_t i = 0; i < g->indent; i++) vc_sb_puts(g->o, "  ");
}

static void note_type(gen *g, vc_type t) {
  if (t == VC_I32) note(g, VC_GEN_I32);
  if (t == VC_F32) note(g, VC_GEN_F32);
  if (t == VC_U64) note(g, VC_GEN_U64);
  if (t == VC_I64) note(g, VC_GEN_I64);
}

static vc_type any_type(gen *g) { return g->types[rnd(g, g->ntypes)]; }
static vc_type int_type(gen *g) {
  vc_type t;
  do t = any_type(g);
  while (t == VC_F32);
  return t;
}

/* ---- literals ---- */

static uint64_t lit_bits(gen *g, vc_type t) {
  static const uint32_t f32s[] = {0x00000000u, 0x80000000u, 0x3f800000u, 0xbf800000u,
                                  0x7f800000u, 0xff800000u, 0x7fc00000u, 0x00000001u,
                                  0x007fffffu, 0x7f7fffffu, 0x40490fdbu, 0x3effffffu};
  uint64_t x = vc_rng_next(&g->r);
  switch (rnd(g, 4)) {
  case 0: /* small */
    x = rnd(g, 8);
    if (vc_type_is_signed(t) && pct(g, 40)) x = (uint64_t)-(int64_t)x;
    break;
  case 1: /* an edge */
    x = (uint64_t[]){0, 1, ~0ull, 0x7fffffffull, 0x80000000ull, 0x7fffffffffffffffull,
                     0x8000000000000000ull}[rnd(g, 7)];
    break;
  default:
    break;
  }
  if (t == VC_F32) {
    if (pct(g, 50)) return f32s[rnd(g, sizeof f32s / sizeof f32s[0])];
    /* a number of moderate size: sign, exponent 110..150, mantissa */
    return (x & 0x80000000u) | (uint64_t)(110 + rnd(g, 41)) << 23 | (x & 0x7fffffu);
  }
  return vc_type_is_64(t) ? x : (uint32_t)x;
}

static void lit(gen *g, vc_type t, uint64_t bits) { vc_print_literal(t, bits, g->o); }

/* ---- names ---- */

static void sym_name(gen *g, const gsym *s) { vc_sb_printf(g->o, "v%u", s->id); }

/* A visible symbol of type t (kind mask: 1 << symkind), or NULL. */
static gsym *pick_sym(gen *g, vc_type t, unsigned kinds) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < g->nsyms; i++)
    if (g->syms[i].type == t && ((kinds >> g->syms[i].kind) & 1u)) n++;
  if (!n) return NULL;
  uint32_t k = rnd(g, n);
  for (uint32_t i = 0; i < g->nsyms; i++)
    if (g->syms[i].type == t && ((kinds >> g->syms[i].kind) & 1u) && k-- == 0) return &g->syms[i];
  return NULL;
}

static void use_sym(gen *g, gsym *s) {
  if (s->seg != g->seg) {
    if (s->kind == SYM_VAR) note(g, VC_GEN_LIVE_VAR);
    else if (s->atomic) note(g, VC_GEN_ATOMIC_LET);
    else if (s->kind == SYM_LET) note(g, VC_GEN_LIVE_LET);
  }
  sym_name(g, s);
}

/* ---- indices ---- */

static void expr(gen *g, vc_type t, uint32_t d);

/* The invocation's linear id, as the let or spelled out. */
static void id(gen *g) {
  if (pct(g, 85)) {
    put(g, "id");
    return;
  }
  uint32_t sx = g->wg[0] * g->grid[0], sy = g->wg[1] * g->grid[1];
  if (g->dims == 1) put(g, "(global_id x)");
  else if (g->dims == 2) vc_sb_printf(g->o, "(add (global_id x) (mul (global_id y) %uu))", sx);
  else
    vc_sb_printf(g->o, "(add (add (global_id x) (mul (global_id y) %uu)) (mul (global_id z) %uu))",
                 sx, sx * sy);
}

static void own_index(gen *g, const gbuf *b) {
  uint32_t k = rnd(g, b->mult);
  if (!k) {
    id(g);
    return;
  }
  put(g, "(add ");
  id(g);
  vc_sb_printf(g->o, " %uu)", k * g->N);
}

/* Any element of a count-element array: (rem E count). */
static void any_index(gen *g, uint32_t count, uint32_t d) {
  if (count == 1) {
    put(g, "0u");
    return;
  }
  put(g, "(rem ");
  expr(g, VC_U32, d);
  vc_sb_printf(g->o, " %uu)", count);
}

/* ---- expressions ---- */

static gbuf *pick_buf(gen *g, vc_type t, int want /* -1: readable */) {
  uint32_t n = 0, idx[MAX_BUFS];
  for (uint32_t i = 0; i < g->nbufs; i++) {
    gbuf *b = &g->bufs[i];
    if (b->type != t) continue;
    if (want < 0 ? b->role != ROLE_ATOM : b->role == (role)want) idx[n++] = i;
  }
  return n ? &g->bufs[idx[rnd(g, n)]] : NULL;
}

static bool load(gen *g, vc_type t, uint32_t d) {
  gbuf *b = pick_buf(g, t, -1);
  if (!b) return false;
  vc_sb_printf(g->o, "(load %s ", b->name);
  if (b->role == ROLE_OWN) own_index(g, b);
  else any_index(g, b->count, d);
  put(g, ")");
  return true;
}

static bool shared_load(gen *g, vc_type t, uint32_t d) {
  for (uint32_t i = 0; i < g->nsh; i++) {
    gshared *s = &g->sh[i];
    if (s->type != t || (s->state != SH_OWN && s->state != SH_ALL)) continue;
    vc_sb_printf(g->o, "(load %s ", s->name);
    if (s->state == SH_OWN) put(g, "lid");
    else any_index(g, g->W, d);
    put(g, ")");
    return true;
  }
  return false;
}

/* An atomic whose old value is used: on an element this invocation owns, so
   no other invocation touches it in this segment. */
static bool owned_atomic(gen *g, vc_type t, uint32_t d) {
  if (!on(g, VC_GEN_ATOMIC) || t == VC_F32) return false;
  gbuf *b = pick_buf(g, t, ROLE_OWN);
  if (!b || b->partial) return false;
  static const char *const ops[] = {"add", "sub", "and", "or", "xor", "min", "max", "exchange"};
  uint32_t k = rnd(g, 10);
  note(g, VC_GEN_ATOMIC);
  if (k == 8) {
    vc_sb_printf(g->o, "(atomic cmpxchg %s ", b->name);
    own_index(g, b);
    put(g, " ");
    expr(g, t, d);
    put(g, " ");
    expr(g, t, d);
  } else if (k == 9 && !vc_type_is_64(t)) {
    vc_sb_printf(g->o, "(atomic load %s ", b->name);
    own_index(g, b);
  } else {
    vc_sb_printf(g->o, "(atomic %s %s ", ops[k % 8], b->name);
    own_index(g, b);
    put(g, " ");
    expr(g, t, d);
  }
  put(g, ")");
  return true;
}

static void builtin(gen *g) {
  static const char *const names[] = {"global_id", "local_id", "group_id", "num_groups",
                                      "group_size"};
  vc_sb_printf(g->o, "(%s %c)", names[rnd(g, 5)], "xyz"[rnd(g, g->dims)]);
}

static void leaf(gen *g, vc_type t) {
  for (int tries = 0; tries < 3; tries++) {
    switch (rnd(g, 6)) {
    case 0:
    case 1: {
      gsym *s = pick_sym(g, t, 0xfu);
      if (s) {
        use_sym(g, s);
        return;
      }
      break;
    }
    case 2:
      if (t == VC_U32) {
        if (pct(g, 50)) id(g);
        else builtin(g);
        return;
      }
      break;
    case 3:
      if (load(g, t, 0)) return;
      break;
    case 4:
      if (t == VC_U32 && g->pc && g->seg + 1 < g->nseg) {
        put(g, "(load pc 0u)"); /* the pass count, written only in the last segment */
        return;
      }
      break;
    default:
      break;
    }
  }
  note_type(g, t);
  lit(g, t, lit_bits(g, t));
}

static vc_type same_size_type(gen *g, vc_type t) {
  vc_type c[3];
  uint32_t n = 0;
  for (uint32_t i = 0; i < g->ntypes; i++)
    if (vc_type_is_64(g->types[i]) == vc_type_is_64(t)) c[n++] = g->types[i];
  return c[rnd(g, n)];
}

static void expr(gen *g, vc_type t, uint32_t d) {
  if (d == 0 || pct(g, 25)) {
    leaf(g, t);
    return;
  }
  d--;
  for (;;) {
    switch (rnd(g, 12)) {
    case 0:
    case 1:
    case 2: { /* arithmetic */
      static const char *const ar[] = {"add", "sub", "mul", "min", "max", "div", "rem"};
      uint32_t k = rnd(g, t == VC_F32 ? 5 : 7); /* f32 div needs an ulp expectation */
      vc_sb_printf(g->o, "(%s ", ar[k]);
      expr(g, t, d);
      put(g, " ");
      expr(g, t, d);
      put(g, ")");
      return;
    }
    case 3: { /* bitwise and shifts */
      if (t == VC_F32) break;
      static const char *const bw[] = {"and", "or", "xor", "shl", "shr"};
      vc_sb_printf(g->o, "(%s ", bw[rnd(g, 5)]);
      expr(g, t, d);
      put(g, " ");
      expr(g, t, d);
      put(g, ")");
      return;
    }
    case 4: { /* unary */
      const char *op = "neg";
      uint32_t k = rnd(g, 3);
      if (k == 1 && (vc_type_is_signed(t) || t == VC_F32)) op = "abs";
      if (k == 2 && t != VC_F32) op = t == VC_U32 && pct(g, 50) ? "lnot" : "not";
      vc_sb_printf(g->o, "(%s ", op);
      expr(g, t, d);
      put(g, ")");
      return;
    }
    case 5: { /* comparisons and logic */
      if (t != VC_U32 || !on(g, VC_GEN_SELECT)) break;
      note(g, VC_GEN_SELECT);
      if (pct(g, 30)) {
        vc_sb_printf(g->o, "(%s ", pct(g, 50) ? "land" : "lor");
        expr(g, VC_U32, d);
      } else {
        static const char *const cmp[] = {"eq", "ne", "lt", "le", "gt", "ge"};
        vc_type u = any_type(g);
        vc_sb_printf(g->o, "(%s ", cmp[rnd(g, 6)]);
        expr(g, u, d);
        put(g, " ");
        expr(g, u, d);
        put(g, ")");
        return;
      }
      put(g, " ");
      expr(g, VC_U32, d);
      put(g, ")");
      return;
    }
    case 6: /* select */
      if (!on(g, VC_GEN_SELECT)) break;
      note(g, VC_GEN_SELECT);
      put(g, "(select ");
      expr(g, VC_U32, d);
      put(g, " ");
      expr(g, t, d);
      put(g, " ");
      expr(g, t, d);
      put(g, ")");
      return;
    case 7: /* cast */
      if (!on(g, VC_GEN_CAST)) break;
      note(g, VC_GEN_CAST);
      if (pct(g, 30)) {
        vc_type u = same_size_type(g, t);
        note_type(g, u);
        vc_sb_printf(g->o, "(bitcast %s ", vc_type_name(t));
        expr(g, u, d);
      } else {
        vc_type u = any_type(g);
        note_type(g, u);
        vc_sb_printf(g->o, "(cast %s ", vc_type_name(t));
        expr(g, u, d);
      }
      put(g, ")");
      return;
    case 8:
      if (load(g, t, d)) return;
      break;
    case 9:
      if (shared_load(g, t, d)) return;
      break;
    case 10:
      if (owned_atomic(g, t, d)) return;
      break;
    default:
      leaf(g, t);
      return;
    }
  }
}

/* ---- statements ---- */

static void stmt(gen *g);

static void stmts(gen *g, uint32_t n) {
  for (uint32_t i = 0; i < n && g->budget > 0; i++) {
    nl(g);
    stmt(g);
  }
}

/* A body: statements in a new scope (the caller writes the opening form). */
static void body(gen *g, uint32_t n) {
  uint32_t mark = g->nsyms;
  g->indent++;
  g->depth++;
  stmts(g, n ? n : 1);
  g->depth--;
  g->indent--;
  g->nsyms = mark;
}

static void let_stmt(gen *g) {
  vc_type t = any_type(g);
  note_type(g, t);
  bool var = pct(g, 35);
  bool atomic = !var && on(g, VC_GEN_ATOMIC_LET) && t != VC_F32 && pct(g, 25);
  gsym tmp;
  tmp.id = g->next_name; /* declared after its value: not visible in it */
  put(g, var ? "(var " : "(let ");
  vc_sb_printf(g->o, "v%u ", tmp.id);
  g->next_name++;
  if (!(atomic && owned_atomic(g, t, g->max_expr - 1))) {
    atomic = false;
    expr(g, t, g->max_expr);
  } else {
    note(g, VC_GEN_ATOMIC_LET);
  }
  put(g, ")");
  if (g->nsyms < MAX_SYMS) {
    gsym *s = &g->syms[g->nsyms++];
    s->id = tmp.id;
    s->type = t;
    s->kind = var ? SYM_VAR : SYM_LET;
    s->seg = g->seg;
    s->atomic = atomic;
  }
}

static bool set_stmt(gen *g) {
  vc_type t = any_type(g);
  gsym *s = pick_sym(g, t, 1u << SYM_VAR);
  if (!s) return false;
  put(g, "(set ");
  use_sym(g, s);
  put(g, " ");
  expr(g, t, g->max_expr);
  put(g, ")");
  return true;
}

static bool store_stmt(gen *g) {
  gbuf *b = pick_buf(g, any_type(g), ROLE_OWN);
  if (!b) return false;
  note_type(g, b->type);
  bool guard = b->partial;
  if (guard) {
    note(g, VC_GEN_PARTIAL_WRITE);
    put(g, "(if (eq (rem ");
    id(g);
    vc_sb_printf(g->o, " %uu) %uu) ", b->pred_mod, b->pred_rem);
  }
  if (on(g, VC_GEN_ATOMIC) && !vc_type_is_64(b->type) && b->type != VC_F32 && pct(g, 15)) {
    note(g, VC_GEN_ATOMIC);
    vc_sb_printf(g->o, "(atomic store %s ", b->name);
  } else {
    vc_sb_printf(g->o, "(store %s ", b->name);
  }
  own_index(g, b);
  put(g, " ");
  expr(g, b->type, g->max_expr);
  put(g, ")");
  if (guard) put(g, ")");
  return true;
}

/* Contended atomics: many invocations, one family, old value discarded. */
static bool atomic_stmt(gen *g) {
  if (!on(g, VC_GEN_ATOMIC)) return false;
  vc_type t = int_type(g);
  gbuf *b = pick_buf(g, t, ROLE_ATOM);
  if (b) {
    note(g, VC_GEN_ATOMIC);
    vc_sb_printf(g->o, "(atomic %s %s ", fam_ops[b->fam][rnd(g, 2)], b->name);
    any_index(g, b->count, 1);
    put(g, " ");
    expr(g, t, g->max_expr);
    put(g, ")");
    return true;
  }
  for (uint32_t i = 0; i < g->nsh; i++) {
    gshared *s = &g->sh[i];
    if (s->state != SH_ATOM || s->type != t) continue;
    note(g, VC_GEN_ATOMIC);
    vc_sb_printf(g->o, "(atomic %s %s ", fam_ops[s->fam][rnd(g, 2)], s->name);
    any_index(g, g->W, 1);
    put(g, " ");
    expr(g, t, g->max_expr);
    put(g, ")");
    return true;
  }
  return false;
}

static bool shared_store(gen *g) {
  for (uint32_t i = 0; i < g->nsh; i++) {
    gshared *s = &g->sh[i];
    if (s->state != SH_OWN) continue;
    vc_sb_printf(g->o, "(store %s lid ", s->name);
    expr(g, s->type, g->max_expr);
    put(g, ")");
    return true;
  }
  return false;
}

static void cond(gen *g) {
  if (pct(g, 50)) {
    /* a predicate of the invocation: some take the branch, some do not */
    put(g, "(eq (rem ");
    id(g);
    vc_sb_printf(g->o, " %uu) %uu)", 2 + rnd(g, 4), rnd(g, 2));
  } else {
    expr(g, VC_U32, g->max_expr > 1 ? g->max_expr - 1 : 1);
  }
}

static void if_stmt(gen *g) {
  note(g, VC_GEN_IF);
  put(g, "(if ");
  cond(g);
  g->indent++;
  nl(g);
  put(g, "(block");
  body(g, 1 + rnd(g, 3));
  put(g, ")");
  if (pct(g, 50)) {
    nl(g);
    put(g, "(block");
    body(g, 1 + rnd(g, 2));
    put(g, ")");
  }
  g->indent--;
  put(g, ")");
}

static void loop_stmt(gen *g) {
  note(g, VC_GEN_LOOP);
  bool i32 = on(g, VC_GEN_I32) && pct(g, 40);
  vc_type t = i32 ? VC_I32 : VC_U32;
  uint32_t name = g->next_name++;
  vc_sb_printf(g->o, "(loop v%u ", name);
  if (i32) {
    int32_t from = (int32_t)rnd(g, 7) - 3;
    vc_sb_printf(g->o, "%di %di", from, from + (int32_t)rnd(g, 5) - 1);
  } else if (pct(g, 50)) {
    uint32_t from = rnd(g, 3);
    vc_sb_printf(g->o, "%uu %uu", from, from + rnd(g, 4));
  } else { /* a bound known at run time only, at most 3 */
    put(g, "0u (min (and ");
    expr(g, VC_U32, 1);
    put(g, " 3u) 3u)");
  }
  if (g->nsyms < MAX_SYMS) {
    gsym *s = &g->syms[g->nsyms++];
    *s = (gsym){name, t, SYM_LOOP, g->seg, false};
  }
  uint32_t mark = g->nsyms - 1;
  g->loops++;
  body(g, 1 + rnd(g, 3));
  g->loops--;
  g->nsyms = mark;
  put(g, ")");
}

static void while_stmt(gen *g) {
  note(g, VC_GEN_WHILE);
  uint32_t w = g->next_name++;
  /* the counter steps first, so that a continue cannot skip it */
  vc_sb_printf(g->o, "(var v%u 0u)", w);
  nl(g);
  vc_sb_printf(g->o, "(while ");
  if (pct(g, 50)) {
    vc_sb_printf(g->o, "(lt v%u %uu)", w, 1 + rnd(g, 4));
  } else {
    vc_sb_printf(g->o, "(land (lt v%u %uu) ", w, 1 + rnd(g, 4));
    expr(g, VC_U32, 1);
    put(g, ")");
  }
  g->indent++;
  nl(g);
  vc_sb_printf(g->o, "(set v%u (add v%u 1u))", w, w);
  g->indent--;
  if (g->nsyms < MAX_SYMS) g->syms[g->nsyms++] = (gsym){w, VC_U32, SYM_COUNTER, g->seg, false};
  g->loops++;
  body(g, 1 + rnd(g, 3));
  g->loops--;
  put(g, ")");
}

static void stmt(gen *g) {
  g->budget--;
  for (;;) {
    uint32_t k = rnd(g, 16);
    bool nest = g->depth < 3 && g->budget > 2;
    switch (k) {
    case 0:
    case 1:
    case 2:
      let_stmt(g);
      return;
    case 3:
      if (set_stmt(g)) return;
      break;
    case 4:
    case 5:
    case 6:
      if (store_stmt(g)) return;
      break;
    case 7:
      if (atomic_stmt(g)) return;
      break;
    case 8:
      if (shared_store(g)) return;
      break;
    case 9:
      if (!nest || !on(g, VC_GEN_IF)) break;
      if_stmt(g);
      return;
    case 10:
      if (!nest || !on(g, VC_GEN_LOOP)) break;
      loop_stmt(g);
      return;
    case 11:
      if (!nest || !on(g, VC_GEN_WHILE)) break;
      while_stmt(g);
      return;
    case 12:
      if (!g->loops || !on(g, VC_GEN_BREAK)) break;
      note(g, VC_GEN_BREAK);
      put(g, "(if ");
      cond(g);
      put(g, pct(g, 50) ? " (break))" : " (continue))");
      return;
    case 13:
      if (!on(g, VC_GEN_RETURN) || !pct(g, 40)) break;
      note(g, VC_GEN_RETURN);
      g->seg_return = true;
      put(g, "(if ");
      cond(g);
      put(g, " (return))");
      return;
    case 14:
      if (!nest) break;
      put(g, "(block");
      body(g, 1 + rnd(g, 2));
      put(g, ")");
      return;
    default:
      break;
    }
  }
}

/* ---- segments ---- */

/* Roles of the buffers for a new segment; shared memory is undefined again. */
static void new_segment(gen *g) {
  g->seg_return = false;
  for (uint32_t i = 0; i < g->nbufs; i++) {
    gbuf *b = &g->bufs[i];
    if (b->access == VC_READ) {
      b->role = ROLE_ANY;
      continue;
    }
    uint32_t k = rnd(g, 10);
    b->role = k < 5 ? ROLE_OWN : k < 8 || b->type == VC_F32 || !on(g, VC_GEN_ATOMIC)
                                     ? ROLE_ANY
                                     : ROLE_ATOM;
    b->fam = (afam)rnd(g, FAM_COUNT);
  }
  for (uint32_t i = 0; i < g->nsh; i++) g->sh[i].state = SH_NONE;
}

/* A workgroup barrier at the segment's top level and the shared phase it
   begins; the own slot of a fresh array is written unconditionally first. */
static void wg_barrier(gen *g) {
  if (!g->nsh || g->seg_return) return;
  for (uint32_t i = 0; i < g->nsh; i++) {
    gshared *s = &g->sh[i];
    if (s->state == SH_NONE || s->state == SH_OWN) {
      vc_sb_printf(g->o, "(store %s lid ", s->name);
      expr(g, s->type, g->max_expr);
      put(g, ")");
      nl(g);
    }
  }
  note(g, VC_GEN_SHARED);
  put(g, "(barrier workgroup)");
  for (uint32_t i = 0; i < g->nsh; i++) {
    gshared *s = &g->sh[i];
    if (s->state == SH_ALL) {
      uint32_t k = rnd(g, 3);
      s->state = k == 0 ? SH_OWN : k == 1 && s->type != VC_F32 && on(g, VC_GEN_ATOMIC) ? SH_ATOM
                                                                                       : SH_ALL;
      s->fam = (afam)rnd(g, FAM_COUNT);
    } else {
      s->state = SH_ALL;
    }
  }
}

static void segment_body(gen *g, uint32_t n) {
  for (uint32_t i = 0; i < n && g->budget > 0; i++) {
    nl(g);
    if (g->nsh && !g->seg_return && pct(g, 30)) wg_barrier(g);
    else stmt(g);
  }
}

static void grid_barrier(gen *g, bool nested) {
  note(g, VC_GEN_GRID_BARRIER);
  if (nested) note(g, VC_GEN_NESTED_BARRIER);
  nl(g);
  put(g, "(barrier grid)");
  g->seg++;
  new_segment(g);
}

/* The flag fixpoint's pass counter: invocation 0 counts the passes and sets
   the flag while fewer than `until` have run. */
static void fixpoint_tail(gen *g, uint32_t until) {
  nl(g);
  vc_sb_printf(g->o,
               "(if (eq id 0u) (block (store pc 0u (add (load pc 0u) 1u)) "
               "(if (lt (load pc 0u) %uu) (store flag 0u 1u))))",
               until);
}

static void entry(gen *g, uint32_t fix_until) {
  put(g, "  (entry");
  g->indent = 2;
  new_segment(g);
  bool grid = on(g, VC_GEN_GRID_BARRIER) && g->nseg > 1;
  bool edge = grid && on(g, VC_GEN_EDGE_BARRIER);
  uint32_t lead = edge && pct(g, 25);
  if (lead) {
    note(g, VC_GEN_EDGE_BARRIER);
    grid_barrier(g, false);
  }
  nl(g);
  put(g, "(let id ");
  { /* spelled out: the let is not visible in itself */
    uint32_t sx = g->wg[0] * g->grid[0], sy = g->wg[1] * g->grid[1];
    if (g->dims == 1) put(g, "(global_id x))");
    else if (g->dims == 2) vc_sb_printf(g->o, "(add (global_id x) (mul (global_id y) %uu)))", sx);
    else
      vc_sb_printf(g->o,
                   "(add (add (global_id x) (mul (global_id y) %uu)) (mul (global_id z) %uu)))",
                   sx, sx * sy);
  }
  if (g->nsh) {
    nl(g);
    if (g->dims == 1) put(g, "(let lid (local_id x))");
    else if (g->dims == 2)
      vc_sb_printf(g->o, "(let lid (add (local_id x) (mul (local_id y) %uu)))", g->wg[0]);
    else
      vc_sb_printf(g->o,
                   "(let lid (add (add (local_id x) (mul (local_id y) %uu)) (mul (local_id z) "
                   "%uu)))",
                   g->wg[0], g->wg[0] * g->wg[1]);
  }
  if (g->oob) {
    /* declared out-of-bounds: a load past the end, always executed */
    const gbuf *b = &g->bufs[0];
    note(g, VC_GEN_OOB);
    nl(g);
    vc_sb_printf(g->o, "(let v%u (load %s (add id %uu)))", g->next_name++, b->name, b->count);
  }
  uint32_t open = 0, marks[2];
  uint32_t per = g->size == VC_GEN_SMALL ? 3 : g->size == VC_GEN_MEDIUM ? 5 : 8;
  uint32_t target = grid ? g->nseg : 1;
  while (g->seg + 1 < target) {
    if (g->nseg - 1 - g->seg > 1 && on(g, VC_GEN_NESTED_BARRIER) && open < 2 && pct(g, 30)) {
      nl(g);
      put(g, "(block");
      g->indent++;
      marks[open++] = g->nsyms;
    }
    segment_body(g, 1 + rnd(g, per));
    grid_barrier(g, open > 0);
    if (edge && g->seg + 1 < target && pct(g, 20)) {
      note(g, VC_GEN_EDGE_BARRIER);
      grid_barrier(g, open > 0); /* adjacent: an empty segment */
    }
    /* the pass counter opens the last segment, so that no return skips it */
    if (fix_until && g->seg + 1 == target) {
      fixpoint_tail(g, fix_until);
      fix_until = 0;
    }
    if (open && pct(g, 40)) {
      segment_body(g, rnd(g, 2));
      put(g, ")");
      g->indent--;
      g->nsyms = marks[--open]; /* the block's names end here */
    }
  }
  bool trail = edge && g->nseg > 2 && pct(g, 25);
  if (fix_until) fixpoint_tail(g, fix_until); /* a program of one segment */
  segment_body(g, 1 + rnd(g, per));
  while (open) {
    put(g, ")");
    g->indent--;
    open--;
  }
  if (trail) {
    note(g, VC_GEN_EDGE_BARRIER);
    grid_barrier(g, false);
  }
  put(g, "))\n");
}

/* ---- declarations ---- */

static uint32_t odd(gen *g, uint32_t max) {
  uint32_t v = 1 + rnd(g, max);
  return pct(g, 70) ? v | 1u : v;
}

static void dispatch(gen *g) {
  g->dims = 1;
  if (on(g, VC_GEN_DIM3) && pct(g, 25)) g->dims = 3;
  else if (on(g, VC_GEN_DIM2) && pct(g, 33)) g->dims = 2;
  for (uint32_t a = 0; a < 3; a++) g->wg[a] = g->grid[a] = 1;
  static const uint32_t axis[3][3] = {{48, 8, 4}, {400, 20, 7}, {3000, 54, 14}};
  uint32_t per_axis = axis[g->size][g->dims - 1];
  uint32_t wg_max = g->dims == 3 ? 9 : 15; /* odd() may add one: at most 10^3 invocations */
  for (uint32_t a = 0; a < g->dims; a++) {
    uint32_t total = 1 + rnd(g, per_axis);
    g->wg[a] = odd(g, total < wg_max ? total : wg_max);
    g->grid[a] = odd(g, (total + g->wg[a] - 1) / g->wg[a]);
  }
  g->N = g->W = 1;
  for (uint32_t a = 0; a < 3; a++) {
    g->N *= g->wg[a] * g->grid[a];
    g->W *= g->wg[a];
  }
}

static void buffers(gen *g) {
  uint32_t max = on(g, VC_GEN_MANY_BUFFERS) && pct(g, 30) ? 12 : 4;
  g->nbufs = 2 + rnd(g, max - 1);
  if (g->nbufs > 6) note(g, VC_GEN_MANY_BUFFERS);
  for (uint32_t i = 0; i < g->nbufs; i++) {
    gbuf *b = &g->bufs[i];
    memset(b, 0, sizeof *b);
    snprintf(b->name, sizeof b->name, "b%u", i);
    b->type = i == 0 ? VC_U32 : any_type(g);
    uint32_t a = i == 0 ? 0 : rnd(g, 3);
    b->access = a == 0 ? VC_READ : a == 1 ? VC_WRITE : VC_READ_WRITE;
    if (b->access == VC_READ) {
      b->count = 1 + rnd(g, 2 * g->N);
      continue;
    }
    b->mult = 1 + (pct(g, 25) ? 1 : 0);
    b->count = b->mult * g->N;
    if (on(g, VC_GEN_PARTIAL_WRITE) && pct(g, 30)) {
      if (pct(g, 50)) {
        b->count += 1 + rnd(g, 5); /* a tail nobody writes */
        note(g, VC_GEN_PARTIAL_WRITE);
      } else {
        b->partial = true;
        b->pred_mod = 2 + rnd(g, 3);
        b->pred_rem = rnd(g, b->pred_mod);
      }
    }
  }
}

static void print_init(gen *g, const gbuf *b) {
  if (b->access == VC_WRITE) return;
  switch (rnd(g, 6)) {
  case 0:
    return; /* zero */
  case 1:
    put(g, " (init iota)");
    return;
  case 2:
    put(g, " (init (fill ");
    lit(g, b->type, lit_bits(g, b->type));
    put(g, "))");
    return;
  case 3: {
    put(g, " (init (values");
    uint32_t n = 1 + rnd(g, b->count < 6 ? b->count : 6);
    for (uint32_t i = 0; i < n; i++) {
      put(g, " ");
      lit(g, b->type, lit_bits(g, b->type));
    }
    put(g, "))");
    return;
  }
  case 4:
    if (b->type == VC_F32) {
      put(g, " (init (random-f32 ");
      vc_sb_printf(g->o, "%u -4.0f 4.0f))", rnd(g, 1000));
      return;
    }
    break;
  default:
    break;
  }
  vc_sb_printf(g->o, " (init (random 0x%llx))", (unsigned long long)vc_rng_next(&g->r));
}

static void types(gen *g) {
  static const struct {
    vc_type t;
    vc_gen_feature f;
  } opt[] = {{VC_I32, VC_GEN_I32}, {VC_F32, VC_GEN_F32}, {VC_U64, VC_GEN_U64}, {VC_I64, VC_GEN_I64}};
  g->ntypes = 0;
  g->types[g->ntypes++] = VC_U32;
  for (uint32_t i = 0; i < 4; i++)
    if (on(g, opt[i].f)) g->types[g->ntypes++] = opt[i].t;
}

void vc_gen_write(const vc_gen_opts *o, uint64_t seed, uint32_t index, vc_gen_stats *stats,
                  vc_strbuf *out) {
  gen *g = calloc(1, sizeof *g);
  if (!g) abort();
  vc_rng_seed(&g->r, seed, index, (uint64_t)o->size << 56 ^ o->features);
  g->o = out;
  g->feat = o->features & VC_GEN_ALL_FEATURES;
  g->size = o->size;
  types(g);
  g->max_expr = g->size == VC_GEN_SMALL ? 2 : g->size == VC_GEN_MEDIUM ? 3 : 4;
  g->budget = g->size == VC_GEN_SMALL ? 14 : g->size == VC_GEN_MEDIUM ? 40 : 90;
  uint32_t maxseg = g->size == VC_GEN_SMALL ? 4 : g->size == VC_GEN_MEDIUM ? 6 : 10;
  g->nseg = on(g, VC_GEN_GRID_BARRIER) ? 1 + rnd(g, maxseg) : 1;
  dispatch(g);
  buffers(g);
  if (on(g, VC_GEN_SHARED) && pct(g, 40)) {
    g->nsh = 1 + (pct(g, 30) ? 1 : 0);
    for (uint32_t i = 0; i < g->nsh; i++) {
      snprintf(g->sh[i].name, sizeof g->sh[i].name, "s%u", i);
      g->sh[i].type = any_type(g);
    }
  }
  g->oob = on(g, VC_GEN_OOB) && pct(g, 10);
  uint32_t fix = 0, fix_max = 0, fix_until = 0;
  if (on(g, VC_GEN_FIXPOINT_FLAG) && pct(g, 15)) {
    fix = 2;
    fix_max = 1 + rnd(g, 4);
    fix_until = 1 + rnd(g, fix_max + 1); /* fix_max + 1: declared not to converge */
    g->pc = true;
    note(g, VC_GEN_FIXPOINT_FLAG);
  } else if (on(g, VC_GEN_FIXPOINT) && pct(g, 15)) {
    fix = 1;
    fix_max = 1 + rnd(g, 3);
    note(g, VC_GEN_FIXPOINT);
  }

  vc_sb_printf(out, "(program gen_%llu_%u\n", (unsigned long long)seed, index);
  vc_sb_printf(out, "  (doc \"generated: vyre-conform generate --seed %llu --size %s --features ",
               (unsigned long long)seed, vc_gen_size_name((vc_gen_size)o->size));
  vc_gen_features_print(o->features, out);
  vc_sb_printf(out, "; program %u\")\n", index);
  vc_sb_printf(out, "  (workgroup %u %u %u)\n  (grid %u %u %u)\n", g->wg[0], g->wg[1], g->wg[2],
               g->grid[0], g->grid[1], g->grid[2]);
  if (g->dims == 2) note(g, VC_GEN_DIM2);
  if (g->dims == 3) note(g, VC_GEN_DIM3);
  for (uint32_t i = 0; i < g->nbufs; i++) {
    gbuf *b = &g->bufs[i];
    note_type(g, b->type);
    vc_sb_printf(out, "  (buffer %s %s %u %s", b->name, vc_type_name(b->type), b->count,
                 vc_access_name(b->access));
    print_init(g, b);
    put(g, ")\n");
  }
  if (g->pc) put(g, "  (buffer pc u32 1 read_write)\n  (buffer flag u32 1 read_write)\n");
  for (uint32_t i = 0; i < g->nsh; i++)
    vc_sb_printf(out, "  (shared %s %s %u)\n", g->sh[i].name, vc_type_name(g->sh[i].type), g->W);
  if (fix == 1) vc_sb_printf(out, "  (fixpoint (max %u))\n  (expect (passes %u))\n", fix_max, fix_max);
  if (fix == 2) {
    vc_sb_printf(out, "  (fixpoint (max %u) (flag flag))\n", fix_max);
    if (fix_until <= fix_max)
      vc_sb_printf(out, "  (expect (converges))\n  (expect (passes %u))\n", fix_until);
    else
      vc_sb_printf(out, "  (expect (passes %u))\n", fix_max);
  }
  if (g->oob) put(g, "  (expect out-of-bounds)\n");
  entry(g, fix == 2 ? fix_until : 0);
  if (stats) {
    stats->programs++;
    for (uint32_t f = 0; f < VC_GEN_FEATURE_COUNT; f++) stats->count[f] += g->count[f];
  }
  free(g);
}
