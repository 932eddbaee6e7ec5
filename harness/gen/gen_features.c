/* The construct and size names of the generator: --features, --size, --stats. */
#include <stdlib.h>
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
  memset(o, 0, sizeof *o);
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
  vc_gen_opts o;
  vc_gen_opts_default(&o);
  int rc = vc_gen_opts_features_parse(list, &o, err);
  if (!rc) *features = o.features;
  return rc;
}

int vc_gen_opts_features_parse(const char *list, vc_gen_opts *o, vc_error *err) {
  uint16_t weight[VC_GEN_FEATURE_COUNT];
  memset(weight, 0, sizeof weight);
  uint64_t set = 0;
  const char *p = list;
  while (*p) {
    const char *end = strchr(p, ',');
    size_t item = end ? (size_t)(end - p) : strlen(p);
    const char *eq = memchr(p, '=', item);
    size_t n = eq ? (size_t)(eq - p) : item;
    long w = 100;
    if (eq) { /* NAME=PCT */
      char num[8];
      size_t k = item - n - 1;
      char *stop = NULL;
      if (k == 0 || k >= sizeof num)
        return vc_fail(err, VC_ERR_USAGE, "feature weight '%.*s': expected NAME=PCT, 0 to 1000",
                       (int)item, p);
      memcpy(num, eq + 1, k);
      num[k] = 0;
      w = strtol(num, &stop, 10);
      if (*stop || num[0] == '-' || num[0] == '+' || w > 1000)
        return vc_fail(err, VC_ERR_USAGE, "feature weight '%.*s': expected NAME=PCT, 0 to 1000",
                       (int)item, p);
    }
    int found = n == 3 && strncmp(p, "all", 3) == 0 && !eq;
    if (found) set = VC_GEN_ALL_FEATURES;
    for (uint32_t f = 0; !found && f < VC_GEN_FEATURE_COUNT; f++)
      if (strlen(feature_names[f]) == n && strncmp(p, feature_names[f], n) == 0) {
        if (w) set |= UINT64_C(1) << f;
        else set &= ~(UINT64_C(1) << f);
        weight[f] = (uint16_t)(w == 100 || w == 0 ? 0 : w);
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
    p += item;
    if (*p == ',') p++;
  }
  o->features = set;
  memcpy(o->weight, weight, sizeof weight);
  return 0;
}

void vc_gen_opts_features_print(const vc_gen_opts *o, vc_strbuf *out) {
  vc_gen_features_print(o->features, out);
  for (uint32_t f = 0; f < VC_GEN_FEATURE_COUNT; f++)
    if (o->weight[f] && o->weight[f] != 100 && (o->features >> f & 1u))
      vc_sb_printf(out, ",%s=%u", feature_names[f], o->weight[f]);
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
