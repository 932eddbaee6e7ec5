/* The splitter: see split.h and docs/splitter.md.
 *
 * Passes, in order: flatten the blocks that hold grid barriers into one
 * top-level statement list; cut it into segments; find, per segment, the
 * top-level declarations and the symbols read and set; decide for every value
 * live across a barrier whether to recompute it (a let of literals, builtins
 * and such lets, not skippable by a return) or to spill it; then build each
 * segment program with its spill loads, recomputed lets, rewritten returns
 * and spill stores, and bind only the buffers it touches. */
#include "harness/split/split.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/mutant.h"
#include "harness/lang/print.h"
#include "harness/split/validate.h"

typedef struct stmt_list {
  const vc_node **items;
  uint32_t n, cap;
} stmt_list;

/* Per-symbol facts about the source program. */
typedef struct sym_info {
  int32_t def_seg;    /* segment of its top-level declaration, -1 if local */
  uint32_t def_pos;   /* index in the flattened top-level list */
  const vc_node *def; /* the declaring statement */
  bool remat;         /* recomputed instead of spilled */
  int32_t spill;      /* plan buffer index, or -1 */
} sym_info;

typedef struct splitter {
  const vc_program *src;
  vc_split *out;
  vc_error *err;
  stmt_list top;       /* flattened top-level statements (barriers included) */
  uint32_t *seg_begin; /* seg k: top[seg_begin[k] .. seg_end[k]) without the barrier */
  uint32_t *seg_end;
  uint32_t nsegs;
  sym_info *syms;
  uint8_t *uses;          /* [seg * nsyms + sym]: read (1) or set (2) in the segment */
  uint8_t *buf_rw;        /* [seg * nbuf + buf]: read (1) or written (2) */
  uint32_t *first_return; /* per segment: top-level index of the first statement with a
                             return, or UINT32_MAX */
} splitter;

enum { USE_READ = 1, USE_SET = 2 };
enum { MEM_READ = 1, MEM_WRITE = 2 };

static void push(stmt_list *l, const vc_node *n) {
  if (l->n == l->cap) {
    l->cap = l->cap ? l->cap * 2 : 16;
    l->items = realloc(l->items, l->cap * sizeof *l->items);
    if (!l->items) abort();
  }
  l->items[l->n++] = n;
}

static bool has_grid_barrier(const vc_node *n) {
  if (n->kind == VC_S_BARRIER) return n->op == VC_BARRIER_GRID;
  if (n->kind != VC_S_BLOCK) return false; /* the validator allows them nowhere else */
  for (uint32_t i = 0; i < n->nkids; i++)
    if (has_grid_barrier(n->kids[i])) return true;
  return false;
}

static bool has_return(const vc_node *n) {
  if (n->kind == VC_S_RETURN) return true;
  if (vc_node_is_expr(n) || VC_MUTANT(RETURN_NESTED_MISSED)) return false;
  for (uint32_t i = 0; i < n->nkids; i++)
    if (has_return(n->kids[i])) return true;
  return false;
}

static void flatten(const vc_node *block, stmt_list *out) {
  for (uint32_t i = 0; i < block->nkids; i++) {
    const vc_node *s = block->kids[i];
    if (s->kind == VC_S_BLOCK && has_grid_barrier(s))
      flatten(s, out);
    else
      push(out, s);
  }
}

static bool is_grid_barrier(const vc_node *n) {
  return n->kind == VC_S_BARRIER && n->op == VC_BARRIER_GRID;
}

static void cut_segments(splitter *sp) {
  uint32_t nb = 0;
  for (uint32_t i = 0; i < sp->top.n; i++) nb += is_grid_barrier(sp->top.items[i]);
  sp->nsegs = nb + 1;
  sp->seg_begin = calloc(sp->nsegs, sizeof *sp->seg_begin);
  sp->seg_end = calloc(sp->nsegs, sizeof *sp->seg_end);
  sp->first_return = malloc(sp->nsegs * sizeof *sp->first_return);
  if (!sp->seg_begin || !sp->seg_end || !sp->first_return) abort();
  uint32_t k = 0;
  sp->seg_begin[0] = 0;
  for (uint32_t i = 0; i < sp->top.n; i++) {
    if (VC_MUTANT(DROP_EMPTY_SEGMENT) && is_grid_barrier(sp->top.items[i]) && sp->seg_begin[k] == i) { sp->seg_begin[k] = i + 1; sp->nsegs--; continue; }
    if (is_grid_barrier(sp->top.items[i])) {
      sp->seg_end[k++] = VC_MUTANT(SEGMENT_KEEPS_BARRIER) ? i + 1 : i;
      sp->seg_begin[k] = i + 1;
    }
  }
  sp->seg_end[k] = sp->top.n;
  for (k = 0; k < sp->nsegs; k++) {
    sp->first_return[k] = UINT32_MAX;
    for (uint32_t i = sp->seg_begin[k]; i < sp->seg_end[k]; i++)
      if (has_return(sp->top.items[i])) {
        sp->first_return[k] = i;
        if (!VC_MUTANT(RETURN_LAST_NOT_FIRST)) break;
      }
  }
}

