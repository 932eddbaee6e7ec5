/* The construct and size names of the generator: --features, --size, --stats. */
#include <string.h>

#include "harness/gen/gen.h"

static const char *const feature_names[] = {
#define VC_GEN_X(id, name, what) name,
    VC_GEN_FEATURE_TABLE(VC_GEN_X)
#undef VC_GEN_X
};
static const char *const feature_whats[] = {
#define VC_GEN_X(id, name, what) what,
    VC_GEN_FEATURE_TABLE(VC_GEN_X)
#undef VC_GEN_X
};
static const char *const size_names[] = {"small", "medium", "large"};

void vc_gen_opts_default(vc_gen_opts *o) {
  o->size = VC_GEN_SMALL;
  o->features = VC_GEN_ALL_FEATURES;
}

const char *vc_gen_feature_name(vc_gen_feature f) {
  return f < VC_GEN_FEATURE_COUNT ? feature_names[f] : "?";
}

const char *vc_gen_feature_what(vc_gen_feature f) {
  return f < VC_GEN_FEATURE_COUNT ? feature_whats[f] : "?";
}

const char *vc_gen_size_name(vc_gen_size s) { return s <= VC_GEN_LARGE ? size_names[s] : "?"; }

int vc_gen_size_parse(const char *s, uint32_t *size, vc_error *err) {
  for (uint32_t i = 0; i <= VC_GEN_LARGE; i++)
    if (strcmp(s, size_names[i]) == 0) {
      *size = i;
      return 0;
    }
  return vc_fail(err, VC_ERR_USAGE, "unknown size '%s' (small, medium or large)", s);
}

int vc_gen_features_parse(const char *list, uint64_t *features, vc_error *err) {
  uint64_t set = 0;
  const char *p = list;
  while (*p) {
    const char *end = strchr(p, ',');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    int found = n == 3 && strncmp(p, "all", 3) == 0;
    if (found) set = VC_GEN_ALL_FEATURES;
    for (uint32_t f = 0; !found && f < VC_GEN_FEATURE_COUNT; f++)
      if (strlen(feature_names[f]) == n && strncmp(p, feature_names[f], n) == 0) {
        set |= UINT64_C(1) << f;
        found = 1;
      }
    if (!found) {
      vc_strbuf known;
      vc_sb_init(&known);
      for (uint32_t f = 0; f < VC_GEN_FEATURE_COUNT; f++)
        vc_sb_printf(&known, "%s%s", f ? ", " : "", feature_names[f]);
      int rc = vc_fail(err, VC_ERR_USAGE, "unknown feature '%.*s' (known: all, %s)", (int)n, p,
                       vc_sb_str(&known));
      vc_sb_free(&known);
      return rc;
    }
    p += n;
    if (*p == ',') p++;
  }
  *features = set;
  return 0;
}

void vc_gen_features_print(uint64_t features, vc_strbuf *out) {
  if ((features & VC_GEN_ALL_FEATURES) == VC_GEN_ALL_FEATURES) {
    vc_sb_puts(out, "all");
    return;
  }
  const char *sep = "";
  for (uint32_t f = 0; f < VC_GEN_FEATURE_COUNT; f++)
    if (features & (UINT64_C(1) << f)) {
      vc_sb_printf(out, "%s%s", sep, feature_names[f]);
      sep = ",";
    }
  if (!*sep) vc_sb_puts(out, "none");
}
