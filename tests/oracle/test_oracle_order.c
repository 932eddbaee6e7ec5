/* Execution orders: a valid program gives the same bytes under every
   order, and the orders really differ. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "oracle_util.h"
#include "oracles/order.h"

static const char valid_program[] =
    "(program mix (workgroup 8 2) (grid 3 2) (fixpoint (max 3))\n"
    " (buffer in u32 96 read (init (random 7)))\n"
    " (buffer sums u32 6 read_write) (buffer total u32 1 read_write)\n"
    " (buffer out u32 96 read_write) (buffer hist u32 16 read_write)\n"
    " (shared tile u32 16)\n"
    " (entry (let lid (add (local_id x) (mul 8u (local_id y))))\n"
    "  (let g (add (group_id x) (mul 3u (group_id y))))\n"
    "  (let gid (add (mul g 16u) lid))\n"
    "  (let v (load in gid))\n"
    "  (store tile lid (shr v 16u))\n"
    "  (barrier workgroup)\n"
    "  (loop k 0u 4u (let s (shr 8u k))\n"
    "    (if (lt lid s) (store tile lid (add (load tile lid) (load tile (add lid s)))))\n"
    "    (barrier workgroup))\n"
    "  (if (eq lid 0u) (store sums g (add (load sums g) (load tile 0u))))\n"
    "  (atomic add total 0u (and v 255u))\n"
    "  (atomic add hist (and v 15u) 1u)\n"
    "  (barrier grid)\n"
    "  (store out gid (add (load out gid) (xor v (load sums (rem gid 6u)))))))";

static void same_bytes_in_every_order(void **state) {
  (void)state;
  static const vc_oracle_opts orders[] = {
      {VC_ORDER_FORWARD, 0, false, 0, 0}, {VC_ORDER_REVERSE, 0, false, 0, 0},
      {VC_ORDER_SHUFFLE, 1, false, 0, 0}, {VC_ORDER_SHUFFLE, 2, false, 0, 0},
      {VC_ORDER_SHUFFLE, 99, true, 0, 0},
  };
  vt_run ref, r;
  vt_exec(&ref, valid_program, &orders[0]);
  assert_string_equal(vt_invalid(&ref), "");
  assert_int_equal(ref.rep.passes, 3);
  assert_int_not_equal(vt_buf(&ref, "total")[0], 0);
  vt_exec(&r, valid_program, NULL);
  for (size_t k = 1; k < sizeof orders / sizeof *orders; k++) {
    vt_rerun(&r, &orders[k]);
    assert_string_equal(vt_invalid(&r), "");
    for (uint32_t b = 0; b < r.p->nbuffers; b++)
      assert_memory_equal(r.bufs[b], ref.bufs[b], (size_t)r.p->buffers[b].count * 4);
    assert_int_equal(r.rep.ops, ref.rep.ops);
  }
  vt_done(&r);
  vt_done(&ref);
}

/* Atomic tickets record the order in which invocations ran. */
static void orders_differ(void **state) {
  (void)state;
  static const char prog[] =
      "(program tickets (workgroup 16) (grid 4) (buffer next u32 1 read_write)\n"
      " (buffer ticket u32 64 write)\n"
      " (entry (store ticket (global_id x) (atomic add next 0u 1u))))";
  vt_run r;
  vt_exec(&r, prog, NULL);
  const uint32_t *t = vt_buf(&r, "ticket");
  for (uint32_t i = 0; i < 64; i++) assert_int_equal(t[i], i);
  vc_oracle_opts rev = {VC_ORDER_REVERSE, 0, false, 0, 0};
  vt_rerun(&r, &rev);
  for (uint32_t i = 0; i < 64; i++) assert_int_equal(t[i], 63 - i);
  uint32_t first[64];
  for (uint64_t seed = 1; seed <= 2; seed++) {
    vc_oracle_opts shuf = {VC_ORDER_SHUFFLE, seed, false, 0, 0};
    vt_rerun(&r, &shuf);
    uint8_t seen[64] = {0};
    uint32_t identity = 0, groups_in_order = 1;
    for (uint32_t i = 0; i < 64; i++) {
      assert_true(t[i] < 64);
      seen[t[i]]++;
      identity += t[i] == i;
      if (i % 16 && t[i] / 16 != t[i - 1] / 16) groups_in_order = 0; /* workgroups run whole */
    }
    for (uint32_t i = 0; i < 64; i++) assert_int_equal(seen[i], 1);
    assert_true(identity < 64);
    assert_int_equal(groups_in_order, 1);
    if (seed == 1) memcpy(first, t, sizeof first);
    else assert_memory_not_equal(first, t, sizeof first); /* the seed matters */
  }
  vt_done(&r);
}

/* vc_perm_at is a bijection of [0, n) for every order. */
static void permutations_are_bijections(void **state) {
  (void)state;
  static const uint64_t sizes[] = {1, 2, 3, 5, 16, 17, 64, 100, 1000, 4097, 65536, 100003};
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
    uint64_t n = sizes[s];
    uint8_t *seen = malloc(n);
    assert_non_null(seen);
    for (int order = VC_ORDER_FORWARD; order <= VC_ORDER_SHUFFLE; order++) {
      vc_perm p;
      vc_perm_init(&p, (vc_oracle_order)order, n, 12345 + s);
      memset(seen, 0, n);
      uint64_t fixed = 0;
      for (uint64_t k = 0; k < n; k++) {
        uint64_t x = vc_perm_at(&p, k);
        assert_true(x < n);
        assert_int_equal(seen[x], 0);
        seen[x] = 1;
        fixed += x == k;
      }
      if (order == VC_ORDER_SHUFFLE && n >= 16) assert_true(fixed < n / 2);
    }
    free(seen);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(same_bytes_in_every_order),
      cmocka_unit_test(orders_differ),
      cmocka_unit_test(permutations_are_bijections),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
