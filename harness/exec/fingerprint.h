/* A behavioural fingerprint of a device: a few probes of what drivers are
 * allowed to differ in (or get wrong) — the bits of a NaN the device
 * generates, whether denormal inputs and results survive — run through the
 * backend like any program, summarised in words and digested. Two devices
 * with the same fingerprint behave the same on these probes. */
#ifndef VC_FINGERPRINT_H
#define VC_FINGERPRINT_H

#include <stdbool.h>
#include <stddef.h>

#include "backends/backend.h"

/* Writes e.g. "nan=0x7fffffff denorm-in=preserve denorm-out=preserve
   sha256=1f2e..." into out, or "unavailable: REASON". */
void vc_fingerprint(const vc_backend *be, vc_dev *dev, char *out, size_t n);
/* Whether a fingerprint says the device flushes f32 denormals (inputs,
   results or sums): its divergences are then classed by cause
   (vc_classify_flushed). */
bool vc_fingerprint_flushes(const char *fingerprint);

#endif
