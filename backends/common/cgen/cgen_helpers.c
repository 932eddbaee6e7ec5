/* Helper functions of the generated code: the rules of docs/semantics.md
 * that are more than one operator. Written once here, spelled through the
 * dialect's types and conversions, so that all three languages compute the
 * same bits. Only the helpers a kernel uses are written. */
#include "backends/common/cgen/cgen_internal.h"

#include <stdio.h>
#include <stdlib.h>

/* The spellings a helper needs, made once. */
typedef struct spell {
  const char *q, *U, *I, *F;
  char *u_a, *u_b;       /* a, b (i32) as u32 bits */
  char *i_q, *i_negq;    /* q, 0u - q (u32) as i32 bits */
  char *i_r, *i_negr;
  char *u_x;             /* x (f32) bits as u32 */
  char *i_trunc, *u_trunc; /* x (f32) converted, truncating */
} spell;

static char *conv(const vc_cgen_dialect *d, vc_type to, vc_type from, const char *x, int bits) {
  vc_strbuf s;
  vc_sb_init(&s);
  if (bits)
    d->bitcast(to, from, x, &s);
  else
    d->convert(to, from, x, &s);
  return vc_sb_take(&s);
}

static void spell_init(spell *s, const vc_cgen_dialect *d) {
  s->q = d->func_qual ? d->func_qual : "";
  s->U = d->type_name[VC_U32];
  s->I = d->type_name[VC_I32];
  s->F = d->type_name[VC_F32];
  s->u_a = conv(d, VC_U32, VC_I32, "a", 0);
  s->u_b = conv(d, VC_U32, VC_I32, "b", 0);
  s->i_q = conv(d, VC_I32, VC_U32, "q", 0);
  s->i_negq = conv(d, VC_I32, VC_U32, "0u - q", 0);
  s->i_r = conv(d, VC_I32, VC_U32, "r", 0);
  s->i_negr = conv(d, VC_I32, VC_U32, "0u - r", 0);
  s->u_x = conv(d, VC_U32, VC_F32, "x", 1);
  s->i_trunc = conv(d, VC_I32, VC_F32, "x", 0);
  s->u_trunc = conv(d, VC_U32, VC_F32, "x", 0);
}

static void spell_free(spell *s) {
  char *all[] = {s->u_a, s->u_b, s->i_q, s->i_negq, s->i_r, s->i_negr,
                 s->u_x, s->i_trunc, s->u_trunc};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) free(all[i]);
}

/* Division and remainder by zero give 0. */
static void div_rem_u32(const spell *s, vc_strbuf *o, const char *name, char op) {
  vc_sb_printf(o,
               "%s%s %s(%s a, %s b) {\n"
               "  if (b == 0u) return 0u;\n"
               "  return a %c b;\n"
               "}\n\n",
               s->q, s->U, name, s->U, s->U, op);
}

/* Truncating i32 division and remainder on the magnitudes as u32, so that
   INT_MIN / -1 wraps to INT_MIN instead of trapping, and the result does not
   depend on the language's rules for negative operands. The quotient is
   negated when the signs differ; the remainder takes the dividend's sign. */
static void div_rem_i32(const spell *s, vc_strbuf *o, bool div) {
  vc_sb_printf(o,
               "%s%s vc_%s_i32(%s a, %s b) {\n"
               "  if (b == 0) return 0;\n"
               "  %s ua = (a < 0) ? 0u - %s : %s;\n"
               "  %s ub = (b < 0) ? 0u - %s : %s;\n"
               "  %s %c = ua %s ub;\n"
               "  if (%s) return %s;\n"
               "  return %s;\n"
               "}\n\n",
               s->q, s->I, div ? "div" : "rem", s->I, s->I, s->U, s->u_a, s->u_a, s->U, s->u_b,
               s->u_b, s->U, div ? 'q' : 'r', div ? "/" : "%", div ? "(a < 0) != (b < 0)" : "a < 0",
               div ? s->i_negq : s->i_negr, div ? s->i_q : s->i_r);
}

/* On the bits: a compiler's isnan may be folded away under its float model. */
static void isnan_f32(const spell *s, vc_strbuf *o) {
  vc_sb_printf(o,
               "%s%s vc_isnan_f32(%s x) {\n"
               "  if ((%s & 0x7fffffffu) > 0x7f800000u) return 1u;\n"
               "  return 0u;\n"
               "}\n\n",
               s->q, s->U, s->F, s->u_x);
}

