/* Literals: how the printer writes them and that they read back bit for bit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness/lang/parse_lit.h"
#include "harness/lang/print.h"

static char *printed(vc_type t, uint32_t bits) {
  vc_strbuf sb;
  vc_sb_init(&sb);
  vc_print_literal(t, bits, &sb);
  return vc_sb_take(&sb);
}

static void check_print(vc_type t, uint32_t bits, const char *want) {
  char *s = printed(t, bits);
  assert_string_equal(s, want);
  free(s);
}

static void spellings(void **state) {
  (void)state;
  check_print(VC_U32, 5, "5u");
  check_print(VC_U32, 0, "0u");
  check_print(VC_U32, 0xffffffffu, "4294967295u");
  check_print(VC_I32, 5, "5i");
  check_print(VC_I32, (uint32_t)-5, "-5i");
  check_print(VC_I32, 0x80000000u, "-2147483648i");
  check_print(VC_I32, 0x7fffffffu, "2147483647i");
  check_print(VC_F32, 0x3fc00000u, "1.5f");
  check_print(VC_F32, 0x00000000u, "0.0f");
  check_print(VC_F32, 0x80000000u, "-0.0f");
  check_print(VC_F32, 0x3f800000u, "1.0f");
  check_print(VC_F32, 0x3dcccccdu, "0.1f");
  check_print(VC_F32, 0x42c80000u, "100.0f");
  check_print(VC_F32, 0x501502f9u, "1e10f");
  check_print(VC_F32, 0x3a83126fu, "0.001f");
  check_print(VC_F32, 0x358637bdu, "1e-6f");
  check_print(VC_F32, 0x7f7fffffu, "3.4028235e38f");
  check_print(VC_F32, 0x00000001u, "1e-45f");
  check_print(VC_F32, 0x007fffffu, "1.1754942e-38f");
  check_print(VC_F32, 0x4b800001u, "16777218.0f");
  check_print(VC_F32, 0xc0490fdbu, "-3.1415927f");
  check_print(VC_F32, 0x7fc00000u, "0x7fc00000f");
  check_print(VC_F32, 0xffc00001u, "0xffc00001f");
  check_print(VC_F32, 0x7f800001u, "0x7f800001f");
  check_print(VC_F32, 0x7f800000u, "0x7f800000f");
  check_print(VC_F32, 0xff800000u, "0xff800000f");
}

/* print -> read gives the same type and bits; false (with a message) if not. */
static bool reads_back(vc_type t, uint32_t bits) {
  char *s = printed(t, bits);
  vc_type t2;
  uint64_t b2;
  char why[256] = "";
  bool ok = vc_lit_parse(s, &t2, &b2, why, sizeof why) && t2 == t && b2 == bits;
  if (!ok) fprintf(stderr, "%s 0x%08x printed as %s: %s\n", vc_type_name(t), bits, s, why);
  free(s);
  return ok;
}

/* No decimal with fewer significant digits reads back to the same f32. */
static bool shortest(uint32_t bits) {
  float f;
  memcpy(&f, &bits, sizeof f);
  if (f != f || f - f != 0) return true; /* NaN and infinities print as bits */
  /* significant digits: from the first nonzero digit to the last */
  char *s = printed(VC_F32, bits);
  int digits = 0, first = -1, pos = 0;
  for (const char *q = s; *q && *q != 'e' && *q != 'f'; q++) {
    if (*q < '0' || *q > '9') continue;
    if (*q != '0') {
      if (first < 0) first = pos;
      digits = pos - first + 1;
    }
    pos++;
  }
  free(s);
  for (int prec = 1; prec < digits; prec++) {
    char buf[64];
    snprintf(buf, sizeof buf, "%.*e", prec - 1, (double)f);
    float g = strtof(buf, NULL);
    if (memcmp(&g, &f, sizeof f) == 0) {
      fprintf(stderr, "0x%08x: %s is shorter\n", bits, buf);
      return false;
    }
  }
  return true;
}

