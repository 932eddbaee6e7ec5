/* Expressions and memory accesses of the C-family code generator.
 *
 * Three-address form: every operator node becomes one typed temporary,
 * written after its operands, so evaluation order is the program's (left
 * to right, depth first) whatever the target language does, and GLSL can
 * mark each f32 temporary `precise`. Leaves (literals, names, builtin ids)
 * are used in place. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/common/cgen/cgen_internal.h"

int vc_cg_fail(vc_cg *g, vc_errcode code, const char *fmt, ...) {
  if (g->rc) return g->rc;
  g->rc = code;
  if (g->err) {
    g->err->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g->err->msg, sizeof g->err->msg, fmt, ap);
    va_end(ap);
  }
  return code;
}

void vc_cg_indent(vc_cg *g) {
  for (unsigned i = 0; i < g->depth; i++) vc_sb_puts(g->out, "  ");
}

const char *vc_cg_type(const vc_cg *g, vc_type t) { return g->d->type_name[t]; }

const char *vc_cg_float_qual(const vc_cg *g, vc_type t) {
  return t == VC_F32 && g->d->float_qual && !VC_MUTANT(CONTRACTION_ALLOWED) ? g->d->float_qual : "";
}

void vc_cg_convert(const vc_cg *g, vc_type to, vc_type from, const char *x, vc_strbuf *out) {
  if (to == from)
    vc_sb_puts(out, x);
  else
    g->d->convert(to, from, x, out);
}

void vc_cg_bitcast(const vc_cg *g, vc_type to, vc_type from, const char *x, vc_strbuf *out) {
  if (to == from)
    vc_sb_puts(out, x);
  else
    g->d->bitcast(to, from, x, out);
}

/* Starts `T tN = ` and names the temporary in *v. */
static void temp_begin(vc_cg *g, vc_type t, vc_cg_val *v) {
  snprintf(v->s, sizeof v->s, "t%u", g->ntemps++);
  v->type = t;
  vc_cg_indent(g);
  vc_sb_printf(g->out, "%s%s %s = ", vc_cg_float_qual(g, t), vc_cg_type(g, t), v->s);
}

static void temp_end(vc_cg *g) { vc_sb_puts(g->out, ";\n"); }

void vc_cg_copy(vc_cg *g, vc_cg_val *v) {
  char was[sizeof v->s];
  memcpy(was, v->s, sizeof was);
  temp_begin(g, v->type, v);
  vc_sb_puts(g->out, was);
  temp_end(g);
}

const char *vc_cg_suffix64(const vc_cg *g, vc_type t) {
  if (t == VC_U64) return g->d->suffix_u64 ? g->d->suffix_u64 : "ul";
  return g->d->suffix_i64 ? g->d->suffix_i64 : "l";
}

/* A 64-bit integer literal of value v (two's complement bits for i64). */
static void literal64(const vc_cg *g, vc_type t, uint64_t v, char *s, size_t n) {
  const char *suf = vc_cg_suffix64(g, t);
  if (t == VC_U64 || v < 0x8000000000000000ull)
    snprintf(s, n, "%llu%s", (unsigned long long)v, suf);
  else if (v == 0x8000000000000000ull)
    snprintf(s, n, "(-9223372036854775807%s - 1%s)", suf, suf);
  else
    snprintf(s, n, "(-%llu%s)", (unsigned long long)(0u - v), suf);
}

const char *vc_cg_zero(const vc_cg *g, vc_type t) {
  if (t == VC_U64) return g->d->suffix_u64 && strcmp(g->d->suffix_u64, "ull") == 0 ? "0ull" : "0ul";
  if (t == VC_I64) return g->d->suffix_i64 && strcmp(g->d->suffix_i64, "ll") == 0 ? "0ll" : "0l";
  return t == VC_U32 ? "0u" : t == VC_I32 ? "0" : "0.0f";
}

#define zero_of(t) vc_cg_zero(g, (t))

/* ---- literals ---- */

