/* The code writer of the generator: literals, names, indices, expressions
 * and statements, each keeping the segment's ownership roles and shared
 * phases (gen_state.h; the rules in gen_program.c's opening comment). */
#include <stdio.h>
#include <string.h>

#include "harness/gen/gen_state.h"
#include "harness/lang/print.h"

const char *const vc_gen_fam_ops[FAM_COUNT][2] = {
    {"add", "sub"}, {"and", "and"}, {"or", "or"}, {"xor", "xor"}, {"min", "min"}, {"max", "max"}};

/* ---- literals ---- */

uint64_t vc_gen_lit_bits(gen *g, vc_type t) {
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

void vc_gen_lit(gen *g, vc_type t, uint64_t bits) {
  if (!on(g, VC_GEN_HEX) || !wpct(g, VC_GEN_HEX, 10)) {
    vc_print_literal(t, bits, g->o);
    return;
  }
  note(g, VC_GEN_HEX); /* the bits, as docs/format.md spells them */
  static const char *const suffix[VC_TYPE_COUNT] = {"u", "i", "f", "", "u64", "i64"};
  if (t == VC_F32) vc_sb_printf(g->o, "0x%08llxf", (unsigned long long)(uint32_t)bits);
  else vc_sb_printf(g->o, "0x%llx%s", (unsigned long long)bits, suffix[t]);
}

/* ---- names ---- */

static void sym_name(gen *g, const gsym *s) { vc_sb_printf(g->o, "v%u", s->id); }

/* May s be used here: of a kind in the mask, and, when it was declared in
   an earlier segment, with the construct that makes it live allowed? */
static bool usable(const gen *g, const gsym *s, vc_type t, unsigned kinds) {
  if (s->type != t || !((kinds >> s->kind) & 1u)) return false;
  if (s->seg == g->seg || (s->kind != SYM_LET && s->kind != SYM_VAR)) return true;
  if (s->seg + 2 <= g->seg && !on(g, VC_GEN_LIVE_FAR)) return false;
  if (s->kind == SYM_VAR) return on(g, VC_GEN_LIVE_VAR);
  return on(g, s->atomic ? VC_GEN_ATOMIC_LET : VC_GEN_LIVE_LET);
}

/* A visible symbol of type t (kind mask: 1 << symkind), or NULL. */
static gsym *pick_sym(gen *g, vc_type t, unsigned kinds) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < g->nsyms; i++) n += usable(g, &g->syms[i], t, kinds);
  if (!n) return NULL;
  uint32_t k = rnd(g, n);
  for (uint32_t i = 0; i < g->nsyms; i++)
    if (usable(g, &g->syms[i], t, kinds) && k-- == 0) return &g->syms[i];
  return NULL;
}

static void use_sym(gen *g, gsym *s) {
  if (s->seg + 2 <= g->seg && (s->kind == SYM_LET || s->kind == SYM_VAR)) note(g, VC_GEN_LIVE_FAR);
  if (s->seg != g->seg) {
    if (s->kind == SYM_VAR) note(g, VC_GEN_LIVE_VAR);
    else if (s->atomic) note(g, VC_GEN_ATOMIC_LET);
    else if (s->kind == SYM_LET) note(g, VC_GEN_LIVE_LET);
  }
  sym_name(g, s);
}

/* ---- indices ---- */

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
  vc_gen_expr(g, VC_U32, d);
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
    if (s->type != t || (s->state != SH_OWN && s->state != SH_ALL) || s->aread) continue;
    s->pread = true;
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
  if (b->stored_seg == NO_SEG) b->stored_seg = g->seg; /* an atomic load stores nothing: close enough */
  static const char *const ops[] = {"add", "sub", "and", "or", "xor", "min", "max", "exchange"};
  uint32_t k = rnd(g, 10);
  note(g, VC_GEN_ATOMIC);
  if (k == 8) {
    vc_sb_printf(g->o, "(atomic cmpxchg %s ", b->name);
    own_index(g, b);
    put(g, " ");
    vc_gen_expr(g, t, d);
    put(g, " ");
    vc_gen_expr(g, t, d);
  } else if (k == 9 && !vc_type_is_64(t)) {
    vc_sb_printf(g->o, "(atomic load %s ", b->name);
    own_index(g, b);
  } else {
    vc_sb_printf(g->o, "(atomic %s %s ", ops[k % 8], b->name);
    own_index(g, b);
    put(g, " ");
    vc_gen_expr(g, t, d);
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
  vc_gen_lit(g, t, vc_gen_lit_bits(g, t));
}

