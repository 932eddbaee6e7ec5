/* Integer rules of docs/semantics.md, each on the oracle. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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

/* Runs entry (one invocation) with a u64 buffer o of 16 elements and the
   forms decls; checks o[0..n) against want. */
static void check64(const char *decls, const char *entry, const uint64_t *want, uint32_t n) {
  char text[4096];
  snprintf(text, sizeof text, "(program t (buffer o u64 16 write) %s (entry %s))", decls, entry);
  vt_run r;
  vt_exec(&r, text, NULL);
  const uint32_t *w = vt_buf(&r, "o");
  for (uint32_t i = 0; i < n; i++) {
    uint64_t got = (uint64_t)w[2 * i] | (uint64_t)w[2 * i + 1] << 32;
    if (got != want[i])
      print_error("o[%u] = 0x%016llx, want 0x%016llx\n", i, (unsigned long long)got,
                  (unsigned long long)want[i]);
    assert_true(got == want[i]);
  }
  assert_string_equal(vt_invalid(&r), "");
  vt_done(&r);
}

/* 64-bit rules: wraparound, INT64_MIN / -1, remainders, shifts modulo 64
   (arithmetic on i64), signed and unsigned comparisons and min/max. Operands
   come from a buffer, so that the values are not literals folded in C. */
static void integers_64(void **state) {
  (void)state;
  static const uint64_t want[] = {
      1u, 0x8000000000000000u, 0x4000000000000000u, 0xc000000000000000u,
      0x8000000000000000u, 0xffffffffffffffffu, 0, 0, 1, 0xfffffffe00000000u,
      0xffffffff00000001u, 1, 0xffffffffffffffffu, 0x8000000000000000u, 0xfffffffffffffff9u,
      0x2aaaaaaaaaaaaaaau};
  check64("(buffer a u64 4 read (init (values 0xffffffffffffffffu64 0x8000000000000000u64 "
          "3u64 0x100000000u64)))"
          " (buffer s i64 4 read (init (values -7i64 -9223372036854775808i64 2i64 -1i64)))",
          "(let m (load a 0u)) (let h (load a 1u)) (let n (load s 0u)) (let lo (load s 1u))"
          " (store o 0u (mul m m))"
          " (store o 1u (shl (load a 2u) 63u64))"      /* 3 << 63: the low bit only */
          " (store o 2u (shr h 65u64))"                /* 65 & 63 = 1 */
          " (store o 3u (bitcast u64 (shr lo 1i64)))"  /* arithmetic */
          " (store o 4u (bitcast u64 (div lo (load s 3u))))"
          " (store o 5u (bitcast u64 (rem n (load s 2u))))"
          " (store o 6u (bitcast u64 (rem lo (load s 3u))))"
          " (store o 7u (div m 0u64))"
          " (store o 8u (cast u64 (lt n (load s 2u))))"
          " (store o 9u (sub (mul (load a 3u) 0xffffffffu64) 0x100000000u64))"
          " (store o 10u (add (mul (load a 3u) 0xffffffffu64) 1u64))"
          " (store o 11u (cast u64 (add (cast u32 (gt h m)) (cast u32 (lt lo n)))))"
          " (store o 12u (max m h))"
          " (store o 13u (bitcast u64 (min lo n)))"
          " (store o 14u (bitcast u64 (neg (abs n))))"
          " (store o 15u (div m 6u64))",
          want, 16);
}

/* Casts: integers extend by the source's signedness and truncate to the low
   bits; f32 -> 64-bit saturates (NaN 0); 64-bit -> f32 rounds to nearest
   even. */
static void casts_64(void **state) {
  (void)state;
  static const uint64_t want[] = {
      0xffffffffffffffffu, 0xfffffffffffffffbu, 0xfffffffbu, 0x89abcdefu,
      0xffffffffffffffffu, 0x8000000000000000u, 0, 0x7fffffffffffffffu,
      16777216u, 0x5f800000u, 0x5f000000u, 0x4b800002u, 0xdf000000u, 0x4b800000u};
  check64("(buffer f f32 4 read (init (values 1e30f -1e30f 0x7fc00000f 16777216.5f)))"
          " (buffer a u64 4 read (init (values 0xffffffffffffffffu64 0x0123456789abcdefu64 "
          "0x1000003u64 0x1000001u64)))",
          "(store o 0u (cast u64 (cast i32 -1i64)))"
          " (store o 1u (bitcast u64 (cast i64 -5)))"
          " (store o 2u (cast u64 (cast u32 -5)))"
          " (store o 3u (cast u64 (cast u32 (load a 1u))))"
          " (store o 4u (cast u64 (load f 0u)))"
          " (store o 5u (bitcast u64 (cast i64 (load f 1u))))"
          " (store o 6u (cast u64 (load f 2u)))"
          " (store o 7u (bitcast u64 (cast i64 (load f 0u))))"
          " (store o 8u (cast u64 (load f 3u)))"
          " (store o 9u (cast u64 (bitcast u32 (cast f32 (load a 0u)))))"
          " (store o 10u (cast u64 (bitcast u32 (cast f32 0x8000000000000000u64))))"
          " (store o 11u (cast u64 (bitcast u32 (cast f32 (load a 2u)))))"
          " (store o 12u (cast u64 (bitcast u32 (cast f32 -9223372036854775808i64))))"
          " (store o 13u (cast u64 (bitcast u32 (cast f32 (mul (load a 3u) 1u64)))))",
          want, 14);
}

/* 64-bit buffers, shared arrays, initialisers (random keeps all 64 bits of
   splitmix64), atomics and values live across a grid barrier. */
static void memory_64(void **state) {
  (void)state;
  static const uint64_t want[] = {0x63033b0ca389c35au, 0x0000000500000004u, 7, 7,
                                  0x100000002u, 0xffffffff00000000u, 3, 0x1ffffffffu,
                                  0x0807060504030201u, 0x9999999999999999u, 2};
  check64("(buffer r u64 2 read (init (random 5)))"
          " (buffer i u64 3 read (init iota))"
          " (buffer x u64 2 read (init (hex \"01020304050607080900\")))"
          " (buffer c u64 2 read_write (init (fill 0x9999999999999999u64)))"
          " (shared t u64 2)",
          "(store o 0u (load r 0u))"
          " (store t 0u 0x0000000500000004u64)"
          " (store o 1u (load t 0u))"
          " (atomic store c 1u 5u64)"
          " (store o 2u (add (atomic add c 1u 2u64) (load i 2u)))"
          " (store o 3u (atomic exchange c 1u 0x100000002u64))"
          " (atomic max c 1u 0x100000000u64)"
          " (store o 4u (atomic sub c 1u 2u64))"
          " (var h (atomic cmpxchg c 1u 0x100000000u64 0xffffffff00000000u64))"
          " (barrier grid)"
          " (store o 5u (atomic load c 1u))"
          " (store o 6u 3u64)"
          " (store o 7u (add h 0xffffffffu64))"
          " (store o 8u (load x 0u))"
          " (store o 9u (load c 0u))"
          " (store o 10u (load i 2u))",
          want, 11);
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
      cmocka_unit_test(integers_64),
      cmocka_unit_test(casts_64),
      cmocka_unit_test(memory_64),
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
