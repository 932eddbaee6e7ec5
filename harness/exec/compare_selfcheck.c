#include "harness/exec/compare_selfcheck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bit 30 is an exponent bit for f32: flipping it moves a value by far more
   than any ulp tolerance, turns a NaN into a number and a number into
   something that is not -0 for +0; for integers any bit would do. */
#define VC_SELFCHECK_BIT (1u << 30)

static uint32_t ulp_of(const vc_program *p, uint32_t buf) {
  for (uint32_t i = 0; i < p->nexpects; i++)
    if (p->expects[i].kind == VC_EXPECT_ULP && p->expects[i].ref == buf) return p->expects[i].n;
  return 0;
}

uint32_t vc_compare_outputs(const vc_program *p, uint32_t *const *expected,
                            uint32_t *const *actual, vc_compare_fn cmp, bool use_ulp,
                            vc_buffer_diff *diffs) {
  uint32_t bad = 0;
  for (uint32_t i = 0; i < p->nbuffers; i++) {
    memset(&diffs[i], 0, sizeof diffs[i]);
    if (p->buffers[i].access == VC_READ) continue;
    cmp(&p->buffers[i], expected[i], actual[i], use_ulp ? ulp_of(p, i) : 0, &diffs[i]);
    bad += diffs[i].mismatches != 0;
  }
  return bad;
}

/* Does the comparison report the copy of buffer `flip` that differs at
   `index` there, and only there? */
static bool reports(const vc_program *p, uint32_t *const *expected, vc_compare_fn cmp,
                    bool use_ulp, uint32_t flip, uint64_t index, char *why, size_t n) {
  const vc_buffer *fb = &p->buffers[flip];
  uint32_t *copy = malloc(vc_buffer_bytes(fb));
  uint32_t **actual = calloc(p->nbuffers, sizeof *actual);
  vc_buffer_diff *diffs = calloc(p->nbuffers, sizeof *diffs);
  if (!copy || !actual || !diffs) abort();
  memcpy(copy, expected[flip], vc_buffer_bytes(fb));
  /* the element's first (low, little-endian) word: 64-bit elements are two */
  copy[index * vc_type_words(fb->type)] ^= VC_SELFCHECK_BIT;
  for (uint32_t i = 0; i < p->nbuffers; i++) actual[i] = i == flip ? copy : expected[i];
  uint32_t bad = vc_compare_outputs(p, expected, actual, cmp, use_ulp, diffs);
  bool seen = diffs[flip].mismatches == 1 && diffs[flip].div.first_index == index;
  bool spurious = bad > (diffs[flip].mismatches != 0);
  free(diffs);
  free(actual);
  free(copy);
  if (seen && !spurious) return true;
  snprintf(why, n,
           "comparison self-check: one bit flipped in %s[%llu] of a copy of the expected bytes "
           "was %s",
           fb->name, (unsigned long long)index,
           spurious ? "reported in another buffer" : "not reported there");
  return false;
}

bool vc_compare_selfcheck(const vc_program *p, uint32_t *const *expected, vc_compare_fn cmp,
                          bool use_ulp, char *why, size_t n) {
  int first = -1, last = -1;
  for (uint32_t i = 0; i < p->nbuffers; i++) {
    if (p->buffers[i].access == VC_READ || !p->buffers[i].count) continue;
    if (first < 0) first = (int)i;
    last = (int)i;
  }
  if (last < 0) return true;
  return reports(p, expected, cmp, use_ulp, (uint32_t)last, p->buffers[last].count - 1, why,
                 n) &&
         reports(p, expected, cmp, use_ulp, (uint32_t)first, 0, why, n);
}
