/* (init INIT) of a buffer: zero, iota, fill, values, hex, random, random-f32. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness/base/plural.h"
#include "harness/lang/parse_int.h"
#include "harness/lang/parse_lit.h"

static const char init_usage[] =
    "expected zero, iota, (fill V), (values V...), (hex \"...\"), (random SEED) or "
    "(random-f32 SEED LO HI)";

static void values_init(vc_pctx *c, vc_buffer *b, const vc_sx *g, bool count_ok) {
  uint32_t n = g->n - 1;
  if (count_ok && n > b->count) {
    vc_perr(c, g->loc, "too many init values: %u for buffer %s of %u %s", n, b->name, b->count,
            vc_plural(b->count, "element", "elements"));
    return;
  }
  b->init.kind = VC_INIT_VALUES;
  b->init.nvalues = n;
  if (n)
    b->init.values =
        vc_arena_alloc(&c->p->arena, (size_t)n * vc_type_words(b->type) * sizeof *b->init.values);
  char what[96];
  snprintf(what, sizeof what, "an init value of %s buffer %s", vc_type_name(b->type), b->name);
  for (uint32_t i = 0; i < n; i++) {
    uint64_t v = 0;
    vc_p_literal_of64(c, g->items[i + 1], what, b->type, &v);
    vc_elem_put(b->init.values, i, b->type, v);
  }
}

static void hex_init(vc_pctx *c, vc_buffer *b, const vc_sx *g, bool count_ok) {
  if (!vc_p_arity(c, g, 1, 1, "(hex \"HEX\")")) return;
  const vc_sx *s = g->items[1];
  if (s->kind != VC_SX_STRING) {
    vc_perr(c, s->loc, "(hex ...) takes a string of hex digits");
    return;
  }
  for (size_t i = 0; i < s->len; i++) {
    if (!strchr("0123456789abcdefABCDEF", s->text[i])) {
      vc_perr(c, s->loc, "bad hex digit '%c' in (hex ...)", s->text[i]);
      return;
    }
  }
  if (s->len % 2) {
    vc_perr(c, s->loc, "odd number of hex digits in (hex ...): each byte takes two");
    return;
  }
  uint64_t nbytes = s->len / 2;
  uint64_t holds = (uint64_t)b->count * 4u * (b->type == VC_P_BAD ? 1u : vc_type_words(b->type));
  if (count_ok && nbytes > holds) {
    vc_perr(c, s->loc, "(hex ...) has %llu bytes; buffer %s of %u %s holds %llu",
            (unsigned long long)nbytes, b->name, b->count,
            vc_plural(b->count, "element", "elements"), (unsigned long long)holds);
    return;
  }
  b->init.kind = VC_INIT_HEX;
  b->init.nbytes = (uint32_t)nbytes;
  if (nbytes) b->init.bytes = vc_arena_alloc(&c->p->arena, nbytes);
  for (size_t i = 0; i < nbytes; i++) {
    char pair[3] = {s->text[2 * i], s->text[2 * i + 1], 0};
    unsigned v;
    sscanf(pair, "%2x", &v);
    b->init.bytes[i] = (uint8_t)v;
  }
}

static bool seed(vc_pctx *c, const vc_sx *x, uint64_t *out) {
  char why[256];
  if (x->kind != VC_SX_ATOM || !vc_lit_parse_seed(x->text, out, why, sizeof why)) {
    vc_perr(c, x->loc, "bad seed %s: %s", vc_sx_text(x),
            x->kind == VC_SX_ATOM ? why : "expected a u32 or hexadecimal literal");
    return false;
  }
  return true;
}

static float f32_of(uint32_t bits) {
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

static void random_f32_init(vc_pctx *c, vc_buffer *b, const vc_sx *g) {
  if (!vc_p_arity(c, g, 3, 3, "(random-f32 SEED LO HI)")) return;
  if (b->type != VC_F32) {
    vc_perr(c, g->loc, "(random-f32 ...) initialises f32 buffers; %s is %s", b->name,
            vc_type_name(b->type));
    return;
  }
  vc_init *in = &b->init;
  if (!seed(c, g->items[1], &in->seed) ||
      !vc_p_literal_of(c, g->items[2], "LO of (random-f32 ...)", VC_F32, &in->lo) ||
      !vc_p_literal_of(c, g->items[3], "HI of (random-f32 ...)", VC_F32, &in->hi))
    return;
  float lo = f32_of(in->lo), hi = f32_of(in->hi);
  if (!isfinite(lo) || !isfinite(hi) || !(lo < hi)) {
    vc_perr(c, g->loc, "(random-f32 SEED LO HI) needs finite LO < HI, got %s and %s",
            g->items[2]->text, g->items[3]->text);
    return;
  }
  in->kind = VC_INIT_RANDOM_F32;
}

void vc_p_init(vc_pctx *c, vc_buffer *b, const vc_sx *init, bool count_ok) {
  if (!vc_p_arity(c, init, 1, 1, "(init INIT)")) return;
  const vc_sx *g = init->items[1];
  const char *h = g->kind == VC_SX_ATOM ? g->text : vc_sx_head(g);
  bool bad_type = b->type == VC_P_BAD;
  if (g->kind == VC_SX_ATOM && strcmp(h, "zero") == 0) {
    b->init.kind = VC_INIT_ZERO;
  } else if (g->kind == VC_SX_ATOM && strcmp(h, "iota") == 0) {
    b->init.kind = VC_INIT_IOTA;
  } else if (g->kind != VC_SX_LIST) {
    vc_perr(c, g->loc, "unknown initialiser: %s", init_usage);
  } else if (strcmp(h, "fill") == 0) {
    b->init.kind = VC_INIT_FILL;
    if (vc_p_arity(c, g, 1, 1, "(fill V)") && !bad_type) {
      char what[96];
      snprintf(what, sizeof what, "the fill value of %s buffer %s", vc_type_name(b->type), b->name);
      vc_p_literal_of64(c, g->items[1], what, b->type, &b->init.bits);
    }
  } else if (strcmp(h, "values") == 0) {
    if (!bad_type) values_init(c, b, g, count_ok);
  } else if (strcmp(h, "hex") == 0) {
    hex_init(c, b, g, count_ok);
  } else if (strcmp(h, "random") == 0) {
    if (vc_p_arity(c, g, 1, 1, "(random SEED)") && seed(c, g->items[1], &b->init.seed))
      b->init.kind = VC_INIT_RANDOM;
  } else if (strcmp(h, "random-f32") == 0) {
    if (!bad_type) random_f32_init(c, b, g);
  } else {
    vc_perr(c, g->loc, "unknown initialiser (%s ...): %s", h, init_usage);
  }
}
