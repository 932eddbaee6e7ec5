#include "harness/run/runopts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/base/mutant.h"
#include "results/store/record.h"

static const char *const keys[] = {
#define VC_X(e, k) k,
    VC_RUN_SETTING_TABLE(VC_X)
#undef VC_X
};

const char *vc_run_setting_key(vc_run_setting s) {
  return (unsigned)s < VC_SET_COUNT ? keys[s] : "?";
}

static void put_quoted(vc_strbuf *sb, const char *v) {
  if (*v && !strpbrk(v, " \t\n\"\\")) {
    vc_sb_puts(sb, v);
    return;
  }
  vc_sb_putc(sb, '"');
  for (; *v; v++) {
    if (*v == '"' || *v == '\\') vc_sb_putc(sb, '\\');
    vc_sb_putc(sb, *v);
  }
  vc_sb_putc(sb, '"');
}

static void put_list(vc_strbuf *sb, const char *const *v, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (i) vc_sb_putc(sb, ' ');
    put_quoted(sb, v[i]);
  }
}

void vc_run_setting_value(const vc_runner_opts *o, vc_run_setting s, vc_strbuf *sb) {
  char b[64];
  switch (s) {
  case VC_SET_BACKEND: if (o->backend) put_quoted(sb, o->backend); break;
  case VC_SET_DEVICE: vc_sb_printf(sb, "%u", o->device); break;
  case VC_SET_DEVICE_OPTIONS: if (o->device_options) put_quoted(sb, o->device_options); break;
  case VC_SET_MODE:
    for (uint32_t i = 0; i < o->conform.nmodes; i++)
      vc_sb_printf(sb, "%s%s", i ? "," : "", vc_mode_name(o->conform.modes[i]));
    break;
  case VC_SET_REPEAT: vc_sb_printf(sb, "%u", o->conform.repeat); break;
  case VC_SET_FILTER: put_list(sb, o->filters, o->nfilters); break;
  case VC_SET_EXCLUDE_TAG: put_list(sb, o->exclude_tags, o->nexclude_tags); break;
  case VC_SET_SHARD: if (o->shard_n) vc_sb_printf(sb, "%u/%u", o->shard_k, o->shard_n); break;
  case VC_SET_SHARD_COSTS: if (o->shard_costs) put_quoted(sb, o->shard_costs); break;
  case VC_SET_TIMEOUT: vc_sb_printf(sb, "%u", o->timeout_s); break;
  case VC_SET_EXPECTATIONS: if (o->expectations) put_quoted(sb, o->expectations); break;
  case VC_SET_MAX_BUFFER_BYTES:
    if (o->conform.max_buffer_bytes)
      vc_sb_printf(sb, "%llu", (unsigned long long)o->conform.max_buffer_bytes);
    break;
  case VC_SET_ORACLE_ORDER:
    if (o->conform.oracle.order == VC_ORDER_SHUFFLE)
      snprintf(b, sizeof b, "shuffle:%llu", (unsigned long long)o->conform.oracle.seed);
    else
      snprintf(b, sizeof b, "%s", o->conform.oracle.order == VC_ORDER_REVERSE ? "reverse" : "forward");
    vc_sb_puts(sb, b);
    break;
  case VC_SET_FLAKE_RERUNS: vc_sb_printf(sb, "%u", o->flake_reruns); break;
  case VC_SET_JOBS: vc_sb_printf(sb, "%u", o->jobs); break;
  case VC_SET_DEVICE_JOBS: vc_sb_printf(sb, "%u", o->device_jobs); break;
  case VC_SET_PATH: put_list(sb, o->paths, o->npaths); break;
  case VC_SET_COUNT: break;
  }
}

static bool multi(vc_run_setting s) {
  return s == VC_SET_FILTER || s == VC_SET_EXCLUDE_TAG || s == VC_SET_PATH;
}

