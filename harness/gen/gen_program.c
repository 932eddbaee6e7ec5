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

#include "harness/gen/gen_state.h"

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
  for (uint32_t i = 0; i < g->nsh; i++) {
    g->sh[i].state = SH_NONE;
    g->sh[i].dirty = g->sh[i].aread = g->sh[i].pread = false;
  }
  /* shared memory read after a workgroup barrier goes into an owned output:
     one is owned in every segment, of the array's type where there is one */
  if (!g->nsh) return;
  gbuf *own = NULL, *typed = NULL, *any = NULL;
  for (uint32_t i = 0; i < g->nbufs; i++) {
    gbuf *b = &g->bufs[i];
    if (b->access == VC_READ) continue;
    if (b->role == ROLE_OWN && (b->type == g->sh[0].type || !own)) own = b;
    if (b->type == g->sh[0].type && !typed) typed = b;
    if (!any) any = b;
  }
  if ((!own || own->type != g->sh[0].type) && typed) typed->role = ROLE_OWN;
  else if (!own && any) any->role = ROLE_OWN;
}

/* A workgroup barrier at the segment's top level and the shared phase it
   begins; the own slot of a fresh array is written unconditionally first,
   and what was written before the barrier is read after it, into an output.
   An array entering its atomic phase gets one atomic at once. */
static void wg_barrier(gen *g, bool last /* the segment's last: no new phase of writes */) {
  if (!g->nsh || g->seg_return) return;
  bool was_all[MAX_SHARED];
  for (uint32_t i = 0; i < g->nsh; i++) {
    gshared *s = &g->sh[i];
    was_all[i] = s->state == SH_ALL;
    if (s->state == SH_NONE || s->state == SH_OWN) {
      vc_gen_shared_store_open(g, s);
      vc_gen_expr(g, s->type, g->max_expr);
      put(g, ")");
      nl(g);
    }
  }
  note(g, VC_GEN_SHARED);
  put(g, "(barrier workgroup)");
  for (uint32_t i = 0; i < g->nsh; i++) {
    gshared *s = &g->sh[i];
    s->dirty = s->aread = s->pread = false;
    if (s->state == SH_ALL && !last) {
      uint32_t k = rnd(g, 3);
      s->state = k == 0 ? SH_OWN : k == 1 && s->type != VC_F32 && on(g, VC_GEN_ATOMIC) ? SH_ATOM
                                                                                       : SH_ALL;
      s->fam = (afam)rnd(g, FAM_COUNT);
    } else {
      s->state = SH_ALL;
    }
  }
  for (uint32_t i = 0; i < g->nsh; i++) {
    if (!was_all[i]) vc_gen_readback(g, &g->sh[i]);
    if (g->sh[i].state == SH_ATOM) vc_gen_shared_atomic(g, &g->sh[i]);
  }
}

/* Before a segment ends: shared memory written since the last workgroup
   barrier is read after one more (unless a return stands in the segment). */
static void flush_shared(gen *g) {
  bool dirty = false;
  for (uint32_t i = 0; i < g->nsh; i++) dirty |= g->sh[i].dirty;
  if (!dirty || g->seg_return) return;
  nl(g);
  wg_barrier(g, true);
}

static void segment_body(gen *g, uint32_t n) {
  /* the source opens the first segment and the sink the last one, so that
     no return skips them (docs/fuzzing.md, "Live programs") */
  size_t mark = g->o->len;
  uint32_t ind = g->indent;
  if (!g->src && g->seg < g->last_seg) {
    nl(g);
    if (!vc_gen_source(g)) g->o->len = mark;
  }
  if (!g->sink_done && g->seg == g->last_seg) {
    g->sink_done = true;
    mark = g->o->len;
    nl(g);
    if (!vc_gen_sink(g)) {
      g->o->len = mark;
      if (g->nsh) { /* no value crosses a grid barrier: one crosses a workgroup barrier */
        nl(g);
        wg_barrier(g, false);
      }
    }
  }
  g->indent = ind;
  for (uint32_t i = 0; i < n && g->budget > 0; i++) {
    nl(g);
    if (g->nsh && !g->seg_return && wpct(g, VC_GEN_SHARED, 30)) wg_barrier(g, false);
    else vc_gen_stmt(g);
  }
}

