#include "harness/exec/reference.h"

#include <stdlib.h>
#include <string.h>

#include "harness/model/inputs.h"

bool vc_reference_alloc(const vc_program *p, vc_reference *r, uint32_t *failed) {
  memset(r, 0, sizeof *r);
  r->nbuffers = p->nbuffers;
  r->inputs = calloc(p->nbuffers ? p->nbuffers : 1, sizeof *r->inputs);
  r->outputs = calloc(p->nbuffers ? p->nbuffers : 1, sizeof *r->outputs);
  if (!r->inputs || !r->outputs) abort();
  for (uint32_t i = 0; i < p->nbuffers; i++) {
    uint64_t bytes = vc_buffer_bytes(&p->buffers[i]);
    r->inputs[i] = malloc(bytes ? bytes : 1);
    r->outputs[i] = malloc(bytes ? bytes : 1);
    if (!r->inputs[i] || !r->outputs[i]) {
      *failed = i;
      return false;
    }
    vc_inputs_fill(&p->buffers[i], r->inputs[i]);
  }
  return true;
}

int vc_reference_run(const vc_program *p, const vc_oracle_opts *opts, vc_reference *r,
                     vc_error *err) {
  uint32_t failed = 0;
  if (!vc_reference_alloc(p, r, &failed))
    return vc_fail(err, VC_ERR_NOMEM, "no host memory for buffer %s", p->buffers[failed].name);
  for (uint32_t i = 0; i < p->nbuffers; i++)
    memcpy(r->outputs[i], r->inputs[i], vc_buffer_bytes(&p->buffers[i]));
  vc_oracle *o = NULL;
  int rc = vc_oracle_compile(p, &o, err);
  if (rc == 0) rc = vc_oracle_run(o, r->outputs, opts, &r->report, err);
  vc_oracle_free(o);
  return rc ? vc_fail_wrap(err, "oracle") : 0;
}

void vc_reference_free(vc_reference *r) {
  for (uint32_t i = 0; i < r->nbuffers; i++) {
    if (r->inputs) free(r->inputs[i]);
    if (r->outputs) free(r->outputs[i]);
  }
  free(r->inputs);
  free(r->outputs);
  memset(r, 0, sizeof *r);
}
