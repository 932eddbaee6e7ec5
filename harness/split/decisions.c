/* The splitter's decisions, read off a finished plan: see decisions.h.
 *
 * Segment program k is, in order: the linear id (when it spills), its
 * reloads, its recomputed lets, the source statements of segment k (each
 * return with saves wrapped in a block), its saves (split.c, build_segment).
 * So the source statements of every segment, and with them every
 * declaration and return, can be read back from the plan itself; the saves
 * the splitter added are told apart by their spill buffers, which no
 * program can name. */
#include "harness/split/decisions.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[] = {
#define VC_X(id, name, what) name,
    VC_SPLIT_DECISION_TABLE(VC_X)
#undef VC_X
};

static const char *const whats[] = {
#define VC_X(id, name, what) what,
    VC_SPLIT_DECISION_TABLE(VC_X)
#undef VC_X
};

const char *vc_split_decision_name(vc_split_decision d) {
  return (unsigned)d < VC_DEC_COUNT ? names[d] : "?";
}

const char *vc_split_decision_what(vc_split_decision d) {
  return (unsigned)d < VC_DEC_COUNT ? whats[d] : "?";
}

enum { S_READ = 1, S_SET = 2, S_SET_TOP = 4 };              /* symbol use in a segment */
enum { M_READ = 1, M_WRITE = 2, M_ATOMIC = 4 };             /* buffer use in a segment */
#define NONE UINT32_MAX

typedef struct seg_view {
  const vc_program *prog;
  vc_node *const *body; /* the source statements of the segment */
  uint32_t nbody;
  uint32_t first_return; /* body index of the first statement holding a return, or NONE */
  uint8_t *sym;          /* [source symbol]: S_* */
  uint8_t *mem;          /* [segment buffer]: M_* */
} seg_view;

typedef struct reader {
  const vc_split *s;
  const vc_program *src;
  uint32_t nsyms;
  seg_view *segs;
  int32_t *def_seg; /* per source symbol: segment of its top-level declaration, or -1 */
  uint32_t *def_pos;
  const vc_node **def;
  bool *elig;      /* a let the splitter's rule may recompute */
  uint32_t *depth; /* of an eligible let's chain, 1 for literals and builtins */
  bool *spilled;
  vc_split_decisions *out;
  vc_error *err;
} reader;

static bool is_save(const vc_program *p, const vc_node *n) {
  return n->kind == VC_S_STORE && n->space == VC_SPACE_BUFFER && n->ref < p->nbuffers &&
         p->buffers[n->ref].role == VC_ROLE_SPILL;
}

/* The block split.c puts in place of a return: saves, then the return. */
static bool is_save_block(const vc_program *p, const vc_node *n) {
  if (n->kind != VC_S_BLOCK || n->nkids < 2 || n->kids[n->nkids - 1]->kind != VC_S_RETURN)
    return false;
  for (uint32_t i = 0; i + 1 < n->nkids; i++)
    if (!is_save(p, n->kids[i])) return false;
  return true;
}

/* Symbol uses under n, leaving out the saves the splitter added. */
static void scan_syms(const vc_program *p, const vc_node *n, uint8_t *sym, bool top) {
  if (is_save(p, n)) return;
  if (n->kind == VC_E_NAME) sym[n->ref] |= S_READ;
  if (n->kind == VC_S_SET) sym[n->ref] |= (uint8_t)(S_SET | (top ? S_SET_TOP : 0));
  for (uint32_t i = 0; i < n->nkids; i++) scan_syms(p, n->kids[i], sym, false);
}

static void scan_mem(const vc_node *n, uint8_t *mem) {
  if (n->space == VC_SPACE_BUFFER) {
    if (n->kind == VC_E_LOAD) mem[n->ref] |= M_READ;
    if (n->kind == VC_S_STORE) mem[n->ref] |= M_WRITE;
    if (n->kind == VC_E_ATOMIC || n->kind == VC_S_ATOMIC) mem[n->ref] |= M_ATOMIC;
  }
  for (uint32_t i = 0; i < n->nkids; i++) scan_mem(n->kids[i], mem);
}

/* Calls site(top, depth) for every return under body statement top: a bare
   return or a block of saves and a return. */
typedef struct return_site {
  uint32_t top, depth;
} return_site;

