/* The recorder: writes runs, devices, programs and their results. */
#include "results/store/record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "results/store/db_internal.h"
#include "results/store/schema.h"
#include "results/store/sqlerr.h"

enum { ST_RUN, ST_DEVICE, ST_RUN_STATUS, ST_PROGRAM, ST_RESULT, ST_DIV, ST_SEG, ST_END, ST_COUNT };

static const char *const stmt_sql[ST_COUNT] = {
    [ST_RUN] = "INSERT INTO runs(started_ns, harness_version, harness_commit, command_line, host,"
               " corpus_path, corpus_digest, shard, backend, modes, options, status)"
               " VALUES(?,?,?,?,?,?,?,?,?,?,?,'running')",
    [ST_DEVICE] = "INSERT INTO devices VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [ST_RUN_STATUS] = "SELECT status FROM runs WHERE id=?",
    [ST_PROGRAM] = "INSERT INTO programs(run_id, name, path, source_digest, segments, barriers,"
                   " invocations, workgroups, buffer_bytes, tags) VALUES(?,?,?,?,?,?,?,?,?,?)",
    [ST_RESULT] = "INSERT INTO results(run_id, program_id, mode, repeat, status, reason, wall_ns,"
                  " device_ns, compile_ns, bytes_up, bytes_down, launches, passes, output_digest,"
                  " nondeterministic, participants, virtual_per_participant, device_barriers)"
                  " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [ST_DIV] = "INSERT INTO divergences(result_id, buffer, type, first_index, count,"
               " context_start, expected_hex, actual_hex, class, max_ulp)"
               " VALUES(?,?,?,?,?,?,?,?,?,?)",
    [ST_SEG] = "INSERT INTO segments VALUES(?,?,?,?,?,?,?,?)",
    [ST_END] = "UPDATE runs SET status=?, ended_ns=? WHERE id=? AND status='running'",
};

struct vc_db {
  sqlite3 *sql;
  char *path;
  int busy_ms;
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

/* Runs a bound insert or update to completion. */
static int b_run(vc_db *db, binder *b, const char *what, vc_error *err) {
  int rc = b->rc;
  if (rc == SQLITE_OK) rc = sqlite3_step(b->st);
  sqlite3_reset(b->st);
  if (rc != SQLITE_DONE && rc != SQLITE_OK && rc != SQLITE_ROW)
    return vc_sqlfail(err, db->sql, rc, db->path, db->busy_ms, what);
  return 0;
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

/* A new file gets the schema; another process may have been quicker, so the
   check is repeated under the write lock. */
static int create_schema(vc_db *db, vc_error *err) {
  int rc = set_wal(db, err);
  if (!rc) rc = exec(db, "BEGIN IMMEDIATE", err);
  if (rc) return rc;
  bool is_new;
  rc = vc_schema_check(db->sql, db->path, db->busy_ms, &is_new, err);
  if (!rc && is_new) rc = vc_schema_create(db->sql, db->path, db->busy_ms, err);
  if (!rc) rc = exec(db, "COMMIT", err);
  if (rc) rollback(db);
  return rc;
}

static int prepare_file(vc_db *db, bool is_new, vc_error *err) {
  int rc = is_new ? create_schema(db, err) : set_wal(db, err);
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
  bool is_new;
  int rc = vc_schema_check_path(path, busy_ms < 0 ? 0 : busy_ms, &is_new, err);
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
    sqlite3_busy_timeout(db->sql, db->busy_ms);
    rc = prepare_file(db, is_new, err);
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

int vc_db_begin_run(vc_db *db, const vc_run_info *info, int64_t *run_id, vc_error *err) {
  binder b = bind_start(db->st[ST_RUN]);
  b_i64(&b, info->started_ns);
  b_text(&b, info->harness_version);
  b_text(&b, info->harness_commit);
  b_text(&b, info->command_line);
  b_text(&b, info->host);
  b_text(&b, info->corpus_path);
  b_text(&b, info->corpus_digest);
  b_text(&b, info->shard);
  b_text(&b, info->backend);
  b_text(&b, info->modes);
  b_text(&b, info->options);
  int rc = b_run(db, &b, "starting a run", err);
  if (rc) return rc;
  *run_id = sqlite3_last_insert_rowid(db->sql);
  return 0;
}

int vc_db_record_device(vc_db *db, int64_t run_id, const vc_device_info *dev,
                        const char *fingerprint, vc_error *err) {
  binder b = bind_start(db->st[ST_DEVICE]);
  b_i64(&b, run_id);
  B_FIELD(&b, dev->api);
  B_FIELD(&b, dev->api_version);
  B_FIELD(&b, dev->driver_name);
  B_FIELD(&b, dev->driver_version);
  b_u64(&b, dev->vendor_id);
  b_u64(&b, dev->device_id);
  B_FIELD(&b, dev->device_name);
  B_FIELD(&b, dev->uuid);
  b_u64(&b, dev->compute_units);
  b_u64(&b, dev->max_workgroup_invocations);
  for (int i = 0; i < 3; i++) b_u64(&b, dev->max_workgroup_size[i]);
  for (int i = 0; i < 3; i++) b_u64(&b, dev->max_grid[i]);
  b_u64(&b, dev->max_shared_bytes);
  b_u64(&b, dev->max_buffer_bytes);
  b_u64(&b, dev->global_mem_bytes);
  b_i64(&b, dev->timestamps);
  b_i64(&b, dev->cooperative);
  B_FIELD(&b, dev->float_env);
  B_FIELD(&b, dev->extra);
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

static int insert_program(vc_db *db, int64_t run_id, const vc_program_info *p, int64_t *id,
                          vc_error *err) {
  binder b = bind_start(db->st[ST_PROGRAM]);
  b_i64(&b, run_id);
  b_text(&b, p->name);
  b_text(&b, p->path);
  b_text(&b, p->source_digest);
  b_u64(&b, p->segments);
  b_u64(&b, p->barriers);
  b_u64(&b, p->invocations);
  b_u64(&b, p->workgroups);
  b_u64(&b, p->buffer_bytes);
  b_text(&b, p->tags);
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

static int insert_divergence(vc_db *db, int64_t result_id, const vc_divergence *d, const char *what,
                             vc_error *err) {
  binder b = bind_start(db->st[ST_DIV]);
  b_i64(&b, result_id);
  B_FIELD(&b, d->buffer);
  B_FIELD(&b, d->type);
  b_u64(&b, d->first_index);
  b_u64(&b, d->count);
  b_u64(&b, d->context_start);
  B_FIELD(&b, d->expected_hex);
  B_FIELD(&b, d->actual_hex);
  b_text(&b, vc_divclass_name(d->cls));
  b_u64(&b, d->max_ulp);
  return b_run(db, &b, what, err);
}

static int insert_segment(vc_db *db, int64_t result_id, const vc_segment_timing *s,
                          const char *what, vc_error *err) {
  binder b = bind_start(db->st[ST_SEG]);
  b_i64(&b, result_id);
  b_u64(&b, s->pass);
  b_u64(&b, s->segment);
  b_u64(&b, s->wall_ns);
  b_u64(&b, s->device_ns);
  b_u64(&b, s->bytes_up);
  b_u64(&b, s->bytes_down);
  b_u64(&b, s->launches);
  return b_run(db, &b, what, err);
}

static int insert_result(vc_db *db, int64_t run_id, int64_t program_id, const vc_result *r,
                         const char *what, vc_error *err) {
  binder b = bind_start(db->st[ST_RESULT]);
  b_i64(&b, run_id);
  b_i64(&b, program_id);
  b_text(&b, r->mode);
  b_u64(&b, r->repeat);
  b_text(&b, vc_status_name(r->status));
  B_FIELD(&b, r->reason);
  b_u64(&b, r->wall_ns);
  b_u64(&b, r->device_ns);
  b_u64(&b, r->compile_ns);
  b_u64(&b, r->bytes_up);
  b_u64(&b, r->bytes_down);
  b_u64(&b, r->launches);
  b_u64(&b, r->passes);
  B_FIELD(&b, r->output_digest);
  b_i64(&b, r->nondeterministic);
  b_u64(&b, r->participants);
  b_u64(&b, r->virtual_per_participant);
  b_u64(&b, r->device_barriers);
  int rc = b_run(db, &b, what, err);
  if (rc) return rc;
  int64_t result_id = sqlite3_last_insert_rowid(db->sql);
  for (uint32_t i = 0; !rc && i < r->ndivs; i++)
    rc = insert_divergence(db, result_id, &r->divs[i], what, err);
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
        (r->nsegs && !r->segs))
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