/* Records reads and sets of symbols and buffer accesses under n. */
static void scan(splitter *sp, uint32_t seg, const vc_node *n) {
  uint32_t nsyms = sp->src->nsyms, nbuf = sp->src->nbuffers;
  switch (n->kind) {
  case VC_E_NAME:
    sp->uses[seg * nsyms + n->ref] |= USE_READ;
    break;
  case VC_S_SET:
    sp->uses[seg * nsyms + n->ref] |= USE_SET;
    break;
  case VC_E_LOAD:
    if (n->space == VC_SPACE_BUFFER) sp->buf_rw[seg * nbuf + n->ref] |= MEM_READ;
    break;
  case VC_S_STORE:
    if (n->space == VC_SPACE_BUFFER) sp->buf_rw[seg * nbuf + n->ref] |= MEM_WRITE;
    break;
  case VC_E_ATOMIC:
  case VC_S_ATOMIC:
    if (n->space == VC_SPACE_BUFFER) sp->buf_rw[seg * nbuf + n->ref] |= MEM_READ | MEM_WRITE;
    break;
  default:
    break;
  }
  for (uint32_t i = 0; i < n->nkids; i++) scan(sp, seg, n->kids[i]);
}

static void analyse(splitter *sp) {
  const vc_program *p = sp->src;
  sp->syms = calloc(p->nsyms ? p->nsyms : 1, sizeof *sp->syms);
  sp->uses = calloc((size_t)sp->nsegs * (p->nsyms ? p->nsyms : 1), 1);
  sp->buf_rw = calloc((size_t)sp->nsegs * (p->nbuffers ? p->nbuffers : 1), 1);
  if (!sp->syms || !sp->uses || !sp->buf_rw) abort();
  for (uint32_t s = 0; s < p->nsyms; s++) {
    sp->syms[s].def_seg = -1;
    sp->syms[s].spill = -1;
  }
  for (uint32_t k = 0; k < sp->nsegs; k++) {
    for (uint32_t i = sp->seg_begin[k]; i < sp->seg_end[k]; i++) {
      const vc_node *s = sp->top.items[i];
      if (s->kind == VC_S_LET || s->kind == VC_S_VAR) {
        sp->syms[s->ref].def_seg = (int32_t)k;
        sp->syms[s->ref].def_pos = i;
        sp->syms[s->ref].def = s;
      }
      scan(sp, k, s);
    }
  }
}

/* A let may be recomputed in a later segment when its value depends only on
   literals, builtins and such lets: it then cannot differ after the barrier. */
static bool pure_expr(const splitter *sp, const vc_node *e) {
  if ((VC_MUTANT(RECOMPUTE_IMPURE_LET) && e->kind == VC_E_LOAD) || (VC_MUTANT(RECOMPUTE_ATOMIC_LET) && e->kind == VC_E_ATOMIC)) return true;
  switch (e->kind) {
  case VC_E_LIT:
  case VC_E_BUILTIN:
    return true;
  case VC_E_NAME:
    return sp->syms[e->ref].remat;
  case VC_E_UNARY:
  case VC_E_BINARY:
  case VC_E_SELECT:
  case VC_E_CAST:
  case VC_E_BITCAST:
    for (uint32_t i = 0; i < e->nkids; i++)
      if (!pure_expr(sp, e->kids[i])) return false;
    return true;
  default:
    return false; /* loads and atomics read memory that the barrier may change */
  }
}

static bool needed_in(const splitter *sp, uint32_t sym, uint32_t seg) {
  return sp->uses[seg * sp->src->nsyms + sym] != 0;
}

static bool needed_after(const splitter *sp, uint32_t sym, uint32_t seg) {
  uint32_t end = VC_MUTANT(SPILL_NEXT_SEGMENT_ONLY) && seg + 2 < sp->nsegs ? seg + 2 : sp->nsegs;
  for (uint32_t j = seg + 1; j < end; j++)
    if (needed_in(sp, sym, j)) return true;
  return false;
}

/* The element type of a value's spill slot. */
static vc_type slot_type(vc_type t) {
  return t == VC_F32 || (VC_MUTANT(SPILL_64_LOW_WORD) && vc_type_is_64(t)) ? VC_U32 : t;
}