typedef struct site_list {
  return_site *items;
  uint32_t n, cap;
} site_list;

static void find_returns(const vc_program *p, const vc_node *n, uint32_t top, uint32_t depth,
                         site_list *l) {
  if (n->kind == VC_S_RETURN || is_save_block(p, n)) {
    if (l->n == l->cap) {
      l->cap = l->cap ? 2 * l->cap : 8;
      l->items = realloc(l->items, l->cap * sizeof *l->items);
      if (!l->items) abort();
    }
    l->items[l->n++] = (return_site){top, depth};
    return;
  }
  if (vc_node_is_expr(n)) return;
  for (uint32_t i = 0; i < n->nkids; i++) find_returns(p, n->kids[i], top, depth + 1, l);
}

static uint32_t count_kind(const vc_node *n, vc_node_kind kind, uint8_t op) {
  uint32_t c = n->kind == kind && n->op == op;
  for (uint32_t i = 0; i < n->nkids; i++) c += count_kind(n->kids[i], kind, op);
  return c;
}

static bool has_grid_barrier(const vc_node *n) {
  if (n->kind == VC_S_BARRIER) return n->op == VC_BARRIER_GRID;
  if (n->kind != VC_S_BLOCK) return false;
  for (uint32_t i = 0; i < n->nkids; i++)
    if (has_grid_barrier(n->kids[i])) return true;
  return false;
}

static bool in_list(const uint32_t *l, uint32_t n, uint32_t v) {
  for (uint32_t i = 0; i < n; i++)
    if (l[i] == v) return true;
  return false;
}

/* The splitter's rule, restated: literals, builtins and recomputable lets,
   through operators, casts and selects; nothing that reads memory. */
static bool pure_expr(const reader *r, const vc_node *e) {
  switch (e->kind) {
  case VC_E_LIT:
  case VC_E_BUILTIN:
    return true;
  case VC_E_NAME:
    return r->elig[e->ref];
  case VC_E_UNARY:
  case VC_E_BINARY:
  case VC_E_SELECT:
  case VC_E_CAST:
  case VC_E_BITCAST:
    for (uint32_t i = 0; i < e->nkids; i++)
      if (!pure_expr(r, e->kids[i])) return false;
    return true;
  default:
    return false;
  }
}

static uint32_t chain_depth(const reader *r, const vc_node *e) {
  uint32_t d = 0;
  if (e->kind == VC_E_NAME && r->elig[e->ref]) d = r->depth[e->ref];
  for (uint32_t i = 0; i < e->nkids; i++) {
    uint32_t k = chain_depth(r, e->kids[i]);
    if (k > d) d = k;
  }
  return d;
}

enum { HAS_LOAD = 1, HAS_ATOMIC = 2, HAS_VAR = 4, HAS_UNRECOMPUTABLE_LET = 8 };

static unsigned expr_parts(const reader *r, const vc_node *e) {
  unsigned f = 0;
  if (e->kind == VC_E_LOAD) f |= HAS_LOAD;
  if (e->kind == VC_E_ATOMIC) f |= HAS_ATOMIC;
  if (e->kind == VC_E_NAME && r->src->syms[e->ref].kind == VC_SYM_VAR) f |= HAS_VAR;
  if (e->kind == VC_E_NAME && r->src->syms[e->ref].kind == VC_SYM_LET && !r->elig[e->ref])
    f |= HAS_UNRECOMPUTABLE_LET;
  for (uint32_t i = 0; i < e->nkids; i++) f |= expr_parts(r, e->kids[i]);
  return f;
}

static int disagree(reader *r, const char *what, uint32_t sym) {
  return vc_fail(r->err, VC_ERR_INTERNAL,
                 "split decisions: program %s: %s `%s': the decision table no longer reads "
                 "this plan as the splitter made it (harness/split/decisions.c)",
                 r->src->name, what, r->src->syms[sym].name);
}

#define TAKE(id) (r->out->n[VC_DEC_##id]++)

