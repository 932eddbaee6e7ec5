/* The read side of a results file: one run, all its rows, in memory. */
#include "results/store/load.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/strbuf.h"
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

static int col_status(loader *ld, sqlite3_stmt *st, int i, vc_status *dst) {
  const char *name = (const char *)sqlite3_column_text(st, i);
  int s = vc_status_from_name(name);
  if (s < 0)
    return vc_fail(ld->err, VC_ERR_DB, "results database %s: result status '%s' is unknown",
                   ld->r->path, name ? name : "");
  *dst = (vc_status)s;
  return 0;
}

static int col_divclass(loader *ld, sqlite3_stmt *st, int i, vc_divclass *dst) {
  const char *name = (const char *)sqlite3_column_text(st, i);
  int c = vc_divclass_from_name(name);
  if (c < 0)
    return vc_fail(ld->err, VC_ERR_DB, "results database %s: divergence class '%s' is unknown",
                   ld->r->path, name ? name : "");
  *dst = (vc_divclass)c;
  return 0;
}

/* One column of a table into dst, by its kind (harness/model/result_columns.h);
   0 or an error. */
#define LOAD_U32(ld, st, i, dst) ((dst) = col_u32((st), (i)), 0)
#define LOAD_U64(ld, st, i, dst) ((dst) = col_u64((st), (i)), 0)
#define LOAD_I64(ld, st, i, dst) ((dst) = sqlite3_column_int64((st), (i)), 0)
#define LOAD_BOOL(ld, st, i, dst) ((dst) = sqlite3_column_int((st), (i)) != 0, 0)
#define LOAD_TEXT(ld, st, i, dst) ((dst) = col_str((ld), (st), (i)), 0)
#define LOAD_CHARS(ld, st, i, dst) (COL_FIELD((dst), (st), (i)), 0)
#define LOAD_MODE(ld, st, i, dst) LOAD_TEXT(ld, st, i, dst)
#define LOAD_STATUS(ld, st, i, dst) col_status((ld), (st), (i), &(dst))
#define LOAD_DIVCLASS(ld, st, i, dst) col_divclass((ld), (st), (i), &(dst))
/* Loads every column of a table, from column i on, into the record rec
   points to; the SELECT lists them in the table's order. */
#define LOAD_COLUMN(kind, field, column, size)                                                     \
  if (!rc) rc = LOAD_##kind(ld, st, i, rec->field);                                                \
  i++;

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

/* each_row on "SELECT head, t's own columns FROM tail": a column that a file
   of an older version lacks reads as 0 or "". */
