#include "results/store/schema.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/model/outcome.h"
#include "results/store/busy.h"
#include "results/store/sqlerr.h"

/* ---- the tables, from the column tables ---- */

#define COLUMN_DEF(kind, field, column, size) {#column, VC_COL_##kind},
static const vc_column_def run_cols[] = {VC_RUN_COLUMNS(COLUMN_DEF)};
static const vc_column_def device_cols[] = {VC_DEVICE_COLUMNS(COLUMN_DEF)};
static const vc_column_def program_cols[] = {VC_PROGRAM_COLUMNS(COLUMN_DEF)};
static const vc_column_def result_cols[] = {VC_RESULT_COLUMNS(COLUMN_DEF)};
static const vc_column_def divergence_cols[] = {VC_DIVERGENCE_COLUMNS(COLUMN_DEF)};
static const vc_column_def segment_cols[] = {VC_SEGMENT_COLUMNS(COLUMN_DEF)};
static const vc_column_def litmus_run_cols[] = {VC_LITMUS_RUN_COLUMNS(COLUMN_DEF)};
static const vc_column_def litmus_cols[] = {VC_LITMUS_COLUMNS(COLUMN_DEF)};
static const vc_column_def progress_cols[] = {VC_PROGRESS_COLUMNS(COLUMN_DEF)};
static const vc_column_def finding_cols[] = {VC_FINDING_COLUMNS(COLUMN_DEF)};
static const vc_column_def crossover_map_cols[] = {VC_CROSSOVER_MAP_COLUMNS(COLUMN_DEF)};
static const vc_column_def crossover_cols[] = {VC_CROSSOVER_COLUMNS(COLUMN_DEF)};
#undef COLUMN_DEF
#define COLS(a) a, (uint32_t)(sizeof a / sizeof a[0])

/* docs/database.md describes every column. Unsigned counters are stored as
   INTEGER (SQLite's signed 64 bits); nothing recorded comes near 2^63. */
const vc_table_def vc_table_runs = {
    "runs",
    "id INTEGER PRIMARY KEY,\n  ended_ns INTEGER,\n  status TEXT NOT NULL\n"
    "    CHECK(status IN ('running','complete','interrupted','failed'))",
    COLS(run_cols), ""};
const vc_table_def vc_table_devices = {"devices",
                                       "run_id INTEGER NOT NULL UNIQUE REFERENCES runs(id)",
                                       COLS(device_cols), ",\n  fingerprint TEXT NOT NULL"};
const vc_table_def vc_table_programs = {
    "programs", "id INTEGER PRIMARY KEY,\n  run_id INTEGER NOT NULL REFERENCES runs(id)",
    COLS(program_cols), ",\n  UNIQUE(run_id, name)"};
const vc_table_def vc_table_results = {
    "results",
    "id INTEGER PRIMARY KEY,\n  run_id INTEGER NOT NULL REFERENCES runs(id),\n"
    "  program_id INTEGER NOT NULL REFERENCES programs(id)",
    COLS(result_cols), ",\n  UNIQUE(program_id, mode, repeat)"};
const vc_table_def vc_table_divergences = {
    "divergences", "id INTEGER PRIMARY KEY,\n  result_id INTEGER NOT NULL REFERENCES results(id)",
    COLS(divergence_cols), ""};
const vc_table_def vc_table_segments = {
    "segments", "result_id INTEGER NOT NULL REFERENCES results(id)", COLS(segment_cols), ""};
const vc_table_def vc_table_litmus_runs = {"litmus_runs", "id INTEGER PRIMARY KEY",
                                           COLS(litmus_run_cols), ""};
const vc_table_def vc_table_litmus_results = {
    "litmus_results",
    "id INTEGER PRIMARY KEY,\n  litmus_run INTEGER NOT NULL REFERENCES litmus_runs(id)",
    COLS(litmus_cols), ""};
const vc_table_def vc_table_progress_results = {
    "progress_results",
    "id INTEGER PRIMARY KEY,\n  litmus_run INTEGER NOT NULL REFERENCES litmus_runs(id)",
    COLS(progress_cols), ""};
