/* The read side of a results file: one run, all its rows, in memory. */
#include "results/store/load.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/store/schema.h"
#include "results/store/sqlerr.h"

enum { READ_BUSY_MS = 5000 };

typedef struct id_index {
  int64_t id;
  uint32_t index;
} id_index;

typedef struct loader {
  sqlite3 *sql;
  vc_run_data *r;
  vc_error *err;
  int64_t *prog_ids; /* programs table id of r->progs[i] */
  uint32_t cur;      /* the program whose results are being read */
  vc_result *all;    /* every result of the run, in load order */
  uint32_t nall, cap;
  id_index *by_id; /* result id -> index into all, sorted by id */
} loader;

static int fail_sql(loader *ld, int rc, const char *what) {
  return vc_sqlfail(ld->err, ld->sql, rc, ld->r->path, READ_BUSY_MS, what);
}

static int prepare(loader *ld, const char *sql, sqlite3_stmt **st) {
  int rc = sqlite3_prepare_v2(ld->sql, sql, -1, st, NULL);
  if (rc != SQLITE_OK) return fail_sql(ld, rc, sql);
  sqlite3_bind_int64(*st, 1, ld->r->id);
  return 0;
}

static const char *col_str(loader *ld, sqlite3_stmt *st, int i) {
  const char *s = (const char *)sqlite3_column_text(st, i);
  return vc_arena_strdup(&ld->r->arena, s ? s : "");
}

static void col_copy(char *dst, size_t cap, sqlite3_stmt *st, int i) {
  const char *s = (const char *)sqlite3_column_text(st, i);
  snprintf(dst, cap, "%s", s ? s : "");
}
#define COL_FIELD(dst, st, i) col_copy((dst), sizeof(dst), (st), (i))

static uint64_t col_u64(sqlite3_stmt *st, int i) {
  int64_t v = sqlite3_column_int64(st, i);
  return v < 0 ? 0 : (uint64_t)v;
}

static uint32_t col_u32(sqlite3_stmt *st, int i) {
  uint64_t v = col_u64(st, i);
  return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* Runs a query with ?1 = run id, calling row() on each row. */
static int each_row(loader *ld, const char *sql, int (*row)(loader *, sqlite3_stmt *)) {
  sqlite3_stmt *st;
  int rc = prepare(ld, sql, &st);
  if (rc) return rc;
  int src = SQLITE_DONE;
  while (!rc && (src = sqlite3_step(st)) == SQLITE_ROW) rc = row(ld, st);
  if (!rc && src != SQLITE_DONE) rc = fail_sql(ld, src, sql);
  sqlite3_finalize(st);
  return rc;
}

static int count_rows(loader *ld, const char *sql, uint32_t *n) {
  sqlite3_stmt *st;
  int rc = prepare(ld, sql, &st);
  if (rc) return rc;
  int src = sqlite3_step(st);
  if (src == SQLITE_ROW)
    *n = col_u32(st, 0);
  else
    rc = fail_sql(ld, src, sql);
  sqlite3_finalize(st);
  return rc;
}

/* ---- opening and choosing the run ---- */

/* Checked first without writing; then read through a read-write connection
   (never used to write) because only such a connection, closing last,
   removes the -wal and -shm files; a file the OS keeps read-only is still
   opened, read-only. */
static int open_for_reading(const char *path, sqlite3 **out, vc_error *err) {
  bool is_new;
  int rc = vc_schema_check_path(path, READ_BUSY_MS, &is_new, err);
  if (rc) return rc;
  if (is_new)
    return vc_fail(err, VC_ERR_DB, "results database %s does not exist or is empty", path);
  int src = sqlite3_open_v2(path, out, SQLITE_OPEN_READWRITE, NULL);
  if (src != SQLITE_OK) return vc_sqlfail(err, *out, src, path, READ_BUSY_MS, "opening");
  sqlite3_busy_timeout(*out, READ_BUSY_MS);
  rc = vc_schema_check(*out, path, READ_BUSY_MS, &is_new, err);
  if (!rc && is_new) rc = vc_fail(err, VC_ERR_DB, "results database %s holds no runs", path);
  return rc;
}

/* "3 complete, 2 interrupted, ...": for messages, so best effort. */
static void describe_runs(loader *ld, char *out, size_t cap) {
  snprintf(out, cap, "none");
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(ld->sql, "SELECT id, status FROM runs ORDER BY id DESC LIMIT 8", -1, &st,
                         NULL) != SQLITE_OK)
    return;
  size_t len = 0;
  while (sqlite3_step(st) == SQLITE_ROW && len < cap)
    len += (size_t)snprintf(out + len, cap - len, "%s%lld %s", len ? ", " : "",
                            (long long)sqlite3_column_int64(st, 0), sqlite3_column_text(st, 1));
  sqlite3_finalize(st);
}