/* Segments: their source statements, returns, symbol and buffer uses. */
static int read_segments(reader *r) {
  const vc_split *s = r->s;
  for (uint32_t k = 0; k < s->nsegs; k++) {
    const vc_split_segment *g = &s->segs[k];
    seg_view *v = &r->segs[k];
    const vc_node *entry = g->prog->entry;
    uint32_t pro = ((g->nspill_in || g->nspill_out) ? 1u : 0u) + g->nspill_in + g->nremat;
    if (entry->nkids < pro + g->nspill_out)
      return vc_fail(r->err, VC_ERR_INTERNAL,
                     "split decisions: program %s: segment %u has %u statements, fewer than its "
                     "reloads, recomputed lets and saves",
                     r->src->name, k, entry->nkids);
    v->prog = g->prog;
    v->body = entry->kids + pro;
    v->nbody = entry->nkids - pro - g->nspill_out;
    v->first_return = NONE;
    v->sym = calloc(r->nsyms ? r->nsyms : 1, 1);
    v->mem = calloc(g->prog->nbuffers ? g->prog->nbuffers : 1, 1);
    if (!v->sym || !v->mem) abort();
    for (uint32_t i = 0; i < v->nbody; i++) {
      const vc_node *st = v->body[i];
      if ((st->kind == VC_S_LET || st->kind == VC_S_VAR) && st->ref < r->nsyms) {
        r->def_seg[st->ref] = (int32_t)k;
        r->def_pos[st->ref] = i;
        r->def[st->ref] = st;
      }
      scan_syms(g->prog, st, v->sym, true);
    }
    scan_mem(entry, v->mem);
  }
  return 0;
}

static void take_cuts(reader *r) {
  const vc_split *s = r->s;
  if (s->nsegs == 1) TAKE(CUT_NONE);
  for (uint32_t i = 0; i < r->src->entry->nkids; i++) {
    const vc_node *st = r->src->entry->kids[i];
    if (st->kind == VC_S_BLOCK && has_grid_barrier(st)) TAKE(CUT_IN_BLOCK);
  }
  if (s->nsegs < 2) return;
  for (uint32_t k = 0; k < s->nsegs; k++) {
    const seg_view *v = &r->segs[k];
    for (uint32_t i = 0; i < v->nbody; i++)
      r->out->n[VC_DEC_WG_BARRIER_KEPT] += count_kind(v->body[i], VC_S_BARRIER, VC_BARRIER_WORKGROUP);
    if (v->nbody) continue;
    if (k == 0)
      TAKE(EMPTY_FIRST);
    else if (k == s->nsegs - 1)
      TAKE(EMPTY_LAST);
    else
      TAKE(EMPTY_MIDDLE);
  }
}

/* Which lets may be recomputed, checked against what the plan recomputes and spills. */
static int read_values(reader *r) {
  const vc_split *s = r->s;
  for (uint32_t i = 0; i + s->nuser < s->nbuffers; i++) r->spilled[s->spill_sym[i]] = true;
  for (uint32_t sym = 0; sym < r->nsyms; sym++) {
    /* symbols are numbered in order of appearance: operands come first */
    if (r->def_seg[sym] < 0 || r->src->syms[sym].kind != VC_SYM_LET) continue;
    const seg_view *v = &r->segs[r->def_seg[sym]];
    bool skippable = v->first_return != NONE && v->first_return < r->def_pos[sym];
    r->elig[sym] = !skippable && pure_expr(r, r->def[sym]->kids[0]);
    if (r->elig[sym]) r->depth[sym] = 1 + chain_depth(r, r->def[sym]->kids[0]);
  }
  for (uint32_t sym = 0; sym < r->nsyms; sym++)
    if (r->spilled[sym] && r->elig[sym]) return disagree(r, "spilled a recomputable let", sym);
  for (uint32_t k = 0; k < s->nsegs; k++)
    for (uint32_t i = 0; i < s->segs[k].nremat; i++) {
      uint32_t sym = s->segs[k].remat[i];
      if (sym >= r->nsyms || !r->elig[sym]) return disagree(r, "recomputed a let", sym);
    }
  return 0;
}