static bool f32_is_plain(uint32_t bits) {
  uint32_t e = (bits >> 23) & 0xffu;
  /* Zero and normal numbers read back exactly from 9 significant digits;
     -0, denormals (a compiler might flush the literal), inf and NaN go by bits. */
  return bits == 0 || (e != 0 && e != 0xffu);
}

static void literal(vc_cg *g, const vc_node *n, vc_cg_val *v) {
  v->type = n->type;
  if (vc_type_is_64(n->type)) {
    literal64(g, n->type, n->bits, v->s, sizeof v->s);
  } else if (n->type == VC_U32) {
    snprintf(v->s, sizeof v->s, "%uu", (uint32_t)n->bits);
  } else if (n->type == VC_I32) {
    int32_t i = (int32_t)n->bits;
    if (n->bits == 0x80000000u)
      snprintf(v->s, sizeof v->s, "(-2147483647 - 1)");
    else if (i < 0)
      snprintf(v->s, sizeof v->s, "(%d)", (int)i);
    else
      snprintf(v->s, sizeof v->s, "%d", (int)i);
  } else if (f32_is_plain((uint32_t)n->bits)) {
    float f;
    uint32_t b32 = (uint32_t)n->bits;
    memcpy(&f, &b32, sizeof f);
    char num[32];
    snprintf(num, sizeof num, VC_MUTANT(F32_LITERAL_SHORT) ? "%.6g" : "%.9g", (double)fabsf(f));
    const char *dot = strpbrk(num, ".e") ? "" : ".0";
    snprintf(v->s, sizeof v->s, f < 0 ? "(-%s%sf)" : "%s%sf", num, dot);
  } else {
    char u[16];
    snprintf(u, sizeof u, "0x%08xu", (uint32_t)n->bits);
    temp_begin(g, VC_F32, v);
    vc_cg_bitcast(g, VC_F32, VC_U32, u, g->out);
    temp_end(g);
  }
}

/* ---- operators ---- */

/* Writes `x OP y` of two signed operands (i32 or i64) computed on their
   unsigned bits, as the signed type: no signed overflow. */
static void signed_via_unsigned(vc_cg *g, vc_type t, const char *x, const char *op,
                                const char *y) {
  vc_type u = t == VC_I64 ? VC_U64 : VC_U32;
  vc_strbuf s;
  vc_sb_init(&s);
  vc_sb_putc(&s, '(');
  vc_cg_convert(g, u, t, x, &s);
  vc_sb_printf(&s, " %s ", op);
  vc_cg_convert(g, u, t, y, &s);
  vc_sb_putc(&s, ')');
  vc_cg_convert(g, t, u, vc_sb_str(&s), g->out);
  vc_sb_free(&s);
}

static void helper_call(vc_cg *g, unsigned h, const char *name, const char *a, const char *b) {
  g->helpers |= h;
  if (b)
    vc_sb_printf(g->out, "%s(%s, %s)", name, a, b);
  else
    vc_sb_printf(g->out, "%s(%s)", name, a);
}

static const char *c_op(vc_binop op) {
  static const char *const ops[VC_BINOP_COUNT] = {
      [VC_ADD] = "+", [VC_SUB] = "-", [VC_MUL] = "*", [VC_DIV] = "/", [VC_AND] = "&",
      [VC_OR] = "|", [VC_XOR] = "^", [VC_EQ] = "==", [VC_NE] = "!=", [VC_LT] = "<",
      [VC_LE] = "<=", [VC_GT] = ">", [VC_GE] = ">="};
  return ops[op];
}

static void arith(vc_cg *g, vc_binop op, const vc_cg_val *a, const vc_cg_val *b) {
  vc_type t = a->type;
  if (vc_type_is_signed(t))
    signed_via_unsigned(g, t, a->s, c_op(op), b->s);
  else
    vc_sb_printf(g->out, "%s %s %s", a->s, c_op(op), b->s);
}

