/* The program the parser builds: the conventions of harness/program.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "harness/lang/parse.h"
#include "parser_util.h"

static uint32_t f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static void header_and_defaults(void **state) {
  (void)state;
  vc_program *p = pt_parse_ok(
      "(program some.name-1 (buffer a u32 8 read) (buffer b i32 8 write)"
      " (buffer c f32 8 read_write) (entry))");
  assert_string_equal(p->name, "some.name-1");
  assert_string_equal(p->path, "t.vyre");
  assert_null(p->doc);
  for (int i = 0; i < 3; i++) {
    assert_int_equal(p->workgroup[i], 1);
    assert_int_equal(p->grid[i], 1);
  }
  assert_int_equal(p->nbuffers, 3);
  assert_int_equal(p->buffers[0].init.kind, VC_INIT_ZERO);
  assert_int_equal(p->buffers[1].init.kind, VC_INIT_NONE);
  assert_int_equal(p->buffers[2].init.kind, VC_INIT_ZERO);
  assert_int_equal(p->buffers[1].type, VC_I32);
  assert_int_equal(p->buffers[2].access, VC_READ_WRITE);
  assert_int_equal(p->buffers[0].role, VC_ROLE_USER);
  assert_int_equal(p->buffers[1].loc.col, 44);
  assert_false(p->fixpoint.present);
  assert_non_null(p->entry);
  assert_int_equal(p->entry->kind, VC_S_BLOCK);
  assert_int_equal(p->entry->nkids, 0);
  vc_program_free(p);
}

/* Forms come in any order; buffers keep declaration order, expects and tags file order. */
static void forms_in_any_order(void **state) {
  (void)state;
  const char *src =
      "(program p\n"
      "  (entry (store z 0u (div (load z 0u) 2.0)))\n"
      "  (tags b a)\n"
      "  (expect (digest \"00112233445566778899AABBCCDDEEFF00112233445566778899aabbccddeeff\"))\n"
      "  (fixpoint (flag y) (max 7))\n"
      "  (buffer z f32 4 read_write)\n"
      "  (expect (ulp z 3))\n"
      "  (buffer y u32 1 read_write)\n"
      "  (tags c)\n"
      "  (expect out-of-bounds)\n"
      "  (workgroup 4 2 3)\n"
      "  (grid 5 6)\n"
      "  (doc \"say \\\"hi\\\" \\\\ bye\"))\n";
  vc_program *p = pt_parse_ok(src);
  assert_string_equal(p->buffers[0].name, "z");
  assert_string_equal(p->buffers[1].name, "y");
  assert_int_equal(p->ntags, 3);
  assert_string_equal(p->tags[0], "b");
  assert_string_equal(p->tags[1], "a");
  assert_string_equal(p->tags[2], "c");
  assert_int_equal(p->nexpects, 3);
  assert_int_equal(p->expects[0].kind, VC_EXPECT_DIGEST);
  assert_string_equal(p->expects[0].text,
                      "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff");
  assert_int_equal(p->expects[1].kind, VC_EXPECT_ULP);
  assert_int_equal(p->expects[1].ref, 0);
  assert_int_equal(p->expects[1].n, 3);
  assert_int_equal(p->expects[2].kind, VC_EXPECT_OUT_OF_BOUNDS);
  assert_true(p->fixpoint.present);
  assert_int_equal(p->fixpoint.max, 7);
  assert_true(p->fixpoint.has_flag);
  assert_int_equal(p->fixpoint.flag, 1);
  assert_int_equal(p->workgroup[0], 4);
  assert_int_equal(p->workgroup[1], 2);
  assert_int_equal(p->workgroup[2], 3);
  assert_int_equal(p->grid[0], 5);
  assert_int_equal(p->grid[1], 6);
  assert_int_equal(p->grid[2], 1);
  assert_string_equal(p->doc, "say \"hi\" \\ bye");
  vc_program_free(p);
}

