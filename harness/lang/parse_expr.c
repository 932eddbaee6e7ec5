/* Expressions: building and typing. No implicit conversions: every operator
 * states the types it takes (docs/format.md, "Expressions"). */
#include <stdio.h>
#include <string.h>

#include "harness/lang/parse_int.h"
#include "harness/lang/parse_lit.h"

static vc_node *bad(vc_pctx *c, const vc_sx *x) {
  vc_node *n = vc_node_new(c->p, VC_E_LIT, x->loc, 0);
  n->type = VC_P_BAD;
  return n;
}

static bool is_bad(const vc_node *e) { return e->type == VC_P_BAD; }

bool vc_p_want(vc_pctx *c, const vc_node *e, vc_type want, const char *what) {
  if (is_bad(e)) return false;
  if (e->type == want) return true;
  vc_perr(c, e->loc, "type mismatch: %s must be %s, got %s", what, vc_type_name(want),
          vc_type_name(e->type));
  return false;
}

static vc_node *literal(vc_pctx *c, const vc_sx *x) {
  vc_node *n = vc_node_new(c->p, VC_E_LIT, x->loc, 0);
  if (!vc_p_literal(c, x, "an expression", &n->type, &n->bits)) n->type = VC_P_BAD;
  return n;
}

static vc_node *name(vc_pctx *c, const vc_sx *x) {
  int s = vc_p_lookup(c, x);
  if (s < 0) return bad(c, x);
  vc_node *n = vc_node_new(c->p, VC_E_NAME, x->loc, 0);
  n->ref = (uint32_t)s;
  n->type = c->p->syms[s].type;
  return n;
}

static vc_type mem_type(const vc_pctx *c, const vc_node *n) { return vc_node_mem_type(c->p, n); }

bool vc_p_memory(vc_pctx *c, const vc_sx *x, vc_node *n, bool writes, const char *op) {
  vc_space space;
  uint32_t i;
  if (x->kind != VC_SX_ATOM) {
    vc_perr(c, x->loc, "expected a buffer or shared array name for %s, got %s", op, vc_sx_text(x));
    return false;
  }
  if (!vc_p_memory_named(c, x->text, &space, &i)) {
    if (vc_p_lookup_quiet(c, x->text) >= 0)
      vc_perr(c, x->loc, "%s is a variable, not a buffer or shared array", x->text);
    else
      vc_perr(c, x->loc, "unknown buffer or shared array %s", x->text);
    return false;
  }
  n->space = (uint8_t)space;
  n->ref = i;
  const vc_buffer *b = space == VC_SPACE_BUFFER ? &c->p->buffers[i] : NULL;
  if (writes && b && b->access == VC_READ)
    vc_perr(c, x->loc, "%s to read buffer %s (declared read at %u:%u)", op, b->name, b->loc.line,
            b->loc.col);
  return true;
}

/* (NAME ARGS) takes n arguments; the usage is spelled only for a message. */
static bool fixed_arity(vc_pctx *c, const vc_sx *x, uint32_t n, const char *name,
                        const char *args) {
  if (x->n - 1 == n) return true;
  char usage[48];
  snprintf(usage, sizeof usage, "(%s%s)", name, args);
  return vc_p_arity(c, x, n, n, usage);
}

static vc_node *load(vc_pctx *c, const vc_sx *x) {
  if (!vc_p_arity(c, x, 2, 2, "(load B I)")) return bad(c, x);
  vc_node *n = vc_node_new(c->p, VC_E_LOAD, x->loc, 1);
  bool ok = vc_p_memory(c, x->items[1], n, false, "load");
  n->kids[0] = vc_p_expr(c, x->items[2]);
  vc_p_want(c, n->kids[0], VC_U32, "the index of (load ...)");
  n->type = ok ? mem_type(c, n) : VC_P_BAD;
  return n;
}

static int atomic_op(const char *s) {
  for (int i = 0; i < VC_ATOMIC_OP_COUNT; i++)
    if (strcmp(s, vc_atomic_op_name((vc_atomic_op)i)) == 0) return i;
  return -1;
}

