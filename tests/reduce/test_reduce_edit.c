/* The reducer's edits and signatures, no device: the printer gives back an
 * equal program, each kind of edit changes what it names, and signatures
 * ignore the numbers that change as a program shrinks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "harness/lang/parse.h"
#include "harness/lang/read.h"
#include "harness/reduce/edit.h"
#include "harness/reduce/signature.h"

static const char src[] =
    "; a comment\n"
    "(program p (doc \"say \\\"hi\\\"\") (workgroup 64) (grid 4)\n"
    "  (buffer a u32 256 read (init iota))\n"
    "  (buffer o u32 256 write)\n"
    "  (entry (let g (global_id x)) (let v (add (load a g) 1u))\n"
    "    (barrier grid) (if (lt g 10u) (block (store o g v))) (store o 0u 7u)))\n";

typedef struct tree {
  vc_arena a;
  vc_sx_file f;
  vc_diags d;
} tree;

static void read_tree(tree *t, const char *text) {
  vc_arena_init(&t->a);
  vc_diags_init(&t->d);
  vc_read(&t->a, "t.vyre", text, strlen(text), &t->d, &t->f);
  assert_true(t->f.well_formed);
  assert_int_equal(t->f.n, 1);
}

static void free_tree(tree *t) {
  vc_diags_free(&t->d);
  vc_arena_free(&t->a);
}

static vc_program *parse(const char *text) {
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = vc_parse("t.vyre", text, strlen(text), &d);
  vc_diags_free(&d);
  return p;
}

static void test_print_round_trip(void **state) {
  (void)state;
  tree t;
  read_tree(&t, src);
  vc_strbuf out;
  vc_sb_init(&out);
  vc_edit_print(t.f.forms[0], NULL, NULL, &out);
  vc_program *a = parse(src), *b = parse(vc_sb_str(&out));
  assert_non_null(a);
  assert_non_null(b);
  assert_true(vc_program_equal(a, b));
  assert_string_equal(b->doc, "say \"hi\"");
  /* a doc replaces the program's own */
  out.len = 0;
  vc_edit_print(t.f.forms[0], NULL, "reduced from x", &out);
  vc_program *c = parse(vc_sb_str(&out));
  assert_non_null(c);
  assert_string_equal(c->doc, "reduced from x");
  vc_program_free(a);
  vc_program_free(b);
  vc_program_free(c);
  vc_sb_free(&out);
  free_tree(&t);
}

/* The first edit of a pass whose output contains want and parses. */
static bool some_edit_gives(vc_edit_pass pass, const char *want) {
  tree t;
  read_tree(&t, src);
  vc_edits e = {0};
  vc_edits_of(t.f.forms[0], pass, &e);
  bool found = false;
  vc_strbuf out;
  vc_sb_init(&out);
  for (uint32_t i = 0; i < e.n && !found; i++) {
    out.len = 0;
    vc_edit_print(t.f.forms[0], &e.items[i], NULL, &out);
    assert_int_equal(e.items[i].pass, pass);
    vc_program *p = parse(vc_sb_str(&out));
    found = p && strstr(vc_sb_str(&out), want);
    vc_program_free(p);
  }
  vc_sb_free(&out);
  vc_edits_free(&e);
  free_tree(&t);
  return found;
}

static void test_each_pass(void **state) {
  (void)state;
  /* drop the barrier: one segment */
  assert_true(some_edit_gives(VC_PASS_DROP, "(let v (add (load a g) 1u))\n    (if"));
  /* the if's block unwrapped to its statement */
  assert_true(some_edit_gives(VC_PASS_UNWRAP, "(if (lt g 10u)\n      (store o g v))"));
  /* the let v inlined where it is used */
  assert_true(some_edit_gives(VC_PASS_INLINE, "(store o g (add (load a g) 1u))"));
  /* an expression replaced by a literal */
  assert_true(some_edit_gives(VC_PASS_LITERAL, "(let v 0)"));
  /* numbers: the grid, a buffer's size, a bound */
  assert_true(some_edit_gives(VC_PASS_SHRINK, "(grid 2)"));
  assert_true(some_edit_gives(VC_PASS_SHRINK, "(buffer a u32 128 read"));
  assert_true(some_edit_gives(VC_PASS_SHRINK, "(lt g 5u)"));
}

