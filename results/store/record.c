/* The recorder: writes runs, devices, programs and their results. */
#include "results/store/record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "results/store/busy.h"
#include "results/store/db_internal.h"
#include "results/store/schema.h"
#include "results/store/sqlerr.h"

enum {
  ST_RUN, ST_DEVICE, ST_RUN_STATUS, ST_PROGRAM, ST_RESULT, ST_DIV, ST_SEG, ST_END,
  ST_LITMUS_RUN, ST_LITMUS_ROW, ST_PROGRESS_ROW, ST_LITMUS_END, ST_FINDING, ST_CROSSOVER_MAP,
  ST_CROSSOVER_ROW, ST_CROSSOVER_END, ST_COUNT
};

/* ", col1, col2, ..." and ",?,?,...": a table's own columns, by name, and
   a parameter for each, in the order the binders below fill them. */
#define COL_NAME(kind, field, column, size) ", " #column
#define COL_PARAM(kind, field, column, size) ",?"

/* clang-format off */
static const char *const stmt_sql[ST_COUNT] = {
    [ST_RUN] = "INSERT INTO runs(status" VC_RUN_COLUMNS(COL_NAME) ") VALUES('running'"
               VC_RUN_COLUMNS(COL_PARAM) ")",
    [ST_DEVICE] = "INSERT INTO devices(run_id" VC_DEVICE_COLUMNS(COL_NAME) ", fingerprint)"
                  " VALUES(?" VC_DEVICE_COLUMNS(COL_PARAM) ",?)",
    [ST_RUN_STATUS] = "SELECT status FROM runs WHERE id=?",
    [ST_PROGRAM] = "INSERT INTO programs(run_id" VC_PROGRAM_COLUMNS(COL_NAME) ") VALUES(?"
                   VC_PROGRAM_COLUMNS(COL_PARAM) ")",
    [ST_RESULT] = "INSERT INTO results(run_id, program_id" VC_RESULT_COLUMNS(COL_NAME)
                  ") VALUES(?,?" VC_RESULT_COLUMNS(COL_PARAM) ")",
    [ST_DIV] = "INSERT INTO divergences(result_id" VC_DIVERGENCE_COLUMNS(COL_NAME) ") VALUES(?"
               VC_DIVERGENCE_COLUMNS(COL_PARAM) ")",
    [ST_SEG] = "INSERT INTO segments(result_id" VC_SEGMENT_COLUMNS(COL_NAME) ") VALUES(?"
               VC_SEGMENT_COLUMNS(COL_PARAM) ")",
    [ST_END] = "UPDATE runs SET status=?, ended_ns=? WHERE id=? AND status='running'",
    [ST_LITMUS_RUN] = "INSERT INTO litmus_runs(id" VC_LITMUS_RUN_COLUMNS(COL_NAME) ") VALUES(NULL"
                      VC_LITMUS_RUN_COLUMNS(COL_PARAM) ")",
    [ST_LITMUS_ROW] = "INSERT INTO litmus_results(litmus_run" VC_LITMUS_COLUMNS(COL_NAME)
                      ") VALUES(?" VC_LITMUS_COLUMNS(COL_PARAM) ")",
    [ST_PROGRESS_ROW] = "INSERT INTO progress_results(litmus_run" VC_PROGRESS_COLUMNS(COL_NAME)
                        ") VALUES(?" VC_PROGRESS_COLUMNS(COL_PARAM) ")",
    [ST_LITMUS_END] = "UPDATE litmus_runs SET verdict=?, wall_ns=? WHERE id=?",
    [ST_FINDING] = "INSERT INTO findings(id" VC_FINDING_COLUMNS(COL_NAME) ") VALUES(NULL"
                   VC_FINDING_COLUMNS(COL_PARAM) ") ON CONFLICT(signature) DO UPDATE SET"
                   " modes=excluded.modes, programs=excluded.programs,"
                   " last_run=excluded.last_run",
    [ST_CROSSOVER_MAP] = "INSERT INTO crossover_maps(id" VC_CROSSOVER_MAP_COLUMNS(COL_NAME)
                         ") VALUES(NULL" VC_CROSSOVER_MAP_COLUMNS(COL_PARAM) ")",
    [ST_CROSSOVER_ROW] = "INSERT INTO crossover_points(crossover_map" VC_CROSSOVER_COLUMNS(COL_NAME)
                         ") VALUES(?" VC_CROSSOVER_COLUMNS(COL_PARAM) ")",
    [ST_CROSSOVER_END] = "UPDATE crossover_maps SET verdict=?, wall_ns=? WHERE id=?",
};
/* clang-format on */

