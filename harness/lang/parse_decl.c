/* The forms of (program NAME FORM...) other than entry's statements:
 * doc, tags, workgroup, grid, buffer, shared, fixpoint and expect. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/plural.h"
#include "harness/lang/parse_int.h"
#include "harness/lang/parse_lit.h"

typedef void form_fn(vc_pctx *c, const vc_sx *f);

/* Forms that may appear once: false (reported) for the second. */
static bool once(vc_pctx *c, const vc_sx **first, const vc_sx *f) {
  if (!*first) {
    *first = f;
    return true;
  }
  vc_perr(c, f->loc, "repeated (%s ...); the first is at %u:%u", vc_sx_head(f), (*first)->loc.line,
          (*first)->loc.col);
  return false;
}

static void doc_form(vc_pctx *c, const vc_sx *f) {
  if (!once(c, &c->doc, f) || !vc_p_arity(c, f, 1, 1, "(doc \"TEXT\")")) return;
  if (f->items[1]->kind != VC_SX_STRING) {
    vc_perr(c, f->items[1]->loc, "(doc ...) takes a string");
    return;
  }
  c->p->doc = vc_arena_strdup(&c->p->arena, f->items[1]->text);
}

static void tags_form(vc_pctx *c, const vc_sx *f) {
  if (!vc_p_arity(c, f, 1, UINT32_MAX, "(tags NAME...)")) return;
  vc_program *p = c->p;
  for (uint32_t i = 1; i < f->n; i++) {
    if (!vc_p_label(c, f->items[i], "tag")) continue;
    p->tags = vc_p_grow(&p->arena, p->tags, p->ntags, &c->tags_cap, sizeof *p->tags);
    p->tags[p->ntags++] = vc_arena_strdup(&p->arena, f->items[i]->text);
  }
}

/* X [Y [Z]] of workgroup or grid: each at least 1 and at most max. */
static bool dims(vc_pctx *c, const vc_sx *f, const char *usage, uint32_t max, uint32_t out[3]) {
  if (!vc_p_arity(c, f, 1, 3, usage)) return false;
  bool ok = true;
  for (uint32_t i = 1; i < f->n; i++) {
    uint32_t v;
    char what[64];
    snprintf(what, sizeof what, "a %s dimension", vc_sx_head(f));
    if (!vc_p_literal_of(c, f->items[i], what, VC_U32, &v)) {
      ok = false;
    } else if (v == 0 || v > max) {
      vc_perr(c, f->items[i]->loc, "%s dimension %u is out of range: expected 1 to %u",
              vc_sx_head(f), v, max);
      ok = false;
    } else {
      out[i - 1] = v;
    }
  }
  return ok;
}

static void workgroup_form(vc_pctx *c, const vc_sx *f) {
  uint32_t d[3] = {1, 1, 1};
  if (!once(c, &c->workgroup, f) ||
      !dims(c, f, "(workgroup X [Y [Z]])", VC_MAX_WORKGROUP_INVOCATIONS, d))
    return;
  uint64_t n = (uint64_t)d[0] * d[1] * d[2];
  if (n > VC_MAX_WORKGROUP_INVOCATIONS) {
    vc_perr(c, f->loc, "workgroup %ux%ux%u has %llu invocations; at most %u", d[0], d[1], d[2],
            (unsigned long long)n, VC_MAX_WORKGROUP_INVOCATIONS);
    return;
  }
  memcpy(c->p->workgroup, d, sizeof d);
}

static void grid_form(vc_pctx *c, const vc_sx *f) {
  uint32_t d[3] = {1, 1, 1};
  if (!once(c, &c->grid, f) || !dims(c, f, "(grid X [Y [Z]])", VC_MAX_GRID_DIM, d)) return;
  memcpy(c->p->grid, d, sizeof d);
}

/* A buffer or shared array of that name, or NULL; loc of its declaration. */
static const char *memory_kind(const vc_pctx *c, const char *name, vc_loc *loc) {
  vc_space space;
  uint32_t i;
  if (!vc_p_memory_named(c, name, &space, &i)) return NULL;
  *loc = space == VC_SPACE_BUFFER ? c->p->buffers[i].loc : c->p->shared[i].loc;
  return space == VC_SPACE_BUFFER ? "buffer" : "shared array";
}