static void initialisers(void **state) {
  (void)state;
  const char *src =
      "(program p\n"
      "  (buffer a u32 4 read (init iota))\n"
      "  (buffer b i32 4 read (init (fill -3)))\n"
      "  (buffer c f32 4 read (init (values 1.5 -0.0)))\n"
      "  (buffer d u32 4 read_write (init (hex \"01ff\")))\n"
      "  (buffer e u32 4 read (init (random 0xfedcba9876543210)))\n"
      "  (buffer f f32 4 read (init (random-f32 42 -1.0 0x3f800000f)))\n"
      "  (buffer g u32 4 read (init (values)))\n"
      "  (buffer h u32 4 read (init zero))\n"
      "  (entry))";
  vc_program *p = pt_parse_ok(src);
  const vc_buffer *b = p->buffers;
  assert_int_equal(b[0].init.kind, VC_INIT_IOTA);
  assert_int_equal(b[1].init.kind, VC_INIT_FILL);
  assert_int_equal(b[1].init.bits, (uint32_t)-3);
  assert_int_equal(b[2].init.kind, VC_INIT_VALUES);
  assert_int_equal(b[2].init.nvalues, 2);
  assert_int_equal(b[2].init.values[0], 0x3fc00000u);
  assert_int_equal(b[2].init.values[1], 0x80000000u);
  assert_int_equal(b[3].init.kind, VC_INIT_HEX);
  assert_int_equal(b[3].init.nbytes, 2);
  assert_int_equal(b[3].init.bytes[0], 0x01);
  assert_int_equal(b[3].init.bytes[1], 0xff);
  assert_int_equal(b[4].init.kind, VC_INIT_RANDOM);
  assert_true(b[4].init.seed == 0xfedcba9876543210ull);
  assert_int_equal(b[5].init.kind, VC_INIT_RANDOM_F32);
  assert_true(b[5].init.seed == 42);
  assert_int_equal(b[5].init.lo, 0xbf800000u);
  assert_int_equal(b[5].init.hi, 0x3f800000u);
  assert_int_equal(b[6].init.kind, VC_INIT_VALUES);
  assert_int_equal(b[6].init.nvalues, 0);
  assert_int_equal(b[7].init.kind, VC_INIT_ZERO);
  vc_program_free(p);
}

/* The value of the first let of entry. */
static vc_node *first_let_value(vc_program *p) {
  assert_true(p->entry->nkids > 0);
  assert_int_equal(p->entry->kids[0]->kind, VC_S_LET);
  return p->entry->kids[0]->kids[0];
}

static void check_literal(const char *lit, vc_type type, uint32_t bits) {
  char src[256];
  snprintf(src, sizeof src, "(program p (entry (let a %s)))", lit);
  vc_program *p = pt_parse_ok(src);
  vc_node *n = first_let_value(p);
  assert_int_equal(n->kind, VC_E_LIT);
  if (n->type != type || n->bits != bits)
    fprintf(stderr, "%s: got %s 0x%08llx\n", lit, vc_type_name(n->type), (unsigned long long)n->bits);
  assert_int_equal(n->type, type);
  assert_int_equal(n->bits, bits);
  assert_int_equal(p->syms[0].type, type);
  vc_program_free(p);
}

