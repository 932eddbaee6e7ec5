/* Deterministic buffer contents from a buffer's (init ...): the same bytes
 * on every machine, generated on the host for every mode and the oracle. */
#ifndef VC_INPUTS_H
#define VC_INPUTS_H

#include <stdint.h>

#include "harness/model/program.h"

/* Fills data (b->count elements) with b's initial contents. */
void vc_inputs_fill(const vc_buffer *b, uint32_t *data);
/* One splitmix64 step, as docs/format.md specifies. */
uint64_t vc_splitmix64_next(uint64_t *state);

#endif