/* Decides remat or spill for every top-level value; creates spill buffers. */
static int plan_values(splitter *sp) {
  const vc_program *p = sp->src;
  vc_split *out = sp->out;
  /* Eligibility does not depend on liveness: a let used only by a recomputed
     let is recomputed with it. Symbols are numbered in order of appearance,
     so a let's operands are decided first. */
  for (uint32_t s = 0; s < p->nsyms; s++) {
    sym_info *si = &sp->syms[s];
    if (si->def_seg < 0 || p->syms[s].kind != VC_SYM_LET) continue;
    /* A return before the declaration may skip it; the value then stays zero,
       which recomputing would not reproduce. */
    bool skippable = sp->first_return[si->def_seg] < si->def_pos;
    si->remat = !skippable && pure_expr(sp, si->def->kids[0]);
  }
  uint64_t inv = vc_program_invocations(p);
  uint32_t nspill = 0;
  for (uint32_t s = 0; s < p->nsyms; s++) {
    sym_info *si = &sp->syms[s];
    if (si->def_seg >= 0 && !si->remat && needed_after(sp, s, (uint32_t)si->def_seg)) nspill++;
  }
  if (nspill && inv > VC_MAX_BUFFER_ELEMS)
    return vc_fail(sp->err, VC_ERR_LIMIT,
                   "%s: a limit of the harness: a spilled value takes one element per "
                   "invocation, and a spill buffer holds at most %u (2^28) elements; the "
                   "program has %llu invocations",
                   p->path ? p->path : p->name, VC_MAX_BUFFER_ELEMS, (unsigned long long)inv);
  out->nuser = p->nbuffers;
  out->nbuffers = p->nbuffers + nspill;
  out->buffers =
      vc_arena_alloc(&out->arena, (out->nbuffers ? out->nbuffers : 1) * sizeof(vc_buffer));
  out->spill_sym = vc_arena_alloc(&out->arena, (nspill ? nspill : 1) * sizeof(uint32_t));
  for (uint32_t i = 0; i < p->nbuffers; i++) out->buffers[i] = p->buffers[i];
  uint32_t b = p->nbuffers;
  for (uint32_t s = 0; s < p->nsyms; s++) {
    sym_info *si = &sp->syms[s];
    if (si->def_seg < 0 || si->remat || !needed_after(sp, s, (uint32_t)si->def_seg)) continue;
    si->spill = (int32_t)b;
    vc_buffer *sb = &out->buffers[b];
    char name[256];
    snprintf(name, sizeof name, "__spill_%s_%u", p->syms[s].name, s);
    sb->name = vc_arena_strdup(&out->arena, name);
    /* f32 values travel as their bits: a driver that flushes or canonicalises
       floats on a load or store must not change what the split carries. */
    sb->type = slot_type(p->syms[s].type);
    sb->count = (uint32_t)inv;
    sb->access = VC_READ_WRITE;
    sb->init.kind = VC_INIT_ZERO;
    sb->role = VC_ROLE_SPILL;
    sb->loc = p->syms[s].loc;
    out->spill_sym[b - p->nbuffers] = s;
    b++;
  }
  return 0;
}

/* ---- building one segment program ---- */

typedef struct seg_builder {
  splitter *sp;
  uint32_t seg;
  vc_program *prog;   /* being built; memory refs are plan indices until remap */
  uint32_t lid_sym;   /* symbol of the linear invocation id, if spills */
  uint32_t *out_syms; /* spill_out of this segment */
  uint32_t nout;
  bool *in_seg; /* per source symbol: loaded at the start of this segment */
} seg_builder;

static vc_node *lit(vc_program *p, vc_type t, uint32_t bits) {
  vc_node *n = vc_node_new(p, VC_E_LIT, (vc_loc){0, 0}, 0);
  n->type = t;
  n->bits = bits;
  return n;
}

static vc_node *builtin(vc_program *p, vc_builtin b, uint8_t axis) {
  vc_node *n = vc_node_new(p, VC_E_BUILTIN, (vc_loc){0, 0}, 0);
  n->op = (uint8_t)b;
  n->axis = axis;
  n->type = VC_U32;
  return n;
}

static vc_node *binary(vc_program *p, vc_binop op, vc_node *a, vc_node *b) {
  vc_node *n = vc_node_new(p, VC_E_BINARY, (vc_loc){0, 0}, 2);
  n->op = (uint8_t)op;
  n->type = a->type;
  n->kids[0] = a;
  n->kids[1] = b;
  return n;
}

static vc_node *name_ref(vc_program *p, uint32_t sym) {
  vc_node *n = vc_node_new(p, VC_E_NAME, (vc_loc){0, 0}, 0);
  n->ref = sym;
  n->type = p->syms[sym].type;
  return n;
}

/* global_id.x + global_id.y * NX + global_id.z * NX * NY: the invocation's
   slot in every spill buffer. Fits u32: the validator bounds invocations. */
