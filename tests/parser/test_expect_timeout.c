/* (expect (timeout S)): a program's own timeout in seconds (docs/format.md),
 * what it parses to, how it prints, and every way to get it wrong. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "harness/lang/parse.h"
#include "parser_util.h"

/* A program whose form text S starts at line 2, column 3. */
#define FORM(s) "(program p\n  " s "\n  (entry))\n"

static void test_timeout_parsed_and_printed(void **state) {
  (void)state;
  vc_program *p = pt_parse_ok(FORM("(expect (timeout 120))"));
  assert_int_equal(vc_program_timeout_s(p), 120);
  pt_assert_roundtrip(p);
  vc_program_free(p);
  p = pt_parse_ok(FORM("(expect (timeout 0x3cu))"));
  assert_int_equal(vc_program_timeout_s(p), 60);
  vc_program_free(p);
  p = pt_parse_ok(FORM("(expect (timeout 86400))"));
  assert_int_equal(vc_program_timeout_s(p), 86400);
  vc_program_free(p);
}

static void test_no_timeout_is_zero(void **state) {
  (void)state;
  vc_program *p = pt_parse_ok(FORM("(doc \"no timeout of its own\")"));
  assert_int_equal(vc_program_timeout_s(p), 0);
  vc_program_free(p);
}

static void expect_error(const char *src, uint32_t line, uint32_t col, const char *fragment) {
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = pt_parse(src, &d);
  assert_null(p);
  pt_assert_diag(&d, line, col, fragment);
  vc_diags_free(&d);
}

static void test_bad_values(void **state) {
  (void)state;
  const char *why = "is not a timeout: expected whole seconds, 1 to 86400";
  expect_error(FORM("(expect (timeout 0))"), 2, 20, why);
  expect_error(FORM("(expect (timeout -5))"), 2, 20, why);
  expect_error(FORM("(expect (timeout 1.5))"), 2, 20, why);
  expect_error(FORM("(expect (timeout ten))"), 2, 20, why);
  expect_error(FORM("(expect (timeout \"10\"))"), 2, 20, why);
  expect_error(FORM("(expect (timeout 86401))"), 2, 20, why);
  expect_error(FORM("(expect (timeout 99999999999))"), 2, 20, why);
  expect_error(FORM("(expect (timeout 10u64))"), 2, 20, why);
}

static void test_bad_shape(void **state) {
  (void)state;
  expect_error(FORM("(expect (timeout))"), 2, 11, "(timeout S)");
  expect_error(FORM("(expect (timeout 1 2))"), 2, 11, "(timeout S)");
  expect_error(FORM("(expect timeout 10)"), 2, 3, "(expect (timeout S))");
}

static void test_duplicated(void **state) {
  (void)state;
  expect_error("(program p\n  (expect (timeout 10))\n  (expect (timeout 20))\n  (entry))\n", 3, 3,
               "repeated expectation; the first is at 2:3");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_timeout_parsed_and_printed),
      cmocka_unit_test(test_no_timeout_is_zero),
      cmocka_unit_test(test_bad_values),
      cmocka_unit_test(test_bad_shape),
      cmocka_unit_test(test_duplicated),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
