/* Names in entry: lexical scopes of let, var and loop variables, and the
 * messages for a name that does not resolve. */
#include <stdlib.h>
#include <string.h>

#include "harness/lang/parse_int.h"

struct vc_pname {
  const char *name; /* NULL: an empty slot */
  int sym;
};

static uint32_t hash(const char *s) {
  uint32_t h = 2166136261u; /* FNV-1a */
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

/* The slot of name: its entry, or the empty slot where it would go. */
static struct vc_pname *slot(const vc_pctx *c, const char *name) {
  uint32_t mask = c->names_cap - 1;
  for (uint32_t i = hash(name) & mask;; i = (i + 1) & mask)
    if (!c->names[i].name || strcmp(c->names[i].name, name) == 0) return &c->names[i];
}

static void grow_names(vc_pctx *c) {
  struct vc_pname *old = c->names;
  uint32_t n = c->names_cap;
  c->names_cap = n ? 2 * n : 64;
  c->names = vc_arena_alloc(c->scratch, c->names_cap * sizeof *c->names);
  for (uint32_t i = 0; i < n; i++)
    if (old[i].name) *slot(c, old[i].name) = old[i];
}

static void set_visible(vc_pctx *c, const char *name, int sym) {
  if (2 * (c->names_used + 1) > c->names_cap) grow_names(c);
  struct vc_pname *e = slot(c, name);
  if (!e->name) {
    e->name = name;
    c->names_used++;
  }
  e->sym = sym;
}

uint32_t vc_p_scope_mark(const vc_pctx *c) { return c->nscope; }

void vc_p_scope_pop(vc_pctx *c, uint32_t mark) {
  while (c->nscope > mark) set_visible(c, c->p->syms[c->scope[--c->nscope]].name, -1);
}

int vc_p_lookup_quiet(const vc_pctx *c, const char *name) {
  if (!c->names_cap) return -1;
  const struct vc_pname *e = slot(c, name);
  return e->name ? e->sym : -1;
}

bool vc_p_memory_named(const vc_pctx *c, const char *s, vc_space *space, uint32_t *index) {
  for (uint32_t i = 0; i < c->p->nbuffers; i++) {
    if (strcmp(c->p->buffers[i].name, s) == 0) {
      *space = VC_SPACE_BUFFER;
      *index = i;
      return true;
    }
  }
  for (uint32_t i = 0; i < c->p->nshared; i++) {
    if (strcmp(c->p->shared[i].name, s) == 0) {
      *space = VC_SPACE_SHARED;
      *index = i;
      return true;
    }
  }
  return false;
}

static const char *const sym_kind_name[] = {"let", "var", "loop variable"};

int vc_p_declare(vc_pctx *c, const vc_sx *name, vc_sym_kind kind, vc_type type) {
  if (name->kind != VC_SX_ATOM) {
    vc_perr(c, name->loc, "expected the name of the %s, got %s", sym_kind_name[kind],
            vc_sx_text(name));
    return -1;
  }
  int prev = vc_p_lookup_quiet(c, name->text);
  if (prev >= 0) {
    vc_loc at = c->p->syms[prev].loc;
    vc_perr(c, name->loc, "duplicate variable %s: already declared at %u:%u and still visible",
            name->text, at.line, at.col);
    return -1;
  }
  /* A reserved or clashing name is reported but still declared, so that its
     uses do not each report an unknown name. */
  vc_p_name(c, name, sym_kind_name[kind]);
  vc_space space;
  uint32_t m;
  if (vc_p_memory_named(c, name->text, &space, &m)) {
    vc_loc at = space == VC_SPACE_BUFFER ? c->p->buffers[m].loc : c->p->shared[m].loc;
    vc_perr(c, name->loc, "%s is the name of a %s (declared at %u:%u); a %s needs another name",
            name->text, space == VC_SPACE_BUFFER ? "buffer" : "shared array", at.line, at.col,
            sym_kind_name[kind]);
  }
  vc_program *p = c->p;
  p->syms = vc_p_grow(&p->arena, p->syms, p->nsyms, &c->syms_cap, sizeof *p->syms);
  p->syms[p->nsyms] = (vc_symbol){vc_arena_strdup(&p->arena, name->text), type, kind, name->loc};
  c->scope = vc_p_grow(c->scratch, c->scope, c->nscope, &c->scope_cap, sizeof *c->scope);
  c->scope[c->nscope++] = p->nsyms;
  set_visible(c, p->syms[p->nsyms].name, (int)p->nsyms);
  return (int)p->nsyms++;
}

static bool loc_before(vc_loc a, vc_loc b) {
  return a.line < b.line || (a.line == b.line && a.col < b.col);
}

static bool is_decl(const vc_sx *t) {
  const char *h = vc_sx_head(t);
  return (strcmp(h, "let") == 0 || strcmp(h, "var") == 0 || strcmp(h, "loop") == 0) && t->n > 1 &&
         t->items[1]->kind == VC_SX_ATOM;
}

static const char *decl_name(const vc_sx *d) { return d->items[1]->text; }

static void collect_decls(vc_pctx *c, const vc_sx *t, uint32_t *cap) {
  if (t->kind != VC_SX_LIST) return;
  if (is_decl(t)) {
    c->decls = vc_p_grow(c->scratch, c->decls, c->ndecls, cap, sizeof *c->decls);
    c->decls[c->ndecls++] = t;
  }
  for (uint32_t i = 0; i < t->n; i++) collect_decls(c, t->items[i], cap);
}

static int by_name_then_place(const void *a, const void *b) {
  const vc_sx *x = *(const vc_sx *const *)a, *y = *(const vc_sx *const *)b;
  int k = strcmp(decl_name(x), decl_name(y));
  if (k) return k;
  return loc_before(x->loc, y->loc) ? -1 : loc_before(y->loc, x->loc) ? 1 : 0;
}

typedef struct decl_search {
  const vc_sx *later;  /* first declaration after the use */
  const vc_sx *around; /* the declaration whose form holds the use */
  const vc_sx *before; /* last other declaration before the use */
} decl_search;

/* The declarations of the used name, against the place of the use. */
static decl_search find_decls(vc_pctx *c, const vc_sx *use) {
  decl_search s = {0};
  if (!c->entry) return s;
  if (!c->decls_built) {
    uint32_t cap = 0;
    collect_decls(c, c->entry, &cap);
    if (c->ndecls) qsort(c->decls, c->ndecls, sizeof *c->decls, by_name_then_place);
    c->decls_built = true;
  }
  uint32_t lo = 0, hi = c->ndecls;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (strcmp(decl_name(c->decls[mid]), use->text) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (uint32_t i = lo; i < c->ndecls && strcmp(decl_name(c->decls[i]), use->text) == 0; i++) {
    const vc_sx *d = c->decls[i];
    if (loc_before(use->loc, d->items[1]->loc)) {
      if (!s.later) s.later = d;
    } else if (!loc_before(d->end, use->loc)) {
      s.around = d;
    } else {
      s.before = d;
    }
  }
  return s;
}

static void unknown_name(vc_pctx *c, const vc_sx *x) {
  vc_space space;
  uint32_t m;
  if (vc_p_memory_named(c, x->text, &space, &m)) {
    vc_perr(c, x->loc, "%s is a %s, not a value: read it with (load %s I)", x->text,
            space == VC_SPACE_BUFFER ? "buffer" : "shared array", x->text);
    return;
  }
  decl_search s = find_decls(c, x);
  if (s.around && strcmp(vc_sx_head(s.around), "loop") == 0) {
    vc_perr(c, x->loc, "loop variable %s is visible only in the body of its loop at %u:%u", x->text,
            s.around->loc.line, s.around->loc.col);
  } else if (s.around) {
    vc_perr(c, x->loc, "%s is used in its own definition at %u:%u", x->text,
            s.around->items[1]->loc.line, s.around->items[1]->loc.col);
  } else if (s.later) {
    vc_perr(c, x->loc, "%s is used before its definition at %u:%u", x->text,
            s.later->items[1]->loc.line, s.later->items[1]->loc.col);
  } else if (s.before) {
    vc_perr(c, x->loc, "%s is not visible here: its declaration at %u:%u is out of scope", x->text,
            s.before->items[1]->loc.line, s.before->items[1]->loc.col);
  } else {
    vc_perr(c, x->loc, "unknown name %s", x->text);
  }
}

int vc_p_lookup(vc_pctx *c, const vc_sx *x) {
  if (x->kind != VC_SX_ATOM) {
    vc_perr(c, x->loc, "expected a variable name, got %s", vc_sx_text(x));
    return -1;
  }
  int s = vc_p_lookup_quiet(c, x->text);
  if (s < 0) unknown_name(c, x);
  return s;
}