const vc_table_def vc_table_findings = {"findings", "id INTEGER PRIMARY KEY", COLS(finding_cols),
                                        ",\n  UNIQUE(signature)"};
const vc_table_def vc_table_crossover_maps = {"crossover_maps", "id INTEGER PRIMARY KEY",
                                              COLS(crossover_map_cols), ""};
const vc_table_def vc_table_crossover_points = {
    "crossover_points",
    "id INTEGER PRIMARY KEY,\n  crossover_map INTEGER NOT NULL REFERENCES crossover_maps(id)",
    COLS(crossover_cols), ""};

/* In the order they are created (a table after those it refers to). */
static const vc_table_def *const tables[] = {
    &vc_table_runs,        &vc_table_devices,     &vc_table_programs,
    &vc_table_results,     &vc_table_divergences, &vc_table_segments,
    &vc_table_litmus_runs, &vc_table_litmus_results, &vc_table_progress_results,
    &vc_table_findings,    &vc_table_crossover_maps, &vc_table_crossover_points};
enum { NTABLES = sizeof tables / sizeof tables[0] };

static const char index_sql[] =
    "CREATE INDEX IF NOT EXISTS results_by_run ON results(run_id);\n"
    "CREATE INDEX IF NOT EXISTS divergences_by_result ON divergences(result_id);\n"
    "CREATE INDEX IF NOT EXISTS segments_by_result ON segments(result_id);\n"
    "CREATE INDEX IF NOT EXISTS litmus_results_by_run ON litmus_results(litmus_run);\n"
    "CREATE INDEX IF NOT EXISTS progress_results_by_run ON progress_results(litmus_run);\n"
    "CREATE INDEX IF NOT EXISTS crossover_points_by_map ON crossover_points(crossover_map);\n";

/* Every column has a default so that a migration can copy the columns an
   older file has and leave the new ones at 0 or "". */
static void column_sql(vc_strbuf *sb, const vc_column_def *c) {
  vc_sb_printf(sb, ",\n  %s ", c->name);
  switch (c->kind) {
  case VC_COL_U32:
  case VC_COL_U64:
  case VC_COL_I64:
  case VC_COL_BOOL:
    vc_sb_puts(sb, "INTEGER NOT NULL DEFAULT 0");
    break;
  case VC_COL_TEXT:
  case VC_COL_CHARS:
  case VC_COL_MODE:
  case VC_COL_DIVCLASS:
    vc_sb_puts(sb, "TEXT NOT NULL DEFAULT ''");
    break;
  case VC_COL_STATUS:
    vc_sb_printf(sb, "TEXT NOT NULL CHECK(%s IN (", c->name);
    for (int s = 0; s < VC_STATUS_COUNT; s++)
      vc_sb_printf(sb, "%s'%s'", s ? "," : "", vc_status_name((vc_status)s));
    vc_sb_puts(sb, "))");
    break;
  }
}

static void table_sql(vc_strbuf *sb, const vc_table_def *t, const char *name) {
  vc_sb_printf(sb, "CREATE TABLE %s(\n  %s", name, t->head);
  for (uint32_t i = 0; i < t->ncols; i++) column_sql(sb, &t->cols[i]);
  vc_sb_printf(sb, "%s);\n", t->tail);
}

/* ---- recognising a file ---- */

int vc_schema_precheck(const char *path, bool *exists, vc_error *err) {
  static const char magic[16] = "SQLite format 3";
  struct stat st;
  *exists = false;
  if (stat(path, &st) != 0) {
    if (errno == ENOENT) return 0;
    return vc_fail(err, VC_ERR_DB, "results database %s: %s", path, strerror(errno));
  }
  if (!S_ISREG(st.st_mode))
    return vc_fail(err, VC_ERR_DB, "results database %s is not a regular file", path);
  if (st.st_size == 0) return 0;
  FILE *f = fopen(path, "rb");
  if (!f) return vc_fail(err, VC_ERR_DB, "results database %s: %s", path, strerror(errno));
  char head[16];
  size_t n = fread(head, 1, sizeof head, f);
  fclose(f);
  if (st.st_size < 100 || n != sizeof head || memcmp(head, magic, sizeof magic) != 0)
    return vc_fail(err, VC_ERR_DB,
                   "results database %s is corrupt: not an SQLite database (left untouched)", path);
  *exists = true;
  return 0;
}

