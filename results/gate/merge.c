#include "results/gate/merge.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness/base/strbuf.h"
#include "results/store/db_internal.h"
#include "results/store/load.h"

typedef struct shard {
  vc_run_data *run;
  const char *spec;
  uint32_t k, n; /* "K/N", 0 <= K < N as the runner's --shard */
} shard;

static int parse_shard(shard *s, vc_error *err) {
  const char *t = s->run->info.shard;
  unsigned k, n;
  char tail;
  if (!t[0])
    return vc_fail(err, VC_ERR_USAGE,
                   "cannot merge: %s run %lld is not a shard (it was run without --shard)", s->spec,
                   (long long)s->run->id);
  if (sscanf(t, "%u/%u%c", &k, &n, &tail) != 2 || k >= n || n > 100000)
    return vc_fail(err, VC_ERR_USAGE, "cannot merge: %s run %lld has a malformed shard \"%s\"",
                   s->spec, (long long)s->run->id, t);
  s->k = k;
  s->n = n;
  return 0;
}

static int load_shard(shard *s, const char *spec, vc_error *err) {
  char *path = malloc(strlen(spec) + 1);
  if (!path) return vc_fail(err, VC_ERR_NOMEM, "merge: out of memory");
  int64_t run_id;
  vc_run_spec_split(spec, path, &run_id);
  s->spec = spec;
  int rc = vc_run_load(path, run_id ? run_id : VC_RUN_LATEST, &s->run, err);
  free(path);
  return rc ? rc : parse_shard(s, err);
}

/* Every shard must come from the same corpus, build, backend, modes and N. */
static int check_same(const shard *a, const shard *b, vc_error *err) {
  const vc_run_info *x = &a->run->info, *y = &b->run->info;
  const struct {
    const char *what, *vx, *vy;
  } fields[] = {
      {"corpus digests", x->corpus_digest, y->corpus_digest},
      {"harness versions", x->harness_version, y->harness_version},
      {"harness commits", x->harness_commit, y->harness_commit},
      {"backends", x->backend, y->backend},
      {"modes", x->modes, y->modes},
      {"shard counts", a->n == b->n ? "" : x->shard, a->n == b->n ? "" : y->shard},
  };
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
    if (strcmp(fields[i].vx, fields[i].vy) != 0)
      return vc_fail(err, VC_ERR_USAGE, "cannot merge: %s differ: %s has \"%s\", %s has \"%s\"",
                     fields[i].what, a->spec, fields[i].vx, b->spec, fields[i].vy);
  return 0;
}

static int check_indices(const shard *s, uint32_t count, vc_error *err) {
  uint32_t n = s[0].n;
  const shard **seen = calloc(n, sizeof *seen);
  if (!seen) return vc_fail(err, VC_ERR_NOMEM, "merge: out of memory");
  int rc = 0;
  for (uint32_t i = 0; i < count && !rc; i++) {
    if (seen[s[i].k])
      rc = vc_fail(err, VC_ERR_USAGE, "cannot merge: shard %u/%u appears twice: %s and %s", s[i].k,
                   n, seen[s[i].k]->spec, s[i].spec);
    seen[s[i].k] = &s[i];
  }
  if (!rc) {
    vc_strbuf missing;
    vc_sb_init(&missing);
    for (uint32_t k = 0; k < n; k++)
      if (!seen[k]) vc_sb_printf(&missing, "%s%u/%u", missing.len ? ", " : "", k, n);
    if (missing.len)
      rc = vc_fail(err, VC_ERR_USAGE, "cannot merge: shard%s missing: %s (%u of %u given)",
                   count + 1 < n ? "s" : "", vc_sb_str(&missing), count, n);
    vc_sb_free(&missing);
  }
  free(seen);
  return rc;
}

typedef struct named {
  const char *name;
  const char *spec;
} named;

static int cmp_name(const void *a, const void *b) {
  return strcmp(((const named *)a)->name, ((const named *)b)->name);
}

/* A program in two shards means the shards were not cut from one corpus. */
static int check_programs(const shard *s, uint32_t count, vc_error *err) {
  uint32_t total = 0;
  for (uint32_t i = 0; i < count; i++) total += s[i].run->nprogs;
  named *all = malloc((total ? total : 1) * sizeof *all);
  if (!all) return vc_fail(err, VC_ERR_NOMEM, "merge: out of memory");
  uint32_t m = 0;
  for (uint32_t i = 0; i < count; i++)
    for (uint32_t p = 0; p < s[i].run->nprogs; p++)
      all[m++] = (named){s[i].run->progs[p].info.name, s[i].spec};
  qsort(all, m, sizeof *all, cmp_name);
  int rc = 0;
  for (uint32_t i = 1; i < m && !rc; i++)
    if (strcmp(all[i - 1].name, all[i].name) == 0)
      rc = vc_fail(err, VC_ERR_USAGE, "cannot merge: program %s is in two shards: %s and %s",
                   all[i].name, all[i - 1].spec, all[i].spec);
  free(all);
  return rc;
}