static int find_run(loader *ld) {
  sqlite3_stmt *st;
  bool latest = ld->r->id == VC_RUN_LATEST;
  ld->r->id = 0;
  int rc = prepare(
      ld, latest ? "SELECT max(id) FROM runs" : "SELECT max(id) FROM runs WHERE status='complete'",
      &st);
  if (rc) return rc;
  int src = sqlite3_step(st);
  if (src == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
    ld->r->id = sqlite3_column_int64(st, 0);
  else if (src != SQLITE_ROW)
    rc = fail_sql(ld, src, "finding the last complete run");
  sqlite3_finalize(st);
  if (rc || ld->r->id) return rc;
  if (latest) return vc_fail(ld->err, VC_ERR_DB, "results database %s holds no run", ld->r->path);
  char runs[256];
  describe_runs(ld, runs, sizeof runs);
  return vc_fail(ld->err, VC_ERR_DB,
                 "results database %s has no complete run (latest runs: %s); name one as %s:ID",
                 ld->r->path, runs, ld->r->path);
}

static int run_row(loader *ld, sqlite3_stmt *st) {
  vc_run_data *r = ld->r;
  vc_run_info *in = &r->info;
  in->started_ns = sqlite3_column_int64(st, 0);
  r->ended_ns = sqlite3_column_int64(st, 1);
  in->harness_version = col_str(ld, st, 2);
  in->harness_commit = col_str(ld, st, 3);
  in->command_line = col_str(ld, st, 4);
  in->host = col_str(ld, st, 5);
  in->corpus_path = col_str(ld, st, 6);
  in->corpus_digest = col_str(ld, st, 7);
  in->shard = col_str(ld, st, 8);
  in->backend = col_str(ld, st, 9);
  in->modes = col_str(ld, st, 10);
  in->options = col_str(ld, st, 11);
  r->status = col_str(ld, st, 12);
  return 0;
}

static int load_run(loader *ld) {
  int rc = each_row(ld,
                    "SELECT started_ns, ended_ns, harness_version, harness_commit, command_line,"
                    " host, corpus_path, corpus_digest, shard, backend, modes, options, status"
                    " FROM runs WHERE id=?1",
                    run_row);
  if (!rc && !ld->r->status) {
    char runs[256];
    describe_runs(ld, runs, sizeof runs);
    rc = vc_fail(ld->err, VC_ERR_DB, "results database %s has no run %lld (latest runs: %s)",
                 ld->r->path, (long long)ld->r->id, runs);
  }
  return rc;
}

/* ---- the device ---- */

static int device_row(loader *ld, sqlite3_stmt *st) {
  vc_run_data *r = ld->r;
  vc_device_info *d = &r->device;
  r->has_device = true;
  COL_FIELD(d->api, st, 0);
  COL_FIELD(d->api_version, st, 1);
  COL_FIELD(d->driver_name, st, 2);
  COL_FIELD(d->driver_version, st, 3);
  d->vendor_id = col_u32(st, 4);
  d->device_id = col_u32(st, 5);
  COL_FIELD(d->device_name, st, 6);
  COL_FIELD(d->uuid, st, 7);
  d->compute_units = col_u32(st, 8);
  d->max_workgroup_invocations = col_u32(st, 9);
  for (int i = 0; i < 3; i++) d->max_workgroup_size[i] = col_u32(st, 10 + i);
  for (int i = 0; i < 3; i++) d->max_grid[i] = col_u32(st, 13 + i);
  d->max_shared_bytes = col_u64(st, 16);
  d->max_buffer_bytes = col_u64(st, 17);
  d->global_mem_bytes = col_u64(st, 18);
  d->timestamps = sqlite3_column_int(st, 19) != 0;
  d->cooperative = sqlite3_column_int(st, 20) != 0;
  COL_FIELD(d->float_env, st, 21);
  COL_FIELD(d->extra, st, 22);
  r->fingerprint = col_str(ld, st, 23);
  return 0;
}

/* ---- programs and results ---- */

static int program_row(loader *ld, sqlite3_stmt *st) {
  vc_run_data *r = ld->r;
  ld->prog_ids[r->nprogs] = sqlite3_column_int64(st, 0);
  vc_program_info *in = &r->progs[r->nprogs++].info;
  in->name = col_str(ld, st, 1);
  in->path = col_str(ld, st, 2);
  in->source_digest = col_str(ld, st, 3);
  in->segments = col_u32(st, 4);
  in->barriers = col_u32(st, 5);
  in->invocations = col_u64(st, 6);
  in->workgroups = col_u64(st, 7);
  in->buffer_bytes = col_u64(st, 8);
  in->tags = col_str(ld, st, 9);
  return 0;
}

static int load_programs(loader *ld) {
  uint32_t n = 0;
  int rc = count_rows(ld, "SELECT count(*) FROM programs WHERE run_id=?1", &n);
  if (rc) return rc;
  ld->r->progs = vc_arena_alloc(&ld->r->arena, (n ? n : 1) * sizeof *ld->r->progs);
  ld->prog_ids = calloc(n ? n : 1, sizeof *ld->prog_ids);
  if (!ld->prog_ids)
    return vc_fail(ld->err, VC_ERR_NOMEM, "loading %s: out of memory", ld->r->path);
  return each_row(ld,
                  "SELECT id, name, path, source_digest, segments, barriers, invocations,"
                  " workgroups, buffer_bytes, tags FROM programs WHERE run_id=?1 ORDER BY name",
                  program_row);
}

/* Results come in program-name order, like the programs, so each program's
   results are one slice of ld->all. */
static int result_row(loader *ld, sqlite3_stmt *st) {
  vc_run_data *r = ld->r;
  int64_t id = sqlite3_column_int64(st, 0), program_id = sqlite3_column_int64(st, 1);
  while (ld->cur < r->nprogs && ld->prog_ids[ld->cur] != program_id) ld->cur++;
  int status = vc_status_from_name((const char *)sqlite3_column_text(st, 4));
  if (ld->cur == r->nprogs || ld->nall == ld->cap || status < 0)
    return vc_fail(ld->err, VC_ERR_DB,
                   "results database %s: result %lld does not fit its run (program or status)",
                   r->path, (long long)id);
  vc_prog_data *p = &r->progs[ld->cur];
  vc_result *x = &ld->all[ld->nall];
  if (!p->nresults) p->results = x;
  p->nresults++;
  ld->by_id[ld->nall] = (id_index){id, ld->nall};
  ld->nall++;
  x->mode = col_str(ld, st, 2);
  x->repeat = col_u32(st, 3);
  x->status = (vc_status)status;
  COL_FIELD(x->reason, st, 5);
  x->wall_ns = col_u64(st, 6);
  x->device_ns = col_u64(st, 7);
  x->compile_ns = col_u64(st, 8);
  x->bytes_up = col_u64(st, 9);
  x->bytes_down = col_u64(st, 10);
  x->launches = col_u32(st, 11);
  x->passes = col_u32(st, 12);
  COL_FIELD(x->output_digest, st, 13);
  x->nondeterministic = sqlite3_column_int(st, 14) != 0;
  x->participants = col_u32(st, 15);
  x->virtual_per_participant = col_u32(st, 16);
  x->device_barriers = col_u64(st, 17);
  return 0;
}

static int cmp_id(const void *a, const void *b) {
  int64_t x = ((const id_index *)a)->id, y = ((const id_index *)b)->id;
  return (x > y) - (x < y);
}

static int load_results(loader *ld) {
  int rc = count_rows(ld, "SELECT count(*) FROM results WHERE run_id=?1", &ld->cap);
  if (rc) return rc;
  ld->all = vc_arena_alloc(&ld->r->arena, (ld->cap ? ld->cap : 1) * sizeof *ld->all);
  ld->by_id = malloc((ld->cap ? ld->cap : 1) * sizeof *ld->by_id);
  if (!ld->by_id) return vc_fail(ld->err, VC_ERR_NOMEM, "loading %s: out of memory", ld->r->path);
  rc = each_row(ld,
                "SELECT r.id, r.program_id, r.mode, r.repeat, r.status, r.reason, r.wall_ns,"
                " r.device_ns, r.compile_ns, r.bytes_up, r.bytes_down, r.launches, r.passes,"
                " r.output_digest, r.nondeterministic, r.participants,"
                " r.virtual_per_participant, r.device_barriers"
                " FROM results r JOIN programs p ON p.id = r.program_id WHERE r.run_id=?1"
                " ORDER BY p.name, CASE r.mode WHEN 'native' THEN 0 WHEN 'host-split' THEN 1"
                " WHEN 'resident-split' THEN 2 ELSE 3 END, r.mode, r.repeat",
                result_row);
  if (!rc) qsort(ld->by_id, ld->nall, sizeof *ld->by_id, cmp_id);
  return rc;
}

/* The result a divergence or segment row (column 0: result_id) belongs to. */
static vc_result *owner(loader *ld, sqlite3_stmt *st) {
  id_index key = {sqlite3_column_int64(st, 0), 0};
  id_index *hit = bsearch(&key, ld->by_id, ld->nall, sizeof key, cmp_id);
  return hit ? &ld->all[hit->index] : NULL;
}

static int bad_child(loader *ld, sqlite3_stmt *st, const char *table) {
  return vc_fail(ld->err, VC_ERR_DB,
                 "results database %s: a row of %s refers to result %lld, "
                 "which is not in run %lld",
                 ld->r->path, table, (long long)sqlite3_column_int64(st, 0), (long long)ld->r->id);
}

/* Divergences and segments: counted first so that each result gets arrays
   of the right size, then filled (ndivs and nsegs count up again). The read
   transaction keeps both queries on one snapshot. */
static int children_count_row(loader *ld, sqlite3_stmt *st) {
  vc_result *x = owner(ld, st);
  if (!x) return bad_child(ld, st, "results");
  uint32_t ndivs = col_u32(st, 1), nsegs = col_u32(st, 2);
  if (ndivs) x->divs = vc_arena_alloc(&ld->r->arena, ndivs * sizeof *x->divs);
  if (nsegs) x->segs = vc_arena_alloc(&ld->r->arena, nsegs * sizeof *x->segs);
  return 0;
}

static int div_row(loader *ld, sqlite3_stmt *st) {
  vc_result *x = owner(ld, st);
  if (!x || !x->divs) return bad_child(ld, st, "divergences");
  vc_divergence *d = &x->divs[x->ndivs++];
  COL_FIELD(d->buffer, st, 1);
  COL_FIELD(d->type, st, 2);
  d->first_index = col_u64(st, 3);
  d->count = col_u64(st, 4);
  d->context_start = col_u64(st, 5);
  COL_FIELD(d->expected_hex, st, 6);
  COL_FIELD(d->actual_hex, st, 7);
  const char *cls = (const char *)sqlite3_column_text(st, 8);
  int c = vc_divclass_from_name(cls);
  if (c < 0)
    return vc_fail(ld->err, VC_ERR_DB, "results database %s: divergence class '%s' is unknown",
                   ld->r->path, cls ? cls : "");
  d->cls = (vc_divclass)c;
  d->max_ulp = col_u64(st, 9);
  return 0;
}

static int seg_row(loader *ld, sqlite3_stmt *st) {
  vc_result *x = owner(ld, st);
  if (!x || !x->segs) return bad_child(ld, st, "segments");
  vc_segment_timing *s = &x->segs[x->nsegs++];
  s->pass = col_u32(st, 1);
  s->segment = col_u32(st, 2);
  s->wall_ns = col_u64(st, 3);
  s->device_ns = col_u64(st, 4);
  s->bytes_up = col_u64(st, 5);
  s->bytes_down = col_u64(st, 6);
  s->launches = col_u32(st, 7);
  return 0;
}

#define OF_RUN " WHERE result_id IN (SELECT id FROM results WHERE run_id=?1)"

static int load_children(loader *ld) {
  int rc = each_row(ld,
                    "SELECT r.id, (SELECT count(*) FROM divergences d WHERE d.result_id = r.id),"
                    " (SELECT count(*) FROM segments s WHERE s.result_id = r.id)"
                    " FROM results r WHERE r.run_id=?1",
                    children_count_row);
  if (!rc)
    rc =
        each_row(ld,
                 "SELECT result_id, buffer, type, first_index, count, context_start,"
                 " expected_hex, actual_hex, class, max_ulp FROM divergences" OF_RUN " ORDER BY id",
                 div_row);
  if (!rc)
    rc = each_row(ld,
                  "SELECT result_id, pass, segment, wall_ns, device_ns, bytes_up, bytes_down,"
                  " launches FROM segments" OF_RUN " ORDER BY result_id, pass, segment",
                  seg_row);
  return rc;
}

/* ---- the whole run ---- */

/* One read transaction, so that every query sees the same snapshot. */
static int load_all(loader *ld) {
  int rc = sqlite3_exec(ld->sql, "BEGIN", NULL, NULL, NULL);
  if (rc != SQLITE_OK) return fail_sql(ld, rc, "BEGIN");
  rc = ld->r->id > 0 ? 0 : find_run(ld);
  if (!rc) rc = load_run(ld);
  if (!rc)
    rc = each_row(ld,
                  "SELECT api, api_version, driver_name, driver_version, vendor_id, device_id,"
                  " device_name, uuid, compute_units, max_workgroup_invocations,"
                  " max_workgroup_size_x, max_workgroup_size_y, max_workgroup_size_z,"
                  " max_grid_x, max_grid_y, max_grid_z, max_shared_bytes, max_buffer_bytes,"
                  " global_mem_bytes, timestamps, cooperative, float_env, extra, fingerprint"
                  " FROM devices WHERE run_id=?1",
                  device_row);
  if (!rc) rc = load_programs(ld);
  if (!rc) rc = load_results(ld);
  if (!rc) rc = load_children(ld);
  sqlite3_exec(ld->sql, "COMMIT", NULL, NULL, NULL);
  return rc;
}

int vc_run_load(const char *path, int64_t run_id, vc_run_data **out, vc_error *err) {
  *out = NULL;
  vc_run_data *r = calloc(1, sizeof *r);
  if (!r) return vc_fail(err, VC_ERR_NOMEM, "loading %s: out of memory", path);
  vc_arena_init(&r->arena);
  r->path = vc_arena_strdup(&r->arena, path);
  r->id = run_id;
  r->fingerprint = "";
  loader ld = {.r = r, .err = err};
  int rc = open_for_reading(path, &ld.sql, err);
  if (!rc) rc = load_all(&ld);
  sqlite3_close_v2(ld.sql);
  free(ld.prog_ids);
  free(ld.by_id);
  if (rc) {
    vc_run_free(r);
    return rc;
  }
  *out = r;
  return 0;
}

void vc_run_spec_split(const char *spec, char *path, int64_t *run_id) {
  const char *colon = strrchr(spec, ':');
  size_t n = strlen(spec);
  *run_id = 0;
  if (colon && colon[1] && colon != spec) {
    const char *d = colon + 1;
    while (isdigit((unsigned char)*d)) d++;
    if (!*d && d - colon - 1 < 18) {
      *run_id = strtoll(colon + 1, NULL, 10);
      n = (size_t)(colon - spec);
    }
  }
  memcpy(path, spec, n);
  path[n] = '\0';
}

int vc_run_load_spec(const char *spec, vc_run_data **out, vc_error *err) {
  char *path = malloc(strlen(spec) + 1);
  if (!path) return vc_fail(err, VC_ERR_NOMEM, "loading %s: out of memory", spec);
  int64_t run_id;
  vc_run_spec_split(spec, path, &run_id);
  int rc;
  if (strrchr(spec, ':') && !run_id && strcmp(path, spec) != 0)
    rc = vc_fail(err, VC_ERR_USAGE, "%s: run 0 does not exist (runs count from 1)", spec);
  else
    rc = vc_run_load(path, run_id, out, err);
  free(path);
  return rc;
}

void vc_run_free(vc_run_data *r) {
  if (!r) return;
  vc_arena_free(&r->arena);
  free(r);
}