static int pragma_int(sqlite3 *sql, const char *path, int busy_ms, const char *query,
                      const char *what, int *value, vc_error *err) {
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(sql, query, -1, &st, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) {
    *value = sqlite3_column_int(st, 0);
    rc = SQLITE_OK;
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_OK) return vc_sqlfail(err, sql, rc, path, busy_ms, what);
  return 0;
}

int vc_schema_check(sqlite3 *sql, const char *path, int busy_ms, int *version, vc_error *err) {
  int app = 0, v = 0, objects = 0;
  *version = 0;
  int rc = pragma_int(sql, path, busy_ms, "PRAGMA application_id", "reading its header", &app, err);
  if (!rc)
    rc = pragma_int(sql, path, busy_ms, "PRAGMA user_version", "reading its header", &v, err);
  if (!rc)
    rc = pragma_int(sql, path, busy_ms, "SELECT count(*) FROM sqlite_master", "reading its schema",
                    &objects, err);
  if (rc) return rc;
  if (app == 0 && v == 0 && objects == 0) return 0;
  if (app != VC_DB_APPLICATION_ID)
    return vc_fail(err, VC_ERR_DB,
                   "%s is an SQLite database of another application (application_id 0x%08x, "
                   "%d tables and indexes), not a vyre-conform results file; left untouched",
                   path, (unsigned)app, objects);
  if (v > VC_DB_SCHEMA_VERSION)
    return vc_fail(err, VC_ERR_DB,
                   "results database %s has schema version %d, newer than this harness's "
                   "version %d; left untouched (use a newer vyre-conform)",
                   path, v, VC_DB_SCHEMA_VERSION);
  if (v < VC_DB_SCHEMA_OLDEST)
    return vc_fail(err, VC_ERR_DB,
                   "results database %s has schema version %d, older than this harness's "
                   "version %d and older than any it can migrate (%d); left untouched (record "
                   "into a new file)",
                   path, v, VC_DB_SCHEMA_VERSION, VC_DB_SCHEMA_OLDEST);
  *version = v;
  return 0;
}