static void grid_barrier(gen *g, bool nested) {
  flush_shared(g);
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
  uint32_t lead = edge && g->nseg > 2 && wpct(g, VC_GEN_EDGE_BARRIER, 25); /* else no segment before the last */
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
  g->last_seg = target - 1;
  while (g->seg + 1 < target) {
    if (g->nseg - 1 - g->seg > 1 && on(g, VC_GEN_NESTED_BARRIER) && open < 2 && wpct(g, VC_GEN_NESTED_BARRIER, 30)) {
      nl(g);
      put(g, "(block");
      g->indent++;
      marks[open++] = g->nsyms;
    }
    segment_body(g, 1 + rnd(g, per));
    grid_barrier(g, open > 0);
    if (edge && g->seg + 1 < target && wpct(g, VC_GEN_EDGE_BARRIER, 20)) {
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
  bool trail = edge && g->nseg > 2 && wpct(g, VC_GEN_EDGE_BARRIER, 25);
  if (fix_until) fixpoint_tail(g, fix_until); /* a program of one segment */
  segment_body(g, 1 + rnd(g, per));
  flush_shared(g);
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
  if (on(g, VC_GEN_DIM3) && wpct(g, VC_GEN_DIM3, 25)) g->dims = 3;
  else if (on(g, VC_GEN_DIM2) && wpct(g, VC_GEN_DIM2, 33)) g->dims = 2;
  for (uint32_t a = 0; a < 3; a++) g->wg[a] = g->grid[a] = 1;
  static const uint32_t axis[3][3] = {{48, 8, 4}, {400, 20, 7}, {3000, 54, 14}};
  if (g->dims == 1 && on(g, VC_GEN_BIG_WORKGROUP) && wpct(g, VC_GEN_BIG_WORKGROUP, 4)) {
    note(g, VC_GEN_BIG_WORKGROUP);
    g->wg[0] = 406 + rnd(g, 619); /* up to the format's 1024 */
    g->grid[0] = 1 + rnd(g, 2);
    g->N = g->W = g->wg[0];
    g->N *= g->grid[0];
    return;
  }
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

/* Buffer b's access and size; a writable one's ownership. */
static void fill_buf(gen *g, gbuf *b, vc_access access) {
  b->access = access;
  if (b->access == VC_READ) {
    b->count = 1 + rnd(g, 2 * g->N);
    return;
  }
  b->mult = 1 + (pct(g, 25) ? 1 : 0);
  b->count = b->mult * g->N;
  b->partial = false;
  if (on(g, VC_GEN_PARTIAL_WRITE) && wpct(g, VC_GEN_PARTIAL_WRITE, 30)) {
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

static void buffers(gen *g) {
  uint32_t max = on(g, VC_GEN_MANY_BUFFERS) && wpct(g, VC_GEN_MANY_BUFFERS, 30) ? (pct(g, 30) ? 15 : 12) : 4;
  g->nbufs = 2 + rnd(g, max - 1);
  for (uint32_t i = 0; i < g->nbufs; i++) {
    gbuf *b = &g->bufs[i];
    memset(b, 0, sizeof *b);
    snprintf(b->name, sizeof b->name, "b%u", i);
    b->type = i == 0 ? VC_U32 : any_type(g);
    b->stored_seg = NO_SEG;
    uint32_t a = i == 0 ? 0 : rnd(g, 3);
    fill_buf(g, b, a == 0 ? VC_READ : a == 1 ? VC_WRITE : VC_READ_WRITE);
  }
  /* an output, and with grid barriers two of one type (or cast): the
     source and the sink of docs/fuzzing.md, "Live programs" */
  uint32_t need = g->nseg > 1 ? 2 : 1, have = 0;
  gbuf *first = NULL, *second = NULL;
  for (uint32_t i = 1; i < g->nbufs; i++)
    if (g->bufs[i].access != VC_READ) have++;
  for (uint32_t i = g->nbufs - 1; have < need && i >= 1; i--)
    if (g->bufs[i].access == VC_READ) {
      fill_buf(g, &g->bufs[i], pct(g, 50) ? VC_WRITE : VC_READ_WRITE);
      have++;
    }
  while (have < need && g->nbufs < MAX_BUFS) {
    gbuf *b = &g->bufs[g->nbufs];
    memset(b, 0, sizeof *b);
    snprintf(b->name, sizeof b->name, "b%u", g->nbufs++);
    b->type = any_type(g);
    b->stored_seg = NO_SEG;
    fill_buf(g, b, pct(g, 50) ? VC_WRITE : VC_READ_WRITE);
    have++;
  }
  bool pair = false;
  for (uint32_t i = 1; i < g->nbufs; i++) {
    gbuf *b = &g->bufs[i];
    if (b->access == VC_READ) continue;
    for (uint32_t j = 1; j < i; j++)
      pair |= g->bufs[j].access != VC_READ && g->bufs[j].type == b->type;
    if (!first) first = b;
    else if (!second) second = b;
  }
  if (need == 2 && !pair && !on(g, VC_GEN_CAST)) second->type = first->type;
  if (g->nbufs > 6) note(g, VC_GEN_MANY_BUFFERS);
}

static void print_init(gen *g, const gbuf *b) {
  if (b->access == VC_WRITE) return;
  switch (rnd(g, 6)) {
  case 0:
    if (pct(g, 50)) put(g, " (init zero)"); /* else zero by default */
    return;
  case 1:
    put(g, " (init iota)");
    return;
  case 2:
    put(g, " (init (fill ");
    vc_gen_lit(g, b->type, vc_gen_lit_bits(g, b->type));
    put(g, "))");
    return;
  case 3: {
    put(g, " (init (values");
    uint32_t n = 1 + rnd(g, b->count < 6 ? b->count : 6);
    for (uint32_t i = 0; i < n; i++) {
      put(g, " ");
      vc_gen_lit(g, b->type, vc_gen_lit_bits(g, b->type));
    }
    put(g, "))");
    return;
  }
  case 4:
    if (b->type != VC_F32 && pct(g, 50)) { /* a few bytes, little-endian, then zeros */
      uint32_t n = 1 + rnd(g, b->count * 4 * vc_type_words(b->type) < 12 ? 4 : 12);
      put(g, " (init (hex \"");
      for (uint32_t i = 0; i < n; i++) vc_sb_printf(g->o, "%02x", rnd(g, 256));
      put(g, "\"))");
      return;
    }
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
  for (uint32_t f = 0; f < VC_GEN_FEATURE_COUNT; f++) g->weight[f] = o->weight[f] ? o->weight[f] : 100;
  { /* the statement and expression kinds of gen_code.c, by the weights of
       the constructs they are; cumulative */
    static const int8_t sf[16] = {-1, -1, -1, -1, -1, -1, -1, VC_GEN_ATOMIC, VC_GEN_SHARED,
                                  VC_GEN_IF, VC_GEN_LOOP, VC_GEN_WHILE, VC_GEN_BREAK,
                                  VC_GEN_RETURN, -1, VC_GEN_F32_DIV};
    static const int8_t ef[12] = {-1, -1, -1, -1, -1, VC_GEN_SELECT, VC_GEN_SELECT, VC_GEN_CAST,
                                  -1, VC_GEN_SHARED, VC_GEN_ATOMIC, -1};
    uint32_t c = 0;
    for (uint32_t i = 0; i < 16; i++) g->stmt_wt[i] = c += sf[i] < 0 ? 100u : g->weight[sf[i]];
    c = 0;
    for (uint32_t i = 0; i < 12; i++) g->expr_wt[i] = c += ef[i] < 0 ? 100u : g->weight[ef[i]];
  }
  types(g);
  g->max_expr = g->size == VC_GEN_SMALL ? 2 : g->size == VC_GEN_MEDIUM ? 3 : 4;
  g->budget = g->size == VC_GEN_SMALL ? 14 : g->size == VC_GEN_MEDIUM ? 40 : 90;
  uint32_t maxseg = g->size == VC_GEN_SMALL ? 4 : g->size == VC_GEN_MEDIUM ? 6 : 10;
  g->nseg = on(g, VC_GEN_GRID_BARRIER) ? 1 + rnd(g, maxseg) : 1;
  bool sh = on(g, VC_GEN_SHARED) && wpct(g, VC_GEN_SHARED, 40);
  /* every program has a barrier that orders a value reaching an output */
  if (g->nseg == 1 && !sh) {
    if (on(g, VC_GEN_GRID_BARRIER) && (!on(g, VC_GEN_SHARED) || pct(g, 50))) g->nseg = 2;
    else sh = on(g, VC_GEN_SHARED);
  }
  dispatch(g);
  buffers(g);
  if (sh) {
    g->nsh = 1 + (pct(g, 30) ? 1 : 0);
    for (uint32_t i = 0; i < g->nsh; i++) {
      snprintf(g->sh[i].name, sizeof g->sh[i].name, "s%u", i);
      g->sh[i].type = any_type(g);
      if (!on(g, VC_GEN_CAST)) /* read back into an output of its type */
        for (uint32_t j = g->nbufs; j-- > 1;)
          if (g->bufs[j].access != VC_READ) g->sh[i].type = g->bufs[j].type;
    }
  }
  g->oob = on(g, VC_GEN_OOB) && wpct(g, VC_GEN_OOB, 10);
  g->fq = on(g, VC_GEN_F32_DIV) && on(g, VC_GEN_F32) && on(g, VC_GEN_CAST) && wpct(g, VC_GEN_F32_DIV, 15);
  uint32_t fix = 0, fix_max = 0, fix_until = 0;
  if (on(g, VC_GEN_FIXPOINT_FLAG) && wpct(g, VC_GEN_FIXPOINT_FLAG, 15)) {
    fix = 2;
    fix_max = 1 + rnd(g, 4);
    fix_until = 1 + rnd(g, fix_max + 1); /* fix_max + 1: declared not to converge */
    g->pc = true;
    note(g, VC_GEN_FIXPOINT_FLAG);
  } else if (on(g, VC_GEN_FIXPOINT) && wpct(g, VC_GEN_FIXPOINT, 15)) {
    fix = 1;
    fix_max = 1 + rnd(g, 3);
    note(g, VC_GEN_FIXPOINT);
  }

  vc_sb_printf(out, "(program gen_%llu_%u\n", (unsigned long long)seed, index);
  vc_sb_printf(out, "  (doc \"generated: vyre-conform generate --seed %llu --size %s --features ",
               (unsigned long long)seed, vc_gen_size_name((vc_gen_size)o->size));
  vc_gen_opts_features_print(o, out);
  vc_sb_printf(out, "; program %u\")\n", index);
  if (on(g, VC_GEN_TAGS) && wpct(g, VC_GEN_TAGS, 20)) {
    note(g, VC_GEN_TAGS); /* never "large": that one leaves a program out of CI runs */
    vc_sb_printf(out, "  (tags generated gen-%s)\n", vc_gen_size_name((vc_gen_size)o->size));
  }
  if (on(g, VC_GEN_EXPECT_TIMEOUT) && wpct(g, VC_GEN_EXPECT_TIMEOUT, 10)) {
    note(g, VC_GEN_EXPECT_TIMEOUT);
    vc_sb_printf(out, "  (expect (timeout %u))\n", 60u + 60u * rnd(g, 5));
  }
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
  if (g->fq) vc_sb_printf(out, "  (buffer fq f32 %u write)\n", g->N);
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
  if (g->fq) put(g, "  (expect (ulp fq 3))\n");
  entry(g, fix == 2 ? fix_until : 0);
  if (stats) {
    stats->programs++;
    for (uint32_t f = 0; f < VC_GEN_FEATURE_COUNT; f++) stats->count[f] += g->count[f];
  }
  free(g);
}
