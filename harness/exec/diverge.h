/* Byte-exact comparison of a mode's output buffer against the oracle's,
 * and the classification of what differs (docs/semantics.md, "Comparison"). */
#ifndef VC_DIVERGE_H
#define VC_DIVERGE_H

#include <stdbool.h>
#include <stdint.h>

#include "harness/model/program.h"
#include "harness/model/outcome.h"
#include "harness/base/mutant.h" /* the comparison's planted faults, here and in its callers */

typedef struct vc_buffer_diff {
  uint64_t mismatches;   /* elements that fail the comparison */
  uint64_t nan_payloads; /* NaN against NaN with other bits: allowed, noted */
  vc_divergence div;     /* describes the first mismatch (or first NaN payload
                            difference when there is no mismatch) */
} vc_buffer_diff;

/* ulp: allowed distance for f32 buffers (0: exact). */
void vc_compare_buffer(const vc_buffer *b, const uint32_t *expected, const uint32_t *actual,
                       uint32_t ulp, vc_buffer_diff *out);
/* Distance in units in the last place between two non-NaN f32 bit patterns
   (-0 and +0 are 0 apart). */
uint64_t vc_ulp_distance(uint32_t a, uint32_t b);
/* The class of one differing element (VC_DIVCLASS_TABLE). */
vc_divclass vc_classify(vc_type t, uint32_t expected, uint32_t actual);

/* Classes by cause on a device that flushes denormals: the divergence d of
   output buffer bi (expected e, actual a) becomes denormal-flush when its
   first differing element is an f32 whose expected or actual value is a
   denormal (a flushed result, or a min/max that took a denormal for zero),
   or when an f32 buffer's initial contents (inputs[i], the operands) hold a
   denormal at the same element: a comparison, a min/max through a bitcast,
   anything that read it as zero. An integer's own bits are no evidence
   (small integers look like denormals). NaN classes stay what they are. */
void vc_classify_flushed(const vc_program *p, uint32_t *const *inputs, uint32_t bi,
                         const uint32_t *e, const uint32_t *a, vc_divergence *d);

#endif