static bool new_memory_name(vc_pctx *c, const vc_sx *x, const char *what) {
  if (!vc_p_name(c, x, what)) return false;
  vc_loc first;
  const char *kind = memory_kind(c, x->text, &first);
  if (!kind) return true;
  if (strcmp(kind, what) == 0)
    vc_perr(c, x->loc, "duplicate %s %s; the first is at %u:%u", what, x->text, first.line,
            first.col);
  else
    vc_perr(c, x->loc, "duplicate name %s: already a %s, declared at %u:%u", x->text, kind,
            first.line, first.col);
  return false;
}

static bool element_count(vc_pctx *c, const vc_sx *x, uint32_t max, uint32_t *count) {
  if (!vc_p_literal_of(c, x, "the element count", VC_U32, count)) return false;
  if (*count >= 1 && *count <= max) return true;
  vc_perr(c, x->loc, "element count %u is out of range: expected 1 to %u", *count, max);
  return false;
}

static bool access_mode(vc_pctx *c, const vc_sx *x, vc_access *a) {
  for (vc_access k = VC_READ; k <= VC_READ_WRITE; k++) {
    if (vc_sx_is_atom(x, vc_access_name(k))) {
      *a = k;
      return true;
    }
  }
  vc_perr(c, x->loc, "unknown access '%s': expected read, write or read_write", vc_sx_text(x));
  return false;
}

static void buffer_form(vc_pctx *c, const vc_sx *f) {
  vc_program *p = c->p;
  if (!vc_p_arity(c, f, 4, 5, "(buffer NAME TYPE COUNT ACCESS [(init INIT)])")) return;
  if (p->nbuffers == VC_MAX_BUFFERS) {
    vc_perr(c, f->loc, "too many buffers: a program has at most %u", VC_MAX_BUFFERS);
    return;
  }
  vc_buffer b = {.loc = f->loc, .role = VC_ROLE_USER};
  bool named = new_memory_name(c, f->items[1], "buffer");
  if (named) b.name = vc_arena_strdup(&p->arena, f->items[1]->text);
  if (!vc_p_type(c, f->items[2], &b.type)) b.type = VC_P_BAD;
  bool counted = element_count(c, f->items[3], VC_MAX_BUFFER_ELEMS, &b.count);
  bool accessed = access_mode(c, f->items[4], &b.access);
  b.init.kind = b.access == VC_WRITE ? VC_INIT_NONE : VC_INIT_ZERO;
  if (f->n == 6 && accessed) {
    const vc_sx *init = f->items[5];
    if (strcmp(vc_sx_head(init), "init") != 0)
      vc_perr(c, init->loc, "expected (init INIT) after the access of the buffer");
    else if (b.access == VC_WRITE)
      vc_perr(c, init->loc,
              "(init ...) on write buffer %s: a write buffer starts zeroed and "
              "takes no init",
              vc_sx_text(f->items[1]));
    else if (named)
      vc_p_init(c, &b, init, counted);
  }
  if (!named) return;
  p->buffers = vc_p_grow(&p->arena, p->buffers, p->nbuffers, &c->buffers_cap, sizeof b);
  p->buffers[p->nbuffers++] = b;
}

static void shared_form(vc_pctx *c, const vc_sx *f) {
  vc_program *p = c->p;
  if (!vc_p_arity(c, f, 3, 3, "(shared NAME TYPE COUNT)")) return;
  vc_shared s = {.loc = f->loc};
  bool named = new_memory_name(c, f->items[1], "shared array");
  if (!vc_p_type(c, f->items[2], &s.type)) s.type = VC_P_BAD;
  if (element_count(c, f->items[3], UINT32_MAX, &s.count)) {
    uint64_t before = c->shared_bytes;
    c->shared_bytes += (uint64_t)s.count * 4u * (s.type == VC_P_BAD ? 1u : vc_type_words(s.type));
    if (before <= VC_MAX_SHARED_BYTES && c->shared_bytes > VC_MAX_SHARED_BYTES)
      vc_perr(c, f->loc, "shared arrays total %llu bytes, over the limit of %u bytes (32 KiB)",
              (unsigned long long)c->shared_bytes, VC_MAX_SHARED_BYTES);
  }
  if (!named) return;
  s.name = vc_arena_strdup(&p->arena, f->items[1]->text);
  p->shared = vc_p_grow(&p->arena, p->shared, p->nshared, &c->shared_cap, sizeof s);
  p->shared[p->nshared++] = s;
}

