/* The edits of a program's S-expression tree and the printer that applies
 * one (edit.h). */
#include "harness/reduce/edit.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const pass_names[] = {
#define VC_X(e, n) n,
    VC_EDIT_PASS_TABLE(VC_X)
#undef VC_X
};

const char *vc_edit_pass_name(vc_edit_pass p) {
  return (unsigned)p < VC_PASS_COUNT ? pass_names[p] : "?";
}

static void add(vc_edits *out, vc_edit e) {
  if (out->n == out->cap) {
    out->cap = out->cap ? out->cap * 2 : 64;
    out->items = realloc(out->items, out->cap * sizeof *out->items);
    if (!out->items) abort();
  }
  out->items[out->n++] = e;
}

void vc_edits_free(vc_edits *e) {
  free(e->items);
  memset(e, 0, sizeof *e);
}

/* The first item of a list that goes on a line of its own: the forms of a
   program, the statements of a body. 0: everything on one line. */
static uint32_t body_start(const vc_sx *x) {
  const char *h = vc_sx_head(x);
  if (strcmp(h, "program") == 0) return 2;
  if (strcmp(h, "entry") == 0 || strcmp(h, "block") == 0) return 1;
  if (strcmp(h, "while") == 0 || strcmp(h, "if") == 0) return 2;
  if (strcmp(h, "loop") == 0) return 4;
  return 0;
}

typedef struct subst {
  const char *name;
  const vc_sx *with;
} subst;

typedef struct printer {
  const vc_edit *e;
  const char *doc;
  vc_strbuf *out;
} printer;

static void put_string(vc_strbuf *out, const char *s) {
  vc_sb_putc(out, '"');
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') vc_sb_putc(out, '\\');
    vc_sb_putc(out, *s);
  }
  vc_sb_putc(out, '"');
}

static void newline(vc_strbuf *out, unsigned indent) {
  vc_sb_putc(out, '\n');
  for (unsigned i = 0; i < indent; i++) vc_sb_putc(out, ' ');
}

static void print(printer *pr, const vc_sx *x, unsigned indent, const subst *sub);

static bool is_doc(const vc_sx *x) {
  return x->kind == VC_SX_LIST && strcmp(vc_sx_head(x), "doc") == 0;
}

/* (expect (digest ...)), (expect (buffer ...)), (expect (passes ...)),
   (expect (converges)): what the program claims its outputs are. */
static bool is_claim(const vc_sx *x) {
  if (x->kind != VC_SX_LIST || strcmp(vc_sx_head(x), "expect") != 0 || x->n != 2) return false;
  const char *h = vc_sx_head(x->items[1]);
  return strcmp(h, "digest") == 0 || strcmp(h, "buffer") == 0 || strcmp(h, "passes") == 0 ||
         strcmp(h, "converges") == 0;
}

bool vc_edit_has_claims(const vc_sx *prog) {
  for (uint32_t i = 2; i < prog->n; i++)
    if (is_claim(prog->items[i])) return true;
  return false;
}

static void print_list(printer *pr, const vc_sx *x, unsigned indent, const subst *sub) {
  const vc_edit *e = pr->e && pr->e->at == x ? pr->e : NULL;
  uint32_t body = body_start(x);
  bool program = strcmp(vc_sx_head(x), "program") == 0;
  subst inl = {NULL, NULL};
  vc_sb_putc(pr->out, '(');
  bool first = true;
  for (uint32_t i = 0; i < x->n; i++) {
    if (e && e->kind == VC_EDIT_DEL && i >= e->k && i < e->k + e->count) continue;
    if (e && e->kind == VC_EDIT_INLINE && i == e->k) {
      inl.name = x->items[i]->items[1]->text;
      inl.with = x->items[i]->items[2];
      continue;
    }
    if (program && pr->doc && is_doc(x->items[i])) continue;
    if (e && e->kind == VC_EDIT_CLAIMS && is_claim(x->items[i])) continue;
    if (body && i >= body)
      newline(pr->out, indent + 2);
    else if (!first)
      vc_sb_putc(pr->out, ' ');
    print(pr, x->items[i], indent + 2, inl.name ? &inl : sub);
    first = false;
    if (program && pr->doc && i == 1) {
      newline(pr->out, indent + 2);
      vc_sb_puts(pr->out, "(doc ");
      put_string(pr->out, pr->doc);
      vc_sb_putc(pr->out, ')');
    }
  }
  vc_sb_putc(pr->out, ')');
}

