/* f32 rules of docs/semantics.md, each on the oracle. Expected bits were
   worked out by hand (and checked with IEEE binary32 rounding elsewhere). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "oracle_util.h"

#define NAN_A "0x7fc00001f" /* quiet NaNs with distinct payloads */
#define NAN_B "0x7fc00002f"

static void check(const char *entry, const uint32_t *want, uint32_t n) {
  vt_check("", entry, want, n);
}

static void add_sub_mul_round_to_nearest(void **state) {
  (void)state;
  static const uint32_t want[] = {0x3e99999au, 0x40533334u, 0x3f801000u, 0x00000000u, 0x80000000u};
  check("(store out 0u (bitcast u32 (add 0x3dcccccdf 0x3e4ccccdf)))" /* 0.1f + 0.2f */
        "(store out 1u (bitcast u32 (mul 0x3f8ccccdf 3.0f)))"        /* 1.1f * 3 */
        "(store out 2u (bitcast u32 (mul 0x3f800800f 0x3f800800f)))"  /* a tie, to even */
        "(store out 3u (bitcast u32 (sub 1.5f 1.5f)))"                /* +0 */
        "(store out 4u (bitcast u32 (add -0.0f -0.0f)))",
        want, 5);
}

/* (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 rounds to 1 + 2^-11, so a*b + c with
   c = -(1 + 2^-11) is +0 unfused and 2^-24 (0x33800000) fused. Likewise
   1.1f * 3 - 3.3f is 2^-22 unfused (the product rounds up one ulp of 3.3f)
   and 2^-23 fused. The operands come from a buffer so
   that nothing is folded before the oracle runs. */
/* Every NaN that add, sub, mul and div produce is 0x7fc00000, whatever the
   host's default NaN (x86: 0xffc00000 for an invalid operation) and whatever
   payload or sign an operand NaN had. The operands come from a buffer, so
   that the C compiler folds nothing. */
static void arithmetic_nans_are_canonical(void **state) {
  (void)state;
  static const uint32_t want[] = {0x7fc00000u, 0x7fc00000u, 0x7fc00000u, 0x7fc00000u,
                                  0x7fc00000u, 0x7fc00000u, 0x7fc00000u, 0x7f800000u};
  vt_check("(buffer in f32 8 read (init (values 0x7f800000f 0.0f 0x7fc12345f 0xffc00001f 1.0f)))",
           "(let inf (load in 0u)) (let z (load in 1u)) (let pn (load in 2u))"
           " (let nn (load in 3u)) (let one (load in 4u))"
           " (store out 0u (bitcast u32 (sub inf inf)))"    /* invalid */
           " (store out 1u (bitcast u32 (mul z inf)))"      /* invalid */
           " (store out 2u (bitcast u32 (add pn one)))"     /* a payload */
           " (store out 3u (bitcast u32 (mul one nn)))"     /* a negative NaN */
           " (store out 4u (bitcast u32 (sub nn pn)))"      /* two NaNs */
           " (store out 5u (bitcast u32 (add inf (neg inf))))"
           " (store out 6u (bitcast u32 (add (sub inf inf) one)))"
           " (store out 7u (bitcast u32 (add inf one)))",
           want, 8);
}

static void no_contraction(void **state) {
  (void)state;
  static const uint32_t want[] = {0x00000000u, 0x3f801000u, 0x34800000u, 0x00000000u};
  vt_check("(buffer in f32 8 read (init (values 0x3f800800f 0x3f800800f 0xbf801000f "
           "0x3f8ccccdf 3.0f 0x40533333f)))",
           "(let a (load in 0u)) (let b (load in 1u)) (let c (load in 2u))"
           "(store out 0u (bitcast u32 (add (mul a b) c)))"
           "(store out 1u (bitcast u32 (mul a b)))"
           "(store out 2u (bitcast u32 (sub (mul (load in 3u) (load in 4u)) (load in 5u))))"
           "(store out 3u (bitcast u32 (add c (mul a b))))",
           want, 4);
}

