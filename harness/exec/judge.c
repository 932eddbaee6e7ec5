/* Judging a mode run's output (judge.h). */
#include "harness/exec/judge.h"

#include <stdio.h>
#include <stdlib.h>

#include "harness/base/plural.h"
#include "harness/exec/compare_selfcheck.h"
#include "harness/exec/diverge.h"

void vc_verdict_judge(const vc_program *p, uint32_t *const *expected, const vc_mode_out *mo,
                      uint32_t oracle_passes, uint32_t *const *flush_inputs, vc_result *r) {
  uint32_t nout = 0;
  for (uint32_t i = 0; i < p->nbuffers; i++) nout += p->buffers[i].access != VC_READ;
  r->divs = calloc(nout ? nout : 1, sizeof *r->divs);
  if (!r->divs) abort();
  uint64_t bad_elems = 0, nan_payloads = 0;
  uint32_t bad_bufs = 0;
  /* The same comparison loop the self-check proved on this program. */
  vc_buffer_diff *diffs = calloc(p->nbuffers ? p->nbuffers : 1, sizeof *diffs);
  if (!diffs) abort();
  vc_compare_outputs(p, expected, mo->outputs, vc_compare_buffer, true, diffs);
  for (uint32_t i = 0; i < p->nbuffers; i++) {
    if (p->buffers[i].access == VC_READ) continue;
    vc_buffer_diff *d = &diffs[i];
    if (d->mismatches && flush_inputs)
      vc_classify_flushed(p, flush_inputs, i, expected[i], mo->outputs[i], &d->div);
    if (d->mismatches || d->nan_payloads) r->divs[r->ndivs++] = d->div;
    bad_elems += d->mismatches;
    nan_payloads += d->nan_payloads;
    bad_bufs += d->mismatches != 0;
  }
  free(diffs);
  if (bad_bufs) {
    const vc_divergence *d = NULL;
    for (uint32_t i = 0; i < r->ndivs && !d; i++)
      if (r->divs[i].cls != VC_DIV_NAN_PAYLOAD) d = &r->divs[i];
    r->status = VC_ST_DIVERGE;
    snprintf(r->reason, sizeof r->reason,
             "%llu %s in %u %s; first: %s[%llu] (%s)", (unsigned long long)bad_elems,
             vc_plural(bad_elems, "element differs", "elements differ"), bad_bufs,
             vc_plural(bad_bufs, "buffer", "buffers"), d->buffer, (unsigned long long)d->first_index,
             vc_divclass_name(d->cls));
  } else if (mo->passes != oracle_passes) {
    r->status = VC_ST_DIVERGE;
    snprintf(r->reason, sizeof r->reason, "ran %u fixpoint passes, the oracle %u", mo->passes,
             oracle_passes);
  } else {
    r->status = VC_ST_PASS;
    if (nan_payloads)
      snprintf(r->reason, sizeof r->reason, "%llu NaN payload%s differ (allowed)",
               (unsigned long long)nan_payloads, nan_payloads == 1 ? "" : "s");
  }
}

void vc_verdict_traffic(const vc_split *s, vc_mode m, const vc_mode_out *mo, vc_result *r) {
  if (r->status != VC_ST_PASS) return;
  vc_traffic t = vc_plan_traffic(s, m, mo->passes);
  if (t.up == mo->bytes_up && t.down == mo->bytes_down && t.launches == mo->launches) return;
  r->status = VC_ST_ERROR;
  snprintf(r->reason, sizeof r->reason,
           "traffic differs from the split plan: %llu B up, %llu B down, %u %s; "
           "plan %llu, %llu, %u",
           (unsigned long long)mo->bytes_up, (unsigned long long)mo->bytes_down, mo->launches,
           vc_plural(mo->launches, "launch", "launches"),
           (unsigned long long)t.up, (unsigned long long)t.down, t.launches);
}

void vc_verdict_native_check(vc_mode m, const vc_mode_out *mo, vc_result *r) {
  /* A device-side wait that ended without its condition makes the whole run
     meaningless, whatever the bytes say: never a pass, never excused as a
     device limit either. */
  if (m != VC_MODE_NATIVE || !mo->native.untrustworthy) return;
  char was[48];
  snprintf(was, sizeof was, "%s", vc_status_name(r->status));
  r->status = VC_ST_UNTRUSTWORTHY;
  snprintf(r->reason, sizeof r->reason, "native run untrustworthy (bytes: %s): %s", was,
           mo->native.note[0] ? mo->native.note : "the device reported it");
}