static void print(printer *pr, const vc_sx *x, unsigned indent, const subst *sub) {
  const vc_edit *e = pr->e && pr->e->at == x ? pr->e : NULL;
  if (e && e->kind == VC_EDIT_TEXT) {
    vc_sb_puts(pr->out, e->text);
    return;
  }
  if (e && e->kind == VC_EDIT_HOIST) {
    print(pr, x->items[e->k], indent, sub);
    return;
  }
  if (e && e->kind == VC_EDIT_SPLICE) {
    for (uint32_t i = e->k; i < x->n; i++) {
      if (i > e->k) newline(pr->out, indent);
      print(pr, x->items[i], indent, sub);
    }
    return;
  }
  switch (x->kind) {
  case VC_SX_ATOM:
    if (sub && strcmp(x->text, sub->name) == 0)
      print(pr, sub->with, indent, NULL);
    else
      vc_sb_puts(pr->out, x->text);
    break;
  case VC_SX_STRING:
    put_string(pr->out, x->text);
    break;
  case VC_SX_LIST:
    print_list(pr, x, indent, sub);
    break;
  }
}

void vc_edit_print(const vc_sx *prog, const vc_edit *e, const char *doc, vc_strbuf *out) {
  printer pr = {e, doc, out};
  print(&pr, prog, 0, NULL);
  vc_sb_putc(out, '\n');
}

/* ---- enumeration ---- */

typedef struct walk {
  const vc_sx **lists; /* pre-order */
  uint32_t *depth;     /* 0: the program, 1: its forms */
  uint32_t n, cap;
} walk;

static void walk_add(walk *w, const vc_sx *x, uint32_t depth) {
  if (w->n == w->cap) {
    w->cap = w->cap ? w->cap * 2 : 64;
    w->lists = realloc(w->lists, w->cap * sizeof *w->lists);
    w->depth = realloc(w->depth, w->cap * sizeof *w->depth);
    if (!w->lists || !w->depth) abort();
  }
  w->lists[w->n] = x;
  w->depth[w->n++] = depth;
  for (uint32_t i = 0; i < x->n; i++)
    if (x->items[i]->kind == VC_SX_LIST) walk_add(w, x->items[i], depth + 1);
}

static bool is_name(const char *s) {
  if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_')) return false;
  return true;
}

/* A decimal or hexadecimal integer literal, split into its value and suffix
   ("", "u", "i", "u64", "i64"); false for anything else (f32 included). */
static bool int_literal(const char *s, bool *neg, uint64_t *v, const char **suffix) {
  *neg = *s == '-';
  if (*neg) s++;
  char *end;
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    if (*neg) return false;
    *v = strtoull(s + 2, &end, 16);
    if (end == s + 2) return false;
  } else {
    if (*s < '0' || *s > '9') return false;
    *v = strtoull(s, &end, 10);
  }
  const char *ok[] = {"", "u", "i", "u64", "i64"};
  for (unsigned i = 0; i < sizeof ok / sizeof ok[0]; i++)
    if (strcmp(end, ok[i]) == 0) {
      *suffix = ok[i];
      return true;
    }
  return false;
}

static void add_text(vc_edits *out, vc_edit_pass pass, const vc_sx *at, const char *text) {
  vc_edit e;
  memset(&e, 0, sizeof e);
  e.kind = VC_EDIT_TEXT;
  e.pass = pass;
  e.at = at;
  snprintf(e.text, sizeof e.text, "%s", text);
  add(out, e);
}

