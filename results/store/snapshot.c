/* VACUUM INTO and the run list (snapshot.h). */
#include "results/store/snapshot.h"

#include <sqlite3.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "results/store/schema.h"
#include "results/store/sqlerr.h"

enum { BUSY_MS = 10000 };

static int open_checked(const char *path, bool integrity, sqlite3 **out, vc_error *err) {
  int version;
  *out = NULL;
  int rc = vc_schema_check_path(path, BUSY_MS, integrity, &version, err);
  if (rc) return rc;
  if (!version) return vc_fail(err, VC_ERR_DB, "results database %s does not exist or is empty", path);
  int src = vc_schema_open_reader(path, out);
  if (src != SQLITE_OK) return vc_sqlfail(err, *out, src, path, BUSY_MS, "opening");
  sqlite3_busy_timeout(*out, BUSY_MS);
  return vc_schema_check(*out, path, BUSY_MS, &version, err);
}

int vc_db_snapshot(const char *src, const char *dst, vc_error *err) {
  sqlite3 *sql;
  int rc = open_checked(src, true, &sql, err);
  sqlite3_stmt *st = NULL;
  if (!rc) {
    int s = sqlite3_prepare_v2(sql, "VACUUM INTO ?", -1, &st, NULL);
    if (s == SQLITE_OK) s = sqlite3_bind_text(st, 1, dst, -1, SQLITE_TRANSIENT);
    if (s == SQLITE_OK) s = sqlite3_step(st);
    if (s != SQLITE_DONE) rc = vc_sqlfail(err, sql, s, src, BUSY_MS, "copying it (VACUUM INTO)");
  }
  sqlite3_finalize(st);
  sqlite3_close(sql);
  return rc;
}

int vc_db_list_runs(const char *path, vc_db_run_list *out, vc_error *err) {
  memset(out, 0, sizeof *out);
  sqlite3 *sql;
  int rc = open_checked(path, false, &sql, err);
  sqlite3_stmt *st = NULL;
  if (!rc) {
    int s = sqlite3_prepare_v2(sql, "SELECT id, status FROM runs ORDER BY id", -1, &st, NULL);
    while (s == SQLITE_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
      int64_t *ids = realloc(out->ids, (out->n + 1) * sizeof *ids);
      char **status = realloc(out->status, (out->n + 1) * sizeof *status);
      if (!ids || !status) abort();
      out->ids = ids;
      out->status = status;
      const unsigned char *t = sqlite3_column_text(st, 1);
      out->ids[out->n] = sqlite3_column_int64(st, 0);
      out->status[out->n] = strdup(t ? (const char *)t : "");
      if (!out->status[out->n]) abort();
      out->n++;
      s = SQLITE_OK;
    }
    if (s != SQLITE_DONE) rc = vc_sqlfail(err, sql, s, path, BUSY_MS, "listing its runs");
  }
  sqlite3_finalize(st);
  sqlite3_close(sql);
  if (rc) vc_db_run_list_free(out);
  return rc;
}

void vc_db_run_list_free(vc_db_run_list *l) {
  for (uint32_t i = 0; i < l->n; i++) free(l->status[i]);
  free(l->ids);
  free(l->status);
  memset(l, 0, sizeof *l);
}