/* The arguments after B and I, and the form's usage for messages. */
static uint32_t atomic_values(int op) {
  return op == VC_AT_CMPXCHG ? 2 : op == VC_AT_LOAD ? 0 : 1;
}

static const char *atomic_usage(int op) {
  return op == VC_AT_CMPXCHG ? "(atomic cmpxchg B I EXPECTED V)"
         : op == VC_AT_LOAD  ? "(atomic load B I)"
         : op == VC_AT_STORE ? "(atomic store B I V)"
                             : "(atomic OP B I V)";
}

/* An atomic load gives a value and an atomic store gives none: each belongs
   in one place only. */
static bool atomic_place(vc_pctx *c, const vc_sx *x, int op, vc_node_kind kind) {
  if (op == VC_AT_LOAD && kind == VC_S_ATOMIC) {
    vc_perr(c, x->loc,
            "(atomic load ...) is an expression, not a statement: bind it with (let NAME "
            "(atomic load B I))");
    return false;
  }
  if (op == VC_AT_STORE && kind == VC_E_ATOMIC) {
    vc_perr(c, x->loc, "(atomic store ...) is a statement, not an expression");
    return false;
  }
  return true;
}

vc_node *vc_p_atomic(vc_pctx *c, const vc_sx *x, vc_node_kind kind) {
  if (!vc_p_arity(c, x, 3, 5, "(atomic OP B I V) or (atomic cmpxchg B I EXPECTED V)"))
    return bad(c, x);
  const vc_sx *o = x->items[1];
  int op = o->kind == VC_SX_ATOM ? atomic_op(o->text) : -1;
  if (op < 0) {
    vc_perr(c, o->loc,
            "unknown atomic operation %s: expected add, sub, and, or, xor, min, max, "
            "exchange, cmpxchg, load or store",
            vc_sx_text(o));
    return bad(c, x);
  }
  if (!atomic_place(c, x, op, kind)) return bad(c, x);
  uint32_t nvalues = atomic_values(op);
  if (!vc_p_arity(c, x, 3 + nvalues, 3 + nvalues, atomic_usage(op))) return bad(c, x);
  vc_node *n = vc_node_new(c->p, kind, x->loc, 1 + nvalues);
  n->op = (uint8_t)op;
  bool ok = vc_p_memory(c, x->items[2], n, op != VC_AT_LOAD, "atomic");
  /* nothing could race with an atomic load of a read buffer, and GLSL has no
     atomics on readonly buffers */
  if (ok && op == VC_AT_LOAD && n->space == VC_SPACE_BUFFER &&
      c->p->buffers[n->ref].access == VC_READ)
    vc_perr(c, x->items[2]->loc,
            "atomic load of read buffer %s (declared read at %u:%u): nothing writes it; use "
            "(load %s I)",
            c->p->buffers[n->ref].name, c->p->buffers[n->ref].loc.line,
            c->p->buffers[n->ref].loc.col, c->p->buffers[n->ref].name);
  vc_type t = ok ? mem_type(c, n) : VC_P_BAD;
  if (t == VC_F32) {
    vc_perr(c, x->items[2]->loc, "atomic on f32 %s %s: atomics take u32, i32, u64 or i64",
            n->space == VC_SPACE_BUFFER ? "buffer" : "shared array", x->items[2]->text);
    t = VC_P_BAD;
  }
  n->kids[0] = vc_p_expr(c, x->items[3]);
  vc_p_want(c, n->kids[0], VC_U32, "the index of (atomic ...)");
  for (uint32_t i = 1; i <= nvalues; i++) {
    n->kids[i] = vc_p_expr(c, x->items[3 + i]);
    if (t != VC_P_BAD) vc_p_want(c, n->kids[i], t, "the value of (atomic ...)");
  }
  n->type = kind == VC_E_ATOMIC ? t : VC_VOID;
  return n;
}