static void div_rem(vc_cg *g, vc_binop op, const vc_cg_val *a, const vc_cg_val *b) {
  bool div = op == VC_DIV;
  switch (a->type) {
  case VC_U32:
    helper_call(g, div ? VC_CG_H_DIV_U32 : VC_CG_H_REM_U32, div ? "vc_div_u32" : "vc_rem_u32",
                a->s, b->s);
    break;
  case VC_I32:
    helper_call(g, div ? VC_CG_H_DIV_I32 : VC_CG_H_REM_I32, div ? "vc_div_i32" : "vc_rem_i32",
                a->s, b->s);
    break;
  case VC_U64:
    helper_call(g, div ? VC_CG_H_DIV_U64 : VC_CG_H_REM_U64, div ? "vc_div_u64" : "vc_rem_u64",
                a->s, b->s);
    break;
  case VC_I64:
    helper_call(g, div ? VC_CG_H_DIV_I64 : VC_CG_H_REM_I64, div ? "vc_div_i64" : "vc_rem_i64",
                a->s, b->s);
    break;
  default:
    if (div)
      vc_sb_printf(g->out, "%s / %s", a->s, b->s); /* allowed only with a declared ulp */
    else
      vc_cg_fail(g, VC_ERR_INTERNAL, "%s: rem on f32", g->d->name);
  }
}

/* The language's own f32 min/max, for the planted fault minmax-native. */
static const char *native_minmax(const vc_cgen_dialect *d, bool min) {
  if (strcmp(d->name, "GLSL") == 0) return min ? "min" : "max";
  if (strcmp(d->name, "CUDA C") == 0) return min ? "fminf" : "fmaxf";
  return min ? "fmin" : "fmax";
}

static void min_max(vc_cg *g, vc_binop op, const vc_cg_val *a, const vc_cg_val *b) {
  bool min = op == VC_MIN;
  if (a->type == VC_F32 && VC_MUTANT(MINMAX_NATIVE))
    vc_sb_printf(g->out, "%s(%s, %s)", native_minmax(g->d, min), a->s, b->s);
  else if (a->type == VC_F32)
    helper_call(g, min ? VC_CG_H_MIN_F32 : VC_CG_H_MAX_F32, min ? "vc_min_f32" : "vc_max_f32",
                a->s, b->s);
  else /* compares in the operands' signedness; ties return a */
    vc_sb_printf(g->out, "(%s %s %s) ? %s : %s", b->s, min ? "<" : ">", a->s, b->s, a->s);
}

/* Shift amounts modulo the width: 31 or 63 as a literal of the operands' type. */
static void shift(vc_cg *g, vc_binop op, const vc_cg_val *a, const vc_cg_val *b) {
  const char *sh = op == VC_SHL ? "<<" : ">>";
  char mask[32];
  if (vc_type_is_64(a->type))
    literal64(g, a->type, 63, mask, sizeof mask);
  else
    snprintf(mask, sizeof mask, "%s", a->type == VC_U32 ? "31u" : "31");
  char amount[96];
  if (VC_MUTANT(SHIFT_UNMASKED))
    snprintf(amount, sizeof amount, "(%s)", b->s);
  else
    snprintf(amount, sizeof amount, "(%s & %s)", b->s, mask);
  if (!vc_type_is_signed(a->type)) {
    vc_sb_printf(g->out, "%s %s %s", a->s, sh, amount);
  } else if (op == VC_SHR && !VC_MUTANT(SHR_LOGICAL)) { /* arithmetic on i32 and i64 */
    vc_sb_printf(g->out, "%s >> %s", a->s, amount);
  } else { /* shl of a negative value shifts its bits */
    signed_via_unsigned(g, a->type, a->s, sh, amount);
  }
}

