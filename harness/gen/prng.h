/* The generator's own PRNG: xoshiro256** seeded through splitmix64, so that
 * a program depends on its seed alone (never rand(), the clock or the host). */
#ifndef VC_GEN_PRNG_H
#define VC_GEN_PRNG_H

#include <stdint.h>

typedef struct vc_rng {
  uint64_t s[4];
} vc_rng;

static inline uint64_t vc_splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* One stream per (seed, index, salt): salt keeps the generator's and each
   transformation's streams apart. */
static inline void vc_rng_seed(vc_rng *r, uint64_t seed, uint64_t index, uint64_t salt) {
  uint64_t st = seed ^ (index * 0xD1B54A32D192ED03ull) ^ (salt * 0x8CB92BA72F3D8DD7ull);
  for (int i = 0; i < 4; i++) r->s[i] = vc_splitmix64(&st);
}

static inline uint64_t vc_rng_next(vc_rng *r) {
  uint64_t *s = r->s;
  uint64_t x = s[1] * 5u;
  uint64_t out = ((x << 7) | (x >> 57)) * 9u;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = (s[3] << 45) | (s[3] >> 19);
  return out;
}

/* Uniform in [0, n), n >= 1 (the bias of a 64-bit modulus is negligible here). */
static inline uint32_t vc_rng_below(vc_rng *r, uint32_t n) {
  return (uint32_t)(vc_rng_next(r) % n);
}

/* True with probability pct/100. */
static inline int vc_rng_pct(vc_rng *r, uint32_t pct) { return vc_rng_below(r, 100) < pct; }

#endif