/* Saturating, truncating; NaN gives 0. The conversion itself only sees
   values in range, where every language truncates. */
static void f32_to_i32(const spell *s, vc_strbuf *o) {
  vc_sb_printf(o,
               "%s%s vc_f32_to_i32(%s x) {\n"
               "  if (vc_isnan_f32(x) != 0u) return 0;\n"
               "  if (x >= 2147483648.0f) return 2147483647;\n"
               "  if (x <= -2147483648.0f) return (-2147483647 - 1);\n"
               "  return %s;\n"
               "}\n\n",
               s->q, s->I, s->F, s->i_trunc);
}

static void f32_to_u32(const spell *s, vc_strbuf *o) {
  vc_sb_printf(o,
               "%s%s vc_f32_to_u32(%s x) {\n"
               "  if (vc_isnan_f32(x) != 0u) return 0u;\n"
               "  if (x <= 0.0f) return 0u;\n"
               "  if (x >= 4294967296.0f) return 4294967295u;\n"
               "  return %s;\n"
               "}\n\n",
               s->q, s->U, s->F, s->u_trunc);
}

/* ---- u64 and i64: the same rules, with the dialect's 64-bit literals ---- */

typedef struct spell64 {
  const char *U, *I, *F, *su, *si; /* types; literal suffixes */
  char *u_a, *u_b, *i_q, *i_negq, *i_r, *i_negr, *i_trunc, *u_trunc;
} spell64;

static void spell64_init(spell64 *s, const vc_cgen_dialect *d) {
  s->U = d->type_name[VC_U64];
  s->I = d->type_name[VC_I64];
  s->F = d->type_name[VC_F32];
  s->su = d->suffix_u64 ? d->suffix_u64 : "ul";
  s->si = d->suffix_i64 ? d->suffix_i64 : "l";
  char negq[32], negr[32];
  snprintf(negq, sizeof negq, "0%s - q", s->su);
  snprintf(negr, sizeof negr, "0%s - r", s->su);
  s->u_a = conv(d, VC_U64, VC_I64, "a", 0);
  s->u_b = conv(d, VC_U64, VC_I64, "b", 0);
  s->i_q = conv(d, VC_I64, VC_U64, "q", 0);
  s->i_negq = conv(d, VC_I64, VC_U64, negq, 0);
  s->i_r = conv(d, VC_I64, VC_U64, "r", 0);
  s->i_negr = conv(d, VC_I64, VC_U64, negr, 0);
  s->i_trunc = conv(d, VC_I64, VC_F32, "x", 0);
  s->u_trunc = conv(d, VC_U64, VC_F32, "x", 0);
}

static void spell64_free(spell64 *s) {
  char *all[] = {s->u_a, s->u_b, s->i_q, s->i_negq, s->i_r, s->i_negr, s->i_trunc, s->u_trunc};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) free(all[i]);
}

static void div_rem_u64(const spell *s, const spell64 *w, vc_strbuf *o, const char *name,
                        char op) {
  vc_sb_printf(o,
               "%s%s %s(%s a, %s b) {\n"
               "  if (b == 0%s) return 0%s;\n"
               "  return a %c b;\n"
               "}\n\n",
               s->q, w->U, name, w->U, w->U, w->su, w->su, op);
}

/* As div_rem_i32: on the magnitudes as u64, so INT64_MIN / -1 wraps. */
static void div_rem_i64(const spell *s, const spell64 *w, vc_strbuf *o, bool div) {
  char cond[48];
  if (div)
    snprintf(cond, sizeof cond, "(a < 0%s) != (b < 0%s)", w->si, w->si);
  else
    snprintf(cond, sizeof cond, "a < 0%s", w->si);
  vc_sb_printf(o,
               "%s%s vc_%s_i64(%s a, %s b) {\n"
               "  if (b == 0%s) return 0%s;\n"
               "  %s ua = (a < 0%s) ? 0%s - %s : %s;\n"
               "  %s ub = (b < 0%s) ? 0%s - %s : %s;\n"
               "  %s %c = ua %s ub;\n"
               "  if (%s) return %s;\n"
               "  return %s;\n"
               "}\n\n",
               s->q, w->I, div ? "div" : "rem", w->I, w->I, w->si, w->si, w->U, w->si, w->su,
               w->u_a, w->u_a, w->U, w->si, w->su, w->u_b, w->u_b, w->U, div ? 'q' : 'r',
               div ? "/" : "%", cond, div ? w->i_negq : w->i_negr,
               div ? w->i_q : w->i_r);
}