static bool binop_checks(vc_pctx *c, const vc_sx *x, vc_binop op, vc_type t) {
  const char *name = vc_binop_name(op);
  if (op == VC_REM && t == VC_F32) {
    vc_perr(c, x->loc, "rem is not defined on f32 (it takes u32, i32, u64 or i64)");
    return false;
  }
  if (op >= VC_AND && op <= VC_SHR && t == VC_F32) {
    vc_perr(c, x->loc, "type mismatch: %s takes u32, i32, u64 or i64, not f32", name);
    return false;
  }
  if ((op == VC_LAND || op == VC_LOR) && t != VC_U32) {
    vc_perr(c, x->loc, "type mismatch: %s takes u32 operands, not %s", name, vc_type_name(t));
    return false;
  }
  if (op == VC_DIV && t == VC_F32 && !c->has_ulp) {
    vc_perr(c, x->loc,
            "f32 div needs (expect (ulp B N)) in the program: not every API divides "
            "correctly rounded");
    return false;
  }
  return true;
}

static vc_node *binary(vc_pctx *c, const vc_sx *x, vc_binop op) {
  if (!fixed_arity(c, x, 2, vc_binop_name(op), " A B")) return bad(c, x);
  vc_node *n = vc_node_new(c->p, VC_E_BINARY, x->loc, 2);
  n->op = (uint8_t)op;
  n->kids[0] = vc_p_expr(c, x->items[1]);
  n->kids[1] = vc_p_expr(c, x->items[2]);
  vc_type a = n->kids[0]->type, b = n->kids[1]->type;
  n->type = VC_P_BAD;
  if (a == VC_P_BAD || b == VC_P_BAD) return n;
  if (a != b) {
    vc_perr(c, x->loc, "type mismatch in (%s ...): %s and %s", vc_binop_name(op), vc_type_name(a),
            vc_type_name(b));
    return n;
  }
  if (!binop_checks(c, x, op, a)) return n;
  n->type = vc_binop_is_compare(op) || op == VC_LAND || op == VC_LOR ? VC_U32 : a;
  return n;
}

static vc_node *unary(vc_pctx *c, const vc_sx *x, vc_unop op) {
  if (!fixed_arity(c, x, 1, vc_unop_name(op), " A")) return bad(c, x);
  vc_node *n = vc_node_new(c->p, VC_E_UNARY, x->loc, 1);
  n->op = (uint8_t)op;
  n->kids[0] = vc_p_expr(c, x->items[1]);
  vc_type t = n->kids[0]->type;
  n->type = VC_P_BAD;
  if (t == VC_P_BAD) return n;
  if (op == VC_ABS && (t == VC_U32 || t == VC_U64))
    vc_perr(c, x->loc, "abs is not defined on %s (it takes i32, i64 or f32)", vc_type_name(t));
  else if (op == VC_NOT && t == VC_F32)
    vc_perr(c, x->loc, "type mismatch: not takes u32, i32, u64 or i64, not f32");
  else if (op == VC_LNOT && t != VC_U32)
    vc_perr(c, x->loc, "type mismatch: lnot takes a u32 operand, not %s", vc_type_name(t));
  else
    n->type = t;
  return n;
}

static vc_node *select_expr(vc_pctx *c, const vc_sx *x) {
  if (!vc_p_arity(c, x, 3, 3, "(select C A B)")) return bad(c, x);
  vc_node *n = vc_node_new(c->p, VC_E_SELECT, x->loc, 3);
  for (uint32_t i = 0; i < 3; i++) n->kids[i] = vc_p_expr(c, x->items[i + 1]);
  vc_p_want(c, n->kids[0], VC_U32, "the condition of (select ...)");
  vc_type a = n->kids[1]->type, b = n->kids[2]->type;
  n->type = VC_P_BAD;
  if (a == VC_P_BAD || b == VC_P_BAD) return n;
  if (a != b) {
    vc_perr(c, x->loc, "type mismatch in (select ...): %s and %s", vc_type_name(a),
            vc_type_name(b));
    return n;
  }
  n->type = a;
  return n;
}