static void denormals_preserved(void **state) {
  (void)state;
  static const uint32_t want[] = {0x00000002u, 0x00400000u, 0x00000002u, 0x00000001u,
                                  1u,          0x007fffffu, 0x80000001u, 0u};
  check("(store out 0u (bitcast u32 (add 0x00000001f 0x00000001f)))"
        "(store out 1u (bitcast u32 (mul 0x00800000f 0.5f)))"   /* normal -> denormal result */
        "(store out 2u (bitcast u32 (mul 0x00000003f 0.5f)))"   /* 1.5 ulp: tie to even */
        "(store out 3u (bitcast u32 (mul 0x00000001f 1.0f)))"
        "(store out 4u (gt 0x00000001f 0.0f))"
        "(store out 5u (bitcast u32 (sub 0x00800000f 0x00000001f)))"
        "(store out 6u (bitcast u32 (neg 0x00000001f)))"
        "(store out 7u (eq 0x00000001f 0.0f))",
        want, 8);
}

static void neg_abs_on_bits(void **state) {
  (void)state;
  static const uint32_t want[] = {0x80000000u, 0xffc00001u, 0x7fc00001u, 0x00000000u,
                                  0x7f800000u, 0x3fc00000u, 0xbfc00000u};
  check("(store out 0u (bitcast u32 (neg 0.0f)))"
        "(store out 1u (bitcast u32 (neg " NAN_A ")))"
        "(store out 2u (bitcast u32 (abs 0xffc00001f)))"
        "(store out 3u (bitcast u32 (abs -0.0f)))"
        "(store out 4u (bitcast u32 (abs 0xff800000f)))"
        "(store out 5u (bitcast u32 (abs -1.5f)))"
        "(store out 6u (bitcast u32 (neg 1.5f)))",
        want, 7);
}

/* min(a,b) = (b < a || isnan(a)) ? b : a; max with b > a. */
static void min_max_select_formula(void **state) {
  (void)state;
  static const uint32_t want[] = {
      0x3f800000u, 0x3f800000u, 0x7fc00002u, 0x3f800000u, 0x3f800000u, 0x7fc00002u,
      0x80000000u, 0x00000000u, 0x80000000u, 0x00000000u, 0xbf800000u, 0x40000000u,
      0xff800000u, 0x7f800000u};
  check("(store out 0u (bitcast u32 (min " NAN_A " 1.0f)))"   /* NaN loses */
        "(store out 1u (bitcast u32 (min 1.0f " NAN_A ")))"
        "(store out 2u (bitcast u32 (min " NAN_A " " NAN_B ")))" /* both NaN: b */
        "(store out 3u (bitcast u32 (max " NAN_A " 1.0f)))"
        "(store out 4u (bitcast u32 (max 1.0f " NAN_A ")))"
        "(store out 5u (bitcast u32 (max " NAN_A " " NAN_B ")))"
        "(store out 6u (bitcast u32 (min -0.0f 0.0f)))"           /* ties give a */
        "(store out 7u (bitcast u32 (min 0.0f -0.0f)))"
        "(store out 8u (bitcast u32 (max -0.0f 0.0f)))"
        "(store out 9u (bitcast u32 (max 0.0f -0.0f)))"
        "(store out 10u (bitcast u32 (min -1.0f 2.0f)))"
        "(store out 11u (bitcast u32 (max -1.0f 2.0f)))"
        "(store out 12u (bitcast u32 (min 0x7f800000f 0xff800000f)))"
        "(store out 13u (bitcast u32 (max 0x7f800000f 0xff800000f)))",
        want, 14);
}

static void comparisons_with_nan(void **state) {
  (void)state;
  static const uint32_t want[] = {0, 1, 0, 0, 0, 0, 0, 1, 1, 0};
  check("(store out 0u (eq " NAN_A " " NAN_A "))"
        "(store out 1u (ne " NAN_A " " NAN_A "))"
        "(store out 2u (lt " NAN_A " 1.0f))"
        "(store out 3u (ge " NAN_A " 1.0f))"
        "(store out 4u (gt 1.0f " NAN_A "))"
        "(store out 5u (le 1.0f " NAN_A "))"
        "(store out 6u (lt -0.0f 0.0f))"
        "(store out 7u (eq -0.0f 0.0f))"
        "(store out 8u (le -0.0f 0.0f))"
        "(store out 9u (ne 0.0f -0.0f))",
        want, 10);
}