static void literals(void **state) {
  (void)state;
  check_literal("7", VC_U32, 7);
  check_literal("7u", VC_U32, 7);
  check_literal("0xff", VC_U32, 255);
  check_literal("0xFFu", VC_U32, 255);
  check_literal("4294967295", VC_U32, 0xffffffffu);
  check_literal("0xffffffff", VC_U32, 0xffffffffu);
  check_literal("007", VC_U32, 7);
  check_literal("-7", VC_I32, (uint32_t)-7);
  check_literal("7i", VC_I32, 7);
  check_literal("-7i", VC_I32, (uint32_t)-7);
  check_literal("-0", VC_I32, 0);
  check_literal("-2147483648", VC_I32, 0x80000000u);
  check_literal("2147483647i", VC_I32, 0x7fffffffu);
  check_literal("0xffffffffi", VC_I32, 0xffffffffu);
  check_literal("1.5", VC_F32, 0x3fc00000u);
  check_literal("1.5f", VC_F32, 0x3fc00000u);
  check_literal("2f", VC_F32, 0x40000000u);
  check_literal("-2e-3", VC_F32, f32_bits(-2e-3f));
  check_literal("1e10f", VC_F32, f32_bits(1e10f));
  check_literal("1E+2", VC_F32, f32_bits(100.0f));
  check_literal(".5", VC_F32, 0x3f000000u);
  check_literal("-.5", VC_F32, 0xbf000000u);
  check_literal("5.", VC_F32, 0x40a00000u);
  check_literal("-0.0", VC_F32, 0x80000000u);
  check_literal("0.1", VC_F32, 0x3dcccccdu);
  check_literal("0x3f800000f", VC_F32, 0x3f800000u);
  check_literal("0x7fc00000f", VC_F32, 0x7fc00000u);
  check_literal("0xff800000f", VC_F32, 0xff800000u);
  check_literal("0x00000001f", VC_F32, 1);
  check_literal("1e-45", VC_F32, 1);                  /* the least denormal */
  check_literal("1e-46", VC_F32, 0);                  /* rounds to zero */
  check_literal("16777217.0", VC_F32, 0x4b800000u);   /* ties to even: 2^24 */
  check_literal("16777219.0", VC_F32, 0x4b800002u);   /* ties to even: 2^24 + 4 */
  check_literal("3.4028235e38", VC_F32, 0x7f7fffffu); /* FLT_MAX */
  check_literal("3.4028235677973366e38", VC_F32, 0x7f7fffffu);
}

static void expressions_are_typed(void **state) {
  (void)state;
  const char *src =
      "(program p\n"
      "  (buffer b i32 4 read_write)\n"
      "  (shared s u32 4)\n"
      "  (entry\n"
      "    (let a (lt (load b 1u) -1))\n"
      "    (let c (cast f32 (group_size z)))\n"
      "    (let d (bitcast u32 c))\n"
      "    (let e (select a (neg 2i) (abs -3i)))\n"
      "    (let f (atomic cmpxchg s 0u d 5u))\n"
      "    (let g (lnot (land a (lor a (not 0u)))))\n"
      "    (atomic exchange b 2u 9i)))\n";
  vc_program *p = pt_parse_ok(src);
  vc_node **k = p->entry->kids;
  assert_int_equal(p->entry->nkids, 7);
  vc_node *lt = k[0]->kids[0];
  assert_int_equal(lt->kind, VC_E_BINARY);
  assert_int_equal(lt->op, VC_LT);
  assert_int_equal(lt->type, VC_U32);
  vc_node *load = lt->kids[0];
  assert_int_equal(load->kind, VC_E_LOAD);
  assert_int_equal(load->space, VC_SPACE_BUFFER);
  assert_int_equal(load->ref, 0);
  assert_int_equal(load->type, VC_I32);
  assert_int_equal(load->nkids, 1);
  vc_node *cast = k[1]->kids[0];
  assert_int_equal(cast->kind, VC_E_CAST);
  assert_int_equal(cast->type, VC_F32);
  assert_int_equal(cast->kids[0]->kind, VC_E_BUILTIN);
  assert_int_equal(cast->kids[0]->op, VC_GROUP_SIZE);
  assert_int_equal(cast->kids[0]->axis, 2);
  assert_int_equal(k[2]->kids[0]->kind, VC_E_BITCAST);
  assert_int_equal(k[2]->kids[0]->type, VC_U32);
  assert_int_equal(k[2]->kids[0]->kids[0]->kind, VC_E_NAME);
  assert_int_equal(k[2]->kids[0]->kids[0]->ref, 1);
  assert_int_equal(k[2]->kids[0]->kids[0]->type, VC_F32);
  vc_node *sel = k[3]->kids[0];
  assert_int_equal(sel->kind, VC_E_SELECT);
  assert_int_equal(sel->type, VC_I32);
  assert_int_equal(sel->kids[1]->kind, VC_E_UNARY);
  assert_int_equal(sel->kids[1]->op, VC_NEG);
  assert_int_equal(sel->kids[2]->op, VC_ABS);
  vc_node *cx = k[4]->kids[0];
  assert_int_equal(cx->kind, VC_E_ATOMIC);
  assert_int_equal(cx->op, VC_AT_CMPXCHG);
  assert_int_equal(cx->space, VC_SPACE_SHARED);
  assert_int_equal(cx->ref, 0);
  assert_int_equal(cx->type, VC_U32);
  assert_int_equal(cx->nkids, 3);
  assert_int_equal(cx->kids[1]->kind, VC_E_NAME); /* expected */
  assert_int_equal(cx->kids[2]->bits, 5);         /* desired */
  assert_int_equal(k[5]->kids[0]->type, VC_U32);
  assert_int_equal(k[5]->kids[0]->op, VC_LNOT);
  vc_node *at = k[6];
  assert_int_equal(at->kind, VC_S_ATOMIC);
  assert_int_equal(at->op, VC_AT_EXCHANGE);
  assert_int_equal(at->type, VC_VOID);
  assert_int_equal(at->nkids, 2);
  for (uint32_t i = 0; i < 6; i++) assert_int_equal(k[i]->type, VC_VOID);
  vc_program_free(p);
}