static vc_node *linear_id(vc_program *p) {
  uint32_t nx = p->grid[0] * p->workgroup[0], ny = p->grid[1] * p->workgroup[1];
  uint32_t nz = p->grid[2] * p->workgroup[2];
  vc_node *e = builtin(p, VC_GLOBAL_ID, 0);
  if (ny > 1)
    e = binary(p, VC_ADD, e, binary(p, VC_MUL, builtin(p, VC_GLOBAL_ID, 1), lit(p, VC_U32, nx)));
  if (nz > 1)
    e = binary(p, VC_ADD, e,
               binary(p, VC_MUL, builtin(p, VC_GLOBAL_ID, 2), lit(p, VC_U32, VC_MUTANT(SPILL_SLOT_OVERLAP) ? nx : nx * ny)));
  return e;
}

static vc_node *bitcast(vc_program *p, vc_type to, vc_node *e) {
  vc_node *n = vc_node_new(p, VC_E_BITCAST, (vc_loc){0, 0}, 1);
  n->type = to;
  n->kids[0] = e;
  return n;
}

static vc_node *cast(vc_program *p, vc_type to, vc_node *e) {
  vc_node *n = vc_node_new(p, VC_E_CAST, (vc_loc){0, 0}, 1);
  n->type = to;
  n->kids[0] = e;
  return n;
}

static vc_node *spill_store(seg_builder *b, uint32_t sym, bool in_scope) {
  vc_program *p = b->prog;
  vc_node *st = vc_node_new(p, VC_S_STORE, (vc_loc){0, 0}, 2);
  st->space = VC_SPACE_BUFFER;
  st->ref = (uint32_t)b->sp->syms[sym].spill;
  st->kids[0] = name_ref(p, b->lid_sym);
  vc_type t = p->syms[sym].type;
  if (!in_scope)
    st->kids[1] = lit(p, slot_type(t), 0); /* +0.0f has zero bits */
  else
    st->kids[1] = t == VC_F32 ? bitcast(p, VC_U32, name_ref(p, sym))
                  : slot_type(t) != t ? cast(p, slot_type(t), name_ref(p, sym))
                                      : name_ref(p, sym);
  return st;
}

/* Is sym declared (and so assigned its current value) before top-level
   statement pos of this segment? */
static bool in_scope_at(const seg_builder *b, uint32_t sym, uint32_t pos) {
  if (b->in_seg[sym]) return true;
  const sym_info *si = &b->sp->syms[sym];
  return si->def_seg == (int32_t)b->seg && si->def_pos < pos;
}

/* Clones a statement of the segment; a return first saves every spilled value. */
static vc_node *clone_stmt(seg_builder *b, const vc_node *n, uint32_t pos) {
  if (n->kind == VC_S_RETURN && b->nout && !VC_MUTANT(RETURN_ENDS_INVOCATION)) {
    vc_node *blk = vc_node_new(b->prog, VC_S_BLOCK, n->loc, 0);
    for (uint32_t i = 0; i < b->nout; i++)
      vc_node_append(b->prog, blk,
                     spill_store(b, b->out_syms[i], in_scope_at(b, b->out_syms[i], pos)));
    vc_node_append(b->prog, blk, vc_node_new(b->prog, VC_S_RETURN, n->loc, 0));
    return blk;
  }
  if (vc_node_is_expr(n) || n->nkids == 0) return vc_node_clone(b->prog, n);
  vc_node *c = vc_node_copy_fields(b->prog, n);
  for (uint32_t i = 0; i < n->nkids; i++)
    c->kids[i] = vc_node_is_expr(n->kids[i]) ? vc_node_clone(b->prog, n->kids[i])
                                             : clone_stmt(b, n->kids[i], pos);
  return c;
}

/* Is name taken in the segment: by a symbol of the source, a symbol renamed
   before (dst->syms[0..done)), a buffer or a shared array? */
static bool name_taken(const vc_program *dst, uint32_t done, const vc_program *src,
                       const char *name) {
  for (uint32_t j = 0; j < src->nsyms; j++)
    if (strcmp(src->syms[j].name, name) == 0) return true;
  for (uint32_t j = 0; j < done; j++)
    if (strcmp(dst->syms[j].name, name) == 0) return true;
  for (uint32_t j = 0; j < src->nbuffers; j++)
    if (strcmp(src->buffers[j].name, name) == 0) return true;
  for (uint32_t j = 0; j < src->nshared; j++)
    if (strcmp(src->shared[j].name, name) == 0) return true;
  return false;
}

