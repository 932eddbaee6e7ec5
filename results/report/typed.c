#include "results/report/typed.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* The stored words: 8 hex digits each, the bytes in memory order. */
static uint32_t words_of(const char *hex, uint32_t *w, uint32_t max) {
  uint32_t n = 0;
  const char *p = hex;
  while (*p && n < max) {
    while (*p && !isxdigit((unsigned char)*p)) p++;
    uint32_t len = 0;
    while (isxdigit((unsigned char)p[len])) len++;
    for (uint32_t off = 0; off + 8 <= len && n < max; off += 8) {
      uint32_t v = 0;
      for (int b = 0; b < 4; b++) {
        unsigned byte = 0;
        sscanf(p + off + 2 * b, "%2x", &byte);
        v |= (uint32_t)byte << (8 * b);
      }
      w[n++] = v;
    }
    p += len;
  }
  return n;
}

static bool is64(const char *type) { return !strcmp(type, "u64") || !strcmp(type, "i64"); }

void vc_typed_value(const char *type, uint64_t bits, char out[VC_TYPED_LEN]) {
  if (!strcmp(type, "i32")) {
    snprintf(out, VC_TYPED_LEN, "%" PRId32, (int32_t)(uint32_t)bits);
  } else if (!strcmp(type, "u64")) {
    snprintf(out, VC_TYPED_LEN, "%" PRIu64, bits);
  } else if (!strcmp(type, "i64")) {
    snprintf(out, VC_TYPED_LEN, "%" PRId64, (int64_t)bits);
  } else if (!strcmp(type, "f32")) {
    uint32_t b = (uint32_t)bits;
    float f;
    memcpy(&f, &b, sizeof f);
    bool neg = b >> 31;
    if ((b & 0x7fffffffu) > 0x7f800000u)
      snprintf(out, VC_TYPED_LEN, "%sNaN", neg ? "-" : "");
    else if ((b & 0x7fffffffu) == 0x7f800000u)
      snprintf(out, VC_TYPED_LEN, "%sinf", neg ? "-" : "+");
    else if ((b & 0x7fffffffu) == 0)
      snprintf(out, VC_TYPED_LEN, "%s0", neg ? "-" : "+");
    else if ((b & 0x7f800000u) == 0)
      snprintf(out, VC_TYPED_LEN, "%.9g (denormal)", (double)f);
    else
      snprintf(out, VC_TYPED_LEN, "%.9g", (double)f);
  } else {
    snprintf(out, VC_TYPED_LEN, "%" PRIu32, (uint32_t)bits);
  }
}

static void hex_of(const char *type, uint64_t bits, char out[VC_TYPED_LEN]) {
  if (is64(type))
    snprintf(out, VC_TYPED_LEN, "0x%016" PRIx64, bits);
  else
    snprintf(out, VC_TYPED_LEN, "0x%08" PRIx32, (uint32_t)bits);
}

uint32_t vc_typed_context(const vc_divergence *d, vc_typed_elem out[VC_TYPED_MAX]) {
  uint32_t we[2 * VC_TYPED_MAX], wa[2 * VC_TYPED_MAX];
  uint32_t ne = words_of(d->expected_hex, we, 2 * VC_TYPED_MAX);
  uint32_t na = words_of(d->actual_hex, wa, 2 * VC_TYPED_MAX);
  uint32_t step = is64(d->type) ? 2 : 1;
  ne /= step, na /= step;
  uint32_t n = ne > na ? ne : na;
  if (n > VC_TYPED_MAX) n = VC_TYPED_MAX;
  for (uint32_t i = 0; i < n; i++) {
    vc_typed_elem *e = &out[i];
    memset(e, 0, sizeof *e);
    e->index = d->context_start + i;
    uint64_t be = 0, ba = 0;
    if (i < ne) {
      be = step == 2 ? (uint64_t)we[2 * i] | (uint64_t)we[2 * i + 1] << 32 : we[i];
      e->has_expected = true;
      vc_typed_value(d->type, be, e->expected);
      hex_of(d->type, be, e->expected_hex);
    }
    if (i < na) {
      ba = step == 2 ? (uint64_t)wa[2 * i] | (uint64_t)wa[2 * i + 1] << 32 : wa[i];
      e->has_actual = true;
      vc_typed_value(d->type, ba, e->actual);
      hex_of(d->type, ba, e->actual_hex);
    }
    e->differs = e->has_expected != e->has_actual || be != ba;
  }
  return n;
}
