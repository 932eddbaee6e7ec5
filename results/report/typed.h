/* A divergence's context as typed values: the stored little-endian hex
 * (results.divergences, "09000000 ...") decoded by the buffer's element
 * type, u32, i32, u64, i64 or f32, each with its bits in hex beside. */
#ifndef VC_RESULTS_TYPED_H
#define VC_RESULTS_TYPED_H

#include <stdbool.h>
#include <stdint.h>

#include "harness/model/outcome.h"

enum { VC_TYPED_MAX = 16, VC_TYPED_LEN = 48 };

typedef struct vc_typed_elem {
  uint64_t index;             /* element index in the buffer */
  bool has_expected, has_actual;
  bool differs;
  char expected[VC_TYPED_LEN], actual[VC_TYPED_LEN];         /* "9", "-0", "1.5", "NaN" */
  char expected_hex[VC_TYPED_LEN], actual_hex[VC_TYPED_LEN]; /* "0x00000009" */
} vc_typed_elem;

/* Decodes d's context; returns the number of elements (at most
   VC_TYPED_MAX). An unknown type reads as u32. */
uint32_t vc_typed_context(const vc_divergence *d, vc_typed_elem out[VC_TYPED_MAX]);
/* One value of type name ("f32", ...) from its bits, as the reports show it. */
void vc_typed_value(const char *type, uint64_t bits, char out[VC_TYPED_LEN]);

#endif