struct vc_db {
  sqlite3 *sql;
  char *path;
  int busy_ms;
  vc_db_busy busy; /* the connection's busy handler's state */
  sqlite3_stmt *st[ST_COUNT];
};

sqlite3 *vc_db_sqlite(vc_db *db) { return db->sql; }
const char *vc_db_path(const vc_db *db) { return db->path; }

int64_t vc_unix_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- binding: positional parameters filled in order ---- */

typedef struct binder {
  sqlite3_stmt *st;
  int next;
  int rc;
} binder;

static binder bind_start(sqlite3_stmt *st) {
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  return (binder){st, 1, SQLITE_OK};
}

static void b_textn(binder *b, const char *s, size_t cap) {
  if (!s) s = "";
  int rc = sqlite3_bind_text(b->st, b->next++, s, (int)strnlen(s, cap), SQLITE_TRANSIENT);
  if (b->rc == SQLITE_OK) b->rc = rc;
}

static void b_text(binder *b, const char *s) { b_textn(b, s, (size_t)1 << 30); }
#define B_FIELD(b, field) b_textn((b), (field), sizeof(field))

static void b_i64(binder *b, int64_t v) {
  int rc = sqlite3_bind_int64(b->st, b->next++, v);
  if (b->rc == SQLITE_OK) b->rc = rc;
}

static void b_u64(binder *b, uint64_t v) { b_i64(b, v > INT64_MAX ? INT64_MAX : (int64_t)v); }

/* One column of a table, by its kind (harness/model/result_columns.h). */
#define BIND_U32(b, v) b_u64((b), (v))
#define BIND_U64(b, v) b_u64((b), (v))
#define BIND_I64(b, v) b_i64((b), (v))
#define BIND_BOOL(b, v) b_i64((b), (v) ? 1 : 0)
#define BIND_TEXT(b, v) b_text((b), (v))
#define BIND_CHARS(b, v) B_FIELD((b), (v))
#define BIND_MODE(b, v) b_text((b), (v))
#define BIND_STATUS(b, v) b_text((b), vc_status_name(v))
#define BIND_DIVCLASS(b, v) b_text((b), vc_divclass_name(v))
/* Binds every column of a table from the record rec points to. */
#define BIND_COLUMN(kind, field, column, size) BIND_##kind(&b, rec->field);

/* Runs a bound insert or update to completion. */
static int b_run(vc_db *db, binder *b, const char *what, vc_error *err) {
  int rc = b->rc;
  if (rc == SQLITE_OK) rc = sqlite3_step(b->st);
  /* the message before the reset, which forgets the system's reason */
  int failed = rc != SQLITE_DONE && rc != SQLITE_OK && rc != SQLITE_ROW
                   ? vc_sqlfail(err, db->sql, rc, db->path, db->busy_ms, what)
                   : 0;
  sqlite3_reset(b->st);
  return failed;
}

static int exec(vc_db *db, const char *sql, vc_error *err) {
  int rc = sqlite3_exec(db->sql, sql, NULL, NULL, NULL);
  if (rc != SQLITE_OK) return vc_sqlfail(err, db->sql, rc, db->path, db->busy_ms, sql);
  return 0;
}