static vc_type same_size_type(gen *g, vc_type t) {
  vc_type c[3];
  uint32_t n = 0;
  for (uint32_t i = 0; i < g->ntypes; i++)
    if (vc_type_is_64(g->types[i]) == vc_type_is_64(t)) c[n++] = g->types[i];
  return c[rnd(g, n)];
}

void vc_gen_expr(gen *g, vc_type t, uint32_t d) {
  if (d == 0 || pct(g, 25)) {
    leaf(g, t);
    return;
  }
  d--;
  for (;;) {
    switch (pick_kind(g, g->expr_wt, 12)) {
    case 0:
    case 1:
    case 2: { /* arithmetic */
      static const char *const ar[] = {"add", "sub", "mul", "min", "max", "div", "rem"};
      uint32_t k = rnd(g, t == VC_F32 ? 5 : 7); /* f32 div needs an ulp expectation */
      vc_sb_printf(g->o, "(%s ", ar[k]);
      vc_gen_expr(g, t, d);
      put(g, " ");
      vc_gen_expr(g, t, d);
      put(g, ")");
      return;
    }
    case 3: { /* bitwise and shifts */
      if (t == VC_F32) break;
      static const char *const bw[] = {"and", "or", "xor", "shl", "shr"};
      vc_sb_printf(g->o, "(%s ", bw[rnd(g, 5)]);
      vc_gen_expr(g, t, d);
      put(g, " ");
      vc_gen_expr(g, t, d);
      put(g, ")");
      return;
    }
    case 4: { /* unary */
      const char *op = "neg";
      uint32_t k = rnd(g, 3);
      if (k == 1 && (vc_type_is_signed(t) || t == VC_F32)) op = "abs";
      if (k == 2 && t != VC_F32) op = t == VC_U32 && pct(g, 50) ? "lnot" : "not";
      vc_sb_printf(g->o, "(%s ", op);
      vc_gen_expr(g, t, d);
      put(g, ")");
      return;
    }
    case 5: { /* comparisons and logic */
      if (t != VC_U32 || !on(g, VC_GEN_SELECT)) break;
      note(g, VC_GEN_SELECT);
      if (pct(g, 30)) {
        vc_sb_printf(g->o, "(%s ", pct(g, 50) ? "land" : "lor");
        vc_gen_expr(g, VC_U32, d);
      } else {
        static const char *const cmp[] = {"eq", "ne", "lt", "le", "gt", "ge"};
        vc_type u = any_type(g);
        vc_sb_printf(g->o, "(%s ", cmp[rnd(g, 6)]);
        vc_gen_expr(g, u, d);
        put(g, " ");
        vc_gen_expr(g, u, d);
        put(g, ")");
        return;
      }
      put(g, " ");
      vc_gen_expr(g, VC_U32, d);
      put(g, ")");
      return;
    }
    case 6: /* select */
      if (!on(g, VC_GEN_SELECT)) break;
      note(g, VC_GEN_SELECT);
      put(g, "(select ");
      vc_gen_expr(g, VC_U32, d);
      put(g, " ");
      vc_gen_expr(g, t, d);
      put(g, " ");
      vc_gen_expr(g, t, d);
      put(g, ")");
      return;
    case 7: /* cast */
      if (!on(g, VC_GEN_CAST)) break;
      note(g, VC_GEN_CAST);
      if (pct(g, 30)) {
        vc_type u = same_size_type(g, t);
        note_type(g, u);
        vc_sb_printf(g->o, "(bitcast %s ", vc_type_name(t));
        /* An arithmetic NaN's bits are the device's (docs/semantics.md, "One
           NaN"): through a bitcast they would reach an integer, compared bit
           for bit. (max E NaN) is E, or the canonical NaN for any NaN E. */
        bool guard = u == VC_F32 && t != VC_F32;
        if (guard) put(g, "(max ");
        vc_gen_expr(g, u, d);
        if (guard) put(g, " 0x7fc00000f)");
      } else {
        vc_type u = any_type(g);
        note_type(g, u);
        vc_sb_printf(g->o, "(cast %s ", vc_type_name(t));
        vc_gen_expr(g, u, d);
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

static void stmts(gen *g, uint32_t n) {
  for (uint32_t i = 0; i < n && g->budget > 0; i++) {
    nl(g);
    vc_gen_stmt(g);
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
  bool atomic = !var && on(g, VC_GEN_ATOMIC_LET) && t != VC_F32 && wpct(g, VC_GEN_ATOMIC_LET, 25);
  uint32_t name = g->next_name++; /* recorded after its value: not visible in it */
  vc_sb_printf(g->o, "(%s v%u ", var ? "var" : "let", name);
  if (!(atomic && owned_atomic(g, t, g->max_expr - 1))) {
    atomic = false;
    vc_gen_expr(g, t, g->max_expr);
  } else {
    note(g, VC_GEN_ATOMIC_LET);
  }
  put(g, ")");
  if (g->nsyms < MAX_SYMS) {
    gsym *s = &g->syms[g->nsyms++];
    s->id = name;
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
  vc_gen_expr(g, t, g->max_expr);
  put(g, ")");
  return true;
}

static bool store_stmt(gen *g) {
  gbuf *b = pick_buf(g, any_type(g), ROLE_OWN);
  if (!b) return false;
  note_type(g, b->type);
  if (b->stored_seg == NO_SEG) b->stored_seg = g->seg;
  bool guard = b->partial;
  if (guard) {
    note(g, VC_GEN_PARTIAL_WRITE);
    put(g, "(if (eq (rem ");
    id(g);
    vc_sb_printf(g->o, " %uu) %uu) ", b->pred_mod, b->pred_rem);
  }
  if (on(g, VC_GEN_ATOMIC) && on(g, VC_GEN_XCHG_STMT) && b->type != VC_F32 && wpct(g, VC_GEN_XCHG_STMT, 10)) {
    /* the old value discarded; on an owned element, so nothing contends */
    note(g, VC_GEN_ATOMIC);
    note(g, VC_GEN_XCHG_STMT);
    bool cas = pct(g, 50);
    vc_sb_printf(g->o, "(atomic %s %s ", cas ? "cmpxchg" : "exchange", b->name);
    own_index(g, b);
    if (cas) {
      put(g, " ");
      vc_gen_expr(g, b->type, g->max_expr > 1 ? g->max_expr - 1 : 1);
    }
    put(g, " ");
    vc_gen_expr(g, b->type, g->max_expr);
    put(g, ")");
    if (guard) put(g, ")");
    return true;
  }
  if (on(g, VC_GEN_ATOMIC) && !vc_type_is_64(b->type) && b->type != VC_F32 && pct(g, 15)) {
    note(g, VC_GEN_ATOMIC);
    vc_sb_printf(g->o, "(atomic store %s ", b->name);
  } else {
    vc_sb_printf(g->o, "(store %s ", b->name);
  }
  own_index(g, b);
  put(g, " ");
  vc_gen_expr(g, b->type, g->max_expr);
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
    if (b->stored_seg == NO_SEG) b->stored_seg = g->seg;
    vc_sb_printf(g->o, "(atomic %s %s ", vc_gen_fam_ops[b->fam][rnd(g, 2)], b->name);
    any_index(g, b->count, 1);
    put(g, " ");
    vc_gen_expr(g, t, g->max_expr);
    put(g, ")");
    return true;
  }
  for (uint32_t i = 0; i < g->nsh; i++) {
    gshared *s = &g->sh[i];
    if (s->state != SH_ATOM || s->type != t || g->seg_return) continue;
    note(g, VC_GEN_ATOMIC);
    s->dirty = true;
    vc_sb_printf(g->o, "(atomic %s %s ", vc_gen_fam_ops[s->fam][rnd(g, 2)], s->name);
    any_index(g, g->W, 1);
    put(g, " ");
    vc_gen_expr(g, t, g->max_expr);
    put(g, ")");
    return true;
  }
  return false;
}

static bool shared_store(gen *g) {
  if (g->seg_return) return false; /* no barrier may follow to order a read */
  for (uint32_t i = 0; i < g->nsh; i++) {
    gshared *s = &g->sh[i];
    if (s->state != SH_OWN) continue;
    s->dirty = true;
    vc_gen_shared_store_open(g, s);
    vc_gen_expr(g, s->type, g->max_expr);
    put(g, ")");
    return true;
  }
  return false;
}

static bool atomic_ls(gen *g, const gshared *s) {
  return on(g, VC_GEN_SHARED_ATOMIC_LS) && on(g, VC_GEN_ATOMIC) &&
         (s->type == VC_U32 || s->type == VC_I32) && wpct(g, VC_GEN_SHARED_ATOMIC_LS, 25);
}

/* ---- liveness: values that barriers order, into outputs ---- */

static bool writable(const gbuf *b) { return b->access != VC_READ; }

/* Opens (store B OWN-INDEX ..., under B's predicate when B is written in part. */
static void own_store_open(gen *g, gbuf *b) {
  note_type(g, b->type);
  if (b->stored_seg == NO_SEG) b->stored_seg = g->seg;
  if (b->partial) {
    note(g, VC_GEN_PARTIAL_WRITE);
    put(g, "(if (eq (rem ");
    id(g);
    vc_sb_printf(g->o, " %uu) %uu) ", b->pred_mod, b->pred_rem);
  }
  vc_sb_printf(g->o, "(store %s ", b->name);
  own_index(g, b);
  put(g, " ");
}

static void own_store_close(gen *g, const gbuf *b) { put(g, b->partial ? "))" : ")"); }

/* A writable buffer other than x that can take x's values: of its type, or
   any with cast. */
static gbuf *partner(gen *g, const gbuf *x) {
  uint32_t n = 0, idx[MAX_BUFS], m = 0, any[MAX_BUFS];
  for (uint32_t i = 0; i < g->nbufs; i++) {
    gbuf *b = &g->bufs[i];
    if (b == x || !writable(b)) continue;
    if (b->type == x->type) idx[n++] = i;
    any[m++] = i;
  }
  if (n && (!m || !on(g, VC_GEN_CAST) || pct(g, 70))) return &g->bufs[idx[rnd(g, n)]];
  return m && on(g, VC_GEN_CAST) ? &g->bufs[any[rnd(g, m)]] : NULL;
}

bool vc_gen_source(gen *g) {
  uint32_t n = 0, idx[MAX_BUFS];
  for (uint32_t i = 0; i < g->nbufs; i++)
    if (writable(&g->bufs[i]) && partner(g, &g->bufs[i])) idx[n++] = i;
  if (!n) return false;
  gbuf *x = &g->bufs[idx[rnd(g, n)]];
  x->role = ROLE_OWN; /* the segment's first statement: nothing has used x yet */
  own_store_open(g, x);
  vc_sb_printf(g->o, "(%s ", x->type == VC_F32 ? "add" : pct(g, 50) ? "add" : "xor");
  vc_gen_expr(g, x->type, g->max_expr);
  vc_sb_printf(g->o, " (load %s ", x->name);
  own_index(g, x);
  put(g, "))");
  own_store_close(g, x);
  g->src = x;
  return true;
}

bool vc_gen_sink(gen *g) {
  gbuf *x = g->src && g->src->stored_seg < g->seg ? g->src : NULL;
  for (uint32_t i = 0; !x && i < g->nbufs; i++)
    if (writable(&g->bufs[i]) && g->bufs[i].stored_seg < g->seg) x = &g->bufs[i];
  gbuf *o = x ? partner(g, x) : NULL;
  if (!o) return false;
  /* the segment's first statements: nobody has used x or o in it yet */
  x->role = ROLE_ANY;
  o->role = ROLE_OWN;
  own_store_open(g, o);
  bool mixed = pct(g, 50);
  if (mixed) {
    static const char *const ops[] = {"add", "xor", "sub", "max"};
    vc_sb_printf(g->o, "(%s ", ops[o->type == VC_F32 ? 2 * rnd(g, 2) : rnd(g, 4)]);
  }
  if (o->type != x->type) {
    note(g, VC_GEN_CAST);
    vc_sb_printf(g->o, "(cast %s ", vc_type_name(o->type));
  }
  /* another invocation's element (mostly): what the grid barrier orders */
  vc_sb_printf(g->o, "(load %s ", x->name);
  if (x->count == 1) put(g, "0u");
  else {
    put(g, "(rem (add ");
    id(g);
    vc_sb_printf(g->o, " %uu) %uu)", 1 + rnd(g, x->count - 1), x->count);
  }
  put(g, ")");
  if (o->type != x->type) put(g, ")");
  if (mixed) {
    put(g, " ");
    vc_gen_expr(g, o->type, g->max_expr > 1 ? g->max_expr - 1 : 1);
    put(g, ")");
  }
  own_store_close(g, o);
  g->sink_done = true;
  return true;
}

gbuf *vc_gen_own_buf(gen *g, vc_type want, vc_type *t) {
  uint32_t n = 0, idx[MAX_BUFS], m = 0, any[MAX_BUFS];
  for (uint32_t i = 0; i < g->nbufs; i++) {
    gbuf *b = &g->bufs[i];
    if (!writable(b) || b->role != ROLE_OWN) continue;
    if (b->type == want) idx[n++] = i;
    any[m++] = i;
  }
  gbuf *b = n ? &g->bufs[idx[rnd(g, n)]] : m && on(g, VC_GEN_CAST) ? &g->bufs[any[rnd(g, m)]] : NULL;
  if (b && t) *t = b->type;
  return b;
}

void vc_gen_readback(gen *g, gshared *s) {
  vc_type t = s->type;
  gbuf *o = vc_gen_own_buf(g, s->type, &t);
  if (!o) return;
  nl(g);
  own_store_open(g, o);
  bool mixed = pct(g, 40);
  if (mixed) vc_sb_printf(g->o, "(%s ", t == VC_F32 ? "add" : pct(g, 50) ? "add" : "xor");
  if (t != s->type) {
    note(g, VC_GEN_CAST);
    vc_sb_printf(g->o, "(cast %s ", vc_type_name(t));
  }
  if (!s->pread && atomic_ls(g, s)) {
    note(g, VC_GEN_SHARED_ATOMIC_LS);
    s->aread = true;
    vc_sb_printf(g->o, "(atomic load %s ", s->name);
  } else if (!s->aread) {
    s->pread = true;
    vc_sb_printf(g->o, "(load %s ", s->name);
  } else { /* atomically read already: only atomic loads */
    vc_sb_printf(g->o, "(atomic load %s ", s->name);
  }
  if (g->W == 1) put(g, "0u");
  else vc_sb_printf(g->o, "(rem (add lid %uu) %uu)", 1 + rnd(g, g->W - 1), g->W);
  put(g, ")");
  if (t != s->type) put(g, ")");
  if (mixed) {
    put(g, " ");
    vc_gen_expr(g, t, g->max_expr > 1 ? g->max_expr - 1 : 1);
    put(g, ")");
  }
  own_store_close(g, o);
  s->dirty = false;
}

void vc_gen_shared_store_open(gen *g, gshared *s) {
  if (atomic_ls(g, s)) {
    note(g, VC_GEN_SHARED_ATOMIC_LS);
    vc_sb_printf(g->o, "(atomic store %s lid ", s->name);
  } else {
    vc_sb_printf(g->o, "(store %s lid ", s->name);
  }
}

void vc_gen_shared_atomic(gen *g, gshared *s) {
  note(g, VC_GEN_ATOMIC);
  s->dirty = true;
  nl(g);
  vc_sb_printf(g->o, "(atomic %s %s ", vc_gen_fam_ops[s->fam][rnd(g, 2)], s->name);
  any_index(g, g->W, 1);
  put(g, " ");
  vc_gen_expr(g, s->type, g->max_expr);
  put(g, ")");
}

static void cond(gen *g) {
  if (pct(g, 50)) {
    /* a predicate of the invocation: some take the branch, some do not */
    put(g, "(eq (rem ");
    id(g);
    vc_sb_printf(g->o, " %uu) %uu)", 2 + rnd(g, 4), rnd(g, 2));
  } else {
    vc_gen_expr(g, VC_U32, g->max_expr > 1 ? g->max_expr - 1 : 1);
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
    vc_gen_expr(g, VC_U32, 1);
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
    vc_gen_expr(g, VC_U32, 1);
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

/* An f32 quotient, the one place an f32 div stands: the APIs promise 2.5
   ulp only for divisors of moderate size, so both operands come from
   integers (numerator 0 ... 1023, divisor 1 ... 1024), and the quotient goes
   only into fq, which nothing reads and which allows 3 ulp. */
static void quotient(gen *g) {
  note(g, VC_GEN_F32_DIV);
  put(g, "(store fq ");
  id(g);
  put(g, " (div (cast f32 (and ");
  vc_gen_expr(g, VC_U32, 1);
  put(g, " 1023u)) (cast f32 (add (and ");
  vc_gen_expr(g, VC_U32, 1);
  put(g, " 1023u) 1u))))");
}

void vc_gen_stmt(gen *g) {
  g->budget--;
  for (;;) {
    uint32_t k = pick_kind(g, g->stmt_wt, 16);
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
    case 15:
      if (!g->fq) break;
      quotient(g);
      return;
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
      { /* shared memory written since the last barrier is owed one and a read */
        bool dirty = false;
        for (uint32_t i = 0; i < g->nsh; i++) dirty |= g->sh[i].dirty;
        if (dirty) break;
      }
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

