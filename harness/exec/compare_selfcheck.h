/* The comparison checks itself on each program before judging it: a copy of
 * the expected bytes with one bit flipped in the last element of the last
 * output buffer (and in the first element of the first) must be reported
 * there. A comparison that skips a buffer or an element cannot pass it. */
#ifndef VC_COMPARE_SELFCHECK_H
#define VC_COMPARE_SELFCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "harness/exec/diverge.h"
#include "harness/model/program.h"

/* The signature of vc_compare_buffer; tests pass a broken one. */
typedef void (*vc_compare_fn)(const vc_buffer *b, const uint32_t *expected,
                              const uint32_t *actual, uint32_t ulp, vc_buffer_diff *out);

/* Compares every output buffer of p (not read-only) with cmp, with the
   program's (expect (ulp B N)) when use_ulp; diffs[i] (p->nbuffers of them)
   for buffer i, zero for read-only ones. Returns the number of buffers with
   a mismatch. The comparison a judge makes, and the one checked below. */
uint32_t vc_compare_outputs(const vc_program *p, uint32_t *const *expected,
                            uint32_t *const *actual, vc_compare_fn cmp, bool use_ulp,
                            vc_buffer_diff *diffs);

/* expected[i]: the oracle's output of buffer i (read-only buffers are not
   compared and may be NULL). Returns true when vc_compare_outputs with cmp
   reports both planted flips at their buffer and index and nothing on the
   unchanged bytes; else writes why ("comparison self-check: ...") and
   returns false. A program with no output element has nothing to check. */
bool vc_compare_selfcheck(const vc_program *p, uint32_t *const *expected, vc_compare_fn cmp,
                          bool use_ulp, char *why, size_t n);

#endif