static int each_row_of(loader *ld, const char *head, const vc_table_def *t, const char *alias,
                       const char *tail, int (*row)(loader *, sqlite3_stmt *)) {
  vc_strbuf sql;
  vc_sb_init(&sql);
  vc_sb_printf(&sql, "SELECT %s", head);
  int rc = vc_schema_select_list(ld->sql, t, alias, &sql);
  vc_sb_printf(&sql, " %s", tail);
  rc = rc == SQLITE_OK ? each_row(ld, vc_sb_str(&sql), row) : fail_sql(ld, rc, "reading columns");
  vc_sb_free(&sql);
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

/* Checked first without writing, then read through vc_schema_open_reader
   (never used to write). A file of an older schema version is read as it
   is, never migrated. */
static int open_for_reading(const char *path, sqlite3 **out, vc_error *err) {
  int version;
  int rc = vc_schema_check_path(path, READ_BUSY_MS, false, &version, err);
  if (rc) return rc;
  char dir[4096];
  if (!version && vc_db_missing_dir(path, dir, sizeof dir))
    return vc_fail(err, VC_ERR_DB, "results database %s does not exist: no such directory: %s",
                   path, dir);
  if (!version)
    return vc_fail(err, VC_ERR_DB, "results database %s does not exist or is empty", path);
  int src = vc_schema_open_reader(path, out);
  if (src != SQLITE_OK) return vc_sqlfail(err, *out, src, path, READ_BUSY_MS, "opening");
  sqlite3_busy_timeout(*out, READ_BUSY_MS);
  rc = vc_schema_check(*out, path, READ_BUSY_MS, &version, err);
  if (!rc && !version) rc = vc_fail(err, VC_ERR_DB, "results database %s holds no runs", path);
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
  vc_run_info *rec = &r->info;
  r->ended_ns = sqlite3_column_int64(st, 0);
  r->status = col_str(ld, st, 1);
  int rc = 0, i = 2;
  VC_RUN_COLUMNS(LOAD_COLUMN)
  return rc;
}

/* The runs after this one that did not complete: compare and report warn
   of them (a newer nightly that crashed is easy to miss). */
static int newer_row(loader *ld, sqlite3_stmt *st) {
  vc_run_data *r = ld->r;
  vc_run_ref *ref = &r->unfinished_newer[r->nunfinished_newer++];
  ref->id = sqlite3_column_int64(st, 0);
  ref->status = col_str(ld, st, 1);
  return 0;
}

#define NEWER_UNFINISHED " FROM runs WHERE id > ?1 AND status <> 'complete'"

static int load_run(loader *ld) {
  int rc =
      each_row_of(ld, "ended_ns, status", &vc_table_runs, "t", "FROM runs t WHERE id=?1", run_row);
  if (!rc && !ld->r->status) {
    char runs[256];
    describe_runs(ld, runs, sizeof runs);
    rc = vc_fail(ld->err, VC_ERR_DB, "results database %s has no run %lld (latest runs: %s)",
                 ld->r->path, (long long)ld->r->id, runs);
  }
  uint32_t n = 0;
  if (!rc) rc = count_rows(ld, "SELECT count(*)" NEWER_UNFINISHED, &n);
  if (!rc && n) {
    ld->r->unfinished_newer = vc_arena_alloc(&ld->r->arena, n * sizeof *ld->r->unfinished_newer);
    rc = each_row(ld, "SELECT id, status" NEWER_UNFINISHED " ORDER BY id", newer_row);
  }
  return rc;
}

/* ---- the device ---- */

static int device_row(loader *ld, sqlite3_stmt *st) {
  vc_run_data *r = ld->r;
  vc_device_info *rec = &r->device;
  r->has_device = true;
  r->fingerprint = col_str(ld, st, 0);
  int rc = 0, i = 1;
  VC_DEVICE_COLUMNS(LOAD_COLUMN)
  return rc;
}

/* ---- programs and results ---- */

static int program_row(loader *ld, sqlite3_stmt *st) {
  vc_run_data *r = ld->r;
  ld->prog_ids[r->nprogs] = sqlite3_column_int64(st, 0);
  vc_program_info *rec = &r->progs[r->nprogs++].info;
  int rc = 0, i = 1;
  VC_PROGRAM_COLUMNS(LOAD_COLUMN)
  return rc;
}

static int load_programs(loader *ld) {
  uint32_t n = 0;
  int rc = count_rows(ld, "SELECT count(*) FROM programs WHERE run_id=?1", &n);
  if (rc) return rc;
  ld->r->progs = vc_arena_alloc(&ld->r->arena, (n ? n : 1) * sizeof *ld->r->progs);
  ld->prog_ids = calloc(n ? n : 1, sizeof *ld->prog_ids);
  if (!ld->prog_ids)
    return vc_fail(ld->err, VC_ERR_NOMEM, "loading %s: out of memory", ld->r->path);
  return each_row_of(ld, "t.id", &vc_table_programs, "t",
                     "FROM programs t WHERE run_id=?1 ORDER BY name", program_row);
}

/* Results come in program-name order, like the programs, so each program's
   results are one slice of ld->all. */
static int result_row(loader *ld, sqlite3_stmt *st) {
  vc_run_data *r = ld->r;
  int64_t id = sqlite3_column_int64(st, 0), program_id = sqlite3_column_int64(st, 1);
  while (ld->cur < r->nprogs && ld->prog_ids[ld->cur] != program_id) ld->cur++;
  if (ld->cur == r->nprogs || ld->nall == ld->cap)
    return vc_fail(ld->err, VC_ERR_DB,
                   "results database %s: result %lld does not fit its run (program)", r->path,
                   (long long)id);
  vc_prog_data *p = &r->progs[ld->cur];
  vc_result *rec = &ld->all[ld->nall];
  if (!p->nresults) p->results = rec;
  p->nresults++;
  ld->by_id[ld->nall] = (id_index){id, ld->nall};
  ld->nall++;
  int rc = 0, i = 2;
  VC_RESULT_COLUMNS(LOAD_COLUMN)
  return rc;
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
  vc_strbuf order;
  vc_sb_init(&order);
  vc_sb_puts(&order, "FROM results r JOIN programs p ON p.id = r.program_id WHERE r.run_id=?1"
                     " ORDER BY p.name, CASE r.mode");
  for (int m = 0; m < VC_MODE_COUNT; m++)
    vc_sb_printf(&order, " WHEN '%s' THEN %d", vc_mode_name((vc_mode)m), m);
  vc_sb_printf(&order, " ELSE %d END, r.mode, r.repeat", VC_MODE_COUNT);
  rc = each_row_of(ld, "r.id, r.program_id", &vc_table_results, "r", vc_sb_str(&order), result_row);
  vc_sb_free(&order);
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
  vc_divergence *rec = &x->divs[x->ndivs++];
  int rc = 0, i = 1;
  VC_DIVERGENCE_COLUMNS(LOAD_COLUMN)
  return rc;
}

static int seg_row(loader *ld, sqlite3_stmt *st) {
  vc_result *x = owner(ld, st);
  if (!x || !x->segs) return bad_child(ld, st, "segments");
  vc_segment_timing *rec = &x->segs[x->nsegs++];
  int rc = 0, i = 1;
  VC_SEGMENT_COLUMNS(LOAD_COLUMN)
  return rc;
}

/* A result's own divergences (attempt 0) stay in divs; those of the failed
   attempts a flake rerun superseded go to attempt_divs, in their order. The
   store writes the own ones first, so this only moves a boundary; a stable
   partition keeps any other order right too. */
static void split_attempt_divs(vc_result *x) {
  uint32_t own = 0;
  for (uint32_t k = 0; k < x->ndivs; k++) {
    if (x->divs[k].attempt) continue;
    vc_divergence d = x->divs[k];
    memmove(&x->divs[own + 1], &x->divs[own], (k - own) * sizeof d);
    x->divs[own++] = d;
  }
  x->nattempt_divs = x->ndivs - own;
  x->attempt_divs = x->nattempt_divs ? x->divs + own : NULL;
  x->ndivs = own;
}

#define OF_RUN " WHERE result_id IN (SELECT id FROM results WHERE run_id=?1)"

static int load_children(loader *ld) {
  int rc = each_row(ld,
                    "SELECT r.id, (SELECT count(*) FROM divergences d WHERE d.result_id = r.id),"
                    " (SELECT count(*) FROM segments s WHERE s.result_id = r.id)"
                    " FROM results r WHERE r.run_id=?1",
                    children_count_row);
  if (!rc)
    rc = each_row_of(ld, "t.result_id", &vc_table_divergences, "t",
                     "FROM divergences t" OF_RUN " ORDER BY id", div_row);
  if (!rc)
    rc = each_row_of(ld, "t.result_id", &vc_table_segments, "t",
                     "FROM segments t" OF_RUN " ORDER BY result_id, pass, segment", seg_row);
  for (uint32_t i = 0; !rc && i < ld->nall; i++) split_attempt_divs(&ld->all[i]);
  return rc;
}

/* ---- the litmus run of the same device ---- */

#define LITMUS_OF_RUN                                                                              \
  "(SELECT max(l.id) FROM litmus_runs l JOIN runs r ON r.id = ?1"                                 \
  " LEFT JOIN devices d ON d.run_id = r.id WHERE l.backend = r.backend"                           \
  " AND l.device_name = coalesce(d.device_name, '') AND l.verdict <> 'running')"

static int litmus_run_row(loader *ld, sqlite3_stmt *st) {
  vc_run_data *r = ld->r;
  r->litmus_id = sqlite3_column_int64(st, 0);
  vc_litmus_run_info *rec = &r->litmus_info;
  int rc = 0, i = 1;
  VC_LITMUS_RUN_COLUMNS(LOAD_COLUMN)
  return rc;
}

static int litmus_row(loader *ld, sqlite3_stmt *st) {
  vc_run_data *r = ld->r;
  vc_litmus_result *rec = &r->litmus[r->nlitmus++];
  int rc = 0, i = 1; /* after t.id */
  VC_LITMUS_COLUMNS(LOAD_COLUMN)
  return rc;
}

static int progress_row(loader *ld, sqlite3_stmt *st) {
  vc_run_data *r = ld->r;
  vc_progress_result *rec = &r->progress[r->nprogress++];
  int rc = 0, i = 1; /* after t.id */
  VC_PROGRESS_COLUMNS(LOAD_COLUMN)
  return rc;
}

/* A file older than schema 13 has no forward-progress checks. */
static int load_progress(loader *ld) {
  uint32_t n = 0;
  bool have = false;
  int src = vc_schema_has_table(ld->sql, "progress_results", &have);
  if (src != SQLITE_OK) return fail_sql(ld, src, "listing the tables");
  if (!have) return 0;
  int rc = count_rows(
      ld, "SELECT count(*) FROM progress_results WHERE litmus_run = " LITMUS_OF_RUN, &n);
  if (rc || !n) return rc;
  ld->r->progress = vc_arena_alloc(&ld->r->arena, n * sizeof *ld->r->progress);
  return each_row_of(ld, "t.id", &vc_table_progress_results, "t",
                     "FROM progress_results t WHERE t.litmus_run = " LITMUS_OF_RUN
                     " ORDER BY t.id",
                     progress_row);
}

/* A file older than schema 12 has no litmus tables: nothing to load. */
static int load_litmus(loader *ld) {
  uint32_t n = 0;
  bool have = false;
  int src = vc_schema_has_table(ld->sql, "litmus_results", &have);
  if (src != SQLITE_OK) return fail_sql(ld, src, "listing the tables");
  if (!have) return 0;
  int rc = each_row_of(ld, "t.id", &vc_table_litmus_runs, "t",
                       "FROM litmus_runs t WHERE t.id = " LITMUS_OF_RUN, litmus_run_row);
  if (!rc && ld->r->litmus_id)
    rc = count_rows(ld, "SELECT count(*) FROM litmus_results WHERE litmus_run = " LITMUS_OF_RUN,
                    &n);
  if (rc || !ld->r->litmus_id) return rc;
  if (n) {
    ld->r->litmus = vc_arena_alloc(&ld->r->arena, n * sizeof *ld->r->litmus);
    rc = each_row_of(ld, "t.id", &vc_table_litmus_results, "t",
                     "FROM litmus_results t WHERE t.litmus_run = " LITMUS_OF_RUN " ORDER BY t.id",
                     litmus_row);
  }
  return rc ? rc : load_progress(ld);
}

static int finding_row(loader *ld, sqlite3_stmt *st) {
  vc_run_data *r = ld->r;
  vc_finding_rec *rec = &r->findings[r->nfindings++];
  int rc = 0, i = 1; /* after t.id */
  VC_FINDING_COLUMNS(LOAD_COLUMN)
  return rc;
}

/* Every finding of the file, whatever its runs; a file older than schema 14
   has none. */
static int load_findings(loader *ld) {
  uint32_t n = 0;
  bool have = false;
  int src = vc_schema_has_table(ld->sql, "findings", &have);
  if (src != SQLITE_OK) return fail_sql(ld, src, "listing the tables");
  if (!have) return 0;
  int rc = count_rows(ld, "SELECT count(*) FROM findings", &n);
  if (rc || !n) return rc;
  ld->r->findings = vc_arena_alloc(&ld->r->arena, n * sizeof *ld->r->findings);
  return each_row_of(ld, "t.id", &vc_table_findings, "t", "FROM findings t ORDER BY t.id",
                     finding_row);
}

/* ---- the crossover map of the same device ---- */

#define CROSSOVER_OF_RUN                                                                           \
  "(SELECT max(c.id) FROM crossover_maps c JOIN runs r ON r.id = ?1"                              \
  " LEFT JOIN devices d ON d.run_id = r.id WHERE c.backend = r.backend"                           \
  " AND c.device_name = coalesce(d.device_name, '') AND c.verdict <> 'running')"

static int crossover_map_row(loader *ld, sqlite3_stmt *st) {
  vc_run_data *r = ld->r;
  r->crossover_id = sqlite3_column_int64(st, 0);
  vc_crossover_map_info *rec = &r->crossover_info;
  int rc = 0, i = 1;
  VC_CROSSOVER_MAP_COLUMNS(LOAD_COLUMN)
  return rc;
}

static int crossover_row(loader *ld, sqlite3_stmt *st) {
  vc_run_data *r = ld->r;
  vc_crossover_point *rec = &r->crossover[r->ncrossover++];
  int rc = 0, i = 1; /* after t.id */
  VC_CROSSOVER_COLUMNS(LOAD_COLUMN)
  return rc;
}

/* A file older than schema 15 has no crossover maps. */
static int load_crossover(loader *ld) {
  uint32_t n = 0;
  bool have = false;
  int src = vc_schema_has_table(ld->sql, "crossover_points", &have);
  if (src != SQLITE_OK) return fail_sql(ld, src, "listing the tables");
  if (!have) return 0;
  int rc = each_row_of(ld, "t.id", &vc_table_crossover_maps, "t",
                       "FROM crossover_maps t WHERE t.id = " CROSSOVER_OF_RUN, crossover_map_row);
  if (rc || !ld->r->crossover_id) return rc;
  rc = count_rows(
      ld, "SELECT count(*) FROM crossover_points WHERE crossover_map = " CROSSOVER_OF_RUN, &n);
  if (rc || !n) return rc;
  ld->r->crossover = vc_arena_alloc(&ld->r->arena, n * sizeof *ld->r->crossover);
  return each_row_of(ld, "t.id", &vc_table_crossover_points, "t",
                     "FROM crossover_points t WHERE t.crossover_map = " CROSSOVER_OF_RUN
                     " ORDER BY t.id",
                     crossover_row);
}

/* ---- the whole run ---- */

/* One read transaction, so that every query sees the same snapshot. */
static int load_all(loader *ld) {
  int rc = sqlite3_exec(ld->sql, "BEGIN", NULL, NULL, NULL);
  if (rc != SQLITE_OK) return fail_sql(ld, rc, "BEGIN");
  rc = ld->r->id > 0 ? 0 : find_run(ld);
  if (!rc) rc = load_run(ld);
  if (!rc)
    rc = each_row_of(ld, "t.fingerprint", &vc_table_devices, "t", "FROM devices t WHERE run_id=?1",
                     device_row);
  if (!rc) rc = load_programs(ld);
  if (!rc) rc = load_results(ld);
  if (!rc) rc = load_children(ld);
  if (!rc) rc = load_litmus(ld);
  if (!rc) rc = load_findings(ld);
  if (!rc) rc = load_crossover(ld);
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