void vc_run_settings_text(const vc_runner_opts *o, vc_strbuf *sb) {
  const char *const *lists[VC_SET_COUNT] = {[VC_SET_FILTER] = o->filters,
                                            [VC_SET_EXCLUDE_TAG] = o->exclude_tags,
                                            [VC_SET_PATH] = o->paths};
  uint32_t counts[VC_SET_COUNT] = {[VC_SET_FILTER] = o->nfilters,
                                   [VC_SET_EXCLUDE_TAG] = o->nexclude_tags,
                                   [VC_SET_PATH] = o->npaths};
  bool first = true;
  for (int s = 0; s < VC_SET_COUNT; s++) {
    if (multi((vc_run_setting)s)) {
      for (uint32_t i = 0; i < counts[s]; i++) {
        vc_sb_printf(sb, "%s%s=", first ? "" : " ", keys[s]);
        put_quoted(sb, lists[s][i]);
        first = false;
      }
      continue;
    }
    vc_strbuf v;
    vc_sb_init(&v);
    vc_run_setting_value(o, (vc_run_setting)s, &v);
    if (v.len) {
      vc_sb_printf(sb, "%s%s=%s", first ? "" : " ", keys[s], vc_sb_str(&v));
      first = false;
    }
    vc_sb_free(&v);
  }
  /* Provenance, not settings (a resumed run ignores them): the report says
     a run with planted faults is no qualification (docs/reports.md). */
  const char *planted[2] = {getenv("VYRE_CONFORM_MUTANT"), getenv("VYRE_CONFORM_FAULT")};
  if (o->conform.flip_mode) {
    char flip[400];
    snprintf(flip, sizeof flip, "%s:%s:%llu", o->conform.flip_mode,
             o->conform.flip_buffer ? o->conform.flip_buffer : "",
             (unsigned long long)o->conform.flip_index);
    if (o->flip_attempts)
      snprintf(flip + strlen(flip), sizeof flip - strlen(flip), "@%u", o->flip_attempts);
    vc_sb_printf(sb, "%sinject-flip=", first ? "" : " ");
    put_quoted(sb, flip);
    first = false;
  }
  const char *inject[2] = {o->inject_crash, o->inject_hang};
  for (int i = 0; i < 2; i++)
    if (inject[i]) {
      vc_sb_printf(sb, "%s%s=", first ? "" : " ", i ? "inject-hang" : "inject-crash");
      put_quoted(sb, inject[i]);
      first = false;
    }
  if (vc_mutants_built()) vc_sb_printf(sb, "%smutant-build=1", first ? "" : " "), first = false;
  for (int i = 0; i < 2; i++)
    if (planted[i] && planted[i][0]) {
      vc_sb_printf(sb, "%s%s=", first ? "" : " ", i ? "fault" : "mutant");
      put_quoted(sb, planted[i]);
      first = false;
    }
}

void vc_run_restored_free(vc_run_restored *r) {
  for (uint32_t i = 0; i < r->nstrs; i++) free(r->strs[i]);
  free(r->strs);
  free(r->filters);
  free(r->tags);
  free(r->paths);
  memset(r, 0, sizeof *r);
}

static const char *keep_str(vc_run_restored *r, char *s) {
  if (r->nstrs == r->cap) {
    r->cap = r->cap ? r->cap * 2 : 16;
    r->strs = realloc(r->strs, r->cap * sizeof *r->strs);
    if (!r->strs) abort();
  }
  r->strs[r->nstrs++] = s;
  return s;
}

static void push(const char ***list, uint32_t *n, const char *v) {
  *list = realloc(*list, (*n + 1) * sizeof **list);
  if (!*list) abort();
  (*list)[(*n)++] = v;
}