static void compare(vc_cg *g, vc_binop op, const vc_cg_val *a, const vc_cg_val *b) {
  if (op == VC_NE && a->type == VC_F32) { /* true with a NaN, whatever the compiler's != */
    vc_sb_printf(g->out, "(%s == %s) ? 0u : 1u", a->s, b->s);
  } else if (a->type == VC_I64 && VC_MUTANT(I64_COMPARE_UNSIGNED)) {
    vc_sb_putc(g->out, '(');
    vc_cg_convert(g, VC_U64, VC_I64, a->s, g->out);
    vc_sb_printf(g->out, " %s ", c_op(op));
    vc_cg_convert(g, VC_U64, VC_I64, b->s, g->out);
    vc_sb_puts(g->out, ") ? 1u : 0u");
  } else
    vc_sb_printf(g->out, "(%s %s %s) ? 1u : 0u", a->s, c_op(op), b->s);
}

static void binary(vc_cg *g, const vc_node *n, vc_cg_val *v) {
  vc_cg_val a, b;
  if (VC_MUTANT(EVAL_RIGHT_FIRST)) vc_cg_expr(g, n->kids[1], &b);
  vc_cg_expr(g, n->kids[0], &a);
  if (!VC_MUTANT(EVAL_RIGHT_FIRST)) vc_cg_expr(g, n->kids[1], &b);
  vc_binop op = (vc_binop)n->op;
  temp_begin(g, n->type, v);
  switch (op) {
  case VC_ADD: case VC_SUB: case VC_MUL:
    arith(g, op, &a, &b);
    break;
  case VC_DIV: case VC_REM:
    div_rem(g, op, &a, &b);
    break;
  case VC_MIN: case VC_MAX:
    min_max(g, op, &a, &b);
    break;
  case VC_AND: case VC_OR: case VC_XOR:
    vc_sb_printf(g->out, "%s %s %s", a.s, c_op(op), b.s);
    break;
  case VC_SHL: case VC_SHR:
    shift(g, op, &a, &b);
    break;
  case VC_EQ: case VC_NE: case VC_LT: case VC_LE: case VC_GT: case VC_GE:
    compare(g, op, &a, &b);
    break;
  case VC_LAND: /* both operands are already evaluated: no short circuit */
    vc_sb_printf(g->out, "(%s != 0u) ? ((%s != 0u) ? 1u : 0u) : 0u", a.s, b.s);
    break;
  case VC_LOR:
    vc_sb_printf(g->out, "(%s != 0u) ? 1u : ((%s != 0u) ? 1u : 0u)", a.s, b.s);
    break;
  default:
    vc_cg_fail(g, VC_ERR_INTERNAL, "%s: unknown binary operator %u", g->d->name, n->op);
  }
  temp_end(g);
}

/* f32 sign operations on the bits: (bits OP mask) as f32. */
static void f32_bits(vc_cg *g, const char *x, const char *op, const char *mask) {
  vc_strbuf s;
  vc_sb_init(&s);
  vc_sb_putc(&s, '(');
  vc_cg_bitcast(g, VC_U32, VC_F32, x, &s);
  vc_sb_printf(&s, " %s %s)", op, mask);
  vc_cg_bitcast(g, VC_F32, VC_U32, vc_sb_str(&s), g->out);
  vc_sb_free(&s);
}

static void unary(vc_cg *g, const vc_node *n, vc_cg_val *v) {
  vc_cg_val a;
  vc_cg_expr(g, n->kids[0], &a);
  temp_begin(g, n->type, v);
  switch ((vc_unop)n->op) {
  case VC_NEG:
    if (a.type == VC_F32 && VC_MUTANT(NEG_AS_SUBTRACT))
      vc_sb_printf(g->out, "0.0f - %s", a.s);
    else if (a.type == VC_F32)
      f32_bits(g, a.s, "^", "0x80000000u");
    else if (vc_type_is_signed(a.type))
      signed_via_unsigned(g, a.type, zero_of(a.type), "-", a.s);
    else
      vc_sb_printf(g->out, "%s - %s", zero_of(a.type), a.s);
    break;
  case VC_ABS:
    if (a.type == VC_F32) {
      f32_bits(g, a.s, "&", "0x7fffffffu");
    } else if (vc_type_is_signed(a.type)) { /* abs(INT_MIN) = INT_MIN through the wrap */
      vc_sb_printf(g->out, "(%s < %s) ? ", a.s, zero_of(a.type));
      signed_via_unsigned(g, a.type, zero_of(a.type), "-", a.s);
      vc_sb_printf(g->out, " : %s", a.s);
    } else {
      vc_sb_puts(g->out, a.s);
    }
    break;
  case VC_NOT:
    vc_sb_printf(g->out, "~%s", a.s);
    break;
  case VC_LNOT:
    vc_sb_printf(g->out, "(%s == 0u) ? 1u : 0u", a.s);
    break;
  default:
    vc_cg_fail(g, VC_ERR_INTERNAL, "%s: unknown unary operator %u", g->d->name, n->op);
  }
  temp_end(g);
}