static void copy_symbols(vc_program *dst, const vc_program *src, bool add_lid) {
  dst->nsyms = src->nsyms + (add_lid ? 1 : 0);
  dst->syms = vc_arena_alloc(&dst->arena, (dst->nsyms ? dst->nsyms : 1) * sizeof *dst->syms);
  for (uint32_t i = 0; i < src->nsyms; i++) {
    dst->syms[i] = src->syms[i];
    /* Sibling scopes may reuse a name; in one flat segment it must be unique,
       and its new name NAME_N must not be one the program already uses (a
       user's own x_2). */
    bool dup = false;
    for (uint32_t j = 0; j < src->nsyms && !dup; j++)
      dup = j != i && strcmp(src->syms[j].name, src->syms[i].name) == 0;
    char name[256];
    for (uint32_t n = i; dup; n++) {
      snprintf(name, sizeof name, "%s_%u", src->syms[i].name, n);
      if (!name_taken(dst, i, src, name)) break;
    }
    dst->syms[i].name = vc_arena_strdup(&dst->arena, dup ? name : src->syms[i].name);
  }
  if (add_lid) {
    vc_symbol *l = &dst->syms[src->nsyms];
    memset(l, 0, sizeof *l);
    l->name = vc_arena_strdup(&dst->arena, "__lid");
    l->type = VC_U32;
    l->kind = VC_SYM_LET;
  }
}

static void mark_mem(const vc_node *n, uint8_t *buf_used, uint8_t *shared_used) {
  if (n->kind == VC_E_LOAD || n->kind == VC_S_STORE || n->kind == VC_E_ATOMIC ||
      n->kind == VC_S_ATOMIC) {
    uint8_t bit = n->kind == VC_E_LOAD    ? MEM_READ
                  : n->kind == VC_S_STORE ? MEM_WRITE
                                          : MEM_READ | MEM_WRITE;
    if (n->space == VC_SPACE_BUFFER)
      buf_used[n->ref] |= bit;
    else
      shared_used[n->ref] = 1;
  }
  for (uint32_t i = 0; i < n->nkids; i++) mark_mem(n->kids[i], buf_used, shared_used);
}

static void remap_mem(vc_node *n, const uint32_t *buf_map, const uint32_t *shared_map) {
  if (n->kind == VC_E_LOAD || n->kind == VC_S_STORE || n->kind == VC_E_ATOMIC ||
      n->kind == VC_S_ATOMIC)
    n->ref = n->space == VC_SPACE_BUFFER ? buf_map[n->ref] : shared_map[n->ref];
  for (uint32_t i = 0; i < n->nkids; i++) remap_mem(n->kids[i], buf_map, shared_map);
}

static bool written_before(const splitter *sp, uint32_t buf, uint32_t seg) {
  for (uint32_t j = 0; j < seg; j++)
    if (sp->buf_rw[j * sp->src->nbuffers + buf] & MEM_WRITE) return true;
  return false;
}

/* How segment seg binds plan buffer i that it touches with `use`. */
static vc_access binding(const splitter *sp, uint32_t seg, uint32_t i, uint8_t use) {
  if (!(use & MEM_WRITE)) return VC_READ;
  if (use & MEM_READ) return VC_READ_WRITE;
  if (i >= sp->src->nbuffers) return VC_WRITE; /* a spill is saved by every invocation */
  /* Earlier contents are visible unless nothing could have put any there:
     never replace them with a fresh zeroed allocation. */
  const vc_buffer *b = &sp->src->buffers[i];
  if (b->access == VC_WRITE && ((VC_MUTANT(FRESH_WRITE_BUFFER) && !sp->src->fixpoint.present) || (VC_MUTANT(FIXPOINT_FRESH_WRITE) && !written_before(sp, i, seg)))) return VC_WRITE;
  bool visible = b->access != VC_WRITE || written_before(sp, i, seg) || sp->src->fixpoint.present;
  return visible ? VC_READ_WRITE : VC_WRITE;
}