/* One `key=value` token of the stored line; *p moves past it. */
static int next_token(const char **p, vc_strbuf *key, vc_strbuf *val, vc_error *err) {
  const char *s = *p;
  while (*s == ' ') s++;
  const char *eq = strchr(s, '=');
  if (!eq) return vc_fail(err, VC_ERR_USAGE, "stored options: no '=' in \"%s\"", s);
  vc_sb_putn(key, s, (size_t)(eq - s));
  s = eq + 1;
  if (*s == '"') {
    for (s++; *s && *s != '"'; s++) {
      if (*s == '\\' && s[1]) s++;
      vc_sb_putc(val, *s);
    }
    if (*s != '"') return vc_fail(err, VC_ERR_USAGE, "stored options: unterminated quote");
    s++;
  } else {
    while (*s && *s != ' ') vc_sb_putc(val, *s++);
  }
  vc_sb_putc(val, '\0'); /* an empty value is still a string */
  val->len--;
  *p = s;
  return 0;
}

static int u32_of(const char *v, uint32_t *out, vc_error *err) {
  char *end;
  unsigned long x = strtoul(v, &end, 10);
  if (!*v || *end) return vc_fail(err, VC_ERR_USAGE, "stored options: bad number '%s'", v);
  *out = (uint32_t)x;
  return 0;
}

/* Sets one stored setting in o. */
static int apply(vc_runner_opts *o, vc_run_restored *r, const char *key, char *val,
                 vc_error *err) {
  const char *v = keep_str(r, val);
  int rc = 0;
  if (!strcmp(key, "backend")) o->backend = v;
  else if (!strcmp(key, "device")) rc = u32_of(v, &o->device, err);
  else if (!strcmp(key, "device-options")) o->device_options = v;
  else if (!strcmp(key, "mode")) rc = vc_parse_modes(v, &o->conform, err);
  else if (!strcmp(key, "repeat")) rc = u32_of(v, &o->conform.repeat, err);
  else if (!strcmp(key, "filter")) push(&r->filters, &o->nfilters, v);
  else if (!strcmp(key, "exclude-tag")) push(&r->tags, &o->nexclude_tags, v);
  else if (!strcmp(key, "shard")) {
    char c;
    if (sscanf(v, "%u/%u%c", &o->shard_k, &o->shard_n, &c) != 2)
      rc = vc_fail(err, VC_ERR_USAGE, "stored options: bad shard '%s'", v);
  } else if (!strcmp(key, "shard-costs")) o->shard_costs = v;
  else if (!strcmp(key, "timeout")) rc = u32_of(v, &o->timeout_s, err);
  else if (!strcmp(key, "expectations")) o->expectations = v;
  else if (!strcmp(key, "max-buffer-bytes")) {
    char *end;
    o->conform.max_buffer_bytes = strtoull(v, &end, 10);
  } else if (!strcmp(key, "oracle-order")) rc = vc_parse_oracle_order(v, &o->conform.oracle, err);
  else if (!strcmp(key, "flake-reruns")) rc = u32_of(v, &o->flake_reruns, err);
  else if (!strcmp(key, "jobs")) rc = u32_of(v, &o->jobs, err);
  else if (!strcmp(key, "device-jobs")) rc = u32_of(v, &o->device_jobs, err);
  else if (!strcmp(key, "path")) push(&r->paths, &o->npaths, v);
  /* other keys (written by another version) are not settings of this one */
  return rc;
}

/* The stored settings as a vc_runner_opts, on top of the defaults. */
static int parse_stored(const char *text, const vc_runner_opts *defaults, vc_runner_opts *out,
                        vc_run_restored *r, vc_error *err) {
  *out = *defaults;
  out->backend = NULL;
  out->device_options = out->expectations = out->shard_costs = NULL;
  out->nfilters = out->nexclude_tags = out->npaths = 0;
  out->shard_k = out->shard_n = 0;
  out->conform.max_buffer_bytes = 0;
  memset(&out->conform.oracle, 0, sizeof out->conform.oracle);
  const char *p = text ? text : "";
  int rc = 0;
  while (!rc && *p) {
    while (*p == ' ') p++;
    if (!*p) break;
    vc_strbuf k, v;
    vc_sb_init(&k);
    vc_sb_init(&v);
    rc = next_token(&p, &k, &v, err);
    if (!rc) rc = apply(out, r, vc_sb_str(&k), vc_sb_take(&v), err);
    vc_sb_free(&k);
    vc_sb_free(&v);
  }
  out->filters = r->filters;
  out->exclude_tags = r->tags;
  out->paths = r->paths;
  return rc;
}