/* An integer cast between sizes, through conversions of values the target
   holds: 32 -> 64 extends by the source's signedness (i32 -> i64, u32 ->
   u64, then the bits as the target), 64 -> 32 keeps the low word (masked as
   u64, converted to u32, then the bits as the target). */
static void int_resize(vc_cg *g, vc_type to, vc_type from, const char *x) {
  vc_strbuf s, t;
  vc_sb_init(&s);
  vc_sb_init(&t);
  if (vc_type_is_64(to)) {
    vc_type wide = from == VC_I32 ? VC_I64 : VC_U64;
    vc_cg_convert(g, wide, from, x, &s);
    vc_cg_convert(g, to, wide, vc_sb_str(&s), g->out);
  } else {
    char mask[32];
    literal64(g, VC_U64, 0xffffffffu, mask, sizeof mask);
    vc_sb_putc(&s, '(');
    vc_cg_convert(g, VC_U64, from, x, &s);
    vc_sb_printf(&s, " & %s)", mask);
    vc_cg_convert(g, VC_U32, VC_U64, vc_sb_str(&s), &t);
    vc_cg_convert(g, to, VC_U32, vc_sb_str(&t), g->out);
  }
  vc_sb_free(&s);
  vc_sb_free(&t);
}

static void cast(vc_cg *g, const vc_node *n, vc_cg_val *v) {
  static const struct {
    vc_type to;
    unsigned helper;
    const char *name;
  } from_f32[] = {{VC_I32, VC_CG_H_F32_TO_I32, "vc_f32_to_i32"},
                  {VC_U32, VC_CG_H_F32_TO_U32, "vc_f32_to_u32"},
                  {VC_I64, VC_CG_H_F32_TO_I64, "vc_f32_to_i64"},
                  {VC_U64, VC_CG_H_F32_TO_U64, "vc_f32_to_u64"}};
  vc_cg_val a;
  vc_cg_expr(g, n->kids[0], &a);
  if (a.type == n->type) {
    *v = a;
    return;
  }
  temp_begin(g, n->type, v);
  if (a.type == VC_F32 && VC_MUTANT(CAST_UNSATURATED)) {
    vc_cg_convert(g, n->type, a.type, a.s, g->out);
  } else if (a.type == VC_F32) {
    for (size_t k = 0; k < sizeof from_f32 / sizeof *from_f32; k++)
      if (from_f32[k].to == n->type)
        helper_call(g, from_f32[k].helper, from_f32[k].name, a.s, NULL);
  } else if (n->type != VC_F32 && vc_type_is_64(n->type) != vc_type_is_64(a.type)) {
    int_resize(g, n->type, a.type, a.s);
  } else {
    vc_cg_convert(g, n->type, a.type, a.s, g->out);
  }
  temp_end(g);
}

static void bitcast(vc_cg *g, const vc_node *n, vc_cg_val *v) {
  vc_cg_val a;
  vc_cg_expr(g, n->kids[0], &a);
  if (a.type == n->type) {
    *v = a;
    return;
  }
  temp_begin(g, n->type, v);
  vc_cg_bitcast(g, n->type, a.type, a.s, g->out);
  temp_end(g);
}

static void select_(vc_cg *g, const vc_node *n, vc_cg_val *v) {
  vc_cg_val c, a, b;
  vc_cg_expr(g, n->kids[0], &c);
  vc_cg_expr(g, n->kids[1], &a);
  vc_cg_expr(g, n->kids[2], &b);
  temp_begin(g, n->type, v);
  vc_sb_printf(g->out, "(%s != 0u) ? %s : %s", c.s, a.s, b.s);
  temp_end(g);
}

