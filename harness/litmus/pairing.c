/* The pairing of testing invocations for one launch (litmus.h). */
#include <stdlib.h>

#include "harness/gen/prng.h"
#include "harness/litmus/litmus.h"

/* Salt of the pairing stream (harness/gen/prng.h keeps streams apart by it). */
#define PAIRING_SALT 0x4c49544d55530000ull /* "LITMUS" */

int vc_litmus_pairing(uint64_t seed, uint32_t launch, uint32_t groups, uint32_t workgroup,
                      uint32_t *pair, vc_error *err) {
  vc_rng r;
  vc_rng_seed(&r, seed, launch, PAIRING_SALT);
  /* Sattolo's algorithm: a uniformly random single cycle, so no workgroup
     is paired with itself. */
  uint32_t *cycle = malloc((size_t)groups * sizeof *cycle);
  uint32_t *lanes = malloc((size_t)workgroup * sizeof *lanes);
  if (!cycle || !lanes) {
    free(cycle);
    free(lanes);
    return vc_fail(err, VC_ERR_NOMEM, "litmus: out of memory for the pairing of %u workgroups",
                   groups);
  }
  for (uint32_t w = 0; w < groups; w++) cycle[w] = w;
  for (uint32_t w = groups - 1; w > 0; w--) {
    uint32_t j = vc_rng_below(&r, w);
    uint32_t t = cycle[w];
    cycle[w] = cycle[j];
    cycle[j] = t;
  }
  for (uint32_t l = 0; l < workgroup; l++) lanes[l] = l;
  for (uint32_t l = workgroup - 1; l > 0; l--) {
    uint32_t j = vc_rng_below(&r, l + 1);
    uint32_t t = lanes[l];
    lanes[l] = lanes[j];
    lanes[j] = t;
  }
  /* Invocation (w, l) plays B for instance (cycle[w], lanes[l]): a
     bijection, so every instance has exactly one B. */
  for (uint32_t w = 0; w < groups; w++)
    for (uint32_t l = 0; l < workgroup; l++)
      pair[(size_t)w * workgroup + l] = cycle[w] * workgroup + lanes[l];
  free(cycle);
  free(lanes);
  return 0;
}
