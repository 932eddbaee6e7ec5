/* Statements and segment functions of the C-family code generator.
 *
 * A segment's body is a function taking the buffers, the shared arrays and
 * the builtin ids, so that a kernel can run it with hardware ids (segment
 * kernels) or with virtual ids in a persistent loop (native kernels).
 * `(return)` then returns from that function: it ends the segment only. */
#include "backends/common/cgen/cgen_internal.h"

const char *const vc_cg_builtin_param[VC_BUILTIN_COUNT] = {
    [VC_GLOBAL_ID] = "global_id", [VC_LOCAL_ID] = "local_id", [VC_GROUP_ID] = "group_id",
    [VC_NUM_GROUPS] = "num_groups", [VC_GROUP_SIZE] = "group_size"};

static void stmt(vc_cg *g, const vc_node *n);

static void line(vc_cg *g, const char *s) {
  vc_cg_indent(g);
  vc_sb_puts(g->out, s);
  vc_sb_putc(g->out, '\n');
}

static void assign(vc_cg *g, const vc_node *n) {
  vc_cg_val v;
  vc_cg_expr(g, n->kids[0], &v);
  vc_cg_indent(g);
  vc_sb_printf(g->out, "v%u = %s;\n", n->ref, v.s);
}

static void store(vc_cg *g, const vc_node *n) {
  vc_cg_val idx, val;
  vc_cg_expr(g, n->kids[0], &idx);
  vc_cg_expr(g, n->kids[1], &val);
  vc_cg_store(g, n, &idx, &val);
}

static void atomic(vc_cg *g, const vc_node *n) {
  vc_cg_val idx, a, b;
  vc_cg_expr(g, n->kids[0], &idx);
  vc_cg_expr(g, n->kids[1], &a);
  bool cas = n->op == VC_AT_CMPXCHG;
  if (cas) vc_cg_expr(g, n->kids[2], &b);
  vc_cg_atomic(g, n, &idx, &a, cas ? &b : NULL, NULL);
}

/* A nested statement list in braces. */
static void body(vc_cg *g, const vc_node *const *kids, uint32_t n) {
  g->depth++;
  for (uint32_t i = 0; i < n && !g->rc; i++) stmt(g, kids[i]);
  g->depth--;
}

static void if_(vc_cg *g, const vc_node *n) {
  vc_cg_val c;
  vc_cg_expr(g, n->kids[0], &c);
  vc_cg_indent(g);
  vc_sb_printf(g->out, "if (%s != 0u) {\n", c.s);
  body(g, (const vc_node *const *)&n->kids[1], 1);
  if (n->nkids > 2 && n->kids[2]) {
    line(g, "} else {");
    body(g, (const vc_node *const *)&n->kids[2], 1);
  }
  line(g, "}");
}

static void loop(vc_cg *g, const vc_node *n) {
  vc_cg_val from, to;
  vc_cg_expr(g, n->kids[0], &from); /* from before to, each once */
  vc_cg_expr(g, n->kids[1], &to);
  if (n->kids[1]->kind == VC_E_NAME && !VC_MUTANT(LOOP_BOUND_REREAD)) /* the body may set it: keep the value of now */
    vc_cg_copy(g, &to);
  vc_cg_indent(g);
  if (n->kids[0]->type == VC_I32 && VC_MUTANT(LOOP_I32_UNSIGNED)) { /* the test on the u32 bits */
    vc_sb_printf(g->out, "for (v%u = %s; ", n->ref, from.s);
    vc_strbuf v;
    vc_sb_init(&v);
    vc_sb_printf(&v, "v%u", n->ref);
    vc_cg_convert(g, VC_U32, VC_I32, vc_sb_str(&v), g->out);
    vc_sb_puts(g->out, " < ");
    vc_cg_convert(g, VC_U32, VC_I32, to.s, g->out);
    vc_sb_printf(g->out, "; v%u++) {\n", n->ref);
    vc_sb_free(&v);
  } else {
    vc_sb_printf(g->out, "for (v%u = %s; v%u < %s; v%u++) {\n", n->ref, from.s, n->ref, to.s,
                 n->ref);
  }
  body(g, (const vc_node *const *)n->kids + 2, n->nkids - 2);
  line(g, "}");
}

/* The condition is evaluated in the loop, before each iteration, so that
   its temporaries and memory accesses are redone: `continue` goes back to
   it. `true` is a keyword of all three languages. */