/* ---- memory: every access guarded by an if-statement (never ?:, whose
   arms GLSL may evaluate both) ---- */

static uint32_t space_count(const vc_cg *g, const vc_node *n) {
  return n->space == VC_SPACE_SHARED ? g->l->shared[n->ref].count : g->l->buffers[n->ref].count;
}

static vc_type space_type(const vc_cg *g, const vc_node *n) {
  return n->space == VC_SPACE_SHARED ? g->l->shared[n->ref].type : g->l->buffers[n->ref].type;
}

static bool ref_ok(vc_cg *g, const vc_node *n) {
  uint32_t lim = n->space == VC_SPACE_SHARED ? g->l->nshared : g->l->nbuffers;
  if (n->ref < lim) return true;
  vc_cg_fail(g, VC_ERR_INTERNAL, "%s: %u:%u: memory reference %u outside the kernel's table of %u",
             g->d->name, n->loc.line, n->loc.col, n->ref, lim);
  return false;
}

static void elem(vc_cg *g, const vc_node *n, const char *index, vc_strbuf *out) {
  if (g->d->elem)
    g->d->elem(g->l, (vc_space)n->space, n->ref, index, out);
  else
    vc_sb_printf(out, "%c%u[%s]", n->space == VC_SPACE_SHARED ? 's' : 'b', n->ref, index);
}

enum { GUARD_SKIP, GUARD_NONE, GUARD_OPEN };

/* Is the index a literal ("123u")? Compilers check constant indices even in
   dead code (glslang refuses b.d[4294967295u] under a false guard), so a
   literal index is decided here instead. */
static bool literal_index(const vc_cg_val *idx, uint32_t *value) {
  char *end;
  if (idx->s[0] < '0' || idx->s[0] > '9') return false;
  unsigned long v = strtoul(idx->s, &end, 10);
  if (strcmp(end, "u") != 0) return false;
  *value = (uint32_t)v;
  return true;
}

/* Opens `if (idx < count) {` and enters it (GUARD_OPEN); for a literal index
   in bounds nothing is needed (GUARD_NONE), out of bounds the access is left
   out (GUARD_SKIP). */
static int guard_begin(vc_cg *g, const vc_node *n, const vc_cg_val *idx) {
  uint32_t lit;
  if (literal_index(idx, &lit)) return lit < space_count(g, n) ? GUARD_NONE : GUARD_SKIP;
  vc_cg_indent(g);
  vc_sb_printf(g->out, "if (%s %s %uu) {\n", idx->s, VC_MUTANT(OOB_GUARD_OFF_BY_ONE) ? "<=" : "<", space_count(g, n));
  g->depth++;
  return GUARD_OPEN;
}

static void guard_end(vc_cg *g, int kind) {
  if (kind != GUARD_OPEN) return;
  g->depth--;
  vc_cg_indent(g);
  vc_sb_puts(g->out, "}\n");
}

static void load(vc_cg *g, const vc_node *n, vc_cg_val *v) {
  vc_cg_val idx;
  vc_cg_expr(g, n->kids[0], &idx);
  if (!ref_ok(g, n)) return;
  vc_type t = space_type(g, n);
  temp_begin(g, t, v);
  vc_sb_puts(g->out, zero_of(t));
  temp_end(g);
  int gk = guard_begin(g, n, &idx);
  if (gk != GUARD_SKIP) {
    vc_cg_indent(g);
    vc_sb_printf(g->out, "%s = ", v->s);
    elem(g, n, idx.s, g->out);
    vc_sb_puts(g->out, ";\n");
  }
  guard_end(g, gk);
}

