/* Integer rules of docs/semantics.md, each on the oracle. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "oracle_util.h"

static void check(const char *entry, const uint32_t *want, uint32_t n) {
  vt_check("", entry, want, n);
}

static void wraparound_u32(void **state) {
  (void)state;
  static const uint32_t want[] = {1u, 0xffffffffu, 0u, 1u, 0xfffffffeu, 0xffffffffu};
  check("(store out 0u (add 4294967295u 2u))"
        "(store out 1u (sub 0u 1u))"
        "(store out 2u (mul 65536u 65536u))"
        "(store out 3u (mul 4294967295u 4294967295u))"
        "(store out 4u (add 4294967295u 4294967295u))"
        "(store out 5u (neg 1u))",
        want, 6);
}

static void wraparound_i32(void **state) {
  (void)state;
  static const uint32_t want[] = {0x80000000u, 0x7fffffffu, 0u, 0x80000000u, 0x80000000u,
                                  0xfffffffbu, 0xffffffffu};
  check("(store out 0u (bitcast u32 (add 2147483647i 1i)))"
        "(store out 1u (bitcast u32 (sub -2147483648i 1i)))"
        "(store out 2u (bitcast u32 (mul 65536i 65536i)))"
        "(store out 3u (bitcast u32 (mul -2147483648i -1i)))"
        "(store out 4u (bitcast u32 (neg -2147483648i)))"
        "(store out 5u (bitcast u32 (neg 5i)))"
        "(store out 6u (bitcast u32 (mul -2147483647i 2147483647i)))",
        want, 7);
}

static void division_by_zero(void **state) {
  (void)state;
  static const uint32_t want[] = {0, 0, 0, 0, 0, 0};
  check("(store out 0u (div 7u 0u))"
        "(store out 1u (rem 7u 0u))"
        "(store out 2u (bitcast u32 (div -7i 0i)))"
        "(store out 3u (bitcast u32 (rem -7i 0i)))"
        "(store out 4u (bitcast u32 (div -2147483648i 0i)))"
        "(store out 5u (div 0u 0u))",
        want, 6);
}

static void int_min_by_minus_one(void **state) {
  (void)state;
  static const uint32_t want[] = {0x80000000u, 0u, 0x7fffffffu, 0u};
  check("(store out 0u (bitcast u32 (div -2147483648i -1i)))"
        "(store out 1u (bitcast u32 (rem -2147483648i -1i)))"
        "(store out 2u (bitcast u32 (div -2147483647i -1i)))"
        "(store out 3u (bitcast u32 (rem 5i -1i)))",
        want, 4);
}

static void truncating_division(void **state) {
  (void)state;
  static const uint32_t want[] = {(uint32_t)-3, (uint32_t)-1, (uint32_t)-3, 1u, 3u,
                                  (uint32_t)-1, 1u,           1u,           0x7fffffffu, 1u};
  check("(store out 0u (bitcast u32 (div -7i 2i)))"
        "(store out 1u (bitcast u32 (rem -7i 2i)))"
        "(store out 2u (bitcast u32 (div 7i -2i)))"
        "(store out 3u (bitcast u32 (rem 7i -2i)))"
        "(store out 4u (bitcast u32 (div -7i -2i)))"
        "(store out 5u (bitcast u32 (rem -7i -2i)))"
        "(store out 6u (div 4294967295u 2147483648u))"   /* unsigned, not -1 / INT_MIN */
        "(store out 7u (rem 4294967295u 2u))"
        "(store out 8u (div 4294967295u 2u))"
        "(store out 9u (bitcast u32 (div -2147483648i -2147483648i)))",
        want, 10);
}

static void shifts(void **state) {
  (void)state;
  static const uint32_t want[] = {2u,          1u,          0x10000000u, 0x3ffffffcu, 0xfffffffcu,
                                  0xffffffffu, 0xfffffff0u, 2u,          0x80000000u, 1u};
  check("(store out 0u (shl 1u 33u))"
        "(store out 1u (shl 1u 32u))"
        "(store out 2u (shr 2147483648u 35u))"
        "(store out 3u (shr 4294967280u 2u))"                       /* logical on u32 */
        "(store out 4u (bitcast u32 (shr -16i 2i)))"                /* arithmetic on i32 */
        "(store out 5u (bitcast u32 (shr -2147483648i 63i)))"       /* 63 & 31 = 31 */
        "(store out 6u (bitcast u32 (shl -1i 4i)))"                 /* shl of a negative i32 */
        "(store out 7u (bitcast u32 (shl 1i -31i)))"                /* -31 & 31 = 1 */
        "(store out 8u (shl 1u 4294967295u))"                       /* 31 */
        "(store out 9u (shr 2147483648u 31u))",
        want, 10);
}