int vc_run_restore_settings(vc_runner_opts *o, uint32_t given, vc_run_restored *keep,
                            vc_error *err) {
  memset(keep, 0, sizeof *keep);
  if (access(o->db_path, F_OK) != 0)
    return vc_fail(err, VC_ERR_USAGE, "--resume %lld: there is no results file %s",
                   (long long)o->resume_run, o->db_path);
  vc_db *db;
  if (vc_db_open(o->db_path, vc_run_db_busy_ms(o), &db, err)) return err->code = VC_ERR_DB;
  vc_db_run_settings st;
  int rc = vc_db_read_run_settings(db, o->resume_run, &st, err);
  vc_db_close(db);
  if (rc) return rc;
  vc_runner_opts stored;
  rc = parse_stored(st.options, o, &stored, keep, err);
  /* a run written before the settings were kept in full */
  if (!rc && !stored.backend && st.backend[0]) stored.backend = keep_str(keep, vc_strdup(st.backend));
  vc_db_run_settings_free(&st);
  for (int s = 0; !rc && s < VC_SET_COUNT; s++) {
    if (!(given & (1u << s)) || s == VC_SET_JOBS || s == VC_SET_DEVICE_JOBS) continue;
    vc_strbuf a, b;
    vc_sb_init(&a);
    vc_sb_init(&b);
    vc_run_setting_value(o, (vc_run_setting)s, &a);
    vc_run_setting_value(&stored, (vc_run_setting)s, &b);
    if (strcmp(vc_sb_str(&a), vc_sb_str(&b)))
      rc = vc_fail(err, VC_ERR_USAGE,
                   "--resume %lld: %s %s given, but the run was started with %s %s; leave "
                   "it out to continue with the run's own",
                   (long long)o->resume_run, s == VC_SET_PATH ? "PATH" : keys[s],
                   a.len ? vc_sb_str(&a) : "(none)", s == VC_SET_PATH ? "PATH" : keys[s],
                   b.len ? vc_sb_str(&b) : "(none)");
    vc_sb_free(&a);
    vc_sb_free(&b);
  }
  if (rc) {
    vc_run_restored_free(keep);
    return rc;
  }
  if (!stored.backend || !stored.npaths) {
    vc_run_restored_free(keep);
    return vc_fail(err, VC_ERR_USAGE,
                   "--resume %lld: the run's stored options lack the backend or PATH",
                   (long long)o->resume_run);
  }
  o->backend = stored.backend;
  o->device = stored.device;
  o->device_options = stored.device_options;
  memcpy(o->conform.modes, stored.conform.modes, sizeof o->conform.modes);
  o->conform.nmodes = stored.conform.nmodes;
  o->conform.repeat = stored.conform.repeat;
  o->conform.max_buffer_bytes = stored.conform.max_buffer_bytes;
  o->conform.oracle = stored.conform.oracle;
  o->filters = stored.filters;
  o->nfilters = stored.nfilters;
  o->exclude_tags = stored.exclude_tags;
  o->nexclude_tags = stored.nexclude_tags;
  o->shard_k = stored.shard_k;
  o->shard_n = stored.shard_n;
  o->shard_costs = stored.shard_costs;
  o->timeout_s = stored.timeout_s;
  o->expectations = stored.expectations;
  o->flake_reruns = stored.flake_reruns;
  if (!(given & (1u << VC_SET_JOBS))) o->jobs = stored.jobs;
  if (!(given & (1u << VC_SET_DEVICE_JOBS))) o->device_jobs = stored.device_jobs;
  o->paths = stored.paths;
  o->npaths = stored.npaths;
  return 0;
}

