/* Reading a report: is the program invalid, and merging reports of launches. */
#include <inttypes.h>
#include <stdio.h>

#include "oracles/oracle.h"

bool vc_oracle_invalid(const vc_program *p, const vc_oracle_report *r, char *why, size_t n) {
  bool expect_oob = p && vc_program_expect(p, VC_EXPECT_OUT_OF_BOUNDS) != NULL;
  char scratch[8];
  if (!why || n == 0) {
    why = scratch;
    n = sizeof scratch;
  }
  why[0] = '\0';
  /* a stopped loop first: the barrier mismatches it causes follow from it */
  for (uint32_t j = 0; j < VC_ISSUE_COUNT; j++) {
    uint32_t k = j == 0 ? VC_ISSUE_LOOP : j - (j <= VC_ISSUE_LOOP);
    const vc_oracle_issue *is = &r->issues[k];
    if (is->count == 0 || (k == VC_ISSUE_OOB && expect_oob)) continue;
    if (is->count == 1) snprintf(why, n, "%s", is->msg);
    else snprintf(why, n, "%s (%" PRIu64 " occurrences)", is->msg, is->count);
    return true;
  }
  if (expect_oob && r->issues[VC_ISSUE_OOB].count == 0) {
    snprintf(why, n, "the program declares (expect out-of-bounds) but no access was out of bounds");
    return true;
  }
  return false;
}

void vc_oracle_report_merge(vc_oracle_report *into, const vc_oracle_report *from) {
  for (uint32_t k = 0; k < VC_ISSUE_COUNT; k++) {
    vc_oracle_issue *a = &into->issues[k];
    const vc_oracle_issue *b = &from->issues[k];
    if (b->count == 0) continue;
    uint64_t total = a->count + b->count;
    if (a->count == 0) *a = *b;
    a->count = total;
  }
  into->segments += from->segments;
  into->ops += from->ops;
  into->passes = from->passes;
  into->converged = from->converged;
}
