#include "harness/run/shard_costs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/strbuf.h"
#include "results/gate/results_csv.h"
#include "results/store/load.h"

/* The first index whose name is >= name. */
static uint32_t lower_bound(const vc_cost_table *t, const char *name) {
  uint32_t lo = 0, hi = t->n;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (strcmp(t->names[mid], name) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

bool vc_cost_table_get(const vc_cost_table *t, const char *name, uint64_t *cost) {
  uint32_t i = lower_bound(t, name);
  if (i == t->n || strcmp(t->names[i], name)) return false;
  *cost = t->costs[i];
  return true;
}

void vc_cost_table_add(vc_cost_table *t, const char *name, uint64_t cost) {
  uint32_t i = lower_bound(t, name);
  if (i < t->n && !strcmp(t->names[i], name)) {
    t->costs[i] = cost > UINT64_MAX - t->costs[i] ? UINT64_MAX : t->costs[i] + cost;
    return;
  }
  if (t->n == t->cap) {
    t->cap = t->cap ? t->cap * 2 : 64;
    t->names = realloc(t->names, t->cap * sizeof *t->names);
    t->costs = realloc(t->costs, t->cap * sizeof *t->costs);
    if (!t->names || !t->costs) abort();
  }
  memmove(t->names + i + 1, t->names + i, (t->n - i) * sizeof *t->names);
  memmove(t->costs + i + 1, t->costs + i, (t->n - i) * sizeof *t->costs);
  t->names[i] = vc_strdup(name);
  t->costs[i] = cost;
  t->n++;
}

void vc_cost_table_free(vc_cost_table *t) {
  for (uint32_t i = 0; i < t->n; i++) free(t->names[i]);
  free(t->names);
  free(t->costs);
  free(t->source);
  memset(t, 0, sizeof *t);
}

static uint64_t sat_add(uint64_t a, uint64_t b) { return b > UINT64_MAX - a ? UINT64_MAX : a + b; }

static int from_db(const char *spec, vc_cost_table *t, vc_error *err) {
  vc_run_data *r;
  if (vc_run_load_spec(spec, &r, err)) return err->code ? err->code : VC_ERR_DB;
  for (uint32_t i = 0; i < r->nprogs; i++) {
    const vc_prog_data *p = &r->progs[i];
    uint64_t c = sat_add(sat_add(p->info.setup_ns, p->info.reference_ns), p->info.oracle_ns);
    for (uint32_t k = 0; k < p->nresults; k++) {
      const vc_result *x = &p->results[k];
      c = sat_add(c, x->mode_ns > x->wait_ns ? x->mode_ns - x->wait_ns : 0);
    }
    vc_cost_table_add(t, p->info.name, c);
  }
  vc_run_free(r);
  return 0;
}

/* A field without its surrounding quotes and blanks. */
static char *field(char *s) {
  while (*s == ' ' || *s == '\t') s++;
  size_t n = strlen(s);
  while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) s[--n] = '\0';
  if (n >= 2 && s[0] == '"' && s[n - 1] == '"') {
    s[n - 1] = '\0';
    s++;
  }
  return s;
}

static bool u64_of(const char *s, uint64_t *out) {
  if (*s < '0' || *s > '9') return false;
  uint64_t v = 0;
  for (; *s; s++) {
    if (*s < '0' || *s > '9' || v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10) return false;
    v = v * 10 + (uint64_t)(*s - '0');
  }
  *out = v;
  return true;
}

/* One data line of either CSV form; exported: program,mode,status,duration_ms. */
static int csv_line(const char *path, unsigned ln, char *line, bool exported, vc_cost_table *t,
                    vc_error *err) {
  char *f[5];
  int n = 0;
  for (char *p = line; n < 5;) {
    f[n++] = p;
    char *comma = strchr(p, ',');
    if (!comma) break;
    *comma = '\0';
    p = comma + 1;
  }
  for (int i = 0; i < n; i++) f[i] = field(f[i]);
  int want = exported ? 4 : 2;
  const char *what = exported ? VC_RESULTS_CSV_HEADER : "name,cost";
  uint64_t c;
  if (n != want)
    return vc_fail(err, VC_ERR_PARSE, "%s:%u: expected %s, found %d field%s", path, ln, what, n,
                   n == 1 ? "" : "s");
  if (!f[0][0]) return vc_fail(err, VC_ERR_PARSE, "%s:%u: no program name", path, ln);
  if (!u64_of(f[want - 1], &c))
    return vc_fail(err, VC_ERR_PARSE, "%s:%u: cost '%s' is not a non-negative integer", path, ln,
                   f[want - 1]);
  uint64_t old;
  if (!exported && vc_cost_table_get(t, f[0], &old))
    return vc_fail(err, VC_ERR_PARSE, "%s:%u: %s is listed twice", path, ln, f[0]);
  vc_cost_table_add(t, f[0], c);
  return 0;
}

static int from_csv(const char *path, vc_cost_table *t, vc_error *err) {
  FILE *fp = fopen(path, "r");
  if (!fp) return vc_fail(err, VC_ERR_IO, "cannot read %s: %s", path, strerror(errno));
  char buf[4096];
  unsigned ln = 0;
  int rc = 0, form = -1; /* -1: not known yet; 0: name,cost; 1: exported */
  while (!rc && fgets(buf, sizeof buf, fp)) {
    ln++;
    size_t len = strlen(buf);
    if (len == sizeof buf - 1 && buf[len - 1] != '\n' && !feof(fp)) {
      rc = vc_fail(err, VC_ERR_PARSE, "%s:%u: line too long", path, ln);
      break;
    }
    buf[strcspn(buf, "\r\n")] = '\0';
    char *s = field(buf);
    if (!*s || *s == '#') continue;
    if (form < 0) {
      form = !strcmp(s, VC_RESULTS_CSV_HEADER);
      if (form || !strcmp(s, "name,cost")) continue;
    }
    rc = csv_line(path, ln, s, form == 1, t, err);
  }
  if (!rc && ferror(fp)) rc = vc_fail(err, VC_ERR_IO, "cannot read %s: %s", path, strerror(errno));
  fclose(fp);
  return rc;
}

int vc_cost_table_load(const char *spec, vc_cost_table *t, vc_error *err) {
  int rc = vc_is_csv_path(spec) ? from_csv(spec, t, err) : from_db(spec, t, err);
  if (rc) {
    vc_cost_table_free(t);
    return rc;
  }
  t->source = vc_strdup(spec);
  return 0;
}