/* A buffer named by x for (flag F) or (ulp B N); -1 (reported) if none. */
static int buffer_ref(vc_pctx *c, const vc_sx *x, const char *form) {
  if (x->kind == VC_SX_ATOM) {
    int i = vc_program_find_buffer(c->p, x->text);
    if (i >= 0) return i;
  }
  vc_perr(c, x->loc, "unknown buffer %s in %s", vc_sx_text(x), form);
  return -1;
}

static void fixpoint_flag(vc_pctx *c, const vc_sx *g) {
  vc_fixpoint *fx = &c->p->fixpoint;
  if (!vc_p_arity(c, g, 1, 1, "(flag F)")) return;
  int i = buffer_ref(c, g->items[1], "(flag F)");
  if (i < 0) return;
  const vc_buffer *b = &c->p->buffers[i];
  if (b->type != VC_U32 && b->type != VC_P_BAD)
    vc_perr(c, g->items[1]->loc, "fixpoint flag buffer %s must be u32, not %s", b->name,
            vc_type_name(b->type));
  else if (b->access == VC_READ)
    vc_perr(c, g->items[1]->loc,
            "fixpoint flag buffer %s is read-only; it must be write or "
            "read_write",
            b->name);
  fx->has_flag = true;
  fx->flag = (uint32_t)i;
}

static void fixpoint_max(vc_pctx *c, const vc_sx *g) {
  vc_fixpoint *fx = &c->p->fixpoint;
  if (!vc_p_arity(c, g, 1, 1, "(max N)") ||
      !vc_p_literal_of(c, g->items[1], "the fixpoint maximum", VC_U32, &fx->max))
    return;
  if (fx->max == 0 || fx->max > VC_MAX_FIXPOINT_PASSES)
    vc_perr(c, g->items[1]->loc, "fixpoint max %u is out of range: expected 1 to %u", fx->max,
            VC_MAX_FIXPOINT_PASSES);
}

static void fixpoint_form(vc_pctx *c, const vc_sx *f) {
  if (!once(c, &c->fixpoint, f) || !vc_p_arity(c, f, 1, 2, "(fixpoint (max N) [(flag F)])")) return;
  c->p->fixpoint.present = true;
  c->p->fixpoint.loc = f->loc;
  const vc_sx *max = NULL, *flag = NULL;
  for (uint32_t i = 1; i < f->n; i++) {
    const vc_sx *g = f->items[i];
    if (strcmp(vc_sx_head(g), "max") == 0) {
      if (once(c, &max, g)) fixpoint_max(c, g);
    } else if (strcmp(vc_sx_head(g), "flag") == 0) {
      if (once(c, &flag, g)) fixpoint_flag(c, g);
    } else {
      vc_perr(c, g->loc, "unknown part of (fixpoint ...): expected (max N) or (flag F)");
    }
  }
  if (!max) vc_perr(c, f->loc, "(fixpoint ...) needs (max N)");
}

/* A second expectation of the same kind (ulp: of the same buffer; values:
   of an overlapping slice of the same buffer)? */
static bool repeated_expect(vc_pctx *c, const vc_expect *e) {
  for (uint32_t i = 0; i < c->p->nexpects; i++) {
    const vc_expect *o = &c->p->expects[i];
    bool apart = e->kind == VC_EXPECT_VALUES &&
                 (o->ref != e->ref || o->n + o->nvalues <= e->n || e->n + e->nvalues <= o->n);
    if (o->kind == e->kind && (e->kind != VC_EXPECT_ULP || o->ref == e->ref) && !apart) {
      vc_perr(c, e->loc, "repeated expectation; the first is at %u:%u", o->loc.line, o->loc.col);
      return true;
    }
  }
  return false;
}