static void bind_buffers(seg_builder *b, vc_split_segment *seg) {
  splitter *sp = b->sp;
  vc_split *out = sp->out;
  vc_program *p = b->prog;
  uint8_t *used = calloc(out->nbuffers ? out->nbuffers : 1, 1);
  uint8_t *sused = calloc(sp->src->nshared ? sp->src->nshared : 1, 1);
  uint32_t *map = calloc(out->nbuffers ? out->nbuffers : 1, sizeof *map);
  uint32_t *smap = calloc(sp->src->nshared ? sp->src->nshared : 1, sizeof *smap);
  if (!used || !sused || !map || !smap) abort();
  mark_mem(p->entry, used, sused);

  uint32_t n = 0;
  for (uint32_t i = 0; i < out->nbuffers; i++) n += used[i] != 0;
  p->nbuffers = n;
  p->buffers = vc_arena_alloc(&p->arena, (n ? n : 1) * sizeof *p->buffers);
  seg->bind = vc_arena_alloc(&out->arena, (n ? n : 1) * sizeof *seg->bind);
  seg->nbind = n;
  uint32_t k = 0;
  for (uint32_t i = 0; i < out->nbuffers; i++) {
    if (!used[i]) continue;
    vc_buffer *d = &p->buffers[k];
    *d = out->buffers[i];
    d->name = vc_arena_strdup(&p->arena, out->buffers[i].name);
    d->access = binding(sp, b->seg, i, used[i]);
    /* The plan supplies contents; init is nominal in a segment program. */
    memset(&d->init, 0, sizeof d->init);
    if (d->access != VC_WRITE) d->init.kind = VC_INIT_ZERO;
    if (i < sp->src->nbuffers && d->access == sp->src->buffers[i].access)
      d->init = sp->src->buffers[i].init; /* arrays shared read-only with the source */
    uint64_t bytes = vc_buffer_bytes(d);
    if (d->access != VC_WRITE) seg->up_bytes += bytes;
    if (d->access != VC_READ) seg->down_bytes += bytes;
    seg->bind[k] = i;
    map[i] = k++;
  }
  uint32_t ns = 0;
  for (uint32_t i = 0; i < sp->src->nshared; i++) ns += sused[i];
  p->nshared = ns;
  p->shared = vc_arena_alloc(&p->arena, (ns ? ns : 1) * sizeof *p->shared);
  seg->sbind = vc_arena_alloc(&out->arena, (ns ? ns : 1) * sizeof *seg->sbind);
  seg->nsbind = ns;
  k = 0;
  for (uint32_t i = 0; i < sp->src->nshared; i++) {
    if (!sused[i]) continue;
    p->shared[k] = sp->src->shared[i];
    p->shared[k].name = vc_arena_strdup(&p->arena, sp->src->shared[i].name);
    seg->sbind[k] = i;
    smap[i] = k++;
  }
  remap_mem(p->entry, map, smap);
  free(used);
  free(sused);
  free(map);
  free(smap);
}

/* Orders symbols by declaration position (lists are short). */
static void sort_by_def_pos(const splitter *sp, uint32_t *syms, uint32_t n) {
  for (uint32_t i = 1; i < n; i++) {
    uint32_t s = syms[i], j = i;
    for (; j > 0 && sp->syms[syms[j - 1]].def_pos > sp->syms[s].def_pos; j--) syms[j] = syms[j - 1];
    syms[j] = s;
  }
}

static uint32_t *sym_list(splitter *sp, uint32_t n) {
  return vc_arena_alloc(&sp->out->arena, (n ? n : 1) * sizeof(uint32_t));
}

/* A remat let used in seg needs its remat operands too. */
static void mark_remat(splitter *sp, const vc_node *e, bool *want) {
  if (e->kind == VC_E_NAME && sp->syms[e->ref].remat && !want[e->ref]) {
    want[e->ref] = true;
    if (!VC_MUTANT(REMAT_CHAIN_DEPTH_2)) mark_remat(sp, sp->syms[e->ref].def->kids[0], want);
  }
  for (uint32_t i = 0; i < e->nkids; i++) mark_remat(sp, e->kids[i], want);
}