/* ---- writing the merged run ---- */

static const char *merged_status(const shard *s, uint32_t count) {
  bool failed = false, complete = true;
  for (uint32_t i = 0; i < count; i++) {
    failed |= strcmp(s[i].run->status, "failed") == 0;
    complete &= strcmp(s[i].run->status, "complete") == 0;
  }
  return failed ? "failed" : complete ? "complete" : "interrupted";
}

static int write_merged(vc_db *db, const shard *s, uint32_t count, int64_t *run_id, vc_error *err) {
  vc_run_info info = s[0].run->info;
  int64_t ended = 0;
  vc_strbuf hosts, options;
  vc_sb_init(&hosts);
  vc_sb_init(&options);
  for (uint32_t i = 0; i < count; i++) {
    const vc_run_data *r = s[i].run;
    if (r->info.started_ns < info.started_ns) info.started_ns = r->info.started_ns;
    if (r->ended_ns > ended) ended = r->ended_ns;
    uint32_t j = 0;
    while (j < i && strcmp(s[j].run->info.host, r->info.host) != 0) j++;
    if (j == i) vc_sb_printf(&hosts, "%s%s", i ? "," : "", r->info.host);
  }
  vc_sb_printf(&options, "%s%smerged-shards=%u", info.options, info.options[0] ? " " : "", count);
  info.shard = "";
  info.host = vc_sb_str(&hosts);
  info.options = vc_sb_str(&options);
  int rc = vc_db_begin_run(db, &info, run_id, err);
  vc_sb_free(&hosts);
  vc_sb_free(&options);
  if (rc) return rc;
  if (s[0].run->has_device)
    rc = vc_db_record_device(db, *run_id, &s[0].run->device, s[0].run->fingerprint, err);
  for (uint32_t i = 0; i < count && !rc; i++)
    for (uint32_t p = 0; p < s[i].run->nprogs && !rc; p++) {
      const vc_prog_data *pd = &s[i].run->progs[p];
      rc = vc_db_record_program(db, *run_id, &pd->info, pd->results, pd->nresults, err);
    }
  if (!rc) return vc_db_end_run_at(db, *run_id, merged_status(s, count), ended, err);
  vc_error ignored; /* the first error is the one to report */
  vc_db_end_run(db, *run_id, "failed", &ignored);
  return rc;
}

static int cmp_shard(const void *a, const void *b) {
  return (int)((const shard *)a)->k - (int)((const shard *)b)->k;
}

static int check_output(const char *out_path, const shard *s, uint32_t count, vc_error *err) {
  struct stat out, in;
  if (stat(out_path, &out) != 0) return 0; /* a new file */
  for (uint32_t i = 0; i < count; i++)
    if (stat(s[i].run->path, &in) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino)
      return vc_fail(err, VC_ERR_USAGE, "cannot merge: the output %s is also an input", out_path);
  return 0;
}

int vc_merge(const char *out_path, const char *const *inputs, uint32_t n, int busy_ms,
             int64_t *run_id, vc_error *err) {
  if (n == 0) return vc_fail(err, VC_ERR_USAGE, "merge: no shard files given");
  shard *s = calloc(n, sizeof *s);
  if (!s) return vc_fail(err, VC_ERR_NOMEM, "merge: out of memory");
  int rc = 0;
  for (uint32_t i = 0; i < n && !rc; i++) rc = load_shard(&s[i], inputs[i], err);
  for (uint32_t i = 1; i < n && !rc; i++) rc = check_same(&s[0], &s[i], err);
  if (!rc) rc = check_indices(s, n, err);
  if (!rc) rc = check_programs(s, n, err);
  if (!rc) rc = check_output(out_path, s, n, err);
  if (!rc) {
    qsort(s, n, sizeof *s, cmp_shard);
    vc_db *db = NULL;
    rc = vc_db_open(out_path, busy_ms, &db, err);
    if (!rc) rc = write_merged(db, s, n, run_id, err);
    vc_db_close(db);
  }
  for (uint32_t i = 0; i < n; i++) vc_run_free(s[i].run);
  free(s);
  return rc;
}