static void keep_reject(vc_pctx *c, const vc_sx *text) {
  free(c->diags->expect_reject);
  c->diags->expect_reject = strdup(text->text);
}

static bool expect_ulp(vc_pctx *c, const vc_sx *g, vc_expect *e) {
  c->has_ulp = true;
  if (!vc_p_arity(c, g, 2, 2, "(ulp B N)")) return false;
  int i = buffer_ref(c, g->items[1], "(ulp B N)");
  bool ok = vc_p_literal_of(c, g->items[2], "the ulp distance", VC_U32, &e->n);
  if (i < 0) return false;
  if (c->p->buffers[i].type != VC_F32 && c->p->buffers[i].type != VC_P_BAD) {
    vc_perr(c, g->items[1]->loc, "(ulp B N) is for f32 buffers; %s is %s", g->items[1]->text,
            vc_type_name(c->p->buffers[i].type));
    return false;
  }
  e->ref = (uint32_t)i;
  return ok;
}

static bool expect_digest(vc_pctx *c, const vc_sx *g, vc_expect *e) {
  if (!vc_p_arity(c, g, 1, 1, "(digest \"HEX\")")) return false;
  const vc_sx *s = g->items[1];
  bool ok = s->kind == VC_SX_STRING && s->len == 64;
  for (size_t i = 0; ok && i < s->len; i++)
    ok = strchr("0123456789abcdefABCDEF", s->text[i]) && s->text[i];
  if (!ok) {
    vc_perr(c, s->loc, "(digest \"HEX\") takes a SHA-256: a string of 64 hex digits");
    return false;
  }
  char *t = vc_arena_strdup(&c->p->arena, s->text);
  for (char *q = t; *q; q++)
    if (*q >= 'A' && *q <= 'F') *q = (char)(*q - 'A' + 'a');
  e->text = t;
  return true;
}

static bool expect_passes(vc_pctx *c, const vc_sx *g, vc_expect *e) {
  if (!vc_p_arity(c, g, 1, 1, "(passes N)") ||
      !vc_p_literal_of(c, g->items[1], "the number of passes", VC_U32, &e->n))
    return false;
  if (e->n == 0 || e->n > VC_MAX_FIXPOINT_PASSES) {
    vc_perr(c, g->items[1]->loc, "(passes N): %u is out of range: expected 1 to %u", e->n,
            VC_MAX_FIXPOINT_PASSES);
    return false;
  }
  return true;
}

/* (timeout S): whole seconds, as --timeout takes them. */
static bool expect_timeout(vc_pctx *c, const vc_sx *g, vc_expect *e) {
  if (!vc_p_arity(c, g, 1, 1, "(timeout S)")) return false;
  const vc_sx *s = g->items[1];
  vc_type t = VC_VOID;
  uint64_t b = 0;
  char why[256];
  if (s->kind != VC_SX_ATOM || !vc_lit_is_number(s->text) ||
      !vc_lit_parse(s->text, &t, &b, why, sizeof why) || t != VC_U32 || b == 0 ||
      b > VC_MAX_TIMEOUT_S) {
    vc_perr(c, s->loc, "(timeout S): %s is not a timeout: expected whole seconds, 1 to %u",
            vc_sx_text(s), VC_MAX_TIMEOUT_S);
    return false;
  }
  e->n = (uint32_t)b;
  return true;
}

/* (buffer NAME [(at I)] (values V...)): the oracle's output of NAME from
   element I (0) on, as literals of its type. */