static void build_segment(splitter *sp, uint32_t k) {
  const vc_program *src = sp->src;
  vc_split_segment *seg = &sp->out->segs[k];
  uint32_t nsyms = src->nsyms;
  bool *in = calloc(nsyms ? nsyms : 1, sizeof *in);
  bool *outv = calloc(nsyms ? nsyms : 1, sizeof *outv);
  bool *rem = calloc(nsyms ? nsyms : 1, sizeof *rem);
  if (!in || !outv || !rem) abort();
  uint32_t nin = 0, nout = 0, nrem = 0;
  for (uint32_t s = 0; s < nsyms; s++) {
    const sym_info *si = &sp->syms[s];
    if (si->def_seg < 0) continue;
    uint32_t d = (uint32_t)si->def_seg;
    if (si->remat) {
      if (d < k && (sp->uses[k * nsyms + s] & USE_READ)) {
        rem[s] = true;
        mark_remat(sp, si->def->kids[0], rem);
      }
    } else if (si->spill >= 0) {
      if (d < k && (VC_MUTANT(VAR_RELOAD_ONLY_IF_READ) ? (sp->uses[k * nsyms + s] & USE_READ) != 0 : needed_in(sp, s, k))) in[s] = true;
      if ((d == k || (!VC_MUTANT(LOSE_VAR_SET) && (sp->uses[k * nsyms + s] & USE_SET))) && needed_after(sp, s, k)) outv[s] = true;
    }
  }
  for (uint32_t s = 0; s < nsyms; s++) {
    nin += in[s];
    nout += outv[s];
    nrem += rem[s];
  }
  seg->spill_in = sym_list(sp, nin);
  seg->spill_out = sym_list(sp, nout);
  seg->remat = sym_list(sp, nrem);
  for (uint32_t s = 0; s < nsyms; s++) {
    if (in[s]) seg->spill_in[seg->nspill_in++] = s;
    if (outv[s]) seg->spill_out[seg->nspill_out++] = s;
    if (rem[s]) seg->remat[seg->nremat++] = s;
  }
  sort_by_def_pos(sp, seg->spill_in, seg->nspill_in);
  sort_by_def_pos(sp, seg->spill_out, seg->nspill_out);
  sort_by_def_pos(sp, seg->remat, seg->nremat);

  vc_program *p = vc_program_new();
  seg->prog = p;
  char name[512];
  snprintf(name, sizeof name, "%s.seg%u", src->name, k);
  p->name = vc_arena_strdup(&p->arena, name);
  snprintf(name, sizeof name, "segment %u of %u of %s", k, sp->nsegs, src->name);
  p->doc = vc_arena_strdup(&p->arena, name);
  p->path = vc_arena_strdup(&p->arena, src->path);
  memcpy(p->workgroup, src->workgroup, sizeof p->workgroup);
  memcpy(p->grid, src->grid, sizeof p->grid);
  bool spills = seg->nspill_in || seg->nspill_out;
  copy_symbols(p, src, spills);

  seg_builder b = {sp, k, p, src->nsyms, seg->spill_out, seg->nspill_out, in};
  vc_node *entry = vc_node_new(p, VC_S_BLOCK, src->entry->loc, 0);
  p->entry = entry;
  if (spills) {
    vc_node *l = vc_node_new(p, VC_S_LET, (vc_loc){0, 0}, 1);
    l->ref = b.lid_sym;
    l->kids[0] = linear_id(p);
    vc_node_append(p, entry, l);
  }
  for (uint32_t i = 0; i < seg->nspill_in; i++) {
    uint32_t s = seg->spill_in[i];
    vc_node *d =
        vc_node_new(p, src->syms[s].kind == VC_SYM_VAR ? VC_S_VAR : VC_S_LET, src->syms[s].loc, 1);
    d->ref = s;
    vc_node *ld = vc_node_new(p, VC_E_LOAD, (vc_loc){0, 0}, 1);
    ld->space = VC_SPACE_BUFFER;
    ld->ref = (uint32_t)sp->syms[s].spill;
    ld->type = sp->out->buffers[ld->ref].type;
    ld->kids[0] = name_ref(p, b.lid_sym);
    vc_type t = src->syms[s].type;
    d->kids[0] = t == VC_F32 ? bitcast(p, VC_F32, ld) : ld->type != t ? cast(p, t, ld) : ld;
    vc_node_append(p, entry, d);
  }
  for (uint32_t i = 0; i < seg->nremat; i++)
    vc_node_append(p, entry, vc_node_clone(p, sp->syms[seg->remat[i]].def));
  for (uint32_t i = sp->seg_begin[k]; i < sp->seg_end[k]; i++)
    vc_node_append(p, entry, clone_stmt(&b, sp->top.items[i], i));
  for (uint32_t i = 0; i < seg->nspill_out; i++)
    vc_node_append(p, entry, spill_store(&b, seg->spill_out[i], true));

  bind_buffers(&b, seg);
  free(in);
  free(outv);
  free(rem);
}

static void predict_resident(vc_split *out) {
  for (uint32_t i = 0; i < out->nuser; i++) {
    const vc_buffer *b = &out->buffers[i];
    if (b->access != VC_WRITE) out->resident_up_once += vc_buffer_bytes(b);
    if (b->access != VC_READ) out->resident_down_once += vc_buffer_bytes(b);
  }
  out->flag_bytes_per_pass = out->src->fixpoint.has_flag ? 4 : 0;
}

int vc_split_program(const vc_program *p, vc_split **result, vc_error *err) {
  *result = NULL;
  vc_split *out = calloc(1, sizeof *out);
  if (!out) return vc_fail(err, VC_ERR_NOMEM, "out of memory");
  vc_arena_init(&out->arena);
  out->src = p;
  splitter sp = {.src = p, .out = out, .err = err};
  flatten(p->entry, &sp.top);
  cut_segments(&sp);
  analyse(&sp);
  int rc = plan_values(&sp);
#ifndef NDEBUG
  /* Debug builds validate the plan between the steps (validate.h): the
     first wrong step is named, not only the finished plan. */
  if (rc == 0 && vc_plan_validate_table(out, p, err)) rc = VC_ERR_INTERNAL;
#endif
  if (rc == 0) {
    out->barriers = sp.nsegs - 1;
    out->nsegs = sp.nsegs;
    out->segs = vc_arena_alloc(&out->arena, sp.nsegs * sizeof *out->segs);
    for (uint32_t k = 0; k < sp.nsegs && rc == 0; k++) {
      build_segment(&sp, k);
#ifndef NDEBUG
      if (vc_plan_validate_segment(out, p, k, err)) rc = VC_ERR_INTERNAL;
#endif
    }
    predict_resident(out);
#ifndef NDEBUG
    if (rc == 0 && vc_plan_validate_counts(out, p, err)) rc = VC_ERR_INTERNAL;
#endif
  }
  free(sp.top.items);
  free(sp.seg_begin);
  free(sp.seg_end);
  free(sp.first_return);
  free(sp.syms);
  free(sp.uses);
  free(sp.buf_rw);
  if (rc) {
    vc_split_free(out);
    return rc;
  }
  *result = out;
  return 0;
}

