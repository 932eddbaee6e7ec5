#include "results/status.h"

#include <string.h>

static const char *const status_names[VC_STATUS_COUNT] = {
    "pass", "diverge", "error", "crash", "timeout", "unsupported", "skip", "invalid"};

const char *vc_status_name(vc_status s) {
  return (unsigned)s < VC_STATUS_COUNT ? status_names[s] : "unknown";
}

int vc_status_from_name(const char *name) {
  for (int i = 0; name && i < VC_STATUS_COUNT; i++)
    if (strcmp(name, status_names[i]) == 0) return i;
  return -1;
}

bool vc_status_is_failure(vc_status s) {
  return s == VC_ST_DIVERGE || s == VC_ST_ERROR || s == VC_ST_CRASH || s == VC_ST_TIMEOUT ||
         s == VC_ST_INVALID;
}

int vc_mode_rank(const char *mode) {
  static const char *const known[] = {"native", "host-split", "resident-split"};
  for (int i = 0; i < 3; i++)
    if (strcmp(mode, known[i]) == 0) return i;
  return 3;
}

int vc_mode_cmp(const char *a, const char *b) {
  int ra = vc_mode_rank(a), rb = vc_mode_rank(b);
  if (ra != rb) return ra < rb ? -1 : 1;
  return strcmp(a, b);
}