static void while_(vc_cg *g, const vc_node *n) {
  line(g, "while (true) {");
  bool late = VC_MUTANT(WHILE_TEST_AFTER_BODY); /* a do-while: the body once before the test */
  if (late) body(g, (const vc_node *const *)n->kids + 1, n->nkids - 1);
  g->depth++;
  vc_cg_val c;
  vc_cg_expr(g, n->kids[0], &c);
  vc_cg_indent(g);
  vc_sb_printf(g->out, "if (%s == 0u) break;\n", c.s);
  g->depth--;
  if (!late) body(g, (const vc_node *const *)n->kids + 1, n->nkids - 1);
  line(g, "}");
}

static void barrier(vc_cg *g, const vc_node *n) {
  if (n->op == VC_BARRIER_WORKGROUP) {
    vc_cg_indent(g);
    g->d->barrier(g->out);
    return;
  }
  vc_cg_fail(g, VC_ERR_USAGE,
             "%s: %u:%u: grid barrier in a segment kernel (%s): the splitter must cut it",
             g->d->name, n->loc.line, n->loc.col,
             g->l->desc->label ? g->l->desc->label : "unlabelled");
}

static void stmt(vc_cg *g, const vc_node *n) {
  if (g->rc) return;
  switch (n->kind) {
  case VC_S_LET: case VC_S_VAR: case VC_S_SET: assign(g, n); break;
  case VC_S_STORE: store(g, n); break;
  case VC_S_ATOMIC: atomic(g, n); break;
  case VC_S_IF: if_(g, n); break;
  case VC_S_LOOP: loop(g, n); break;
  case VC_S_WHILE: while_(g, n); break;
  case VC_S_BREAK: line(g, "break;"); break;
  case VC_S_CONTINUE: line(g, "continue;"); break;
  case VC_S_RETURN: line(g, "return;"); break;
  case VC_S_BLOCK:
    for (uint32_t i = 0; i < n->nkids && !g->rc; i++) stmt(g, n->kids[i]);
    break;
  case VC_S_BARRIER: barrier(g, n); break;
  default:
    vc_cg_fail(g, VC_ERR_INTERNAL, "%s: %u:%u: %s is not a statement", g->d->name, n->loc.line,
               n->loc.col, vc_node_kind_name(n->kind));
  }
}

/* Drops the space after the dialect's last "b0, " so that lines end clean. */
static void trim_space(vc_strbuf *out) {
  if (out->len && out->data[out->len - 1] == ' ') out->data[--out->len] = '\0';
}

/* Every symbol at the top, zero: variables start at zero in each pass. */
static void symbols(vc_cg *g) {
  const vc_program *p = g->l->prog;
  for (uint32_t i = 0; i < p->nsyms; i++) {
    vc_type t = p->syms[i].type;
    vc_cg_indent(g);
    vc_sb_printf(g->out, "%s%s v%u = %s; /* %s */\n", vc_cg_float_qual(g, t), vc_cg_type(g, t), i,
                 vc_cg_zero(g, t), p->syms[i].name);
  }
}

void vc_cg_segment(vc_cg *g, uint32_t s, const vc_node *entry) {
  const char *u = vc_cg_type(g, VC_U32);
  vc_sb_printf(g->out, "%svoid vc_seg%u(", g->d->func_qual ? g->d->func_qual : "", s);
  g->d->seg_params(g->l, g->out);
  trim_space(g->out);
  for (unsigned b = 0; b < VC_BUILTIN_COUNT; b++)
    for (unsigned a = 0; a < 3; a++)
      vc_sb_printf(g->out, "%s%s %s_%c", a ? ", " : b ? ",\n    " : "\n    ", u,
                   vc_cg_builtin_param[b], "xyz"[a]);
  vc_sb_puts(g->out, ") {\n");
  g->depth = 1;
  symbols(g);
  stmt(g, entry);
  g->depth = 0;
  vc_sb_puts(g->out, "}\n\n");
}

void vc_cg_segment_call(vc_cg *g, uint32_t s) {
  vc_sb_printf(g->out, "  vc_seg%u(", s);
  g->d->seg_args(g->l, g->out);
  trim_space(g->out);
  for (unsigned b = 0; b < VC_BUILTIN_COUNT; b++)
    for (unsigned a = 0; a < 3; a++) {
      vc_sb_puts(g->out, a ? ", " : b ? ",\n      " : "\n      ");
      g->d->builtin((vc_builtin)b, a, g->out);
    }
  vc_sb_puts(g->out, ");\n");
}