static void statements(void **state) {
  (void)state;
  const char *src =
      "(program p\n"
      "  (buffer o i32 4 write)\n"
      "  (entry\n"
      "    (var v 0i)\n"
      "    (if (eq 1u 1u) (set v 1i))\n"
      "    (if 0u (block (return)) (store o 0u v))\n"
      "    (loop i -2 2i (set v (add v i)) (barrier workgroup))\n"
      "    (block (barrier grid))\n"
      "    (barrier grid)))\n";
  vc_program *p = pt_parse_ok(src);
  vc_node **k = p->entry->kids;
  assert_int_equal(p->entry->nkids, 6);
  assert_int_equal(k[0]->kind, VC_S_VAR);
  assert_int_equal(k[1]->kind, VC_S_IF);
  assert_int_equal(k[1]->nkids, 2);
  assert_int_equal(k[1]->kids[1]->kind, VC_S_SET);
  assert_int_equal(k[1]->kids[1]->ref, 0);
  assert_int_equal(k[2]->nkids, 3);
  assert_int_equal(k[2]->kids[1]->kind, VC_S_BLOCK);
  assert_int_equal(k[2]->kids[1]->kids[0]->kind, VC_S_RETURN);
  assert_int_equal(k[2]->kids[2]->kind, VC_S_STORE);
  assert_int_equal(k[2]->kids[2]->space, VC_SPACE_BUFFER);
  vc_node *loop = k[3];
  assert_int_equal(loop->kind, VC_S_LOOP);
  assert_int_equal(loop->nkids, 4);
  assert_int_equal(loop->ref, 1);
  assert_int_equal(p->syms[1].kind, VC_SYM_LOOP);
  assert_int_equal(p->syms[1].type, VC_I32);
  assert_int_equal(loop->kids[0]->bits, (uint32_t)-2);
  assert_int_equal(loop->kids[1]->bits, 2);
  assert_int_equal(loop->kids[2]->kind, VC_S_SET);
  assert_int_equal(loop->kids[2]->kids[0]->kids[1]->ref, 1);
  assert_int_equal(loop->kids[3]->kind, VC_S_BARRIER);
  assert_int_equal(loop->kids[3]->op, VC_BARRIER_WORKGROUP);
  assert_int_equal(k[4]->kind, VC_S_BLOCK);
  assert_int_equal(k[4]->kids[0]->op, VC_BARRIER_GRID);
  assert_int_equal(k[5]->op, VC_BARRIER_GRID);
  assert_int_equal(k[3]->loc.line, 7);
  assert_int_equal(k[3]->loc.col, 5);
  vc_program_free(p);
}