static bool expect_values(vc_pctx *c, const vc_sx *g, vc_expect *e) {
  static const char usage[] = "(buffer NAME [(at I)] (values V...))";
  if (!vc_p_arity(c, g, 2, 3, usage)) return false;
  int b = buffer_ref(c, g->items[1], usage);
  if (b < 0) return false;
  const vc_buffer *buf = &c->p->buffers[b];
  e->ref = (uint32_t)b;
  if (buf->access == VC_READ) {
    vc_perr(c, g->items[1]->loc, "%s is a read buffer: expected values are of outputs", buf->name);
    return false;
  }
  const vc_sx *vals = g->items[g->n - 1];
  if (g->n == 4) {
    const vc_sx *at = g->items[2];
    if (strcmp(vc_sx_head(at), "at") != 0 || !vc_p_arity(c, at, 1, 1, "(at I)")) {
      if (strcmp(vc_sx_head(at), "at") != 0)
        vc_perr(c, at->loc, "expected (at I) in %s, got %s", usage, vc_sx_text(at));
      return false;
    }
    if (!vc_p_literal_of(c, at->items[1], "the first element of (at I)", VC_U32, &e->n))
      return false;
  }
  if (strcmp(vc_sx_head(vals), "values") != 0) {
    vc_perr(c, vals->loc, "expected (values V...) in %s, got %s", usage, vc_sx_text(vals));
    return false;
  }
  e->nvalues = vals->n - 1;
  if (e->nvalues == 0 || (uint64_t)e->n + e->nvalues > buf->count) {
    vc_perr(c, vals->loc, "%u expected %s from element %u %s not fit %s (%u %s)", e->nvalues,
            vc_plural(e->nvalues, "value", "values"), e->n, vc_plural(e->nvalues, "does", "do"),
            buf->name, buf->count, vc_plural(buf->count, "element", "elements"));
    return false;
  }
  e->values = vc_arena_alloc(&c->p->arena,
                             (size_t)e->nvalues * vc_type_words(buf->type) * sizeof *e->values);
  bool ok = true;
  for (uint32_t i = 0; i < e->nvalues; i++) {
    uint64_t v = 0;
    ok &= vc_p_literal_of64(c, vals->items[i + 1], "an expected value", buf->type, &v);
    vc_elem_put(e->values, i, buf->type, v);
  }
  return ok;
}

static const char expect_usage[] =
    "expected (expect reject \"TEXT\"), (expect out-of-bounds), (expect (ulp B N)), "
    "(expect (digest \"HEX\")), (expect (passes N)), (expect (converges)), "
    "(expect (timeout S)) or (expect (buffer NAME [(at I)] (values V...)))";

/* Fills e from (expect ...); false (reported) when malformed. */
static bool expectation(vc_pctx *c, const vc_sx *f, vc_expect *e) {
  if (!vc_p_arity(c, f, 1, 2, "(expect ...)")) return false;
  const vc_sx *a = f->items[1];
  if (vc_sx_is_atom(a, "reject") && f->n == 3 && f->items[2]->kind == VC_SX_STRING) {
    keep_reject(c, f->items[2]);
    e->kind = VC_EXPECT_REJECT;
    e->text = vc_arena_strdup(&c->p->arena, f->items[2]->text);
    return true;
  }
  if (vc_sx_is_atom(a, "out-of-bounds") && f->n == 2) {
    e->kind = VC_EXPECT_OUT_OF_BOUNDS;
    return true;
  }
  if (strcmp(vc_sx_head(a), "ulp") == 0 && f->n == 2) {
    e->kind = VC_EXPECT_ULP;
    return expect_ulp(c, a, e);
  }
  if (strcmp(vc_sx_head(a), "digest") == 0 && f->n == 2) {
    e->kind = VC_EXPECT_DIGEST;
    return expect_digest(c, a, e);
  }
  if (strcmp(vc_sx_head(a), "passes") == 0 && f->n == 2) {
    e->kind = VC_EXPECT_PASSES;
    return expect_passes(c, a, e);
  }
  if (strcmp(vc_sx_head(a), "converges") == 0 && f->n == 2) {
    e->kind = VC_EXPECT_CONVERGES;
    return vc_p_arity(c, a, 0, 0, "(converges)");
  }
  if (strcmp(vc_sx_head(a), "timeout") == 0 && f->n == 2) {
    e->kind = VC_EXPECT_TIMEOUT;
    return expect_timeout(c, a, e);
  }
  if (strcmp(vc_sx_head(a), "buffer") == 0 && f->n == 2) {
    e->kind = VC_EXPECT_VALUES;
    return expect_values(c, a, e);
  }
  vc_perr(c, f->loc, "unknown expectation: %s", expect_usage);
  return false;
}