static vc_node *conversion(vc_pctx *c, const vc_sx *x, vc_node_kind kind) {
  if (!vc_p_arity(c, x, 2, 2, kind == VC_E_CAST ? "(cast T A)" : "(bitcast T A)")) return bad(c, x);
  vc_node *n = vc_node_new(c->p, kind, x->loc, 1);
  bool typed = vc_p_type(c, x->items[1], &n->type);
  n->kids[0] = vc_p_expr(c, x->items[2]);
  if (!typed || is_bad(n->kids[0])) {
    n->type = VC_P_BAD;
  } else if (kind == VC_E_BITCAST && vc_type_words(n->type) != vc_type_words(n->kids[0]->type)) {
    vc_perr(c, x->loc, "bitcast between types of different sizes: %s (%u bytes) to %s (%u bytes); "
            "use cast", vc_type_name(n->kids[0]->type), 4u * vc_type_words(n->kids[0]->type),
            vc_type_name(n->type), 4u * vc_type_words(n->type));
    n->type = VC_P_BAD;
  }
  return n;
}

static vc_node *builtin(vc_pctx *c, const vc_sx *x, vc_builtin b) {
  if (!fixed_arity(c, x, 1, vc_builtin_name(b), " AXIS")) return bad(c, x);
  vc_node *n = vc_node_new(c->p, VC_E_BUILTIN, x->loc, 0);
  n->op = (uint8_t)b;
  n->type = VC_U32;
  const vc_sx *a = x->items[1];
  if (vc_sx_is_atom(a, "x") || vc_sx_is_atom(a, "y") || vc_sx_is_atom(a, "z")) {
    n->axis = (uint8_t)(a->text[0] - 'x');
  } else {
    vc_perr(c, a->loc, "unknown axis %s: expected x, y or z", vc_sx_text(a));
    n->type = VC_P_BAD;
  }
  return n;
}

static const char *const statement_heads[] = {"let",   "var",     "set",    "store",
                                              "if",    "loop",    "return", "block",
                                              "barrier", "while", "break",  "continue"};

static vc_node *operator_form(vc_pctx *c, const vc_sx *x) {
  const char *h = vc_sx_head(x);
  if (strcmp(h, "load") == 0) return load(c, x);
  if (strcmp(h, "atomic") == 0) return vc_p_atomic(c, x, VC_E_ATOMIC);
  if (strcmp(h, "select") == 0) return select_expr(c, x);
  if (strcmp(h, "cast") == 0) return conversion(c, x, VC_E_CAST);
  if (strcmp(h, "bitcast") == 0) return conversion(c, x, VC_E_BITCAST);
  for (int i = 0; i < VC_BINOP_COUNT; i++)
    if (strcmp(h, vc_binop_name((vc_binop)i)) == 0) return binary(c, x, (vc_binop)i);
  for (int i = 0; i < VC_UNOP_COUNT; i++)
    if (strcmp(h, vc_unop_name((vc_unop)i)) == 0) return unary(c, x, (vc_unop)i);
  for (int i = 0; i < VC_BUILTIN_COUNT; i++)
    if (strcmp(h, vc_builtin_name((vc_builtin)i)) == 0) return builtin(c, x, (vc_builtin)i);
  for (size_t i = 0; i < sizeof statement_heads / sizeof *statement_heads; i++) {
    if (strcmp(h, statement_heads[i]) == 0) {
      vc_perr(c, x->loc, "(%s ...) is a statement, not an expression", h);
      return bad(c, x);
    }
  }
  vc_perr(c, x->loc, "unknown expression (%s ...)", h);
  return bad(c, x);
}

vc_node *vc_p_expr(vc_pctx *c, const vc_sx *x) {
  switch (x->kind) {
  case VC_SX_ATOM:
    return vc_lit_is_number(x->text) ? literal(c, x) : name(c, x);
  case VC_SX_STRING:
    vc_perr(c, x->loc, "a string is not an expression");
    return bad(c, x);
  case VC_SX_LIST:
    break;
  }
  if (x->n == 0 || x->items[0]->kind != VC_SX_ATOM) {
    vc_perr(c, x->loc, "expected an expression such as (add A B), got %s",
            x->n == 0 ? "()" : "a form without an operator name");
    return bad(c, x);
  }
  return operator_form(c, x);
}
