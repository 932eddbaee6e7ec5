#include "harness/exec/diverge.h"

#include <stdio.h>
#include <string.h>

static bool is_nan(uint32_t b) { return (b & 0x7fffffffu) > 0x7f800000u; }
static bool is_zero(uint32_t b) { return (b & 0x7fffffffu) == 0; }
static bool is_denormal(uint32_t b) { return (b & 0x7f800000u) == 0 && (b & 0x007fffffu) != 0; }

/* Maps f32 bits onto a line where adjacent floats are adjacent integers. */
static int64_t ordered(uint32_t b) {
  return (b & 0x80000000u) ? -(int64_t)(b & 0x7fffffffu) : (int64_t)b;
}

uint64_t vc_ulp_distance(uint32_t a, uint32_t b) {
  int64_t d = ordered(a) - ordered(b);
  return (uint64_t)(d < 0 ? -d : d);
}

vc_divclass vc_classify(vc_type t, uint32_t e, uint32_t a) {
  if (t != VC_F32) return VC_DIV_INTEGER;
  if (is_nan(e) && is_nan(a)) return VC_DIV_NAN_PAYLOAD;
  if (is_nan(e) || is_nan(a)) return VC_DIV_F32_NAN;
  if (is_zero(e) && is_zero(a)) return VC_DIV_F32_SIGNED_ZERO;
  /* A denormal result replaced by zero, or a denormal input read as zero. */
  if (is_denormal(e) && is_zero(a)) return VC_DIV_DENORMAL_FLUSH;
  return VC_DIV_F32_ULP;
}

static void hex_context(const uint32_t *v, uint64_t start, uint64_t end, char *out, size_t n) {
  size_t used = 0;
  out[0] = '\0';
  for (uint64_t i = start; i < end && used + 10 < n; i++) {
    uint32_t x = v[i];
    used += (size_t)snprintf(out + used, n - used, "%s%02x%02x%02x%02x", i == start ? "" : " ",
                             x & 0xff, (x >> 8) & 0xff, (x >> 16) & 0xff, x >> 24);
  }
}

static void describe(const vc_buffer *b, const uint32_t *e, const uint32_t *a, uint64_t first,
                     vc_divergence *d) {
  memset(d, 0, sizeof *d);
  snprintf(d->buffer, sizeof d->buffer, "%s", b->name);
  snprintf(d->type, sizeof d->type, "%s", vc_type_name(b->type));
  d->first_index = first;
  d->context_start = first >= 2 ? first - 2 : 0;
  uint64_t end = first + 4 < b->count ? first + 4 : b->count;
  uint32_t w = vc_type_words(b->type); /* a 64-bit element is two words of context */
  hex_context(e, d->context_start * w, end * w, d->expected_hex, sizeof d->expected_hex);
  hex_context(a, d->context_start * w, end * w, d->actual_hex, sizeof d->actual_hex);
  d->cls = vc_classify(b->type, e[first * w], a[first * w]);
}

void vc_compare_buffer(const vc_buffer *b, const uint32_t *e, const uint32_t *a, uint32_t ulp,
                       vc_buffer_diff *out) {
  memset(out, 0, sizeof *out);
  /* identical bytes hold no difference of any kind: the common case, at
     memcmp's speed (the loop below costs more than hashing the buffer) */
  if (memcmp(e, a, (size_t)vc_buffer_bytes(b)) == 0) return;
  uint64_t first_bad = UINT64_MAX, first_nan = UINT64_MAX, max_ulp = 0;
  uint64_t count = b->count - (b->count && VC_MUTANT(SKIP_LAST_ELEMENT));
  for (uint64_t i = 0; i < count; i++) {
    if (vc_elem_get(e, i, b->type) == vc_elem_get(a, i, b->type)) continue;
    if (b->type == VC_F32) {
      if (is_nan(e[i]) && is_nan(a[i])) {
        out->nan_payloads++;
        if (first_nan == UINT64_MAX) first_nan = i;
        continue;
      }
      if (!is_nan(e[i]) && !is_nan(a[i])) {
        uint64_t dist = vc_ulp_distance(e[i], a[i]);
        if (dist > max_ulp) max_ulp = dist;
        if (ulp && dist <= ulp) continue;
      }
    }
    if (first_bad == UINT64_MAX) first_bad = i;
    out->mismatches++;
  }
  if (first_bad != UINT64_MAX) {
    describe(b, e, a, first_bad, &out->div);
    out->div.count = out->mismatches;
  } else if (first_nan != UINT64_MAX) {
    describe(b, e, a, first_nan, &out->div);
    out->div.count = out->nan_payloads;
  }
  out->div.max_ulp = max_ulp;
}

/* An f32 buffer's initial contents hold a denormal at element i. */
static bool operand_denormal(const vc_program *p, uint32_t *const *inputs, uint64_t i) {
  for (uint32_t k = 0; k < p->nbuffers; k++) {
    const vc_buffer *b = &p->buffers[k];
    if (b->type == VC_F32 && inputs[k] && i < b->count && is_denormal(inputs[k][i])) return true;
  }
  return false;
}

void vc_classify_flushed(const vc_program *p, uint32_t *const *inputs, uint32_t bi,
                         const uint32_t *e, const uint32_t *a, vc_divergence *d) {
  if (d->cls == VC_DIV_F32_NAN || d->cls == VC_DIV_NAN_PAYLOAD || !inputs) return;
  const vc_buffer *b = &p->buffers[bi];
  if (vc_type_is_64(b->type)) return;
  uint64_t i = d->first_index;
  uint32_t x = e[i], y = a[i];
  /* An integer's bits are no evidence: small integers look like denormals. */
  bool value = b->type == VC_F32 && (is_denormal(x) || is_denormal(y));
  if (value || operand_denormal(p, inputs, i)) d->cls = VC_DIV_DENORMAL_FLUSH;
}