static void f32_edge_values(void **state) {
  (void)state;
  static const uint32_t edges[] = {
      0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007fffff, 0x00800000, 0x00400000,
      0x3f800000, 0xbf800000, 0x7f7fffff, 0xff7fffff, 0x7f800000, 0xff800000, 0x7fc00000,
      0xffc00000, 0x7f800001, 0x7fffffff, 0xffffffff, 0x4b800000, 0x4b800001, 0x4effffff,
      0x4f000000, 0xcf000000, 0x4f800000, 0x5f7fffff, 0x33800000, 0x3dcccccd, 0x38d1b717};
  for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
    assert_true(reads_back(VC_F32, edges[i]));
    assert_true(shortest(edges[i]));
  }
}

/* A sample across the whole bit space, every exponent and both signs. */
static void f32_sweep(void **state) {
  (void)state;
  uint32_t failures = 0;
  for (uint64_t b = 0; b <= 0xffffffffu; b += 262139) {
    if (!reads_back(VC_F32, (uint32_t)b)) failures++;
    if (b % (262139ull * 4) == 0 && !shortest((uint32_t)b)) failures++;
  }
  for (uint32_t e = 0; e < 256; e++) {
    for (uint32_t m = 0; m < 8; m++) {
      uint32_t b = e << 23 | (m * 0x0fffffu);
      if (!reads_back(VC_F32, b) || !reads_back(VC_F32, b | 0x80000000u)) failures++;
    }
  }
  assert_int_equal(failures, 0);
}

static void integer_sweep(void **state) {
  (void)state;
  uint32_t failures = 0;
  for (uint64_t b = 0; b <= 0xffffffffu; b += 65521) {
    if (!reads_back(VC_U32, (uint32_t)b) || !reads_back(VC_I32, (uint32_t)b)) failures++;
  }
  static const uint32_t edges[] = {0, 1, 0x7fffffff, 0x80000000, 0x80000001, 0xffffffff};
  for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
    if (!reads_back(VC_U32, edges[i]) || !reads_back(VC_I32, edges[i])) failures++;
  assert_int_equal(failures, 0);
}

static void seeds(void **state) {
  (void)state;
  uint64_t s;
  char why[128];
  assert_true(vc_lit_parse_seed("42", &s, why, sizeof why));
  assert_true(s == 42);
  assert_true(vc_lit_parse_seed("42u", &s, why, sizeof why));
  assert_true(s == 42);
  assert_true(vc_lit_parse_seed("0xffffffffffffffff", &s, why, sizeof why));
  assert_true(s == UINT64_MAX);
  assert_true(vc_lit_parse_seed("0x12345678f", &s, why, sizeof why)); /* not f32 bits here */
  assert_true(s == 0x12345678full);
  assert_false(vc_lit_parse_seed("0x1ffffffffffffffff", &s, why, sizeof why));
  assert_false(vc_lit_parse_seed("1.5", &s, why, sizeof why));
  assert_false(vc_lit_parse_seed("0xg", &s, why, sizeof why));
  assert_false(vc_lit_parse_seed("4294967296", &s, why, sizeof why));
}

static void number_shapes(void **state) {
  (void)state;
  assert_true(vc_lit_is_number("1"));
  assert_true(vc_lit_is_number("-1"));
  assert_true(vc_lit_is_number(".5"));
  assert_true(vc_lit_is_number("-.5"));
  assert_true(vc_lit_is_number("+5"));
  assert_false(vc_lit_is_number("x1"));
  assert_false(vc_lit_is_number("-"));
  assert_false(vc_lit_is_number("random-f32"));
  assert_false(vc_lit_is_number("_1"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(spellings), cmocka_unit_test(f32_edge_values),
      cmocka_unit_test(f32_sweep), cmocka_unit_test(integer_sweep),
      cmocka_unit_test(seeds),     cmocka_unit_test(number_shapes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
