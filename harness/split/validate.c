/* The plan validator: see validate.h and docs/splitter.md, section 7.
 *
 * Everything is recomputed from the segment programs themselves (what the
 * backends run) and from the source; nothing is taken from the splitter's
 * own bookkeeping. */
#include "harness/split/validate.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { USE_READ = 1, USE_WRITE = 2 };

static const char *const rule_names[] = {
    "ok",
#define VC_X(id, name, what) name,
    VC_PLAN_RULE_TABLE(VC_X)
#undef VC_X
};

const char *vc_plan_rule_name(vc_plan_rule r) {
  return (unsigned)r < VC_PLAN_RULE_COUNT ? rule_names[r] : "?";
}

static vc_plan_rule violate(vc_error *err, vc_plan_rule r, const vc_program *src, int64_t seg,
                            const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static vc_plan_rule violate(vc_error *err, vc_plan_rule r, const vc_program *src, int64_t seg,
                            const char *fmt, ...) {
  char what[800];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  if (seg >= 0)
    vc_fail(err, VC_ERR_INTERNAL, "plan validator: %s: program %s, segment %lld (%s.seg%lld): %s",
            vc_plan_rule_name(r), src->name, (long long)seg, src->name, (long long)seg, what);
  else
    vc_fail(err, VC_ERR_INTERNAL, "plan validator: %s: program %s: %s", vc_plan_rule_name(r),
            src->name, what);
  return r;
}

/* " at LINE:COL", or what stands for a node the splitter made. */
static const char *where(const vc_node *n, char *buf, size_t len) {
  if (n->loc.line)
    snprintf(buf, len, " at %u:%u", n->loc.line, n->loc.col);
  else
    snprintf(buf, len, " (one the splitter added)");
  return buf;
}

static const vc_node *find_grid_barrier(const vc_node *n) {
  if (n->kind == VC_S_BARRIER && n->op == VC_BARRIER_GRID) return n;
  for (uint32_t i = 0; i < n->nkids; i++) {
    const vc_node *b = find_grid_barrier(n->kids[i]);
    if (b) return b;
  }
  return NULL;
}

static bool is_mem(const vc_node *n) {
  return n->kind == VC_E_LOAD || n->kind == VC_S_STORE || n->kind == VC_E_ATOMIC ||
         n->kind == VC_S_ATOMIC;
}

/* How a memory node uses its array: an atomic of any op reads and writes
   (backends bind atomically used buffers writable). */
static uint8_t use_of(const vc_node *n) {
  return n->kind == VC_E_LOAD ? USE_READ : n->kind == VC_S_STORE ? USE_WRITE : USE_READ | USE_WRITE;
}

/* Marks the use of every table entry of p under n; the first memory node
   whose index is outside its table goes to *bad (and marks nothing). */
static void mark_uses(const vc_program *p, const vc_node *n, uint8_t *buf, uint8_t *sh,
                      const vc_node **bad) {
  if (is_mem(n)) {
    uint32_t lim = n->space == VC_SPACE_BUFFER ? p->nbuffers : p->nshared;
    if (n->ref >= lim) {
      if (!*bad) *bad = n;
    } else if (n->space == VC_SPACE_BUFFER) {
      buf[n->ref] |= use_of(n);
    } else {
      sh[n->ref] |= use_of(n);
    }
  }
  for (uint32_t i = 0; i < n->nkids; i++) mark_uses(p, n->kids[i], buf, sh, bad);
}

static bool same_array(const char *an, vc_type at, uint32_t ac, const char *bn, vc_type bt,
                       uint32_t bc) {
  return strcmp(an, bn) == 0 && at == bt && ac == bc;
}

/* ---- the plan's table and spill slots ---- */

vc_plan_rule vc_plan_validate_table(const vc_split *s, const vc_program *src, vc_error *err) {
  if (s->nuser != src->nbuffers || s->nbuffers < s->nuser)
    return violate(err, VC_PLAN_BUFFER_TABLE, src, -1,
                   "the plan table has %u user buffers of %u entries; the source declares %u",
                   s->nuser, s->nbuffers, src->nbuffers);
  for (uint32_t i = 0; i < s->nuser; i++) {
    const vc_buffer *b = &s->buffers[i], *o = &src->buffers[i];
    if (!same_array(b->name, b->type, b->count, o->name, o->type, o->count) ||
        b->access != o->access || b->role != VC_ROLE_USER)
      return violate(err, VC_PLAN_BUFFER_TABLE, src, -1,
                     "plan buffer %u is %s %s %u %s; the source's buffer %u is %s %s %u %s", i,
                     b->name, vc_type_name(b->type), b->count, vc_access_name(b->access), i,
                     o->name, vc_type_name(o->type), o->count, vc_access_name(o->access));
  }
  uint64_t inv = vc_program_invocations(src);
  for (uint32_t i = s->nuser; i < s->nbuffers; i++) {
    const vc_buffer *b = &s->buffers[i];
    uint32_t sym = s->spill_sym[i - s->nuser];
    if (b->role != VC_ROLE_SPILL || sym >= src->nsyms)
      return violate(err, VC_PLAN_SPILL_SLOT, src, -1,
                     "plan buffer %u (%s) after the user buffers is not a spill of a source "
                     "symbol (symbol %u of %u)", i, b->name, sym, src->nsyms);
    for (uint32_t j = s->nuser; j < i; j++)
      if (s->spill_sym[j - s->nuser] == sym)
        return violate(err, VC_PLAN_SPILL_SLOT, src, -1,
                       "value %s has two spill buffers, %s and %s", src->syms[sym].name,
                       s->buffers[j].name, b->name);
    vc_type t = src->syms[sym].type;
    vc_type want = t == VC_F32 ? VC_U32 : t; /* f32 travels as its bits */
    if (b->type != want)
      return violate(err, VC_PLAN_SPILL_SLOT, src, -1,
                     "spill buffer %s holds %s, a %s, in %s elements (%u bits): it needs %s "
                     "elements (%u bits)", b->name, src->syms[sym].name, vc_type_name(t),
                     vc_type_name(b->type), 32 * vc_type_words(b->type), vc_type_name(want),
                     32 * vc_type_words(want));
    if (b->count != inv)
      return violate(err, VC_PLAN_SPILL_SLOT, src, -1,
                     "spill buffer %s of %s has %u slots for %llu invocations (one each)",
                     b->name, src->syms[sym].name, b->count, (unsigned long long)inv);
  }
  return VC_PLAN_OK;
}

/* ---- the counts ---- */

vc_plan_rule vc_plan_validate_counts(const vc_split *s, const vc_program *src, vc_error *err) {
  uint32_t b = vc_program_grid_barriers(src);
  if (s->nsegs != b + 1 || s->barriers != b)
    return violate(err, VC_PLAN_SEGMENTS, src, -1,
                   "split plan of %s has %u segment%s (for %u grid barrier%s), but the source has "
                   "%u grid barrier%s (%u segments)", src->name, s->nsegs,
                   s->nsegs == 1 ? "" : "s", s->barriers, s->barriers == 1 ? "" : "s", b,
                   b == 1 ? "" : "s", b + 1);
  uint64_t flag = src->fixpoint.present && src->fixpoint.has_flag ? 4 : 0;
  if (s->flag_bytes_per_pass != flag)
    return violate(err, VC_PLAN_SEGMENTS, src, -1,
                   "the plan moves %llu fixpoint flag bytes each way per pass; the source's "
                   "fixpoint %s", (unsigned long long)s->flag_bytes_per_pass,
                   flag ? "has a flag (4)" : "has no flag (0)");
  for (uint32_t k = 0; k < s->nsegs; k++) {
    const vc_program *p = s->segs[k].prog;
    if (!p)
      return violate(err, VC_PLAN_SEGMENTS, src, k, "no segment program");
    if (p->fixpoint.present)
      return violate(err, VC_PLAN_SEGMENTS, src, k,
                     "the segment program has a fixpoint of its own (the drivers repeat the "
                     "whole plan per pass)");
    if (memcmp(p->workgroup, src->workgroup, sizeof p->workgroup) ||
        memcmp(p->grid, src->grid, sizeof p->grid))
      return violate(err, VC_PLAN_SEGMENTS, src, k,
                     "launched with workgroup %ux%ux%u, grid %ux%ux%u; the source's are "
                     "%ux%ux%u, %ux%ux%u", p->workgroup[0], p->workgroup[1], p->workgroup[2],
                     p->grid[0], p->grid[1], p->grid[2], src->workgroup[0], src->workgroup[1],
                     src->workgroup[2], src->grid[0], src->grid[1], src->grid[2]);
  }
  return VC_PLAN_OK;
}

/* ---- one segment ---- */

/* The binding docs/splitter.md section 3 gives plan buffer i used with
   `use` in segment k; why says which row applies. */
static vc_access expected_access(const vc_split *s, const vc_program *src, uint32_t i,
                                 uint8_t use, const uint8_t *wrote, const char **why) {
  if (!(use & USE_WRITE)) {
    *why = "the segment only reads it";
    return VC_READ;
  }
  if (use & USE_READ) {
    *why = "the segment reads and writes it";
    return VC_READ_WRITE;
  }
  if (i >= s->nuser) {
    *why = "the segment only saves this spill (every invocation writes its slot)";
    return VC_WRITE;
  }
  if (src->buffers[i].access != VC_WRITE) {
    *why = "the segment writes it and the caller's contents are visible";
    return VC_READ_WRITE;
  }
  if (wrote[i]) {
    *why = "the segment writes it and an earlier segment wrote it (a fresh allocation would "
           "lose those contents)";
    return VC_READ_WRITE;
  }
  if (src->fixpoint.present) {
    *why = "the segment writes it and an earlier pass's contents are visible (fixpoint)";
    return VC_READ_WRITE;
  }
  *why = "the segment only writes it and nothing wrote it before";
  return VC_WRITE;
}

static int64_t spill_of(const vc_split *s, uint32_t sym) {
  for (uint32_t i = s->nuser; i < s->nbuffers; i++)
    if (s->spill_sym[i - s->nuser] == sym) return i;
  return -1;
}

static bool listed(const uint32_t *syms, uint32_t n, uint32_t sym) {
  for (uint32_t i = 0; i < n; i++)
    if (syms[i] == sym) return true;
  return false;
}

/* Is sym declared by a top-level let or var of p before statement t? */
static bool declared_before(const vc_program *p, uint32_t sym, uint32_t t) {
  for (uint32_t i = 0; i < t; i++) {
    const vc_node *d = p->entry->kids[i];
    if ((d->kind == VC_S_LET || d->kind == VC_S_VAR) && d->ref == sym) return true;
  }
  return false;
}

/* The first load or atomic, or name not declared before statement t, in e. */
static const vc_node *remat_bad(const vc_program *p, const vc_node *e, uint32_t t) {
  if (e->kind == VC_E_LOAD || e->kind == VC_E_ATOMIC) return e;
  if (e->kind == VC_E_NAME && (e->ref >= p->nsyms || !declared_before(p, e->ref, t))) return e;
  for (uint32_t i = 0; i < e->nkids; i++) {
    const vc_node *b = remat_bad(p, e->kids[i], t);
    if (b) return b;
  }
  return NULL;
}

static vc_plan_rule check_recomputed(const vc_split *s, const vc_program *src, uint32_t k,
                                     vc_error *err) {
  const vc_split_segment *g = &s->segs[k];
  const vc_program *p = g->prog;
  char at[48];
  for (uint32_t r = 0; r < g->nremat; r++) {
    uint32_t sym = g->remat[r];
    if (sym >= src->nsyms)
      return violate(err, VC_PLAN_RECOMPUTE, src, k, "recomputes symbol %u of %u", sym,
                     src->nsyms);
    const char *name = src->syms[sym].name;
    uint32_t t = 0;
    while (t < p->entry->nkids &&
           !(p->entry->kids[t]->kind == VC_S_LET && p->entry->kids[t]->ref == sym))
      t++;
    if (t == p->entry->nkids)
      return violate(err, VC_PLAN_RECOMPUTE, src, k,
                     "recomputes let %s, but declares no top-level let %s", name, name);
    const vc_node *bad = remat_bad(p, p->entry->kids[t]->kids[0], t);
    if (bad && bad->kind != VC_E_NAME)
      return violate(err, VC_PLAN_RECOMPUTE, src, k,
                     "recomputed let %s reads memory (a %s%s): after the barrier it may differ",
                     name, vc_node_kind_name(bad->kind), where(bad, at, sizeof at));
    if (bad)
      return violate(err, VC_PLAN_RECOMPUTE, src, k,
                     "recomputed let %s uses %s, which is not available: the segment does not "
                     "declare it before the let", name,
                     bad->ref < p->nsyms ? p->syms[bad->ref].name : "an unknown symbol");
  }
  return VC_PLAN_OK;
}

static vc_plan_rule check_spills(const vc_split *s, const vc_program *src, uint32_t k,
                                 const uint8_t *use, const uint8_t *wrote, vc_error *err) {
  const vc_split_segment *g = &s->segs[k];
  const vc_program *p = g->prog;
  for (uint32_t i = 0; i < g->nbind; i++) {
    uint32_t b = g->bind[i];
    if (b < s->nuser) continue;
    const char *value = src->syms[s->spill_sym[b - s->nuser]].name;
    if ((use[i] & USE_READ) && !wrote[b])
      return violate(err, VC_PLAN_SPILL_ORDER, src, k,
                     "reads spill buffer %s (value %s) before any earlier segment wrote it",
                     p->buffers[i].name, value);
    uint32_t sym = s->spill_sym[b - s->nuser];
    if (((use[i] & USE_READ) != 0) != listed(g->spill_in, g->nspill_in, sym))
      return violate(err, VC_PLAN_SPILL_ORDER, src, k,
                     "%s spill buffer %s, but its reload list %s %s", (use[i] & USE_READ)
                     ? "reads" : "does not read", p->buffers[i].name,
                     (use[i] & USE_READ) ? "lacks" : "has", value);
    if (((use[i] & USE_WRITE) != 0) != listed(g->spill_out, g->nspill_out, sym))
      return violate(err, VC_PLAN_SPILL_ORDER, src, k,
                     "%s spill buffer %s, but its save list %s %s", (use[i] & USE_WRITE)
                     ? "writes" : "does not write", p->buffers[i].name,
                     (use[i] & USE_WRITE) ? "lacks" : "has", value);
  }
  /* a listed value the segment does not bind at all */
  for (int l = 0; l < 2; l++) {
    const uint32_t *syms = l ? g->spill_out : g->spill_in;
    uint32_t n = l ? g->nspill_out : g->nspill_in;
    for (uint32_t j = 0; j < n; j++) {
      int64_t b = syms[j] < src->nsyms ? spill_of(s, syms[j]) : -1;
      bool bound = false;
      for (uint32_t i = 0; b >= 0 && i < g->nbind; i++) bound |= g->bind[i] == (uint32_t)b;
      if (!bound)
        return violate(err, VC_PLAN_SPILL_ORDER, src, k,
                       "its %s list has %s, but the segment binds no spill buffer of it",
                       l ? "save" : "reload",
                       syms[j] < src->nsyms ? src->syms[syms[j]].name : "an unknown symbol");
    }
  }
  return VC_PLAN_OK;
}

static vc_plan_rule check_table(const vc_split *s, const vc_program *src, uint32_t k,
                                uint8_t *use, uint8_t *suse, vc_error *err) {
  const vc_split_segment *g = &s->segs[k];
  const vc_program *p = g->prog;
  if (g->nbind != p->nbuffers || g->nsbind != p->nshared)
    return violate(err, VC_PLAN_BUFFER_TABLE, src, k,
                   "the plan binds %u buffers and %u shared arrays; the segment program "
                   "declares %u and %u", g->nbind, g->nsbind, p->nbuffers, p->nshared);
  for (uint32_t i = 0; i < g->nbind; i++) {
    uint32_t b = g->bind[i];
    if (b >= s->nbuffers || (i && b <= g->bind[i - 1]))
      return violate(err, VC_PLAN_BUFFER_TABLE, src, k,
                     "binding %u (%s) is plan buffer %u: not one of the plan's %u in plan order",
                     i, p->buffers[i].name, b, s->nbuffers);
    const vc_buffer *d = &p->buffers[i], *o = &s->buffers[b];
    if (!same_array(d->name, d->type, d->count, o->name, o->type, o->count))
      return violate(err, VC_PLAN_BUFFER_TABLE, src, k,
                     "binding %u is %s %s %u, but plan buffer %u is %s %s %u", i, d->name,
                     vc_type_name(d->type), d->count, b, o->name, vc_type_name(o->type), o->count);
  }
  for (uint32_t i = 0; i < g->nsbind; i++) {
    uint32_t h = g->sbind[i];
    if (h >= src->nshared || (i && h <= g->sbind[i - 1]))
      return violate(err, VC_PLAN_BUFFER_TABLE, src, k,
                     "shared array %u (%s) is source shared array %u: not one of the source's %u "
                     "in order", i, p->shared[i].name, h, src->nshared);
    const vc_shared *d = &p->shared[i], *o = &src->shared[h];
    if (!same_array(d->name, d->type, d->count, o->name, o->type, o->count))
      return violate(err, VC_PLAN_BUFFER_TABLE, src, k,
                     "shared array %u is %s %s %u, but the source's %u is %s %s %u", i, d->name,
                     vc_type_name(d->type), d->count, h, o->name, vc_type_name(o->type), o->count);
  }
  const vc_node *bad = NULL;
  mark_uses(p, p->entry, use, suse, &bad);
  char at[48];
  if (bad)
    return violate(err, VC_PLAN_BUFFER_TABLE, src, k,
                   "a %s%s touches %s %u, which is not in the segment's table of %u",
                   vc_node_kind_name(bad->kind), where(bad, at, sizeof at),
                   bad->space == VC_SPACE_BUFFER ? "buffer" : "shared array", bad->ref,
                   bad->space == VC_SPACE_BUFFER ? p->nbuffers : p->nshared);
  for (uint32_t i = 0; i < g->nbind; i++)
    if (!use[i])
      return violate(err, VC_PLAN_BUFFER_TABLE, src, k, "binds %s but never touches it",
                     p->buffers[i].name);
  for (uint32_t i = 0; i < g->nsbind; i++)
    if (!suse[i])
      return violate(err, VC_PLAN_BUFFER_TABLE, src, k,
                     "declares shared array %s but never touches it", p->shared[i].name);
  return VC_PLAN_OK;
}

/* Segment k, given which plan buffers segments 0..k-1 wrote. */
static vc_plan_rule check_segment(const vc_split *s, const vc_program *src, uint32_t k,
                                  const uint8_t *wrote, uint8_t *use, vc_error *err) {
  const vc_split_segment *g = &s->segs[k];
  const vc_program *p = g->prog;
  if (!p || !p->entry) return violate(err, VC_PLAN_SEGMENTS, src, k, "no segment program");
  char at[48];
  const vc_node *gb = find_grid_barrier(p->entry);
  if (gb)
    return violate(err, VC_PLAN_BARRIER, src, k,
                   "keeps a grid barrier%s: the split launches it as a plain kernel, where "
                   "nothing waits for the other workgroups", where(gb, at, sizeof at));
  uint8_t *suse = calloc(p->nshared ? p->nshared : 1, 1);
  if (!suse) abort();
  vc_plan_rule r = check_table(s, src, k, use, suse, err);
  free(suse);
  if (r) return r;
  for (uint32_t i = 0; i < g->nbind; i++) {
    const char *why;
    vc_access want = expected_access(s, src, g->bind[i], use[i], wrote, &why);
    if (p->buffers[i].access != want)
      return violate(err, VC_PLAN_ACCESS, src, k, "binds %s %s, but %s: %s", p->buffers[i].name,
                     vc_access_name(p->buffers[i].access), why, vc_access_name(want));
  }
  if ((r = check_spills(s, src, k, use, wrote, err))) return r;
  return check_recomputed(s, src, k, err);
}

/* Adds the plan buffers segment k writes to wrote (use: its table's uses). */
static void add_writes(const vc_split_segment *g, const uint8_t *use, uint8_t *wrote) {
  for (uint32_t i = 0; i < g->nbind; i++)
    if (use[i] & USE_WRITE) wrote[g->bind[i]] = 1;
}

/* use[] of segment k's table, ignoring what lies outside it. */
static void table_uses(const vc_program *p, uint8_t *use) {
  uint8_t *suse = calloc(p->nshared ? p->nshared : 1, 1);
  if (!suse) abort();
  const vc_node *bad = NULL;
  memset(use, 0, p->nbuffers ? p->nbuffers : 1);
  mark_uses(p, p->entry, use, suse, &bad);
  free(suse);
}

static uint32_t max_bind(const vc_split *s, uint32_t upto) {
  uint32_t m = 1;
  for (uint32_t k = 0; k < upto; k++)
    if (s->segs[k].prog && s->segs[k].prog->nbuffers > m) m = s->segs[k].prog->nbuffers;
  return m;
}

vc_plan_rule vc_plan_validate_segment(const vc_split *s, const vc_program *src, uint32_t k,
                                      vc_error *err) {
  uint8_t *wrote = calloc(s->nbuffers ? s->nbuffers : 1, 1);
  uint8_t *use = calloc(max_bind(s, k + 1), 1);
  if (!wrote || !use) abort();
  for (uint32_t j = 0; j < k; j++) {
    const vc_split_segment *g = &s->segs[j];
    if (!g->prog || g->nbind != g->prog->nbuffers) continue;
    table_uses(g->prog, use);
    for (uint32_t i = 0; i < g->nbind; i++)
      if ((use[i] & USE_WRITE) && g->bind[i] < s->nbuffers) wrote[g->bind[i]] = 1;
  }
  memset(use, 0, max_bind(s, k + 1));
  vc_plan_rule r = check_segment(s, src, k, wrote, use, err);
  free(wrote);
  free(use);
  return r;
}

vc_plan_rule vc_plan_validate(const vc_split *s, const vc_program *src, vc_error *err) {
  vc_plan_rule r = vc_plan_validate_counts(s, src, err);
  if (!r) r = vc_plan_validate_table(s, src, err);
  if (r) return r;
  uint32_t nuse = max_bind(s, s->nsegs);
  uint8_t *wrote = calloc(s->nbuffers ? s->nbuffers : 1, 1);
  uint8_t *use = malloc(nuse);
  if (!wrote || !use) abort();
  for (uint32_t k = 0; k < s->nsegs && !r; k++) {
    memset(use, 0, nuse);
    r = check_segment(s, src, k, wrote, use, err);
    if (!r) add_writes(&s->segs[k], use, wrote);
  }
  free(wrote);
  free(use);
  return r;
}