void vc_cg_store(vc_cg *g, const vc_node *n, const vc_cg_val *idx, const vc_cg_val *val) {
  if (!ref_ok(g, n)) return;
  int gk = guard_begin(g, n, idx);
  if (gk != GUARD_SKIP) {
    vc_cg_indent(g);
    elem(g, n, idx->s, g->out);
    vc_sb_printf(g->out, " = %s;\n", val->s);
  }
  guard_end(g, gk);
}

void vc_cg_atomic(vc_cg *g, const vc_node *n, const vc_cg_val *idx, const vc_cg_val *a,
                  const vc_cg_val *b, const char *result) {
  if (!ref_ok(g, n)) return;
  vc_type t = space_type(g, n);
  if (t == VC_F32) {
    vc_cg_fail(g, VC_ERR_INTERNAL, "%s: %u:%u: atomic on an f32 array", g->d->name, n->loc.line,
               n->loc.col);
    return;
  }
  if (result) {
    vc_cg_indent(g);
    vc_sb_printf(g->out, "%s %s = %s;\n", vc_cg_type(g, t), result, zero_of(t));
  }
  int gk = guard_begin(g, n, idx);
  if (gk != GUARD_SKIP) {
    vc_cg_indent(g);
    if (result) vc_sb_printf(g->out, "%s = ", result);
    vc_strbuf lv;
    vc_sb_init(&lv);
    elem(g, n, idx->s, &lv);
    /* A relaxed atomic load is an or with 0 and a store an exchange whose
       old value is dropped: the 32-bit atomics every dialect has (the native
       kernels' OpenCL 1.2 and GLSL primitives are spelled the same way). */
    vc_atomic_op op = (vc_atomic_op)n->op;
    const char *operand = a->s;
    if (op == VC_AT_LOAD) {
      op = VC_AT_OR;
      operand = zero_of(t);
    } else if (op == VC_AT_STORE) {
      op = VC_AT_EXCHANGE;
    }
    g->d->atomic(op, t, (vc_space)n->space, vc_sb_str(&lv), operand, b ? b->s : NULL, g->out);
    vc_sb_free(&lv);
    vc_sb_puts(g->out, ";\n");
  }
  guard_end(g, gk);
}

static void atomic_expr(vc_cg *g, const vc_node *n, vc_cg_val *v) {
  vc_cg_val idx, a = {"0u", VC_U32}, b; /* a load has no operand */
  vc_cg_expr(g, n->kids[0], &idx);
  if (n->nkids > 1) vc_cg_expr(g, n->kids[1], &a);
  bool cas = n->op == VC_AT_CMPXCHG;
  if (cas) vc_cg_expr(g, n->kids[2], &b);
  snprintf(v->s, sizeof v->s, "t%u", g->ntemps++);
  v->type = n->type;
  vc_cg_atomic(g, n, &idx, &a, cas ? &b : NULL, v->s);
}

void vc_cg_expr(vc_cg *g, const vc_node *n, vc_cg_val *v) {
  snprintf(v->s, sizeof v->s, "%s", "0u");
  v->type = n->type;
  if (g->rc) return;
  switch (n->kind) {
  case VC_E_LIT: literal(g, n, v); break;
  case VC_E_NAME: snprintf(v->s, sizeof v->s, "v%u", n->ref); break;
  case VC_E_BUILTIN:
    snprintf(v->s, sizeof v->s, "%s_%c", vc_cg_builtin_param[n->op % VC_BUILTIN_COUNT],
             "xyz"[n->axis % 3]);
    break;
  case VC_E_LOAD: load(g, n, v); break;
  case VC_E_ATOMIC: atomic_expr(g, n, v); break;
  case VC_E_UNARY: unary(g, n, v); break;
  case VC_E_BINARY: binary(g, n, v); break;
  case VC_E_SELECT: select_(g, n, v); break;
  case VC_E_CAST: cast(g, n, v); break;
  case VC_E_BITCAST: bitcast(g, n, v); break;
  default:
    vc_cg_fail(g, VC_ERR_INTERNAL, "%s: %u:%u: %s is not an expression", g->d->name, n->loc.line,
               n->loc.col, vc_node_kind_name(n->kind));
  }
}
