#include "harness/model/outcome.h"

#include <string.h>

static const char *const mode_names[VC_MODE_COUNT] = {
#define VC_X(e, n) n,
    VC_MODE_TABLE(VC_X)
#undef VC_X
};

static const char *const status_names[VC_STATUS_COUNT] = {
#define VC_X(e, n, f) n,
    VC_STATUS_TABLE(VC_X)
#undef VC_X
};

static const bool status_fails[VC_STATUS_COUNT] = {
#define VC_X(e, n, f) f,
    VC_STATUS_TABLE(VC_X)
#undef VC_X
};

static const char *const divclass_names[VC_DIVCLASS_COUNT] = {
#define VC_X(e, n, m) n,
    VC_DIVCLASS_TABLE(VC_X)
#undef VC_X
};

static int lookup(const char *const *names, int n, const char *name) {
  for (int i = 0; name && i < n; i++)
    if (strcmp(name, names[i]) == 0) return i;
  return -1;
}

const char *vc_mode_name(vc_mode m) {
  return (unsigned)m < VC_MODE_COUNT ? mode_names[m] : "?";
}

int vc_mode_from_name(const char *name) { return lookup(mode_names, VC_MODE_COUNT, name); }

int vc_mode_rank(const char *mode) {
  int m = vc_mode_from_name(mode);
  return m < 0 ? VC_MODE_COUNT : m;
}

int vc_mode_cmp(const char *a, const char *b) {
  int ra = vc_mode_rank(a), rb = vc_mode_rank(b);
  if (ra != rb) return ra < rb ? -1 : 1;
  return strcmp(a, b);
}

const char *vc_status_name(vc_status s) {
  return (unsigned)s < VC_STATUS_COUNT ? status_names[s] : "unknown";
}

int vc_status_from_name(const char *name) { return lookup(status_names, VC_STATUS_COUNT, name); }

bool vc_status_is_failure(vc_status s) { return (unsigned)s < VC_STATUS_COUNT && status_fails[s]; }

const char *vc_divclass_name(vc_divclass c) {
  return (unsigned)c < VC_DIVCLASS_COUNT ? divclass_names[c] : "unknown";
}

int vc_divclass_from_name(const char *name) {
  return lookup(divclass_names, VC_DIVCLASS_COUNT, name);
}
