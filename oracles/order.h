/* Orders of workgroups and invocations (internal): a bijection of
 * [0, n) computed on demand, so that no table of 16M entries is needed.
 * SHUFFLE is a 4-round Feistel network over the smallest even number of
 * bits covering n, with cycle walking back into [0, n). */
#ifndef VC_ORACLE_ORDER_H
#define VC_ORACLE_ORDER_H

#include <stdint.h>

#include "oracles/oracle.h"

typedef struct vc_perm {
  vc_oracle_order order;
  uint64_t n;
  uint32_t half;      /* bits of each Feistel half */
  uint64_t key[4];
} vc_perm;

/* seed selects the permutation (SHUFFLE only). */
void vc_perm_init(vc_perm *p, vc_oracle_order order, uint64_t n, uint64_t seed);
/* The k-th element of the order, k < n. */
uint64_t vc_perm_at(const vc_perm *p, uint64_t k);

#endif