/* Saturating at the f32 values 2^63 and 2^64 (exact in f32); NaN gives 0. */
static void f32_to_i64(const spell *s, const spell64 *w, vc_strbuf *o) {
  vc_sb_printf(o,
               "%s%s vc_f32_to_i64(%s x) {\n"
               "  if (vc_isnan_f32(x) != 0u) return 0%s;\n"
               "  if (x >= 9223372036854775808.0f) return 9223372036854775807%s;\n"
               "  if (x <= -9223372036854775808.0f) return (-9223372036854775807%s - 1%s);\n"
               "  return %s;\n"
               "}\n\n",
               s->q, w->I, w->F, w->si, w->si, w->si, w->si, w->i_trunc);
}

static void f32_to_u64(const spell *s, const spell64 *w, vc_strbuf *o) {
  vc_sb_printf(o,
               "%s%s vc_f32_to_u64(%s x) {\n"
               "  if (vc_isnan_f32(x) != 0u) return 0%s;\n"
               "  if (x <= 0.0f) return 0%s;\n"
               "  if (x >= 18446744073709551616.0f) return 18446744073709551615%s;\n"
               "  return %s;\n"
               "}\n\n",
               s->q, w->U, w->F, w->su, w->su, w->su, w->u_trunc);
}

/* min(a,b) = (b < a || isnan(a)) ? b : a; max with >. NaN loses; ties give a. */
static void min_max_f32(const spell *s, vc_strbuf *o, const char *name, char cmp) {
  vc_sb_printf(o,
               "%s%s %s(%s a, %s b) {\n"
               "  if (b %c a || vc_isnan_f32(a) != 0u) return b;\n"
               "  return a;\n"
               "}\n\n",
               s->q, s->F, name, s->F, s->F, cmp);
}

static void helpers_64(const vc_cgen_dialect *d, const spell *s, unsigned mask, vc_strbuf *out) {
  unsigned any = VC_CG_H_DIV_U64 | VC_CG_H_REM_U64 | VC_CG_H_DIV_I64 | VC_CG_H_REM_I64 |
                 VC_CG_H_F32_TO_I64 | VC_CG_H_F32_TO_U64;
  if (!(mask & any)) return;
  spell64 w;
  spell64_init(&w, d);
  if (mask & VC_CG_H_DIV_U64) div_rem_u64(s, &w, out, "vc_div_u64", '/');
  if (mask & VC_CG_H_REM_U64) div_rem_u64(s, &w, out, "vc_rem_u64", '%');
  if (mask & VC_CG_H_DIV_I64) div_rem_i64(s, &w, out, true);
  if (mask & VC_CG_H_REM_I64) div_rem_i64(s, &w, out, false);
  if (mask & VC_CG_H_F32_TO_I64) f32_to_i64(s, &w, out);
  if (mask & VC_CG_H_F32_TO_U64) f32_to_u64(s, &w, out);
  spell64_free(&w);
}

void vc_cg_helpers(const vc_cgen_dialect *d, unsigned mask, vc_strbuf *out) {
  if (mask & (VC_CG_H_F32_TO_I32 | VC_CG_H_F32_TO_U32 | VC_CG_H_MIN_F32 | VC_CG_H_MAX_F32 |
              VC_CG_H_F32_TO_I64 | VC_CG_H_F32_TO_U64))
    mask |= VC_CG_H_ISNAN;
  if (!mask) return;
  spell s;
  spell_init(&s, d);
  if (mask & VC_CG_H_DIV_U32) div_rem_u32(&s, out, "vc_div_u32", '/');
  if (mask & VC_CG_H_REM_U32) div_rem_u32(&s, out, "vc_rem_u32", '%');
  if (mask & VC_CG_H_DIV_I32) div_rem_i32(&s, out, true);
  if (mask & VC_CG_H_REM_I32) div_rem_i32(&s, out, false);
  if (mask & VC_CG_H_ISNAN) isnan_f32(&s, out);
  if (mask & VC_CG_H_F32_TO_I32) f32_to_i32(&s, out);
  if (mask & VC_CG_H_F32_TO_U32) f32_to_u32(&s, out);
  if (mask & VC_CG_H_MIN_F32) min_max_f32(&s, out, "vc_min_f32", '<');
  if (mask & VC_CG_H_MAX_F32) min_max_f32(&s, out, "vc_max_f32", '>');
  helpers_64(d, &s, mask, out);
  spell_free(&s);
}