int vc_parse_flip(const char *s, vc_conform_opts *c, uint32_t *attempts, char *buf, size_t n,
                  vc_error *err) {
  snprintf(buf, n, "%s", s);
  char *at = attempts ? strchr(buf, '@') : NULL;
  if (attempts) *attempts = 0;
  if (at) {
    char *end;
    unsigned long k = strtoul(at + 1, &end, 10);
    if (!at[1] || *end || k == 0 || k > 1000)
      return vc_fail(err, VC_ERR_USAGE, "--inject-flip: '@%s' is not a number of attempts (1..1000)",
                     at + 1);
    *attempts = (uint32_t)k;
    *at = '\0';
  }
  char *a = strchr(buf, ':'), *b = a ? strchr(a + 1, ':') : NULL;
  if (!a || !b) return vc_fail(err, VC_ERR_USAGE, "--inject-flip wants MODE:BUFFER:INDEX");
  *a = *b = '\0';
  if (vc_mode_from_name(buf) < 0)
    return vc_fail(err, VC_ERR_USAGE, "--inject-flip: unknown mode '%s'", buf);
  char *end;
  c->flip_mode = buf;
  c->flip_buffer = a + 1;
  c->flip_index = strtoull(b + 1, &end, 10);
  if (*end || !b[1]) return vc_fail(err, VC_ERR_USAGE, "--inject-flip: bad index '%s'", b + 1);
  return 0;
}

int vc_parse_modes(const char *list, vc_conform_opts *c, vc_error *err) {
  c->nmodes = 0;
  const char *s = list;
  for (;;) {
    const char *comma = strchr(s, ',');
    size_t n = comma ? (size_t)(comma - s) : strlen(s);
    char t[64];
    if (n == 0)
      return vc_fail(err, VC_ERR_USAGE, "--mode '%s': an empty mode name (a stray comma?)", list);
    snprintf(t, sizeof t, "%.*s", (int)n, s);
    int m = vc_mode_from_name(t);
    if (m < 0)
      return vc_fail(err, VC_ERR_USAGE,
                     "unknown mode '%s' (modes: native, host-split, resident-split)", t);
    for (uint32_t i = 0; i < c->nmodes; i++)
      if ((int)c->modes[i] == m) return vc_fail(err, VC_ERR_USAGE, "mode '%s' given twice", t);
    c->modes[c->nmodes++] = (vc_mode)m;
    if (!comma) break;
    s = comma + 1;
  }
  return 0;
}

int vc_parse_oracle_order(const char *s, vc_oracle_opts *o, vc_error *err) {
  if (strcmp(s, "forward") == 0) {
    o->order = VC_ORDER_FORWARD;
  } else if (strcmp(s, "reverse") == 0) {
    o->order = VC_ORDER_REVERSE;
  } else if (strncmp(s, "shuffle:", 8) == 0 && s[8]) {
    char *end;
    o->order = VC_ORDER_SHUFFLE;
    o->seed = strtoull(s + 8, &end, 0);
    if (*end) return vc_fail(err, VC_ERR_USAGE, "--oracle-order: bad seed in '%s'", s);
  } else {
    return vc_fail(err, VC_ERR_USAGE,
                   "--oracle-order: '%s' is not forward, reverse or shuffle:SEED", s);
  }
  return 0;
}

int vc_run_db_busy_ms(const vc_runner_opts *o) {
  uint32_t s = o->db_timeout_s ? o->db_timeout_s : VC_RUN_DEFAULT_DB_TIMEOUT_S;
  return (int)(s > 86400 ? 86400 : s) * 1000;
}