/* Symbols are program-wide, in order of appearance; a name declared again in
   a sibling scope is a new symbol, and each use finds the visible one. */
static void symbols_and_scopes(void **state) {
  (void)state;
  const char *src =
      "(program p\n"
      "  (buffer o u32 4 write)\n"
      "  (entry\n"
      "    (block (let x 1u) (store o 0u x))\n"
      "    (block (var x 2.0) (set x 3.0))\n"
      "    (loop x 0u 2u (store o x x))\n"
      "    (let y 0i)))\n";
  vc_program *p = pt_parse_ok(src);
  assert_int_equal(p->nsyms, 4);
  static const vc_sym_kind kinds[] = {VC_SYM_LET, VC_SYM_VAR, VC_SYM_LOOP, VC_SYM_LET};
  static const vc_type types[] = {VC_U32, VC_F32, VC_U32, VC_I32};
  for (uint32_t i = 0; i < 4; i++) {
    assert_string_equal(p->syms[i].name, i < 3 ? "x" : "y");
    assert_int_equal(p->syms[i].kind, kinds[i]);
    assert_int_equal(p->syms[i].type, types[i]);
  }
  vc_node **k = p->entry->kids;
  assert_int_equal(k[0]->kids[1]->kids[1]->ref, 0);
  assert_int_equal(k[1]->kids[1]->ref, 1);
  assert_int_equal(k[2]->kids[2]->kids[0]->ref, 2);
  assert_int_equal(k[2]->kids[2]->kids[1]->ref, 2);
  assert_int_equal(k[3]->ref, 3);
  assert_int_equal(p->syms[3].loc.line, 7);
  assert_int_equal(p->syms[3].loc.col, 10);
  vc_program_free(p);
}

static void crlf_and_comments(void **state) {
  (void)state;
  vc_program *p =
      pt_parse_ok("; a comment\r\n(program p ; here too\r\n  (entry\r\n    (return)))\r\n");
  assert_int_equal(p->entry->nkids, 1);
  assert_int_equal(p->entry->kids[0]->loc.line, 4);
  assert_int_equal(p->entry->kids[0]->loc.col, 5);
  vc_program_free(p);
}

static void ulp_allows_f32_div(void **state) {
  (void)state;
  vc_program *p = pt_parse_ok(
      "(program p (buffer o f32 1 write)"
      " (entry (store o 0u (div 1.0 3.0))) (expect (ulp o 1)))");
  assert_int_equal(p->entry->kids[0]->kids[1]->op, VC_DIV);
  vc_program_free(p);
}

static void limits_at_the_edge(void **state) {
  (void)state;
  vc_program *p = pt_parse_ok(
      "(program p (workgroup 1024) (grid 4095 1024)"
      " (buffer b u32 268435456 write) (shared s u32 8192)"
      " (fixpoint (max 1000000)) (entry))");
  assert_true(vc_program_invocations(p) == 1024ull * 4095 * 1024);
  vc_program_free(p);
  p = pt_parse_ok("(program p (workgroup 1 1 1024) (grid 65535 1 1) (entry))");
  assert_int_equal(p->workgroup[2], 1024);
  assert_int_equal(p->grid[0], 65535);
  vc_program_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(header_and_defaults),   cmocka_unit_test(forms_in_any_order),
      cmocka_unit_test(initialisers),          cmocka_unit_test(literals),
      cmocka_unit_test(expressions_are_typed), cmocka_unit_test(statements),
      cmocka_unit_test(symbols_and_scopes),    cmocka_unit_test(crlf_and_comments),
      cmocka_unit_test(ulp_allows_f32_div),    cmocka_unit_test(limits_at_the_edge),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