static void take_spills(reader *r) {
  const vc_split *s = r->s;
  uint32_t nspill = s->nbuffers - s->nuser;
  for (uint32_t i = 0; i < nspill; i++) {
    uint32_t sym = s->spill_sym[i];
    const vc_symbol *y = &r->src->syms[sym];
    if (y->kind == VC_SYM_VAR) {
      TAKE(SPILL_VAR);
    } else {
      unsigned f = expr_parts(r, r->def[sym]->kids[0]);
      if (f & HAS_LOAD) TAKE(SPILL_LET_LOAD);
      if (f & HAS_ATOMIC) TAKE(SPILL_LET_ATOMIC);
      if (f & HAS_VAR) TAKE(SPILL_LET_OF_VAR);
      if (f & HAS_UNRECOMPUTABLE_LET) TAKE(SPILL_LET_OF_SPILL);
      /* pure operands, yet not recomputed: a return may skip it */
      if (!f) TAKE(SPILL_LET_SKIPPABLE);
    }
    switch (y->type) {
    case VC_U32: TAKE(SPILL_U32); break;
    case VC_I32: TAKE(SPILL_I32); break;
    case VC_F32: TAKE(SPILL_F32); break;
    case VC_U64: TAKE(SPILL_U64); break;
    case VC_I64: TAKE(SPILL_I64); break;
    default: break;
    }
    /* the segments that bind its buffer, and any one between them that does not */
    uint32_t first = NONE, last = NONE, bound = 0;
    for (uint32_t k = 0; k < s->nsegs; k++)
      if (in_list(s->segs[k].bind, s->segs[k].nbind, s->nuser + i)) {
        if (first == NONE) first = k;
        last = k;
        bound++;
      }
    if (first != NONE && last - first + 1 > bound) TAKE(SPILL_PASSTHROUGH);
  }
  if (nspill) {
    const vc_program *p = r->src;
    uint32_t ny = p->grid[1] * p->workgroup[1], nz = p->grid[2] * p->workgroup[2];
    if (nz > 1)
      TAKE(SPILL_SLOT_3D);
    else if (ny > 1)
      TAKE(SPILL_SLOT_2D);
    if (p->fixpoint.present) TAKE(FIXPOINT_SPILL);
  }
  if (r->src->fixpoint.present) {
    if (r->src->fixpoint.has_flag)
      TAKE(FIXPOINT_FLAG);
    else
      TAKE(FIXPOINT_COUNT);
  }
}

static void take_saves(reader *r) {
  const vc_split *s = r->s;
  for (uint32_t k = 0; k < s->nsegs; k++) {
    const vc_split_segment *g = &s->segs[k];
    const seg_view *v = &r->segs[k];
    for (uint32_t i = 0; i < g->nspill_out; i++) {
      uint32_t sym = g->spill_out[i];
      if (r->def_seg[sym] >= (int32_t)k) continue;
      TAKE(SAVE_AFTER_SET);
      if (!(v->sym[sym] & S_SET_TOP)) TAKE(SAVE_AFTER_NESTED_SET);
    }
    for (uint32_t i = 0; i < g->nspill_in; i++) {
      uint32_t sym = g->spill_in[i];
      if ((v->sym[sym] & S_SET) && !(v->sym[sym] & S_READ)) TAKE(RELOAD_FOR_SET);
    }
    for (uint32_t sym = 0; sym < r->nsyms; sym++)
      if (r->spilled[sym] && r->def_seg[sym] < (int32_t)k && (v->sym[sym] & S_SET) &&
          !in_list(g->spill_out, g->nspill_out, sym))
        TAKE(NO_SAVE_DEAD);
  }
}

static void take_returns(reader *r, const site_list *sites, uint32_t k) {
  const vc_split_segment *g = &r->s->segs[k];
  bool fix = r->src->fixpoint.present;
  for (uint32_t j = 0; j < sites->n; j++) {
    const return_site *t = &sites->items[j];
    if (!g->nspill_out) {
      TAKE(RETURN_NO_SAVE);
      continue;
    }
    if (t->depth == 0)
      TAKE(RETURN_TOP_SAVES);
    else
      TAKE(RETURN_NESTED_SAVES);
    for (uint32_t i = 0; i < g->nspill_out; i++) {
      uint32_t sym = g->spill_out[i];
      if (in_list(g->spill_in, g->nspill_in, sym)) {
        TAKE(RETURN_RELOADED);
      } else if (r->def_seg[sym] == (int32_t)k && r->def_pos[sym] < t->top) {
        TAKE(RETURN_AFTER_DECL);
      } else {
        TAKE(RETURN_BEFORE_DECL);
        if (fix) TAKE(FIXPOINT_RETURN_ZERO);
      }
    }
  }
  for (uint32_t i = 0; i < g->nspill_out; i++) {
    uint32_t sym = g->spill_out[i];
    if (r->def_seg[sym] != (int32_t)k || in_list(g->spill_in, g->nspill_in, sym)) continue;
    bool before = false, after = false;
    for (uint32_t j = 0; j < sites->n; j++) {
      before |= sites->items[j].top < r->def_pos[sym];
      after |= sites->items[j].top > r->def_pos[sym];
    }
    if (before && after) TAKE(RETURNS_AROUND_DECL);
  }
}

