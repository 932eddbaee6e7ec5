#include "harness/exec/plan_check.h"

#include <stdio.h>
#include <string.h>

bool vc_plan_segments_ok(const vc_program *p, const vc_split *s, char *why, size_t n) {
  uint32_t b = vc_program_grid_barriers(p);
  if (s->nsegs == b + 1) return true;
  snprintf(why, n, "split plan of %s has %u segment%s, but the source has %u grid barrier%s (%u "
           "segments)", p->name, s->nsegs, s->nsegs == 1 ? "" : "s", b, b == 1 ? "" : "s", b + 1);
  return false;
}

bool vc_plan_launches_ok(const vc_program *p, const vc_split *s, vc_mode m,
                         const vc_mode_out *mo, char *why, size_t n) {
  /* native builds its one kernel from the plan's segments too */
  if (!vc_plan_segments_ok(p, s, why, n)) return false;
  if (m != VC_MODE_HOST_SPLIT && m != VC_MODE_RESIDENT_SPLIT) return true;
  uint64_t want = (uint64_t)mo->passes * (vc_program_grid_barriers(p) + 1);
  if (mo->launches == want) return true;
  snprintf(why, n, "%s of %s made %u launches in %u pass%s; the source's grid barriers make %llu",
           vc_mode_name(m), p->name, mo->launches, mo->passes, mo->passes == 1 ? "" : "es",
           (unsigned long long)want);
  return false;
}

void vc_judge_segment_counts(const vc_program *p, const vc_split *s, vc_mode m,
                             const vc_mode_out *mo, vc_result *r) {
  char why[400];
  if (vc_plan_launches_ok(p, s, m, mo, why, sizeof why)) return;
  char was[48];
  snprintf(was, sizeof was, "%s", vc_status_name(r->status));
  r->status = VC_ST_ERROR;
  snprintf(r->reason, sizeof r->reason, "segment count check: %s (bytes: %s)", why, was);
}
