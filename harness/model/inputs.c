#include "harness/model/inputs.h"

#include <string.h>

uint64_t vc_splitmix64_next(uint64_t *state) {
  *state += 0x9E3779B97F4A7C15ull;
  uint64_t z = *state;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static uint32_t f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

static float bits_f32(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

void vc_inputs_fill(const vc_buffer *b, uint32_t *data) {
  const vc_init *in = &b->init;
  uint32_t n = b->count, words = vc_type_words(b->type);
  size_t bytes = (size_t)n * 4 * words;
  switch (in->kind) {
  case VC_INIT_NONE:
  case VC_INIT_ZERO:
    memset(data, 0, bytes);
    break;
  case VC_INIT_IOTA:
    for (uint32_t i = 0; i < n; i++)
      vc_elem_put(data, i, b->type, b->type == VC_F32 ? f32_bits((float)i) : i);
    break;
  case VC_INIT_FILL:
    for (uint32_t i = 0; i < n; i++) vc_elem_put(data, i, b->type, in->bits);
    break;
  case VC_INIT_VALUES:
    memset(data, 0, bytes);
    memcpy(data, in->values, (size_t)(in->nvalues < n ? in->nvalues : n) * 4 * words);
    break;
  case VC_INIT_HEX: {
    memset(data, 0, bytes);
    size_t nb = in->nbytes < bytes ? in->nbytes : bytes;
    for (size_t i = 0; i < nb; i++) data[i / 4] |= (uint32_t)in->bytes[i] << (8 * (i % 4));
    break;
  }
  case VC_INIT_RANDOM: {
    /* 32-bit elements take the high half of each output, 64-bit ones all of it */
    uint64_t s = in->seed;
    for (uint32_t i = 0; i < n; i++) {
      uint64_t z = vc_splitmix64_next(&s);
      vc_elem_put(data, i, b->type, words == 2 ? z : z >> 32);
    }
    break;
  }
  case VC_INIT_RANDOM_F32: {
    uint64_t s = in->seed;
    double lo = bits_f32(in->lo), hi = bits_f32(in->hi);
    for (uint32_t i = 0; i < n; i++) {
      double u = (double)(vc_splitmix64_next(&s) >> 40) / 16777216.0;
      data[i] = f32_bits((float)(lo + (hi - lo) * u));
    }
    break;
  }
  }
}
