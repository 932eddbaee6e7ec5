#include "results/store/schema.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "results/store/sqlerr.h"

/* docs/database.md describes every column. Unsigned counters are stored as
   INTEGER (SQLite's signed 64 bits); nothing recorded comes near 2^63. */
static const char schema_sql[] =
    "CREATE TABLE runs(\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  started_ns INTEGER NOT NULL,\n"
    "  ended_ns INTEGER,\n"
    "  harness_version TEXT NOT NULL,\n"
    "  harness_commit TEXT NOT NULL,\n"
    "  command_line TEXT NOT NULL,\n"
    "  host TEXT NOT NULL,\n"
    "  corpus_path TEXT NOT NULL,\n"
    "  corpus_digest TEXT NOT NULL,\n"
    "  shard TEXT NOT NULL,\n"
    "  backend TEXT NOT NULL,\n"
    "  modes TEXT NOT NULL,\n"
    "  options TEXT NOT NULL,\n"
    "  status TEXT NOT NULL\n"
    "    CHECK(status IN ('running','complete','interrupted','failed')));\n"
    "CREATE TABLE devices(\n"
    "  run_id INTEGER NOT NULL UNIQUE REFERENCES runs(id),\n"
    "  api TEXT NOT NULL, api_version TEXT NOT NULL,\n"
    "  driver_name TEXT NOT NULL, driver_version TEXT NOT NULL,\n"
    "  vendor_id INTEGER NOT NULL, device_id INTEGER NOT NULL,\n"
    "  device_name TEXT NOT NULL, uuid TEXT NOT NULL,\n"
    "  compute_units INTEGER NOT NULL,\n"
    "  max_workgroup_invocations INTEGER NOT NULL,\n"
    "  max_workgroup_size_x INTEGER NOT NULL, max_workgroup_size_y INTEGER NOT NULL,\n"
    "  max_workgroup_size_z INTEGER NOT NULL,\n"
    "  max_grid_x INTEGER NOT NULL, max_grid_y INTEGER NOT NULL, max_grid_z INTEGER NOT NULL,\n"
    "  max_shared_bytes INTEGER NOT NULL, max_buffer_bytes INTEGER NOT NULL,\n"
    "  global_mem_bytes INTEGER NOT NULL,\n"
    "  timestamps INTEGER NOT NULL, cooperative INTEGER NOT NULL,\n"
    "  float_env TEXT NOT NULL, extra TEXT NOT NULL, fingerprint TEXT NOT NULL);\n"
    "CREATE TABLE programs(\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  run_id INTEGER NOT NULL REFERENCES runs(id),\n"
    "  name TEXT NOT NULL, path TEXT NOT NULL, source_digest TEXT NOT NULL,\n"
    "  segments INTEGER NOT NULL, barriers INTEGER NOT NULL,\n"
    "  invocations INTEGER NOT NULL, workgroups INTEGER NOT NULL,\n"
    "  buffer_bytes INTEGER NOT NULL, tags TEXT NOT NULL,\n"
    "  UNIQUE(run_id, name));\n"
    "CREATE TABLE results(\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  run_id INTEGER NOT NULL REFERENCES runs(id),\n"
    "  program_id INTEGER NOT NULL REFERENCES programs(id),\n"
    "  mode TEXT NOT NULL, repeat INTEGER NOT NULL,\n"
    "  status TEXT NOT NULL CHECK(status IN\n"
    "    ('pass','diverge','untrustworthy','error','crash','timeout','unsupported',\n"
    "     'skip','invalid')),\n"
    "  reason TEXT NOT NULL,\n"
    "  wall_ns INTEGER NOT NULL, device_ns INTEGER NOT NULL, compile_ns INTEGER NOT NULL,\n"
    "  bytes_up INTEGER NOT NULL, bytes_down INTEGER NOT NULL,\n"
    "  launches INTEGER NOT NULL, passes INTEGER NOT NULL,\n"
    "  output_digest TEXT NOT NULL, nondeterministic INTEGER NOT NULL,\n"
    "  participants INTEGER NOT NULL, virtual_per_participant INTEGER NOT NULL,\n"
    "  device_barriers INTEGER NOT NULL,\n"
    "  UNIQUE(program_id, mode, repeat));\n"
    "CREATE INDEX results_by_run ON results(run_id);\n"
    "CREATE TABLE divergences(\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  result_id INTEGER NOT NULL REFERENCES results(id),\n"
    "  buffer TEXT NOT NULL, type TEXT NOT NULL,\n"
    "  first_index INTEGER NOT NULL, count INTEGER NOT NULL,\n"
    "  context_start INTEGER NOT NULL,\n"
    "  expected_hex TEXT NOT NULL, actual_hex TEXT NOT NULL,\n"
    "  class TEXT NOT NULL, max_ulp INTEGER NOT NULL);\n"
    "CREATE INDEX divergences_by_result ON divergences(result_id);\n"
    "CREATE TABLE segments(\n"
    "  result_id INTEGER NOT NULL REFERENCES results(id),\n"
    "  pass INTEGER NOT NULL, segment INTEGER NOT NULL,\n"
    "  wall_ns INTEGER NOT NULL, device_ns INTEGER NOT NULL,\n"
    "  bytes_up INTEGER NOT NULL, bytes_down INTEGER NOT NULL,\n"
    "  launches INTEGER NOT NULL);\n"
    "CREATE INDEX segments_by_result ON segments(result_id);\n";

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

