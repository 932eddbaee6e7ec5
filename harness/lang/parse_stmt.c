/* Statements of entry, their scopes, and where grid barriers may stand. */
#include <stdio.h>
#include <string.h>

#include "harness/lang/parse_int.h"

/* Stands in for a statement that had an error (the program is discarded). */
static vc_node *skipped(vc_pctx *c, const vc_sx *x) {
  return vc_node_new(c->p, VC_S_BLOCK, x->loc, 0);
}

static vc_node *let_var(vc_pctx *c, const vc_sx *x, vc_sym_kind kind) {
  vc_node_kind nk = kind == VC_SYM_LET ? VC_S_LET : VC_S_VAR;
  if (!vc_p_arity(c, x, 2, 2, kind == VC_SYM_LET ? "(let NAME E)" : "(var NAME E)"))
    return skipped(c, x);
  vc_node *n = vc_node_new(c->p, nk, x->loc, 1);
  n->kids[0] = vc_p_expr(c, x->items[2]); /* the name is not visible in its own value */
  int s = vc_p_declare(c, x->items[1], kind, n->kids[0]->type);
  n->ref = s < 0 ? 0 : (uint32_t)s;
  return n;
}

/* The var that (set NAME E) assigns, or -1 after a message. */
static int set_target(vc_pctx *c, const vc_sx *x) {
  vc_space space;
  uint32_t m;
  if (x->kind == VC_SX_ATOM && vc_p_lookup_quiet(c, x->text) < 0 &&
      vc_p_memory_named(c, x->text, &space, &m)) {
    vc_perr(c, x->loc, "cannot set %s: it is a %s; write it with (store %s I V)", x->text,
            space == VC_SPACE_BUFFER ? "buffer" : "shared array", x->text);
    return -1;
  }
  int s = vc_p_lookup(c, x);
  if (s < 0) return -1;
  const vc_symbol *sym = &c->p->syms[s];
  if (sym->kind == VC_SYM_VAR) return s;
  vc_perr(
      c, x->loc, "cannot set %s: it is a %s (immutable), declared at %u:%u; only a var can be set",
      sym->name, sym->kind == VC_SYM_LET ? "let" : "loop variable", sym->loc.line, sym->loc.col);
  return -1;
}

static vc_node *set(vc_pctx *c, const vc_sx *x) {
  if (!vc_p_arity(c, x, 2, 2, "(set NAME E)")) return skipped(c, x);
  vc_node *n = vc_node_new(c->p, VC_S_SET, x->loc, 1);
  n->kids[0] = vc_p_expr(c, x->items[2]);
  int s = set_target(c, x->items[1]);
  if (s < 0) return n;
  const vc_symbol *sym = &c->p->syms[s];
  vc_type t = n->kids[0]->type;
  n->ref = (uint32_t)s;
  if (sym->type != VC_P_BAD && t != VC_P_BAD && t != sym->type)
    vc_perr(c, n->kids[0]->loc, "type mismatch: the value of (set %s ...) must be %s, got %s",
            sym->name, vc_type_name(sym->type), vc_type_name(t));
  return n;
}

static vc_node *store(vc_pctx *c, const vc_sx *x) {
  if (!vc_p_arity(c, x, 3, 3, "(store B I V)")) return skipped(c, x);
  vc_node *n = vc_node_new(c->p, VC_S_STORE, x->loc, 2);
  bool ok = vc_p_memory(c, x->items[1], n, true, "store");
  n->kids[0] = vc_p_expr(c, x->items[2]);
  n->kids[1] = vc_p_expr(c, x->items[3]);
  vc_p_want(c, n->kids[0], VC_U32, "the index of (store ...)");
  vc_type t = ok ? vc_node_mem_type(c->p, n) : VC_P_BAD;
  if (t != VC_P_BAD && n->kids[1]->type != VC_P_BAD && n->kids[1]->type != t)
    vc_perr(c, x->loc, "type mismatch in (store ...): %s holds %s, the value is %s",
            x->items[1]->text, vc_type_name(t), vc_type_name(n->kids[1]->type));
  return n;
}