static void shrink_atom(vc_edits *out, const vc_sx *a) {
  bool neg;
  uint64_t v;
  const char *suf;
  if (!int_literal(a->text, &neg, &v, &suf)) return;
  char t[32];
  if (neg) {
    snprintf(t, sizeof t, "0%s", *suf ? suf : "i");
    add_text(out, VC_PASS_SHRINK, a, t);
    return;
  }
  /* 0, 1, then a search down from v: v/2, v - v/4, v - v/8, ..., v - 1 */
  uint64_t c[68];
  unsigned nc = 0;
  c[nc++] = 0;
  c[nc++] = 1;
  for (unsigned s = 1; s < 64 && (v >> s); s++) c[nc++] = v - (v >> s);
  c[nc++] = v - 1;
  for (unsigned i = 0; i < nc; i++) {
    if (v == 0 || c[i] >= v) continue;
    bool seen = false;
    for (unsigned j = 0; j < i; j++) seen |= c[j] == c[i];
    if (seen) continue;
    snprintf(t, sizeof t, "%" PRIu64 "%s", c[i], suf);
    add_text(out, VC_PASS_SHRINK, a, t);
  }
}

static const char *const literals[] = {"0", "0i", "0.0", "0u64", "0i64"};

void vc_edits_of(const vc_sx *prog, vc_edit_pass pass, vc_edits *out) {
  out->n = 0;
  walk w = {0};
  walk_add(&w, prog, 0);
  vc_edit e;
  memset(&e, 0, sizeof e);
  e.pass = pass;
  switch (pass) {
  case VC_PASS_DROP:
    /* halves first, as delta debugging does, down to single items */
    for (uint32_t c = 64; c >= 1; c /= 2)
      for (uint32_t l = 0; l < w.n; l++) {
        const vc_sx *x = w.lists[l];
        uint32_t first = w.depth[l] == 0 ? 2 : 1;
        if (x->n <= first || x->n - first < c) continue;
        for (uint32_t k = first; k + c <= x->n; k += c) {
          e.kind = VC_EDIT_DEL;
          e.at = x;
          e.k = k;
          e.count = c;
          add(out, e);
        }
      }
    break;
  case VC_PASS_UNWRAP:
    for (uint32_t l = 0; l < w.n; l++) {
      const vc_sx *x = w.lists[l];
      if (w.depth[l] < 2) continue;
      e.at = x;
      for (uint32_t k = 1; k < x->n; k++) {
        e.kind = VC_EDIT_HOIST;
        e.k = k;
        add(out, e);
      }
      for (uint32_t k = 1; k + 1 < x->n; k++) {
        e.kind = VC_EDIT_SPLICE;
        e.k = k;
        add(out, e);
      }
    }
    break;
  case VC_PASS_INLINE:
    for (uint32_t l = 0; l < w.n; l++) {
      const vc_sx *x = w.lists[l];
      for (uint32_t k = 1; k < x->n; k++) {
        const vc_sx *s = x->items[k];
        if (s->kind != VC_SX_LIST || s->n != 3 || strcmp(vc_sx_head(s), "let") != 0 ||
            s->items[1]->kind != VC_SX_ATOM)
          continue;
        e.kind = VC_EDIT_INLINE;
        e.at = x;
        e.k = k;
        add(out, e);
      }
    }
    break;
  case VC_PASS_LITERAL:
    for (uint32_t l = 0; l < w.n; l++) {
      const vc_sx *x = w.lists[l];
      if (w.depth[l] < 2) continue;
      for (unsigned i = 0; i < sizeof literals / sizeof literals[0]; i++)
        add_text(out, pass, x, literals[i]);
      /* a name (a var or a loop variable) used as an operand */
      for (uint32_t k = 1; k < x->n; k++)
        if (x->items[k]->kind == VC_SX_ATOM && is_name(x->items[k]->text))
          for (unsigned i = 0; i < sizeof literals / sizeof literals[0]; i++)
            add_text(out, pass, x->items[k], literals[i]);
    }
    break;
  case VC_PASS_SHRINK:
    for (uint32_t l = 0; l < w.n; l++) {
      const vc_sx *x = w.lists[l];
      for (uint32_t k = 1; k < x->n; k++)
        if (x->items[k]->kind == VC_SX_ATOM) shrink_atom(out, x->items[k]);
    }
    break;
  case VC_PASS_COUNT:
    break;
  }
  free(w.lists);
  free(w.depth);
}