int vc_schema_check(sqlite3 *sql, const char *path, int busy_ms, bool *is_new, vc_error *err) {
  int app = 0, version = 0, objects = 0;
  int rc = pragma_int(sql, path, busy_ms, "PRAGMA application_id", "reading its header", &app, err);
  if (!rc)
    rc = pragma_int(sql, path, busy_ms, "PRAGMA user_version", "reading its header", &version, err);
  if (!rc)
    rc = pragma_int(sql, path, busy_ms, "SELECT count(*) FROM sqlite_master", "reading its schema",
                    &objects, err);
  if (rc) return rc;
  *is_new = false;
  if (app == 0 && version == 0 && objects == 0) {
    *is_new = true;
    return 0;
  }
  if (app != VC_DB_APPLICATION_ID)
    return vc_fail(err, VC_ERR_DB,
                   "%s is an SQLite database of another application (application_id 0x%08x, "
                   "%d tables and indexes), not a vyre-conform results file; left untouched",
                   path, (unsigned)app, objects);
  if (version != VC_DB_SCHEMA_VERSION)
    return vc_fail(
        err, VC_ERR_DB,
        "results database %s has schema version %d, %s than this harness's "
        "version %d; left untouched (%s)",
        path, version, version > VC_DB_SCHEMA_VERSION ? "newer" : "older", VC_DB_SCHEMA_VERSION,
        version > VC_DB_SCHEMA_VERSION ? "use a newer vyre-conform" : "record into a new file");
  return 0;
}

int vc_schema_check_path(const char *path, int busy_ms, bool *is_new, vc_error *err) {
  bool exists;
  int rc = vc_schema_precheck(path, &exists, err);
  *is_new = !exists;
  if (rc || !exists) return rc;
  sqlite3 *sql = NULL;
  int src = sqlite3_open_v2(path, &sql, SQLITE_OPEN_READONLY, NULL);
  if (src != SQLITE_OK)
    rc = vc_sqlfail(err, sql, src, path, busy_ms, "opening");
  else {
    sqlite3_busy_timeout(sql, busy_ms);
    rc = vc_schema_check(sql, path, busy_ms, is_new, err);
  }
  sqlite3_close_v2(sql);
  return rc;
}

int vc_schema_create(sqlite3 *sql, const char *path, int busy_ms, vc_error *err) {
  char stamp[128];
  snprintf(stamp, sizeof stamp, "PRAGMA application_id=%d; PRAGMA user_version=%d;",
           VC_DB_APPLICATION_ID, VC_DB_SCHEMA_VERSION);
  int rc = sqlite3_exec(sql, schema_sql, NULL, NULL, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_exec(sql, stamp, NULL, NULL, NULL);
  if (rc != SQLITE_OK) return vc_sqlfail(err, sql, rc, path, busy_ms, "creating the schema");
  return 0;
}
