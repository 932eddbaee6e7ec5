#include "harness/lang/read.h"

#include <string.h>

#include "harness/lang/lex.h"

typedef struct reader {
  vc_lexer lx;
  vc_token tok;
  vc_arena *a;
  bool well_formed;
  bool unclosed; /* an unclosed '(' was reported */
} reader;

static void next(reader *r) { vc_lex_next(&r->lx, &r->tok); }

static void error(reader *r, vc_loc loc, const char *msg) {
  vc_diags_add(r->lx.diags, r->lx.path, loc, "%s", msg);
}

/* A growing list of items in the arena (amortised doubling). */
static void push(vc_arena *a, vc_sx *list, uint32_t *cap, vc_sx *item) {
  if (list->n == *cap) {
    uint32_t ncap = *cap ? *cap * 2 : 4;
    vc_sx **items = vc_arena_alloc(a, ncap * sizeof *items);
    if (list->n) memcpy(items, list->items, list->n * sizeof *items);
    list->items = items;
    *cap = ncap;
  }
  list->items[list->n++] = item;
}

static vc_sx *atom(reader *r) {
  vc_sx *x = vc_arena_alloc(r->a, sizeof *x);
  x->kind = VC_SX_ATOM;
  x->loc = x->end = r->tok.loc;
  x->text = vc_arena_strndup(r->a, r->tok.text, r->tok.len);
  x->len = r->tok.len;
  return x;
}

/* Undoes the \" and \\ escapes (the lexer has reported any others). */
static vc_sx *string(reader *r) {
  vc_sx *x = vc_arena_alloc(r->a, sizeof *x);
  x->kind = VC_SX_STRING;
  x->loc = x->end = r->tok.loc;
  char *s = vc_arena_alloc(r->a, r->tok.len + 1);
  size_t n = 0;
  for (size_t i = 0; i < r->tok.len; i++) {
    char c = r->tok.text[i];
    if (c == '\\' && i + 1 < r->tok.len) c = r->tok.text[++i];
    s[n++] = c;
  }
  s[n] = '\0';
  x->text = s;
  x->len = n;
  return x;
}

/* Skips the rest of a list nested too deeply, keeping no tree of it. */
static void skip_list(reader *r) {
  uint32_t depth = 1;
  while (depth && r->tok.kind != VC_TOK_END) {
    if (r->tok.kind == VC_TOK_LPAREN) depth++;
    if (r->tok.kind == VC_TOK_RPAREN) depth--;
    next(r);
  }
}

static vc_sx *form(reader *r, uint32_t depth);

/* At '(': reads up to the matching ')'. */
static vc_sx *list(reader *r, uint32_t depth) {
  vc_sx *x = vc_arena_alloc(r->a, sizeof *x);
  x->kind = VC_SX_LIST;
  x->loc = r->tok.loc;
  next(r);
  if (depth >= VC_SX_MAX_DEPTH) {
    vc_diags_add(r->lx.diags, r->lx.path, x->loc, "forms nested deeper than %u levels",
                 VC_SX_MAX_DEPTH);
    r->well_formed = false;
    skip_list(r);
    return x;
  }
  uint32_t cap = 0;
  while (r->tok.kind != VC_TOK_RPAREN) {
    if (r->tok.kind == VC_TOK_END) {
      if (!r->unclosed) error(r, x->loc, "'(' is not closed"); /* the innermost only */
      r->unclosed = true;
      r->well_formed = false;
      return x;
    }
    push(r->a, x, &cap, form(r, depth + 1));
  }
  x->end = r->tok.loc;
  next(r);
  return x;
}

static vc_sx *form(reader *r, uint32_t depth) {
  vc_sx *x;
  switch (r->tok.kind) {
  case VC_TOK_LPAREN:
    return list(r, depth);
  case VC_TOK_STRING:
    x = string(r);
    break;
  default:
    x = atom(r);
    break;
  }
  next(r);
  return x;
}

void vc_read(vc_arena *a, const char *path, const char *text, size_t len, vc_diags *diags,
             vc_sx_file *out) {
  reader r = {.a = a, .well_formed = true};
  vc_lex_init(&r.lx, path, text, len, diags);
  vc_sx top = {.kind = VC_SX_LIST};
  uint32_t cap = 0;
  next(&r);
  while (r.tok.kind != VC_TOK_END) {
    if (r.tok.kind == VC_TOK_RPAREN) {
      error(&r, r.tok.loc, "unexpected ')' with no '(' to close");
      r.well_formed = false;
      next(&r);
      continue;
    }
    push(a, &top, &cap, form(&r, 0));
  }
  out->forms = top.items;
  out->n = top.n;
  out->well_formed = r.well_formed;
}

const char *vc_sx_head(const vc_sx *x) {
  if (x->kind == VC_SX_LIST && x->n && x->items[0]->kind == VC_SX_ATOM) return x->items[0]->text;
  return "";
}

bool vc_sx_is_atom(const vc_sx *x, const char *word) {
  return x->kind == VC_SX_ATOM && strcmp(x->text, word) == 0;
}

const char *vc_sx_text(const vc_sx *x) {
  return x->kind == VC_SX_ATOM ? x->text : x->kind == VC_SX_LIST ? "(...)" : "a string";
}