/* Recomputed lets of segment k: depth of the chain, and whether the
   segment reads each one itself or only through others. */
static int take_recomputes(reader *r, const site_list *const *sites, uint32_t k) {
  const vc_split_segment *g = &r->s->segs[k];
  uint32_t n = g->nremat ? g->nremat : 1;
  uint32_t *level = malloc(n * sizeof *level);
  uint8_t **uses = calloc(n, sizeof *uses); /* uses[i]: the names let i's value reads */
  if (!level || !uses) abort();
  for (uint32_t i = 0; i < g->nremat; i++) {
    level[i] = (r->segs[k].sym[g->remat[i]] & S_READ) ? 0 : NONE;
    uses[i] = calloc(r->nsyms ? r->nsyms : 1, 1);
    if (!uses[i]) abort();
    scan_syms(r->src, r->def[g->remat[i]]->kids[0], uses[i], false);
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t i = 0; i < g->nremat; i++)
      for (uint32_t j = 0; j < g->nremat && level[i] != NONE; j++)
        if (level[j] > level[i] + 1 && (uses[i][g->remat[j]] & S_READ)) {
          level[j] = level[i] + 1;
          changed = true;
        }
  }
  int rc = 0;
  for (uint32_t i = 0; i < g->nremat && !rc; i++) {
    uint32_t sym = g->remat[i];
    if (level[i] == NONE) {
      rc = disagree(r, "recomputed a let its segment does not need", sym);
      break;
    }
    uint32_t d = r->depth[sym];
    if (d == 1) TAKE(RECOMPUTE_DEPTH1);
    if (d == 2) TAKE(RECOMPUTE_DEPTH2);
    if (d >= 3) TAKE(RECOMPUTE_DEPTH3);
    if (level[i] >= 1) TAKE(RECOMPUTE_FOR_CHAIN);
    if (level[i] >= 2) TAKE(RECOMPUTE_FOR_CHAIN2);
    if (vc_type_is_64(r->src->syms[sym].type)) TAKE(RECOMPUTE_64);
    const site_list *l = sites[r->def_seg[sym]];
    for (uint32_t j = 0; j < l->n; j++)
      if (l->items[j].top > r->def_pos[sym]) {
        TAKE(RECOMPUTE_BEFORE_RETURN);
        break;
      }
  }
  for (uint32_t i = 0; i < g->nremat; i++) free(uses[i]);
  free(uses);
  free(level);
  return rc;
}

static void take_bindings(reader *r) {
  const vc_split *s = r->s;
  uint32_t nu = s->nuser;
  for (uint32_t b = 0; b < nu; b++) {
    const vc_buffer *buf = &s->buffers[b];
    uint32_t first = NONE, last = NONE, bound = 0;
    bool written = false; /* by an earlier segment of the pass */
    for (uint32_t k = 0; k < s->nsegs; k++) {
      const vc_split_segment *g = &s->segs[k];
      uint32_t j = 0;
      while (j < g->nbind && g->bind[j] != b) j++;
      if (j == g->nbind) continue;
      if (first == NONE) first = k;
      last = k;
      bound++;
      uint8_t m = r->segs[k].mem[j];
      vc_access acc = g->prog->buffers[j].access;
      if (vc_type_is_64(buf->type)) TAKE(BIND_64);
      if (acc == VC_READ && written) TAKE(READ_PRIOR_OUTPUT);
      if (m == M_ATOMIC)
        TAKE(BIND_ATOMIC);
      else if ((m & (M_READ | M_ATOMIC)) && (m & (M_WRITE | M_ATOMIC)))
        TAKE(BIND_READ_WRITE);
      else if (m == M_WRITE && buf->access == VC_READ_WRITE)
        TAKE(BIND_WRITE_CALLER);
      else if (m == M_WRITE && written)
        TAKE(BIND_WRITE_WRITTEN);
      else if (m == M_WRITE && r->src->fixpoint.present)
        TAKE(BIND_WRITE_FIXPOINT);
      else if (m == M_WRITE)
        TAKE(BIND_WRITE_FRESH);
      if (acc != VC_READ) written = true;
    }
    if (first == NONE) {
      TAKE(NEVER_BOUND);
      continue;
    }
    if (first > 0) {
      if (buf->access == VC_READ) TAKE(LATE_READ);
      if (buf->access == VC_READ_WRITE) TAKE(LATE_READ_WRITE);
      if (buf->access == VC_WRITE) TAKE(LATE_WRITE);
    }
    if (last - first + 1 > bound) TAKE(BUFFER_PASSTHROUGH);
    if (buf->access != VC_READ && last < s->nsegs - 1) TAKE(OUTPUT_EARLY);
  }
  for (uint32_t a = 0; a < r->src->nshared; a++) {
    uint32_t in = 0;
    for (uint32_t k = 0; k < s->nsegs; k++) in += in_list(s->segs[k].sbind, s->segs[k].nsbind, a);
    if (in >= 2) TAKE(SHARED_SEVERAL);
  }
}

