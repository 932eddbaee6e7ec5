/* Names in entry: lexical scopes of let, var and loop variables, and the
 * messages for a name that does not resolve. */
#include <string.h>

#include "harness/parse_int.h"

uint32_t vc_p_scope_mark(const vc_pctx *c) { return c->nscope; }

void vc_p_scope_pop(vc_pctx *c, uint32_t mark) { c->nscope = mark; }

int vc_p_lookup_quiet(const vc_pctx *c, const char *name) {
  for (uint32_t i = c->nscope; i-- > 0;)
    if (strcmp(c->p->syms[c->scope[i]].name, name) == 0) return (int)c->scope[i];
  return -1;
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
  return (int)p->nsyms++;
}

static bool loc_before(vc_loc a, vc_loc b) {
  return a.line < b.line || (a.line == b.line && a.col < b.col);
}

static bool contains(const vc_sx *tree, const vc_sx *x) {
  if (tree == x) return true;
  for (uint32_t i = 0; tree->kind == VC_SX_LIST && i < tree->n; i++)
    if (contains(tree->items[i], x)) return true;
  return false;
}

typedef struct decl_search {
  const vc_sx *use;
  const vc_sx *later;  /* first declaration after the use */
  const vc_sx *around; /* a declaration whose form contains the use */
  const vc_sx *before; /* last declaration before the use */
} decl_search;

/* Looks through entry for (let|var|loop NAME ...) forms declaring the used name. */
static void find_decls(const vc_sx *t, decl_search *s) {
  if (t->kind != VC_SX_LIST) return;
  const char *h = vc_sx_head(t);
  if ((strcmp(h, "let") == 0 || strcmp(h, "var") == 0 || strcmp(h, "loop") == 0) && t->n > 1 &&
      t->items[1]->kind == VC_SX_ATOM && strcmp(t->items[1]->text, s->use->text) == 0) {
    if (loc_before(s->use->loc, t->items[1]->loc)) {
      if (!s->later) s->later = t;
    } else if (contains(t, s->use)) {
      s->around = t;
    } else {
      s->before = t;
    }
  }
  for (uint32_t i = 0; i < t->n; i++) find_decls(t->items[i], s);
}

static void unknown_name(vc_pctx *c, const vc_sx *x) {
  vc_space space;
  uint32_t m;
  if (vc_p_memory_named(c, x->text, &space, &m)) {
    vc_perr(c, x->loc, "%s is a %s, not a value: read it with (load %s I)", x->text,
            space == VC_SPACE_BUFFER ? "buffer" : "shared array", x->text);
    return;
  }
  decl_search s = {.use = x};
  if (c->entry) find_decls(c->entry, &s);
  if (s.around && strcmp(vc_sx_head(s.around), "loop") == 0) {
    vc_perr(c, x->loc, "loop variable %s is visible only in the body of its loop at %u:%u",
            x->text, s.around->loc.line, s.around->loc.col);
  } else if (s.around) {
    vc_perr(c, x->loc, "%s is used in its own definition at %u:%u", x->text,
            s.around->items[1]->loc.line, s.around->items[1]->loc.col);
  } else if (s.later) {
    vc_perr(c, x->loc, "%s is used before its definition at %u:%u", x->text,
            s.later->items[1]->loc.line, s.later->items[1]->loc.col);
  } else if (s.before) {
    vc_perr(c, x->loc, "%s is not visible here: its declaration at %u:%u is out of scope",
            x->text, s.before->items[1]->loc.line, s.before->items[1]->loc.col);
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