static int quick_check(sqlite3 *sql, const char *path, int busy_ms, vc_error *err) {
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(sql, "PRAGMA quick_check(1)", -1, &st, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_step(st);
  char verdict[256] = "";
  if (rc == SQLITE_ROW) {
    /* "*** in database main ***\nPage 20: ..." on one line, without the banner */
    static const char banner[] = "*** in database main ***";
    const char *text = (const char *)sqlite3_column_text(st, 0);
    if (text && strncmp(text, banner, sizeof banner - 1) == 0) text += sizeof banner - 1;
    while (text && (*text == '\n' || *text == ' ')) text++;
    snprintf(verdict, sizeof verdict, "%s", text ? text : "");
    for (char *c = verdict; *c; c++)
      if (*c == '\n') *c = ' ';
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_ROW) return vc_sqlfail(err, sql, rc, path, busy_ms, "checking its pages");
  if (strcmp(verdict, "ok") != 0)
    return vc_fail(err, VC_ERR_DB, "results database %s is corrupt (%s); left untouched", path,
                   verdict);
  return 0;
}

/* Whether this process may write the file and create files beside it. */
static bool writable(const char *path) {
  char dir[4096];
  const char *slash = strrchr(path, '/');
  if (!slash)
    snprintf(dir, sizeof dir, ".");
  else
    snprintf(dir, sizeof dir, "%.*s", (int)(slash == path ? 1 : slash - path), path);
  return access(dir, W_OK) == 0 && access(path, W_OK) == 0;
}

int vc_schema_open_readonly(const char *path, sqlite3 **out) {
  char wal[4200];
  snprintf(wal, sizeof wal, "%s-wal", path);
  bool has_log = access(wal, F_OK) == 0;
  if (has_log && writable(path)) return sqlite3_open_v2(path, out, SQLITE_OPEN_READONLY, NULL);
  vc_strbuf uri;
  vc_sb_init(&uri);
  vc_sb_puts(&uri, "file:");
  for (const unsigned char *c = (const unsigned char *)path; *c; c++) {
    if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
        strchr("/._-~", *c))
      vc_sb_putc(&uri, (char)*c);
    else
      vc_sb_printf(&uri, "%%%02X", *c);
  }
  /* Without a -wal file, the file alone holds every committed transaction
     and nobody has it open in WAL mode: read it as immutable, which creates
     no -wal or -shm (a read-only connection could not remove them). With
     one, it holds committed transactions: read them, through its -shm. */
  vc_sb_puts(&uri, has_log ? "?mode=ro" : "?mode=ro&immutable=1");
  int rc = sqlite3_open_v2(vc_sb_str(&uri), out, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
  vc_sb_free(&uri);
  return rc;
}

int vc_schema_open_reader(const char *path, sqlite3 **out) {
  if (writable(path)) return sqlite3_open_v2(path, out, SQLITE_OPEN_READWRITE, NULL);
  return vc_schema_open_readonly(path, out);
}

int vc_schema_check_path(const char *path, int busy_ms, bool integrity, int *version,
                         vc_error *err) {
  bool exists;
  *version = 0;
  int rc = vc_schema_precheck(path, &exists, err);
  if (rc || !exists) return rc;
  sqlite3 *sql = NULL;
  int src = vc_schema_open_readonly(path, &sql);
  if (src != SQLITE_OK)
    rc = vc_sqlfail(err, sql, src, path, busy_ms, "opening");
  else {
    vc_db_busy busy;
    vc_db_busy_install(sql, &busy, path, busy_ms);
    rc = vc_schema_check(sql, path, busy_ms, version, err);
    if (!rc && integrity && *version) rc = quick_check(sql, path, busy_ms, err);
  }
  sqlite3_close_v2(sql);
  /* Only read so far: a refusal can say so. */
  if (rc && err && strstr(err->msg, "is corrupt") && !strstr(err->msg, "untouched")) {
    size_t n = strlen(err->msg);
    snprintf(err->msg + n, sizeof err->msg - n, "; left untouched");
  }
  return rc;
}

/* ---- creating and migrating ---- */

static int exec_sb(sqlite3 *sql, const char *path, int busy_ms, vc_strbuf *sb, const char *what,
                   vc_error *err) {
  int rc = sqlite3_exec(sql, vc_sb_str(sb), NULL, NULL, NULL);
  vc_sb_free(sb);
  if (rc != SQLITE_OK) return vc_sqlfail(err, sql, rc, path, busy_ms, what);
  return 0;
}

static void stamp_sql(vc_strbuf *sb) {
  vc_sb_printf(sb, "%sPRAGMA application_id=%d; PRAGMA user_version=%d;", index_sql,
               VC_DB_APPLICATION_ID, VC_DB_SCHEMA_VERSION);
}

int vc_schema_create(sqlite3 *sql, const char *path, int busy_ms, vc_error *err) {
  vc_strbuf sb;
  vc_sb_init(&sb);
  for (int i = 0; i < NTABLES; i++) table_sql(&sb, tables[i], tables[i]->name);
  stamp_sql(&sb);
  return exec_sb(sql, path, busy_ms, &sb, "creating the schema", err);
}

/* ", a, b, c": the columns both the old table and the new one have. */
static int common_columns(sqlite3 *sql, const char *old_name, const char *new_name,
                          vc_strbuf *out) {
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(sql,
                              "SELECT name FROM pragma_table_info(?1) WHERE name IN"
                              " (SELECT name FROM pragma_table_info(?2)) ORDER BY cid",
                              -1, &st, NULL);
  if (rc == SQLITE_OK) {
    sqlite3_bind_text(st, 1, old_name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, new_name, -1, SQLITE_STATIC);
    uint32_t n = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
      vc_sb_printf(out, "%s\"%s\"", n++ ? ", " : "", sqlite3_column_text(st, 0));
    if (rc == SQLITE_DONE) rc = SQLITE_OK;
  }
  sqlite3_finalize(st);
  return rc;
}

int vc_schema_has_table(sqlite3 *sql, const char *name, bool *have) {
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(sql, "SELECT 1 FROM sqlite_schema WHERE type='table' AND name=?1",
                              -1, &st, NULL);
  if (rc == SQLITE_OK) {
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    *have = rc == SQLITE_ROW;
    if (rc == SQLITE_ROW || rc == SQLITE_DONE) rc = SQLITE_OK;
  }
  sqlite3_finalize(st);
  return rc;
}

/* A table is rebuilt the way SQLite documents for changes ALTER TABLE
   cannot make (a CHECK constraint, a column's place): a new table, the
   rows copied, the old one dropped, the new one renamed. */
static int rebuild(sqlite3 *sql, const char *path, int busy_ms, const vc_table_def *t,
                   vc_error *err) {
  bool have = false;
  int src = vc_schema_has_table(sql, t->name, &have);
  if (src != SQLITE_OK) return vc_sqlfail(err, sql, src, path, busy_ms, "migrating: listing the tables");
  if (!have) { /* a table newer than the file */
    vc_strbuf create;
    vc_sb_init(&create);
    table_sql(&create, t, t->name);
    return exec_sb(sql, path, busy_ms, &create, "migrating: creating a table", err);
  }
  char new_name[64];
  snprintf(new_name, sizeof new_name, "%s_migrated", t->name);
  vc_strbuf sb, cols;
  vc_sb_init(&sb);
  vc_sb_init(&cols);
  table_sql(&sb, t, new_name);
  int rc = exec_sb(sql, path, busy_ms, &sb, "migrating: creating a table", err);
  if (rc) return rc;
  src = common_columns(sql, t->name, new_name, &cols);
  if (src != SQLITE_OK) {
    vc_sb_free(&cols);
    return vc_sqlfail(err, sql, src, path, busy_ms, "migrating: reading a table's columns");
  }
  vc_sb_init(&sb);
  vc_sb_printf(&sb,
               "INSERT INTO %s(%s) SELECT %s FROM %s ORDER BY rowid;\n"
               "DROP TABLE %s;\nALTER TABLE %s RENAME TO %s;\n",
               new_name, vc_sb_str(&cols), vc_sb_str(&cols), t->name, t->name, new_name, t->name);
  vc_sb_free(&cols);
  return exec_sb(sql, path, busy_ms, &sb, "migrating: copying a table", err);
}

int vc_schema_migrate(sqlite3 *sql, const char *path, int busy_ms, int from, vc_error *err) {
  if (from < VC_DB_SCHEMA_OLDEST || from >= VC_DB_SCHEMA_VERSION)
    return vc_fail(err, VC_ERR_INTERNAL, "migrating %s: no migration from schema version %d", path,
                   from);
  int rc = 0;
  for (int i = 0; !rc && i < NTABLES; i++) rc = rebuild(sql, path, busy_ms, tables[i], err);
  if (rc) return rc;
  vc_strbuf sb;
  vc_sb_init(&sb);
  stamp_sql(&sb);
  return exec_sb(sql, path, busy_ms, &sb, "migrating: stamping the new version", err);
}

int vc_schema_select_list(sqlite3 *sql, const vc_table_def *t, const char *alias, vc_strbuf *out) {
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(sql, "SELECT count(*) FROM pragma_table_info(?1) WHERE name=?2", -1,
                              &st, NULL);
  for (uint32_t i = 0; rc == SQLITE_OK && i < t->ncols; i++) {
    const vc_column_def *c = &t->cols[i];
    sqlite3_reset(st);
    sqlite3_bind_text(st, 1, t->name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, c->name, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) break;
    rc = SQLITE_OK;
    bool text = c->kind == VC_COL_TEXT || c->kind == VC_COL_CHARS || c->kind == VC_COL_MODE ||
                c->kind == VC_COL_STATUS || c->kind == VC_COL_DIVCLASS;
    if (sqlite3_column_int(st, 0))
      vc_sb_printf(out, ", %s.\"%s\"", alias, c->name);
    else
      vc_sb_puts(out, text ? ", ''" : ", 0");
  }
  sqlite3_finalize(st);
  return rc;
}