static void take_names(reader *r) {
  if (!r->s->nsegs) return;
  const vc_program *p = r->s->segs[0].prog; /* every segment has the same symbols */
  for (uint32_t i = 0; i < r->nsyms && i < p->nsyms; i++) {
    const char *was = r->src->syms[i].name, *now = p->syms[i].name;
    if (strcmp(was, now) == 0) continue;
    TAKE(RENAME);
    char plain[300];
    snprintf(plain, sizeof plain, "%s_%u", was, i);
    if (strcmp(now, plain) != 0) TAKE(RENAME_TAKEN);
  }
}

int vc_split_decisions_of(const vc_split *s, vc_split_decisions *out, vc_error *err) {
  memset(out, 0, sizeof *out);
  reader r = {.s = s, .src = s->src, .nsyms = s->src->nsyms, .out = out, .err = err};
  uint32_t n = r.nsyms ? r.nsyms : 1;
  r.segs = calloc(s->nsegs ? s->nsegs : 1, sizeof *r.segs);
  r.def_seg = malloc(n * sizeof *r.def_seg);
  r.def_pos = calloc(n, sizeof *r.def_pos);
  r.def = calloc(n, sizeof *r.def);
  r.elig = calloc(n, sizeof *r.elig);
  r.depth = calloc(n, sizeof *r.depth);
  r.spilled = calloc(n, sizeof *r.spilled);
  site_list *sites = calloc(s->nsegs ? s->nsegs : 1, sizeof *sites);
  const site_list **siteps = calloc(s->nsegs ? s->nsegs : 1, sizeof *siteps);
  if (!r.segs || !r.def_seg || !r.def_pos || !r.def || !r.elig || !r.depth || !r.spilled ||
      !sites || !siteps)
    abort();
  for (uint32_t i = 0; i < r.nsyms; i++) r.def_seg[i] = -1;
  int rc = read_segments(&r);
  for (uint32_t k = 0; k < s->nsegs && !rc; k++) {
    seg_view *v = &r.segs[k];
    for (uint32_t i = 0; i < v->nbody; i++) find_returns(v->prog, v->body[i], i, 0, &sites[k]);
    if (sites[k].n) v->first_return = sites[k].items[0].top;
    siteps[k] = &sites[k];
  }
  if (!rc) rc = read_values(&r);
  if (!rc) {
    take_cuts(&r);
    take_spills(&r);
    take_saves(&r);
    take_bindings(&r);
    take_names(&r);
    for (uint32_t k = 0; k < s->nsegs; k++) take_returns(&r, &sites[k], k);
    for (uint32_t k = 0; k < s->nsegs && !rc; k++) rc = take_recomputes(&r, siteps, k);
  }
  for (uint32_t k = 0; k < s->nsegs; k++) {
    free(r.segs[k].sym);
    free(r.segs[k].mem);
    free(sites[k].items);
  }
  free(sites);
  free(siteps);
  free(r.segs);
  free(r.def_seg);
  free(r.def_pos);
  free(r.def);
  free(r.elig);
  free(r.depth);
  free(r.spilled);
  if (rc) memset(out, 0, sizeof *out);
  return rc;
}
