/* The printer: a program as canonical .vyre text that reads back to an
 * equal program. Layout: the program's forms in a fixed order, two-space
 * indent, one statement per line, expressions inline. */
#include "harness/lang/print.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- literals ---- */

static uint32_t bits_of(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

/* The fewest significant digits that read back to the same bits, as
   "d.ddde±x" (C's %e); returns the decimal exponent. */
static int shortest_digits(float f, char *digits, size_t cap) {
  char buf[48];
  for (int prec = 1; prec <= 9; prec++) {
    snprintf(buf, sizeof buf, "%.*e", prec - 1, (double)f);
    if (bits_of(strtof(buf, NULL)) == bits_of(f)) break;
  }
  char *e = strchr(buf, 'e');
  int exp = atoi(e + 1);
  size_t n = 0;
  for (const char *q = buf; q < e && n + 1 < cap; q++)
    if (*q >= '0' && *q <= '9') digits[n++] = *q;
  digits[n] = '\0';
  return exp;
}

/* f32: plain decimal notation for moderate exponents, else d.ddde-x. */
static void print_f32(uint32_t bits, vc_strbuf *out) {
  float f;
  memcpy(&f, &bits, sizeof f);
  if (isnan(f) || isinf(f)) {
    vc_sb_printf(out, "0x%08" PRIx32 "f", bits);
    return;
  }
  char d[16];
  int exp = shortest_digits(f, d, sizeof d);
  int nd = (int)strlen(d);
  if (signbit(f)) vc_sb_putc(out, '-');
  if (exp >= 0 && exp < 10) {
    for (int i = 0; i <= exp; i++) vc_sb_putc(out, i < nd ? d[i] : '0');
    vc_sb_putc(out, '.');
    vc_sb_puts(out, nd > exp + 1 ? d + exp + 1 : "0");
  } else if (exp < 0 && exp >= -5) {
    vc_sb_puts(out, "0.");
    for (int i = 0; i < -exp - 1; i++) vc_sb_putc(out, '0');
    vc_sb_puts(out, d);
  } else {
    vc_sb_putc(out, d[0]);
    if (nd > 1) vc_sb_printf(out, ".%s", d + 1);
    vc_sb_printf(out, "e%d", exp);
  }
  vc_sb_putc(out, 'f');
}

void vc_print_literal(vc_type t, uint64_t bits, vc_strbuf *out) {
  switch (t) {
  case VC_U32:
    vc_sb_printf(out, "%" PRIu32 "u", (uint32_t)bits);
    break;
  case VC_I32:
    vc_sb_printf(out, "%" PRId64 "i",
                 (uint32_t)bits < 0x80000000u ? (int64_t)(uint32_t)bits
                                              : (int64_t)(uint32_t)bits - 0x100000000);
    break;
  case VC_F32:
    print_f32((uint32_t)bits, out);
    break;
  case VC_U64:
    vc_sb_printf(out, "%" PRIu64 "u64", bits);
    break;
  case VC_I64: /* the magnitude as unsigned: INT64_MIN has none in int64_t */
    if (bits < 0x8000000000000000ull)
      vc_sb_printf(out, "%" PRIu64 "i64", bits);
    else
      vc_sb_printf(out, "-%" PRIu64 "i64", 0u - bits);
    break;
  default:
    vc_sb_puts(out, "?");
    break;
  }
}

static void print_string(const char *s, vc_strbuf *out) {
  vc_sb_putc(out, '"');
  for (; s && *s; s++) {
    if (*s == '"' || *s == '\\') vc_sb_putc(out, '\\');
    vc_sb_putc(out, *s);
  }
  vc_sb_putc(out, '"');
}

/* ---- code ---- */

typedef struct printer {
  const vc_program *p;
  vc_strbuf *out;
  bool one_line; /* vc_print_node: statements separated by spaces */
} printer;

/* Names by index, tolerant of a broken node (messages print those too). */
static const char *sym_name(const vc_program *p, uint32_t i) {
  return i < p->nsyms && p->syms[i].name ? p->syms[i].name : "?";
}

static const char *mem_name(const vc_program *p, const vc_node *n) {
  if (n->space == VC_SPACE_SHARED)
    return n->ref < p->nshared && p->shared[n->ref].name ? p->shared[n->ref].name : "?";
  return n->ref < p->nbuffers && p->buffers[n->ref].name ? p->buffers[n->ref].name : "?";
}

static void stmt(printer *pr, const vc_node *n, int indent);

static void expr(printer *pr, const vc_node *n) {
  vc_strbuf *out = pr->out;
  switch (n->kind) {
  case VC_E_LIT:
    vc_print_literal(n->type, n->bits, out);
    return;
  case VC_E_NAME:
    vc_sb_puts(out, sym_name(pr->p, n->ref));
    return;
  case VC_E_LOAD:
    vc_sb_printf(out, "(load %s", mem_name(pr->p, n));
    break;
  case VC_E_ATOMIC:
  case VC_S_ATOMIC:
    vc_sb_printf(out, "(atomic %s %s", vc_atomic_op_name((vc_atomic_op)n->op), mem_name(pr->p, n));
    break;
  case VC_E_UNARY:
    vc_sb_printf(out, "(%s", vc_unop_name((vc_unop)n->op));
    break;
  case VC_E_BINARY:
    vc_sb_printf(out, "(%s", vc_binop_name((vc_binop)n->op));
    break;
  case VC_E_SELECT:
    vc_sb_puts(out, "(select");
    break;
  case VC_E_CAST:
  case VC_E_BITCAST:
    vc_sb_printf(out, "(%s %s", n->kind == VC_E_CAST ? "cast" : "bitcast", vc_type_name(n->type));
    break;
  case VC_E_BUILTIN:
    vc_sb_printf(out, "(%s %c)", vc_builtin_name((vc_builtin)n->op), 'x' + (n->axis % 3));
    return;
  default:
    stmt(pr, n, 0);
    return;
  }
  for (uint32_t i = 0; i < n->nkids; i++) {
    vc_sb_putc(out, ' ');
    expr(pr, n->kids[i]);
  }
  vc_sb_putc(out, ')');
}

static void newline(printer *pr, int indent) {
  if (pr->one_line) {
    vc_sb_putc(pr->out, ' ');
    return;
  }
  vc_sb_putc(pr->out, '\n');
  for (int i = 0; i < indent; i++) vc_sb_putc(pr->out, ' ');
}

/* Statements, each on its own line at indent. */
static void body(printer *pr, const vc_node *n, uint32_t from, int indent) {
  for (uint32_t i = from; i < n->nkids; i++) {
    newline(pr, indent);
    stmt(pr, n->kids[i], indent);
  }
}

static void stmt(printer *pr, const vc_node *n, int indent) {
  vc_strbuf *out = pr->out;
  switch (n->kind) {
  case VC_S_LET:
  case VC_S_VAR:
  case VC_S_SET:
    vc_sb_printf(out, "(%s %s ",
                 n->kind == VC_S_LET   ? "let"
                 : n->kind == VC_S_VAR ? "var"
                                       : "set",
                 sym_name(pr->p, n->ref));
    expr(pr, n->kids[0]);
    vc_sb_putc(out, ')');
    return;
  case VC_S_STORE:
    vc_sb_printf(out, "(store %s ", mem_name(pr->p, n));
    expr(pr, n->kids[0]);
    vc_sb_putc(out, ' ');
    expr(pr, n->kids[1]);
    vc_sb_putc(out, ')');
    return;
  case VC_S_IF:
    vc_sb_puts(out, "(if ");
    expr(pr, n->kids[0]);
    body(pr, n, 1, indent + 2);
    break;
  case VC_S_LOOP:
    vc_sb_printf(out, "(loop %s ", sym_name(pr->p, n->ref));
    expr(pr, n->kids[0]);
    vc_sb_putc(out, ' ');
    expr(pr, n->kids[1]);
    body(pr, n, 2, indent + 2);
    break;
  case VC_S_WHILE:
    vc_sb_puts(out, "(while ");
    expr(pr, n->kids[0]);
    body(pr, n, 1, indent + 2);
    break;
  case VC_S_RETURN:
    vc_sb_puts(out, "(return");
    break;
  case VC_S_BREAK:
    vc_sb_puts(out, "(break");
    break;
  case VC_S_CONTINUE:
    vc_sb_puts(out, "(continue");
    break;
  case VC_S_BLOCK:
    vc_sb_puts(out, "(block");
    body(pr, n, 0, indent + 2);
    break;
  case VC_S_BARRIER:
    vc_sb_printf(out, "(barrier %s", n->op == VC_BARRIER_GRID ? "grid" : "workgroup");
    break;
  default: /* an expression, or an atomic statement */
    expr(pr, n);
    return;
  }
  vc_sb_putc(out, ')');
}

void vc_print_node(const vc_program *p, const vc_node *n, vc_strbuf *out) {
  printer pr = {p, out, true};
  stmt(&pr, n, 0);
}

/* ---- program forms ---- */

static void dims(vc_strbuf *out, const char *form, const uint32_t d[3]) {
  vc_sb_printf(out, "\n  (%s %" PRIu32, form, d[0]);
  if (d[1] != 1 || d[2] != 1) vc_sb_printf(out, " %" PRIu32, d[1]);
  if (d[2] != 1) vc_sb_printf(out, " %" PRIu32, d[2]);
  vc_sb_putc(out, ')');
}

static void seed(vc_strbuf *out, uint64_t s) {
  if (s <= UINT32_MAX)
    vc_sb_printf(out, "%" PRIu64, s);
  else
    vc_sb_printf(out, "0x%" PRIx64, s);
}

/* Long value lists go eight to a line. */
static void values(const vc_buffer *b, vc_strbuf *out) {
  const vc_init *in = &b->init;
  vc_sb_puts(out, "(values");
  for (uint32_t i = 0; i < in->nvalues; i++) {
    vc_sb_puts(out, in->nvalues > 8 && i % 8 == 0 ? "\n      " : " ");
    vc_print_literal(b->type, vc_elem_get(in->values, i, b->type), out);
  }
  vc_sb_putc(out, ')');
}

static void init(const vc_buffer *b, vc_strbuf *out) {
  const vc_init *in = &b->init;
  if (in->kind == VC_INIT_NONE || in->kind == VC_INIT_ZERO) return; /* the defaults */
  vc_sb_puts(out, " (init ");
  switch (in->kind) {
  case VC_INIT_IOTA:
    vc_sb_puts(out, "iota");
    break;
  case VC_INIT_FILL:
    vc_sb_puts(out, "(fill ");
    vc_print_literal(b->type, in->bits, out);
    vc_sb_putc(out, ')');
    break;
  case VC_INIT_VALUES:
    values(b, out);
    break;
  case VC_INIT_HEX:
    vc_sb_puts(out, "(hex \"");
    for (uint32_t i = 0; i < in->nbytes; i++) vc_sb_printf(out, "%02x", in->bytes[i]);
    vc_sb_puts(out, "\")");
    break;
  case VC_INIT_RANDOM:
    vc_sb_puts(out, "(random ");
    seed(out, in->seed);
    vc_sb_putc(out, ')');
    break;
  case VC_INIT_RANDOM_F32:
    vc_sb_puts(out, "(random-f32 ");
    seed(out, in->seed);
    vc_sb_putc(out, ' ');
    vc_print_literal(VC_F32, in->lo, out);
    vc_sb_putc(out, ' ');
    vc_print_literal(VC_F32, in->hi, out);
    vc_sb_putc(out, ')');
    break;
  default:
    break;
  }
  vc_sb_putc(out, ')');
}

static void buffers(const vc_program *p, vc_strbuf *out) {
  for (uint32_t i = 0; i < p->nbuffers; i++) {
    const vc_buffer *b = &p->buffers[i];
    vc_sb_printf(out, "\n  (buffer %s %s %" PRIu32 " %s", b->name, vc_type_name(b->type), b->count,
                 vc_access_name(b->access));
    if (b->access != VC_WRITE) init(b, out);
    vc_sb_putc(out, ')');
    if (b->role == VC_ROLE_SPILL) vc_sb_puts(out, " ; spill");
  }
  for (uint32_t i = 0; i < p->nshared; i++)
    vc_sb_printf(out, "\n  (shared %s %s %" PRIu32 ")", p->shared[i].name,
                 vc_type_name(p->shared[i].type), p->shared[i].count);
}

static void expects(const vc_program *p, vc_strbuf *out) {
  for (uint32_t i = 0; i < p->nexpects; i++) {
    const vc_expect *e = &p->expects[i];
    vc_sb_puts(out, "\n  (expect ");
    switch (e->kind) {
    case VC_EXPECT_REJECT:
      vc_sb_puts(out, "reject ");
      print_string(e->text, out);
      break;
    case VC_EXPECT_OUT_OF_BOUNDS:
      vc_sb_puts(out, "out-of-bounds");
      break;
    case VC_EXPECT_ULP:
      vc_sb_printf(out, "(ulp %s %" PRIu32 ")",
                   e->ref < p->nbuffers ? p->buffers[e->ref].name : "?", e->n);
      break;
    case VC_EXPECT_DIGEST:
      vc_sb_puts(out, "(digest ");
      print_string(e->text, out);
      vc_sb_putc(out, ')');
      break;
    case VC_EXPECT_PASSES:
      vc_sb_printf(out, "(passes %" PRIu32 ")", e->n);
      break;
    case VC_EXPECT_CONVERGES:
      vc_sb_puts(out, "(converges)");
      break;
    case VC_EXPECT_TIMEOUT:
      vc_sb_printf(out, "(timeout %" PRIu32 ")", e->n);
      break;
    case VC_EXPECT_VALUES: {
      const vc_buffer *b = e->ref < p->nbuffers ? &p->buffers[e->ref] : NULL;
      vc_sb_printf(out, "(buffer %s", b ? b->name : "?");
      if (e->n) vc_sb_printf(out, " (at %" PRIu32 ")", e->n);
      vc_sb_puts(out, " (values");
      for (uint32_t k = 0; k < e->nvalues; k++) {
        vc_sb_puts(out, e->nvalues > 8 && k % 8 == 0 ? "\n      " : " ");
        vc_type t = b ? b->type : VC_U32;
        vc_print_literal(t, vc_elem_get(e->values, k, t), out);
      }
      vc_sb_puts(out, "))");
      break;
    }
    }
    vc_sb_putc(out, ')');
  }
}

void vc_print_program(const vc_program *p, vc_strbuf *out) {
  vc_sb_printf(out, "(program %s", p->name ? p->name : "unnamed");
  if (p->doc) {
    vc_sb_puts(out, "\n  (doc ");
    print_string(p->doc, out);
    vc_sb_putc(out, ')');
  }
  if (p->ntags) {
    vc_sb_puts(out, "\n  (tags");
    for (uint32_t i = 0; i < p->ntags; i++) vc_sb_printf(out, " %s", p->tags[i]);
    vc_sb_putc(out, ')');
  }
  dims(out, "workgroup", p->workgroup);
  dims(out, "grid", p->grid);
  buffers(p, out);
  if (p->fixpoint.present) {
    vc_sb_printf(out, "\n  (fixpoint (max %" PRIu32 ")", p->fixpoint.max);
    if (p->fixpoint.has_flag && p->fixpoint.flag < p->nbuffers)
      vc_sb_printf(out, " (flag %s)", p->buffers[p->fixpoint.flag].name);
    vc_sb_putc(out, ')');
  }
  expects(p, out);
  vc_sb_puts(out, "\n  (entry");
  printer pr = {p, out, false};
  if (p->entry) body(&pr, p->entry, 0, 4);
  vc_sb_puts(out, "))\n");
}