void vc_split_free(vc_split *s) {
  if (!s) return;
  for (uint32_t k = 0; k < s->nsegs; k++) vc_program_free(s->segs[k].prog);
  vc_arena_free(&s->arena);
  free(s);
}

int vc_split_is_output(const vc_split *s, uint32_t i) {
  return i < s->nuser && s->buffers[i].access != VC_READ;
}

void vc_split_native_desc(const vc_split *s, vc_native_desc *d) {
  vc_split *m = (vc_split *)(uintptr_t)s; /* the arrays are built lazily into its arena */
  const vc_program **segs = vc_arena_alloc(&m->arena, s->nsegs * sizeof *segs);
  const uint32_t **bind = vc_arena_alloc(&m->arena, s->nsegs * sizeof *bind);
  const uint32_t **sbind = vc_arena_alloc(&m->arena, s->nsegs * sizeof *sbind);
  for (uint32_t k = 0; k < s->nsegs; k++) {
    segs[k] = s->segs[k].prog;
    bind[k] = s->segs[k].bind;
    sbind[k] = s->segs[k].sbind;
  }
  d->buffers = s->buffers;
  d->nbuffers = s->nbuffers;
  d->nsegments = s->nsegs;
  d->segments = segs;
  d->bind = bind;
  d->shared = s->src->shared;
  d->nshared = s->src->nshared;
  d->shared_bind = sbind;
  d->fixpoint = s->src->fixpoint;
}

static void describe_syms(const vc_split *s, const char *label, const uint32_t *syms, uint32_t n,
                          vc_strbuf *out) {
  if (!n) return;
  vc_sb_printf(out, "    %-10s", label);
  for (uint32_t i = 0; i < n; i++) vc_sb_printf(out, " %s", s->src->syms[syms[i]].name);
  vc_sb_putc(out, '\n');
}

void vc_split_describe(const vc_split *s, int with_programs, vc_strbuf *out) {
  const vc_program *p = s->src;
  vc_sb_printf(out, "program %s: %u grid barrier%s, %u segment%s, %u spill buffer%s\n", p->name,
               s->barriers, s->barriers == 1 ? "" : "s", s->nsegs, s->nsegs == 1 ? "" : "s",
               s->nbuffers - s->nuser, s->nbuffers - s->nuser == 1 ? "" : "s");
  if (p->fixpoint.present)
    vc_sb_printf(out, "fixpoint: at most %u passes%s%s\n", p->fixpoint.max,
                 p->fixpoint.has_flag ? ", flag " : "",
                 p->fixpoint.has_flag ? p->buffers[p->fixpoint.flag].name : "");
  uint64_t up = 0, down = 0;
  for (uint32_t k = 0; k < s->nsegs; k++) {
    const vc_split_segment *g = &s->segs[k];
    vc_sb_printf(out, "segment %u: %u buffer%s bound, host-split moves %llu B up, %llu B down\n", k,
                 g->nbind, g->nbind == 1 ? "" : "s", (unsigned long long)g->up_bytes,
                 (unsigned long long)g->down_bytes);
    for (uint32_t i = 0; i < g->nbind; i++) {
      const vc_buffer *b = &g->prog->buffers[i];
      vc_sb_printf(out, "    bind %-2u %-24s %-10s %s %u\n", i, b->name, vc_access_name(b->access),
                   vc_type_name(b->type), b->count);
    }
    describe_syms(s, "spill in", g->spill_in, g->nspill_in, out);
    describe_syms(s, "spill out", g->spill_out, g->nspill_out, out);
    describe_syms(s, "recompute", g->remat, g->nremat, out);
    up += g->up_bytes;
    down += g->down_bytes;
  }
  vc_sb_printf(out, "per pass: host-split %llu B up, %llu B down, %u launches\n",
               (unsigned long long)up, (unsigned long long)down, s->nsegs);
  vc_sb_printf(out, "resident-split: %llu B up and %llu B down once, %llu B each way per pass\n",
               (unsigned long long)s->resident_up_once, (unsigned long long)s->resident_down_once,
               (unsigned long long)s->flag_bytes_per_pass);
  if (with_programs)
    for (uint32_t k = 0; k < s->nsegs; k++) {
      vc_sb_printf(out, "\n; ---- segment %u ----\n", k);
      vc_print_program(s->segs[k].prog, out);
    }
}
