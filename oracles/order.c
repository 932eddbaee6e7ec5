/* Permutations for vc_oracle_opts.order. */
#include "oracles/order.h"

#include "harness/model/inputs.h"

void vc_perm_init(vc_perm *p, vc_oracle_order order, uint64_t n, uint64_t seed) {
  p->order = order;
  p->n = n;
  p->half = 0;
  while (p->half < 32 && ((uint64_t)1 << 2 * p->half) < n) p->half++;
  uint64_t s = seed;
  for (int i = 0; i < 4; i++) p->key[i] = vc_splitmix64_next(&s);
}

static uint64_t round_fn(uint64_t x, uint64_t key) {
  uint64_t s = x ^ key;
  return vc_splitmix64_next(&s);
}

static uint64_t feistel(const vc_perm *p, uint64_t x) {
  uint64_t mask = ((uint64_t)1 << p->half) - 1;
  uint64_t l = x >> p->half, r = x & mask;
  for (int i = 0; i < 4; i++) {
    uint64_t t = l ^ (round_fn(r, p->key[i]) & mask);
    l = r;
    r = t;
  }
  return l << p->half | r;
}

uint64_t vc_perm_at(const vc_perm *p, uint64_t k) {
  switch (p->order) {
  case VC_ORDER_REVERSE: return p->n - 1 - k;
  case VC_ORDER_SHUFFLE: {
    if (p->n <= 1) return k;
    uint64_t x = feistel(p, k);
    while (x >= p->n) x = feistel(p, x); /* < 4 steps on average: the domain is < 4n */
    return x;
  }
  case VC_ORDER_FORWARD: break;
  }
  return k;
}