static void min_max_abs_signedness(void **state) {
  (void)state;
  static const uint32_t want[] = {1u, 0xffffffffu, 0xffffffffu, 1u, 0x80000000u, 5u, 5u, 0u};
  check("(store out 0u (min 4294967295u 1u))"
        "(store out 1u (bitcast u32 (min -1i 1i)))"
        "(store out 2u (max 4294967295u 1u))"
        "(store out 3u (bitcast u32 (max -1i 1i)))"
        "(store out 4u (bitcast u32 (abs -2147483648i)))"
        "(store out 5u (bitcast u32 (abs -5i)))"
        "(store out 6u (bitcast u32 (abs 5i)))"
        "(store out 7u (bitcast u32 (abs 0i)))",
        want, 8);
}

static void comparisons_and_logic(void **state) {
  (void)state;
  static const uint32_t want[] = {0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 0, 1, 0, 0xfffffff8u, 9, 4};
  check("(store out 0u (lt 4294967295u 1u))"
        "(store out 1u (lt -1i 1i))"
        "(store out 2u (gt 4294967295u 1u))"
        "(store out 3u (gt -1i 1i))"
        "(store out 4u (le 3u 3u))"
        "(store out 5u (ge -2147483648i -2147483648i))"
        "(store out 6u (ge -2147483648i 2147483647i))"
        "(store out 7u (ne 1u 2u))"
        "(store out 8u (eq 7i 7i))"
        "(store out 9u (land 2u 0u))"
        "(store out 10u (land 2u 3u))"
        "(store out 11u (lor 0u 0u))"
        "(store out 12u (lor 0u 5u))"
        "(store out 13u (lnot 7u))"
        "(store out 14u (not 7u))"
        "(store out 15u (select 2u 9u 4u))"
        "(store out 16u (select 0u 9u 4u))",
        want, 17);
}

/* Casts between u32 and i32 keep the bits; bitcast keeps the bits. */
static void integer_casts(void **state) {
  (void)state;
  static const uint32_t want[] = {0xffffffffu, 0x80000000u, 0x3f800000u};
  check("(store out 0u (cast u32 -1i))"
        "(store out 1u (bitcast u32 (cast i32 2147483648u)))"
        "(store out 2u (bitcast u32 1.0f))",
        want, 3);
}

/* Operands before the operator, left to right; let/var/loop values. */
static void variables_and_loops(void **state) {
  (void)state;
  static const uint32_t want[] = {45u, 10u, 3u, (uint32_t)-3, 0u, 7u};
  check("(var s 0u)"
        "(loop i 0u 10u (set s (add s i)))"
        "(store out 0u s)"
        "(var n 0u)"
        "(var to 10u)"
        "(loop i 0u to (set to 3u) (set n (add n 1u)))"  /* TO evaluated once */
        "(store out 1u n)"
        "(var m 0u)"
        "(loop j -3i 0i (set m (add m 1u)))"
        "(store out 2u m)"
        "(var lo 0i)"
        "(loop j -3i -2i (set lo j))"
        "(store out 3u (bitcast u32 lo))"
        "(var z 0u)"
        "(loop k 5u 5u (set z 1u))"                       /* empty range */
        "(store out 4u z)"
        "(if (gt 2u 1u) (store out 5u 7u) (store out 5u 8u))",
        want, 6);
}

static void builtins(void **state) {
  (void)state;
  vt_run r;
  vt_exec(&r,
          "(program b (workgroup 2 3) (grid 4 1 2) (buffer out u32 480 write)"
          " (entry (let g (add (global_id x) (mul 8u (add (global_id y) (mul 3u (global_id z))))))"
          "  (let base (mul g 10u))"
          "  (store out base (global_id x)) (store out (add base 1u) (global_id y))"
          "  (store out (add base 2u) (global_id z)) (store out (add base 3u) (local_id x))"
          "  (store out (add base 4u) (local_id y)) (store out (add base 5u) (group_id x))"
          "  (store out (add base 6u) (group_id z)) (store out (add base 7u) (num_groups x))"
          "  (store out (add base 8u) (group_size y)) (store out (add base 9u) (num_groups z))))",
          NULL);
  const uint32_t *out = vt_buf(&r, "out");
  for (uint32_t z = 0; z < 2; z++)
    for (uint32_t y = 0; y < 3; y++)
      for (uint32_t x = 0; x < 8; x++) {
        const uint32_t *v = out + 10 * (x + 8 * (y + 3 * z));
        uint32_t want[] = {x, y, z, x % 2, y, x / 2, z, 4, 3, 2};
        for (int k = 0; k < 10; k++) assert_int_equal(v[k], want[k]);
      }
  assert_string_equal(vt_invalid(&r), "");
  vt_done(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(wraparound_u32),
      cmocka_unit_test(wraparound_i32),
      cmocka_unit_test(division_by_zero),
      cmocka_unit_test(int_min_by_minus_one),
      cmocka_unit_test(truncating_division),
      cmocka_unit_test(shifts),
      cmocka_unit_test(min_max_abs_signedness),
      cmocka_unit_test(comparisons_and_logic),
      cmocka_unit_test(integer_casts),
      cmocka_unit_test(variables_and_loops),
      cmocka_unit_test(builtins),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