static void saturating_casts(void **state) {
  (void)state;
  static const uint32_t want[] = {
      0x7fffffffu, 0x80000000u, 0u, 0x7fffffffu, 0x80000000u, (uint32_t)-2, 2u,
      2147483520u, 0x80000000u, 0u,
      0xffffffffu, 0u, 0u, 0u, 0xffffffffu, 0u, 4294967040u, 3u, 0u};
  check(/* f32 -> i32 */
        "(store out 0u (bitcast u32 (cast i32 3e9f)))"
        "(store out 1u (bitcast u32 (cast i32 -3e9f)))"
        "(store out 2u (bitcast u32 (cast i32 " NAN_A ")))"
        "(store out 3u (bitcast u32 (cast i32 0x7f800000f)))"
        "(store out 4u (bitcast u32 (cast i32 0xff800000f)))"
        "(store out 5u (bitcast u32 (cast i32 -2.7f)))"
        "(store out 6u (bitcast u32 (cast i32 2.7f)))"
        "(store out 7u (bitcast u32 (cast i32 0x4efffffff)))" /* 2147483520, below 2^31 */
        "(store out 8u (bitcast u32 (cast i32 -2147483648.0f)))"
        "(store out 9u (bitcast u32 (cast i32 0x80000001f)))" /* -denormal -> 0 */
        /* f32 -> u32 */
        "(store out 10u (cast u32 5e9f))"
        "(store out 11u (cast u32 -1.0f))"
        "(store out 12u (cast u32 -0.5f))"
        "(store out 13u (cast u32 " NAN_A "))"
        "(store out 14u (cast u32 0x7f800000f))"
        "(store out 15u (cast u32 0xff800000f))"
        "(store out 16u (cast u32 0x4f7ffffff))"
        "(store out 17u (cast u32 3.9f))"
        "(store out 18u (cast u32 -3e9f))",
        want, 19);
}

static void int_to_f32_round_to_nearest_even(void **state) {
  (void)state;
  static const uint32_t want[] = {0x4b800000u, 0x4b800002u, 0x4f800000u, 0xcb800000u,
                                  0x4f000000u, 0xcf000000u, 0x4b800000u, 0x00000000u};
  check("(store out 0u (bitcast u32 (cast f32 16777217u)))"
        "(store out 1u (bitcast u32 (cast f32 16777219u)))"
        "(store out 2u (bitcast u32 (cast f32 4294967295u)))"
        "(store out 3u (bitcast u32 (cast f32 -16777217i)))"
        "(store out 4u (bitcast u32 (cast f32 2147483647i)))"
        "(store out 5u (bitcast u32 (cast f32 -2147483648i)))"
        "(store out 6u (bitcast u32 (cast f32 16777216u)))"
        "(store out 7u (bitcast u32 (cast f32 0i)))",
        want, 8);
}

/* f32 div is correctly rounded in the oracle (the program declares ulp). */
static void division_correctly_rounded(void **state) {
  (void)state;
  vt_run r;
  vt_exec(&r,
          "(program d (buffer q f32 8 write) (expect (ulp q 1))"
          " (entry (store q 0u (div 1.0f 3.0f)) (store q 1u (div 2.0f 3.0f))"
          "  (store q 2u (div 1.0f 0.0f)) (store q 3u (div -1.0f 0.0f))"
          "  (store q 4u (div 0.0f 0.0f)) (store q 5u (div 1.0f 0x00000001f))"
          "  (store q 6u (div 0x00000001f 2.0f)) (store q 7u (div 10.0f 4.0f))))",
          NULL);
  const uint32_t *q = vt_buf(&r, "q");
  assert_int_equal(q[0], 0x3eaaaaabu);
  assert_int_equal(q[1], 0x3f2aaaabu);
  assert_int_equal(q[2], 0x7f800000u);
  assert_int_equal(q[3], 0xff800000u);
  assert_true((q[4] & 0x7fffffffu) > 0x7f800000u); /* some NaN */
  assert_int_equal(q[5], 0x7f800000u);              /* 1 / 2^-149 overflows */
  assert_int_equal(q[6], 0x00000000u);              /* 2^-150: tie to even, 0 */
  assert_int_equal(q[7], 0x40200000u);
  vt_done(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(add_sub_mul_round_to_nearest),
      cmocka_unit_test(arithmetic_nans_are_canonical),
      cmocka_unit_test(no_contraction),
      cmocka_unit_test(denormals_preserved),
      cmocka_unit_test(neg_abs_on_bits),
      cmocka_unit_test(min_max_select_formula),
      cmocka_unit_test(comparisons_with_nan),
      cmocka_unit_test(saturating_casts),
      cmocka_unit_test(int_to_f32_round_to_nearest_even),
      cmocka_unit_test(division_correctly_rounded),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