static void expect_form(vc_pctx *c, const vc_sx *f) {
  vc_program *p = c->p;
  vc_expect e = {.loc = f->loc};
  if (!expectation(c, f, &e) || repeated_expect(c, &e)) return;
  p->expects = vc_p_grow(&p->arena, p->expects, p->nexpects, &c->expects_cap, sizeof e);
  p->expects[p->nexpects++] = e;
}

static void entry_form(vc_pctx *c, const vc_sx *f) { once(c, &c->entry, f); }

static const struct {
  const char *name;
  form_fn *fn;
  int pass; /* declarations first, so that any form may name any buffer */
} forms[] = {
    {"buffer", buffer_form, 0},     {"shared", shared_form, 0},       {"doc", doc_form, 1},
    {"tags", tags_form, 1},         {"workgroup", workgroup_form, 1}, {"grid", grid_form, 1},
    {"fixpoint", fixpoint_form, 1}, {"expect", expect_form, 1},       {"entry", entry_form, 1},
};

static int form_index(const vc_sx *f) {
  for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
    if (strcmp(vc_sx_head(f), forms[i].name) == 0) return (int)i;
  return -1;
}

static void invocations_limit(vc_pctx *c) {
  uint64_t n = vc_program_invocations(c->p);
  if (c->grid && n >= (1ull << 32))
    vc_perr(c, c->grid->loc,
            "%llu workgroups of %u invocations make %llu invocations; the total "
            "must be below 2^32",
            (unsigned long long)vc_program_workgroups(c->p), vc_program_workgroup_size(c->p),
            (unsigned long long)n);
}

/* Expectations about passes need the fixpoint they describe (forms come in
   any order, so this runs after all of them). */
static void fixpoint_expects(vc_pctx *c) {
  const vc_fixpoint *fx = &c->p->fixpoint;
  for (uint32_t i = 0; i < c->p->nexpects; i++) {
    const vc_expect *e = &c->p->expects[i];
    if (e->kind == VC_EXPECT_PASSES) {
      if (!fx->present)
        vc_perr(c, e->loc, "(expect (passes N)) needs a (fixpoint ...)");
      else if (e->n > fx->max)
        vc_perr(c, e->loc, "(expect (passes %u)) is more than the fixpoint's (max %u)", e->n,
                fx->max);
      else if (!fx->has_flag && e->n != fx->max)
        vc_perr(c, e->loc,
                "(expect (passes %u)): a fixpoint without a flag runs exactly its (max %u)",
                e->n, fx->max);
    } else if (e->kind == VC_EXPECT_CONVERGES && !(fx->present && fx->has_flag)) {
      vc_perr(c, e->loc, "(expect (converges)) needs a (fixpoint (max N) (flag F))");
    }
  }
}

void vc_p_program_forms(vc_pctx *c) {
  const vc_sx *prog = c->program;
  for (int pass = 0; pass < 2; pass++) {
    for (uint32_t i = 2; i < prog->n; i++) {
      const vc_sx *f = prog->items[i];
      int k = form_index(f);
      if (k >= 0 && forms[k].pass == pass) forms[k].fn(c, f);
      if (k >= 0 || pass == 1) continue;
      if (f->kind != VC_SX_LIST || !*vc_sx_head(f))
        vc_perr(c, f->loc, "expected a form such as (buffer ...) in the program, got %s",
                vc_sx_text(f));
      else
        vc_perr(c, f->loc,
                "unknown form (%s ...) in the program: expected doc, tags, workgroup, "
                "grid, buffer, shared, fixpoint, expect or entry",
                vc_sx_head(f));
    }
  }
  invocations_limit(c);
  fixpoint_expects(c);
}

void vc_p_expect_reject_only(vc_pctx *c) {
  const vc_sx *prog = c->program;
  for (uint32_t i = 2; i < prog->n; i++) {
    const vc_sx *f = prog->items[i];
    if (strcmp(vc_sx_head(f), "expect") == 0 && f->n == 3 && vc_sx_is_atom(f->items[1], "reject") &&
        f->items[2]->kind == VC_SX_STRING)
      keep_reject(c, f->items[2]);
  }
}
