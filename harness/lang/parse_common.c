/* Small checks every part of the parser uses: messages, arity, names,
 * types and literals. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "harness/lang/parse_int.h"
#include "harness/lang/parse_lit.h"

void vc_perr(vc_pctx *c, vc_loc loc, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  vc_diags_add(c->diags, c->path, loc, "%s", msg);
}

void *vc_p_grow(vc_arena *a, void *items, uint32_t n, uint32_t *cap, size_t size) {
  if (n < *cap) return items;
  uint32_t ncap = *cap ? *cap * 2 : 8;
  void *grown = vc_arena_alloc(a, ncap * size);
  if (n) memcpy(grown, items, n * size);
  *cap = ncap;
  return grown;
}

bool vc_p_arity(vc_pctx *c, const vc_sx *f, uint32_t min, uint32_t max, const char *usage) {
  uint32_t got = f->n - 1;
  if (got >= min && got <= max) return true;
  if (min == max)
    vc_perr(c, f->loc, "wrong number of arguments: %s takes %u, got %u", usage, min, got);
  else if (max == UINT32_MAX)
    vc_perr(c, f->loc, "wrong number of arguments: %s takes at least %u, got %u", usage, min, got);
  else
    vc_perr(c, f->loc, "wrong number of arguments: %s takes %u to %u, got %u", usage, min, max,
            got);
  return false;
}

/* [A-Za-z_][A-Za-z0-9_]*; labels (program names, tags) also take '.' and '-'
   after the first character. */
static bool well_spelled(const vc_sx *x, bool label) {
  if (x->kind != VC_SX_ATOM || x->len == 0) return false;
  for (size_t i = 0; i < x->len; i++) {
    char ch = x->text[i];
    bool letter = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || ch == '_';
    bool later = (ch >= '0' && ch <= '9') || (label && (ch == '.' || ch == '-'));
    if (!letter && (i == 0 || !later)) return false;
  }
  return true;
}

bool vc_p_name(vc_pctx *c, const vc_sx *x, const char *what) {
  if (x->kind != VC_SX_ATOM) {
    vc_perr(c, x->loc, "expected the name of the %s, got %s", what, vc_sx_text(x));
    return false;
  }
  if (!well_spelled(x, false)) {
    vc_perr(c, x->loc, "bad %s name '%s': a name is [A-Za-z_][A-Za-z0-9_]*", what, x->text);
    return false;
  }
  if (x->text[0] == '_' && x->text[1] == '_') {
    vc_perr(c, x->loc, "names beginning with __ are reserved: %s", x->text);
    return false;
  }
  return true;
}

bool vc_p_label(vc_pctx *c, const vc_sx *x, const char *what) {
  if (well_spelled(x, true)) return true;
  vc_perr(c, x->loc, "bad %s '%s': expected [A-Za-z_][A-Za-z0-9_.-]*", what, vc_sx_text(x));
  return false;
}

bool vc_p_type(vc_pctx *c, const vc_sx *x, vc_type *t) {
  for (vc_type k = VC_U32; k < VC_TYPE_COUNT; k++) {
    if (k != VC_VOID && vc_sx_is_atom(x, vc_type_name(k))) {
      *t = k;
      return true;
    }
  }
  vc_perr(c, x->loc, "unknown type '%s': expected u32, i32, f32, u64 or i64", vc_sx_text(x));
  return false;
}

bool vc_p_literal(vc_pctx *c, const vc_sx *x, const char *what, vc_type *t, uint64_t *bits) {
  char why[256];
  if (x->kind != VC_SX_ATOM || !vc_lit_is_number(x->text)) {
    vc_perr(c, x->loc, "expected a literal for %s, got %s", what, vc_sx_text(x));
    return false;
  }
  if (!vc_lit_parse(x->text, t, bits, why, sizeof why)) {
    vc_perr(c, x->loc, "bad literal %s: %s", x->text, why);
    return false;
  }
  return true;
}

bool vc_p_literal_of64(vc_pctx *c, const vc_sx *x, const char *what, vc_type want,
                       uint64_t *bits) {
  vc_type t;
  if (!vc_p_literal(c, x, what, &t, bits)) return false;
  if (t == want) return true;
  vc_perr(c, x->loc, "type mismatch: %s must be a%s %s literal, got %s (%s)", what,
          want == VC_I32 || want == VC_I64 ? "n" : "", vc_type_name(want), x->text,
          vc_type_name(t));
  return false;
}

bool vc_p_literal_of(vc_pctx *c, const vc_sx *x, const char *what, vc_type want, uint32_t *bits) {
  vc_type t;
  uint64_t b = 0;
  bool ok = vc_p_literal(c, x, what, &t, &b);
  *bits = (uint32_t)b;
  if (!ok) return false;
  if (t == want) return true;
  vc_perr(c, x->loc, "type mismatch: %s must be a %s literal, got %s (%s)", what,
          vc_type_name(want), x->text, vc_type_name(t));
  return false;
}