static void rollback(vc_db *db) {
  if (!sqlite3_get_autocommit(db->sql)) sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
}

/* ---- opening ---- */

static int set_wal(vc_db *db, vc_error *err) {
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(db->sql, "PRAGMA journal_mode=WAL", -1, &st, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_step(st);
  bool wal = rc == SQLITE_ROW && strcmp((const char *)sqlite3_column_text(st, 0), "wal") == 0;
  sqlite3_finalize(st);
  if (rc != SQLITE_ROW)
    return vc_sqlfail(err, db->sql, rc, db->path, db->busy_ms, "setting WAL mode");
  if (!wal) return vc_fail(err, VC_ERR_DB, "results database %s cannot use WAL mode", db->path);
  return 0;
}

/* A new file gets the schema, a file of an older version its migration,
   each in one write transaction. Another process may have been quicker, so
   the check is repeated under the write lock. */
static int upgrade_schema(vc_db *db, vc_error *err) {
  int rc = set_wal(db, err);
  if (!rc) rc = exec(db, "BEGIN IMMEDIATE", err);
  if (rc) return rc;
  int version;
  rc = vc_schema_check(db->sql, db->path, db->busy_ms, &version, err);
  if (!rc && version == 0) rc = vc_schema_create(db->sql, db->path, db->busy_ms, err);
  if (!rc && version && version < VC_DB_SCHEMA_VERSION)
    rc = vc_schema_migrate(db->sql, db->path, db->busy_ms, version, err);
  if (!rc) rc = exec(db, "COMMIT", err);
  if (rc) rollback(db);
  return rc;
}

/* Foreign keys go on only after a migration: it rebuilds tables that
   others refer to. */
static int prepare_file(vc_db *db, int version, vc_error *err) {
  int rc = version < VC_DB_SCHEMA_VERSION ? upgrade_schema(db, err) : set_wal(db, err);
  if (!rc) rc = exec(db, "PRAGMA foreign_keys=ON; PRAGMA synchronous=NORMAL", err);
  for (int i = 0; !rc && i < ST_COUNT; i++) {
    int src =
        sqlite3_prepare_v3(db->sql, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &db->st[i], NULL);
    if (src != SQLITE_OK)
      rc = vc_sqlfail(err, db->sql, src, db->path, db->busy_ms, "preparing statements");
  }
  return rc;
}

int vc_db_open(const char *path, int busy_ms, vc_db **out, vc_error *err) {
  *out = NULL;
  int version;
  int rc = vc_schema_check_path(path, busy_ms < 0 ? 0 : busy_ms, true, &version, err);
  if (rc) return rc;
  vc_db *db = calloc(1, sizeof *db);
  if (!db || !(db->path = strdup(path))) {
    free(db);
    return vc_fail(err, VC_ERR_NOMEM, "opening results database %s: out of memory", path);
  }
  db->busy_ms = busy_ms < 0 ? 0 : busy_ms;
  int src = sqlite3_open_v2(path, &db->sql, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
  if (src != SQLITE_OK) {
    rc = vc_sqlfail(err, db->sql, src, path, db->busy_ms, "opening");
  } else {
    vc_db_busy_install(db->sql, &db->busy, db->path, db->busy_ms);
    rc = prepare_file(db, version, err);
  }
  if (rc) {
    vc_db_close(db);
    return rc;
  }
  *out = db;
  return 0;
}

void vc_db_close(vc_db *db) {
  if (!db) return;
  for (int i = 0; i < ST_COUNT; i++) sqlite3_finalize(db->st[i]);
  sqlite3_close_v2(db->sql);
  free(db->path);
  free(db);
}

/* ---- runs and devices ---- */

int vc_db_begin_run(vc_db *db, const vc_run_info *rec, int64_t *run_id, vc_error *err) {
  binder b = bind_start(db->st[ST_RUN]);
  VC_RUN_COLUMNS(BIND_COLUMN)
  int rc = b_run(db, &b, "starting a run", err);
  if (rc) return rc;
  *run_id = sqlite3_last_insert_rowid(db->sql);
  return 0;
}

int vc_db_record_device(vc_db *db, int64_t run_id, const vc_device_info *rec,
                        const char *fingerprint, vc_error *err) {
  binder b = bind_start(db->st[ST_DEVICE]);
  b_i64(&b, run_id);
  VC_DEVICE_COLUMNS(BIND_COLUMN)
  b_text(&b, fingerprint);
  char what[64];
  snprintf(what, sizeof what, "recording the device of run %lld", (long long)run_id);
  return b_run(db, &b, what, err);
}

/* The run must exist and still be running. */
static int check_running(vc_db *db, int64_t run_id, vc_error *err) {
  sqlite3_stmt *st = db->st[ST_RUN_STATUS];
  sqlite3_reset(st);
  sqlite3_bind_int64(st, 1, run_id);
  int rc = sqlite3_step(st);
  char status[16] = "";
  if (rc == SQLITE_ROW) snprintf(status, sizeof status, "%s", sqlite3_column_text(st, 0));
  sqlite3_reset(st);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    return vc_sqlfail(err, db->sql, rc, db->path, db->busy_ms, "reading a run");
  if (rc == SQLITE_DONE)
    return vc_fail(err, VC_ERR_DB, "results database %s has no run %lld", db->path,
                   (long long)run_id);
  if (strcmp(status, "running") != 0)
    return vc_fail(err, VC_ERR_DB, "run %lld of %s has ended (%s) and takes no more results",
                   (long long)run_id, db->path, status);
  return 0;
}

/* ---- one program ---- */

static int insert_program(vc_db *db, int64_t run_id, const vc_program_info *rec, int64_t *id,
                          vc_error *err) {
  const vc_program_info *p = rec;
  binder b = bind_start(db->st[ST_PROGRAM]);
  b_i64(&b, run_id);
  VC_PROGRAM_COLUMNS(BIND_COLUMN)
  int rc = b.rc == SQLITE_OK ? sqlite3_step(b.st) : b.rc;
  sqlite3_reset(b.st);
  if ((rc & 0xff) == SQLITE_CONSTRAINT)
    return vc_fail(err, VC_ERR_DB,
                   "program %s is already recorded in run %lld of %s; program names must be "
                   "unique in a run",
                   p->name, (long long)run_id, db->path);
  if (rc != SQLITE_DONE) return vc_sqlfail(err, db->sql, rc, db->path, db->busy_ms, p->name);
  *id = sqlite3_last_insert_rowid(db->sql);
  return 0;
}

static int insert_divergence(vc_db *db, int64_t result_id, const vc_divergence *rec,
                             const char *what, vc_error *err) {
  binder b = bind_start(db->st[ST_DIV]);
  b_i64(&b, result_id);
  VC_DIVERGENCE_COLUMNS(BIND_COLUMN)
  return b_run(db, &b, what, err);
}

static int insert_segment(vc_db *db, int64_t result_id, const vc_segment_timing *rec,
                          const char *what, vc_error *err) {
  binder b = bind_start(db->st[ST_SEG]);
  b_i64(&b, result_id);
  VC_SEGMENT_COLUMNS(BIND_COLUMN)
  return b_run(db, &b, what, err);
}

static int insert_result(vc_db *db, int64_t run_id, int64_t program_id, const vc_result *rec,
                         const char *what, vc_error *err) {
  const vc_result *r = rec;
  binder b = bind_start(db->st[ST_RESULT]);
  b_i64(&b, run_id);
  b_i64(&b, program_id);
  VC_RESULT_COLUMNS(BIND_COLUMN)
  int rc = b_run(db, &b, what, err);
  if (rc) return rc;
  int64_t result_id = sqlite3_last_insert_rowid(db->sql);
  for (uint32_t i = 0; !rc && i < r->ndivs; i++)
    rc = insert_divergence(db, result_id, &r->divs[i], what, err);
  for (uint32_t i = 0; !rc && i < r->nattempt_divs; i++)
    rc = insert_divergence(db, result_id, &r->attempt_divs[i], what, err);
  for (uint32_t i = 0; !rc && i < r->nsegs; i++)
    rc = insert_segment(db, result_id, &r->segs[i], what, err);
  return rc;
}

static int check_results(const vc_db *db, const vc_program_info *prog, const vc_result *results,
                         uint32_t nresults, vc_error *err) {
  if (!prog->name || !prog->name[0])
    return vc_fail(err, VC_ERR_USAGE, "recording into %s: a program without a name", db->path);
  for (uint32_t i = 0; i < nresults; i++) {
    const vc_result *r = &results[i];
    if (!r->mode || (unsigned)r->status >= VC_STATUS_COUNT || (r->ndivs && !r->divs) ||
        (r->nattempt_divs && !r->attempt_divs) || (r->nsegs && !r->segs))
      return vc_fail(err, VC_ERR_USAGE,
                     "recording program %s into %s: result %u is malformed (mode, status, "
                     "divergences or segments)",
                     prog->name, db->path, i);
  }
  return 0;
}

int vc_db_record_program(vc_db *db, int64_t run_id, const vc_program_info *prog,
                         const vc_result *results, uint32_t nresults, vc_error *err) {
  int rc = check_results(db, prog, results, nresults, err);
  if (rc) return rc;
  char what[300];
  snprintf(what, sizeof what, "recording program %s", prog->name);
  rc = exec(db, "BEGIN IMMEDIATE", err);
  if (rc) return rc;
  int64_t program_id = 0;
  rc = check_running(db, run_id, err);
  if (!rc) rc = insert_program(db, run_id, prog, &program_id, err);
  for (uint32_t i = 0; !rc && i < nresults; i++)
    rc = insert_result(db, run_id, program_id, &results[i], what, err);
  if (!rc) {
    int src = sqlite3_exec(db->sql, "COMMIT", NULL, NULL, NULL);
    if (src != SQLITE_OK) rc = vc_sqlfail(err, db->sql, src, db->path, db->busy_ms, what);
  }
  if (rc) rollback(db);
  return rc;
}

/* ---- litmus runs and crossover maps: a header row, rows, an end ---- */

static int begin_header(vc_db *db, binder *b, const char *what, int64_t *id, vc_error *err) {
  int rc = b_run(db, b, what, err);
  if (!rc) *id = sqlite3_last_insert_rowid(db->sql);
  return rc;
}

static int end_header(vc_db *db, int st, int64_t id, const char *verdict, uint64_t wall_ns,
                      const char *what, vc_error *err) {
  binder b = bind_start(db->st[st]);
  b_text(&b, verdict);
  b_u64(&b, wall_ns);
  b_i64(&b, id);
  return b_run(db, &b, what, err);
}

int vc_db_begin_litmus(vc_db *db, const vc_litmus_run_info *rec, int64_t *id, vc_error *err) {
  binder b = bind_start(db->st[ST_LITMUS_RUN]);
  VC_LITMUS_RUN_COLUMNS(BIND_COLUMN)
  return begin_header(db, &b, "starting a litmus run", id, err);
}

/* Rows of one header, in one transaction; bind fills row i's columns. */
typedef void bind_row_fn(binder *b, const void *rows, uint32_t i);
static int record_rows(vc_db *db, int st, int64_t id, const void *rows, uint32_t n,
                       bind_row_fn *bind, const char *what, vc_error *err) {
  int rc = exec(db, "BEGIN IMMEDIATE", err);
  for (uint32_t i = 0; !rc && i < n; i++) {
    binder b = bind_start(db->st[st]);
    b_i64(&b, id);
    bind(&b, rows, i);
    rc = b_run(db, &b, what, err);
  }
  if (!rc) rc = exec(db, "COMMIT", err);
  if (rc) rollback(db);
  return rc;
}

#define BIND_ROW_COLUMN(kind, field, column, size) BIND_##kind(b, rec->field);
static void bind_litmus(binder *b, const void *rows, uint32_t i) {
  const vc_litmus_result *rec = (const vc_litmus_result *)rows + i;
  VC_LITMUS_COLUMNS(BIND_ROW_COLUMN)
}
static void bind_crossover(binder *b, const void *rows, uint32_t i) {
  const vc_crossover_point *rec = (const vc_crossover_point *)rows + i;
  VC_CROSSOVER_COLUMNS(BIND_ROW_COLUMN)
}

int vc_db_record_litmus(vc_db *db, int64_t id, const vc_litmus_result *rows, uint32_t n,
                        vc_error *err) {
  return record_rows(db, ST_LITMUS_ROW, id, rows, n, bind_litmus, "recording a litmus result",
                     err);
}

int vc_db_begin_crossover(vc_db *db, const vc_crossover_map_info *rec, int64_t *id,
                          vc_error *err) {
  binder b = bind_start(db->st[ST_CROSSOVER_MAP]);
  VC_CROSSOVER_MAP_COLUMNS(BIND_COLUMN)
  return begin_header(db, &b, "starting a crossover map", id, err);
}

int vc_db_record_crossover(vc_db *db, int64_t id, const vc_crossover_point *rows, uint32_t n,
                           vc_error *err) {
  return record_rows(db, ST_CROSSOVER_ROW, id, rows, n, bind_crossover,
                     "recording a crossover point", err);
}

int vc_db_end_crossover(vc_db *db, int64_t id, const char *verdict, uint64_t wall_ns,
                        vc_error *err) {
  return end_header(db, ST_CROSSOVER_END, id, verdict, wall_ns, "ending a crossover map", err);
}

int vc_db_record_progress(vc_db *db, int64_t id, const vc_progress_result *rec,
                          vc_error *err) {
  binder b = bind_start(db->st[ST_PROGRESS_ROW]);
  b_i64(&b, id);
  VC_PROGRESS_COLUMNS(BIND_COLUMN)
  return b_run(db, &b, "recording a forward-progress check", err);
}

int vc_db_record_finding(vc_db *db, const vc_finding_rec *rec, vc_error *err) {
  binder b = bind_start(db->st[ST_FINDING]);
  VC_FINDING_COLUMNS(BIND_COLUMN)
  return b_run(db, &b, "recording a finding", err);
}

int vc_db_end_litmus(vc_db *db, int64_t id, const char *verdict, uint64_t wall_ns,
                     vc_error *err) {
  return end_header(db, ST_LITMUS_END, id, verdict, wall_ns, "ending a litmus run", err);
}

/* ---- the end of a run ---- */

int vc_db_end_run_at(vc_db *db, int64_t run_id, const char *status, int64_t ended_ns,
                     vc_error *err) {
  if (!status ||
      (strcmp(status, "complete") && strcmp(status, "interrupted") && strcmp(status, "failed")))
    return vc_fail(err, VC_ERR_USAGE,
                   "ending run %lld of %s: status \"%s\" is not complete, interrupted or failed",
                   (long long)run_id, db->path, status ? status : "(null)");
  binder b = bind_start(db->st[ST_END]);
  b_text(&b, status);
  b_i64(&b, ended_ns);
  b_i64(&b, run_id);
  int rc = b_run(db, &b, "ending a run", err);
  if (rc) return rc;
  if (sqlite3_changes(db->sql) == 0) return check_running(db, run_id, err);
  return 0;
}

int vc_db_end_run(vc_db *db, int64_t run_id, const char *status, vc_error *err) {
  return vc_db_end_run_at(db, run_id, status, vc_unix_ns(), err);
}