/* One branch of an if: a statement in its own scope. */
static vc_node *nested(vc_pctx *c, const vc_sx *construct, const vc_sx *x) {
  const vc_sx *outer = c->construct;
  uint32_t mark = vc_p_scope_mark(c);
  c->construct = construct;
  vc_node *n = vc_p_stmt(c, x);
  c->construct = outer;
  vc_p_scope_pop(c, mark);
  return n;
}

static vc_node *if_stmt(vc_pctx *c, const vc_sx *x) {
  if (!vc_p_arity(c, x, 2, 3, "(if C THEN [ELSE])")) return skipped(c, x);
  vc_node *n = vc_node_new(c->p, VC_S_IF, x->loc, x->n - 1);
  n->kids[0] = vc_p_expr(c, x->items[1]);
  vc_p_want(c, n->kids[0], VC_U32, "the condition of (if ...)");
  for (uint32_t i = 2; i < x->n; i++) n->kids[i - 1] = nested(c, x, x->items[i]);
  return n;
}

static vc_node *loop(vc_pctx *c, const vc_sx *x) {
  if (!vc_p_arity(c, x, 3, UINT32_MAX, "(loop NAME FROM TO STMT...)")) return skipped(c, x);
  vc_node *n = vc_node_new(c->p, VC_S_LOOP, x->loc, 2);
  n->kids[0] = vc_p_expr(c, x->items[2]);
  n->kids[1] = vc_p_expr(c, x->items[3]);
  vc_type a = n->kids[0]->type, b = n->kids[1]->type, t = VC_P_BAD;
  if (a != VC_P_BAD && b != VC_P_BAD) {
    if (a != b)
      vc_perr(c, x->loc, "type mismatch in (loop ...): FROM is %s, TO is %s", vc_type_name(a),
              vc_type_name(b));
    else if (a == VC_F32 || vc_type_is_64(a))
      vc_perr(c, x->loc, "type mismatch: (loop ...) counts in u32 or i32, not %s",
              vc_type_name(a));
    else
      t = a;
  }
  const vc_sx *outer = c->construct;
  uint32_t mark = vc_p_scope_mark(c);
  c->construct = x;
  int s = vc_p_declare(c, x->items[1], VC_SYM_LOOP, t);
  n->ref = s < 0 ? 0 : (uint32_t)s;
  c->loops++;
  for (uint32_t i = 4; i < x->n; i++) vc_node_append(c->p, n, vc_p_stmt(c, x->items[i]));
  c->loops--;
  c->construct = outer;
  vc_p_scope_pop(c, mark);
  return n;
}

/* (while COND STMT...): COND before every iteration; the body is a scope. */
static vc_node *while_stmt(vc_pctx *c, const vc_sx *x) {
  if (!vc_p_arity(c, x, 1, UINT32_MAX, "(while COND STMT...)")) return skipped(c, x);
  vc_node *n = vc_node_new(c->p, VC_S_WHILE, x->loc, 1);
  n->kids[0] = vc_p_expr(c, x->items[1]);
  vc_p_want(c, n->kids[0], VC_U32, "the condition of (while ...)");
  const vc_sx *outer = c->construct;
  uint32_t mark = vc_p_scope_mark(c);
  c->construct = x;
  c->loops++;
  for (uint32_t i = 2; i < x->n; i++) vc_node_append(c->p, n, vc_p_stmt(c, x->items[i]));
  c->loops--;
  c->construct = outer;
  vc_p_scope_pop(c, mark);
  return n;
}

/* (break) and (continue): only inside a loop or while (an if or block
   between them is fine). */
static vc_node *jump_stmt(vc_pctx *c, const vc_sx *x, vc_node_kind kind) {
  const char *h = kind == VC_S_BREAK ? "break" : "continue";
  char usage[16];
  snprintf(usage, sizeof usage, "(%s)", h);
  if (!vc_p_arity(c, x, 0, 0, usage)) return skipped(c, x);
  if (!c->loops)
    vc_perr(c, x->loc, "(%s) outside a loop: it must stand inside (loop ...) or (while ...)", h);
  return vc_node_new(c->p, kind, x->loc, 0);
}

