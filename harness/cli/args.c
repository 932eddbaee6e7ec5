#include "harness/cli/args.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static vc_opt *find(vc_opt *opts, uint32_t n, const char *name, size_t len) {
  for (uint32_t i = 0; i < n; i++)
    if (strlen(opts[i].name) == len && strncmp(opts[i].name, name, len) == 0) return &opts[i];
  return NULL;
}

static void add_value(vc_opt *o, const char *v) {
  o->value = v;
  o->count++;
  if (!o->repeatable) return;
  o->values = realloc(o->values, o->count * sizeof *o->values);
  if (!o->values) abort();
  o->values[o->count - 1] = v;
}

int vc_args_parse(int argc, char **argv, vc_opt *opts, uint32_t nopts, vc_args *out,
                  vc_error *err) {
  memset(out, 0, sizeof *out);
  out->pos = calloc((size_t)argc + 1, sizeof *out->pos);
  if (!out->pos) abort();
  bool only_pos = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (only_pos || a[0] != '-' || a[1] == '\0') {
      out->pos[out->npos++] = a;
      continue;
    }
    if (strcmp(a, "--") == 0) {
      only_pos = true;
      continue;
    }
    if (a[1] != '-')
      return vc_fail(err, VC_ERR_USAGE, "unknown option '%s' (options are spelled --name)", a);
    const char *name = a + 2, *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    vc_opt *o = find(opts, nopts, name, len);
    if (!o) return vc_fail(err, VC_ERR_USAGE, "unknown option '--%.*s'", (int)len, name);
    if (o->count && !o->repeatable)
      return vc_fail(err, VC_ERR_USAGE, "option '--%s' given twice", o->name);
    if (!o->takes_value) {
      if (eq) return vc_fail(err, VC_ERR_USAGE, "option '--%s' takes no value", o->name);
      add_value(o, "");
    } else if (eq) {
      add_value(o, eq + 1);
    } else if (i + 1 < argc && vc_args_looks_like_option(argv[i + 1])) {
      /* `--filter --db x.db`: a forgotten value, not the glob "--db" */
      return vc_fail(err, VC_ERR_USAGE,
                     "option '--%s' needs a value, and '%s' is an option (write --%s=%s for a "
                     "value that starts with --)",
                     o->name, argv[i + 1], o->name, argv[i + 1]);
    } else if (i + 1 < argc) {
      add_value(o, argv[++i]);
    } else {
      return vc_fail(err, VC_ERR_USAGE, "option '--%s' needs a value", o->name);
    }
  }
  return 0;
}

void vc_args_free(vc_opt *opts, uint32_t nopts, vc_args *a) {
  for (uint32_t i = 0; i < nopts; i++) free(opts[i].values);
  free(a->pos);
}

bool vc_args_looks_like_option(const char *arg) {
  return arg[0] == '-' && arg[1] == '-';
}

vc_opt *vc_args_get(vc_opt *opts, uint32_t nopts, const char *name) {
  vc_opt *o = find(opts, nopts, name, strlen(name));
  return o && o->count ? o : NULL;
}

int vc_args_u64(const vc_opt *o, uint64_t *out, vc_error *err) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(o->value, &end, 10);
  if (errno || end == o->value || *end || o->value[0] == '-')
    return vc_fail(err, VC_ERR_USAGE, "option '--%s': '%s' is not a number", o->name, o->value);
  *out = v;
  return 0;
}

int vc_args_u32(const vc_opt *o, uint32_t lo, uint32_t hi, uint32_t *out, vc_error *err) {
  uint64_t v = 0;
  int rc = vc_args_u64(o, &v, err);
  if (rc) return rc;
  if (v < lo || v > hi)
    return vc_fail(err, VC_ERR_USAGE, "option '--%s': %llu is outside %u..%u", o->name,
                   (unsigned long long)v, lo, hi);
  *out = (uint32_t)v;
  return 0;
}
