/* The reference run of a program: its inputs, generated as every mode gets
 * them (vc_inputs_fill), and the CPU oracle's outputs for them. The check,
 * the conformance run and each reordered repeat start from it. */
#ifndef VC_REFERENCE_H
#define VC_REFERENCE_H

#include <stdbool.h>
#include <stdint.h>

#include "harness/base/error.h"
#include "harness/model/program.h"
#include "oracles/oracle.h"

typedef struct vc_reference {
  uint32_t **inputs;  /* per buffer: the initial contents */
  uint32_t **outputs; /* per buffer: after the oracle ran */
  uint32_t nbuffers;
  vc_oracle_report report;
  bool cached; /* outputs and report came from the reference cache (reference_cache.h) */
} vc_reference;

/* *r with a buffer of inputs and of outputs per buffer of p, the inputs
   filled, the outputs not; false when the host has no memory for buffer
   *failed (then *r can still be freed with vc_reference_free). */
bool vc_reference_alloc(const vc_program *p, vc_reference *r, uint32_t *failed);
/* Fails with "no host memory for buffer B" (VC_ERR_NOMEM) or "oracle: ...";
   *r can be freed with vc_reference_free whatever happened. */
int vc_reference_run(const vc_program *p, const vc_oracle_opts *opts, vc_reference *r,
                     vc_error *err);
void vc_reference_free(vc_reference *r);

#endif