/* (block STMT...) and (entry STMT...): a scope of statements. */
static vc_node *block(vc_pctx *c, const vc_sx *x) {
  vc_node *n = vc_node_new(c->p, VC_S_BLOCK, x->loc, 0);
  uint32_t mark = vc_p_scope_mark(c);
  for (uint32_t i = 1; i < x->n; i++) vc_node_append(c->p, n, vc_p_stmt(c, x->items[i]));
  vc_p_scope_pop(c, mark);
  return n;
}

static vc_node *barrier(vc_pctx *c, const vc_sx *x) {
  if (!vc_p_arity(c, x, 1, 1, "(barrier workgroup|grid)")) return skipped(c, x);
  vc_node *n = vc_node_new(c->p, VC_S_BARRIER, x->loc, 0);
  const vc_sx *scope = x->items[1];
  if (vc_sx_is_atom(scope, "workgroup")) {
    n->op = VC_BARRIER_WORKGROUP;
  } else if (vc_sx_is_atom(scope, "grid")) {
    n->op = VC_BARRIER_GRID;
    if (c->construct)
      vc_perr(c, x->loc,
              "grid barrier inside (%s ...) at line %u; grid barriers must be at the "
              "top level of entry",
              vc_sx_head(c->construct), c->construct->loc.line);
  } else {
    vc_perr(c, scope->loc, "unknown barrier scope %s: expected workgroup or grid",
            vc_sx_text(scope));
  }
  return n;
}

static vc_node *return_stmt(vc_pctx *c, const vc_sx *x) {
  if (!vc_p_arity(c, x, 0, 0, "(return)")) return skipped(c, x);
  return vc_node_new(c->p, VC_S_RETURN, x->loc, 0);
}

static const char *const expression_heads[] = {"load", "select", "cast", "bitcast"};

static bool is_expression_head(const char *h) {
  for (size_t i = 0; i < sizeof expression_heads / sizeof *expression_heads; i++)
    if (strcmp(h, expression_heads[i]) == 0) return true;
  for (int i = 0; i < VC_BINOP_COUNT; i++)
    if (strcmp(h, vc_binop_name((vc_binop)i)) == 0) return true;
  for (int i = 0; i < VC_UNOP_COUNT; i++)
    if (strcmp(h, vc_unop_name((vc_unop)i)) == 0) return true;
  for (int i = 0; i < VC_BUILTIN_COUNT; i++)
    if (strcmp(h, vc_builtin_name((vc_builtin)i)) == 0) return true;
  return false;
}

vc_node *vc_p_stmt(vc_pctx *c, const vc_sx *x) {
  if (x->kind != VC_SX_LIST || x->n == 0 || x->items[0]->kind != VC_SX_ATOM) {
    vc_perr(c, x->loc, "expected a statement such as (store B I V), got %s",
            x->kind == VC_SX_LIST && x->n == 0 ? "()" : vc_sx_text(x));
    return skipped(c, x);
  }
  const char *h = vc_sx_head(x);
  if (strcmp(h, "let") == 0) return let_var(c, x, VC_SYM_LET);
  if (strcmp(h, "var") == 0) return let_var(c, x, VC_SYM_VAR);
  if (strcmp(h, "set") == 0) return set(c, x);
  if (strcmp(h, "store") == 0) return store(c, x);
  if (strcmp(h, "atomic") == 0) return vc_p_atomic(c, x, VC_S_ATOMIC);
  if (strcmp(h, "if") == 0) return if_stmt(c, x);
  if (strcmp(h, "loop") == 0) return loop(c, x);
  if (strcmp(h, "while") == 0) return while_stmt(c, x);
  if (strcmp(h, "break") == 0) return jump_stmt(c, x, VC_S_BREAK);
  if (strcmp(h, "continue") == 0) return jump_stmt(c, x, VC_S_CONTINUE);
  if (strcmp(h, "return") == 0) return return_stmt(c, x);
  if (strcmp(h, "block") == 0) return block(c, x);
  if (strcmp(h, "barrier") == 0) return barrier(c, x);
  if (is_expression_head(h))
    vc_perr(c, x->loc, "(%s ...) is an expression, not a statement", h);
  else
    vc_perr(c, x->loc, "unknown statement (%s ...)", h);
  return skipped(c, x);
}

void vc_p_entry(vc_pctx *c, const vc_sx *entry) { c->p->entry = block(c, entry); }