/* The claims about outputs go, the rest stays. */
static void test_claims_dropped(void **state) {
  (void)state;
  static const char claimed[] =
      "(program c (buffer o u32 2 write) (buffer f f32 1 write) (expect (ulp f 1))\n"
      "  (expect (digest \"0000000000000000000000000000000000000000000000000000000000000000\"))\n"
      "  (expect (buffer o (values 1u 2u)))\n"
      "  (entry (store o 0u 1u) (store o 1u 2u) (store f 0u 1.0)))\n";
  tree t;
  read_tree(&t, claimed);
  assert_true(vc_edit_has_claims(t.f.forms[0]));
  vc_edit e;
  memset(&e, 0, sizeof e);
  e.kind = VC_EDIT_CLAIMS;
  e.at = t.f.forms[0];
  vc_strbuf out;
  vc_sb_init(&out);
  vc_edit_print(t.f.forms[0], &e, NULL, &out);
  assert_null(strstr(vc_sb_str(&out), "digest"));
  assert_null(strstr(vc_sb_str(&out), "values"));
  assert_non_null(strstr(vc_sb_str(&out), "(expect (ulp f 1))"));
  vc_program *p = parse(vc_sb_str(&out));
  assert_non_null(p);
  assert_int_equal(p->nexpects, 1);
  vc_program_free(p);
  vc_sb_free(&out);
  free_tree(&t);
  read_tree(&t, src);
  assert_false(vc_edit_has_claims(t.f.forms[0]));
  free_tree(&t);
}

static void test_signature_blots_numbers(void **state) {
  (void)state;
  vc_check_result a, b;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  a.verdict = b.verdict = VC_CHECK_FAILED;
  snprintf(a.why, sizeof a.why, "split-on-oracle (host-split) differs from the unsplit oracle in "
           "12 elements of out; first [3]: expected 1, got 2");
  snprintf(b.why, sizeof b.why, "split-on-oracle (host-split) differs from the unsplit oracle in "
           "1 elements of out; first [0]: expected 9, got 0");
  vc_reduce_sig sa, sb;
  vc_reduce_sig_of_check(&a, &sa);
  vc_reduce_sig_of_check(&b, &sb);
  assert_true(vc_reduce_sig_equal(&sa, &sb));
  /* the noun agrees with its count: a count falling to 1 is the same failure */
  snprintf(b.why, sizeof b.why, "split-on-oracle (host-split) differs from the unsplit oracle in "
           "1 element of out; first [0]: expected 9, got 0");
  vc_reduce_sig_of_check(&b, &sb);
  assert_true(vc_reduce_sig_equal(&sa, &sb));
  snprintf(a.why, sizeof a.why, "host-split on the oracle ran 3 passes, the unsplit oracle 2");
  snprintf(b.why, sizeof b.why, "host-split on the oracle ran 1 pass, the unsplit oracle 2");
  vc_reduce_sig_of_check(&a, &sa);
  vc_reduce_sig_of_check(&b, &sb);
  assert_true(vc_reduce_sig_equal(&sa, &sb));
  snprintf(a.why, sizeof a.why, "host-split moved 8 B up and 4 B down in 3 launches; the plan");
  snprintf(b.why, sizeof b.why, "host-split moved 8 B up and 4 B down in 1 launch; the plan");
  vc_reduce_sig_of_check(&a, &sa);
  vc_reduce_sig_of_check(&b, &sb);
  assert_true(vc_reduce_sig_equal(&sa, &sb));
  snprintf(a.why, sizeof a.why, "split-on-oracle (host-split) differs from the unsplit oracle in "
           "12 elements of out; first [3]: expected 1, got 2");
  vc_reduce_sig_of_check(&a, &sa);
  assert_int_equal(sa.status, VC_ST_DIVERGE);
  snprintf(b.why, sizeof b.why, "split-on-oracle (resident-split) differs from the unsplit oracle "
           "in 1 elements of out");
  vc_reduce_sig_of_check(&b, &sb);
  assert_false(vc_reduce_sig_equal(&sa, &sb));
  /* a device result: mode, status, buffer and class */
  vc_divergence d;
  memset(&d, 0, sizeof d);
  snprintf(d.buffer, sizeof d.buffer, "o");
  d.cls = VC_DIV_INTEGER;
  vc_result r;
  memset(&r, 0, sizeof r);
  r.mode = "native";
  r.status = VC_ST_DIVERGE;
  r.divs = &d;
  r.ndivs = 1;
  vc_reduce_sig_of_result(&r, &sa);
  d.cls = VC_DIV_F32_ULP;
  vc_reduce_sig_of_result(&r, &sb);
  assert_false(vc_reduce_sig_equal(&sa, &sb));
  char text[256];
  vc_reduce_sig_text(&sa, text, sizeof text);
  assert_string_equal(text, "native diverge buffer=o class=integer");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_print_round_trip),
      cmocka_unit_test(test_each_pass),
      cmocka_unit_test(test_claims_dropped),
      cmocka_unit_test(test_signature_blots_numbers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
