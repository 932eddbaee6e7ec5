/* Reopening an interrupted run (vyre-conform --resume RUN). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/strbuf.h"
#include "results/store/db_internal.h"
#include "results/store/sqlerr.h"

void vc_db_resume_free(vc_db_resume *r) {
  for (uint32_t i = 0; i < r->ndone; i++) free(r->done[i]);
  free(r->done);
  memset(r, 0, sizeof *r);
}

int vc_db_resume_run(vc_db *db, int64_t run_id, const char *backend, const char *corpus_digest,
                     vc_db_resume *out, vc_error *err) {
  memset(out, 0, sizeof *out);
  sqlite3 *sql = vc_db_sqlite(db);
  const char *path = vc_db_path(db);
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(sql,
                              "SELECT r.status, r.backend, r.corpus_digest, "
                              "coalesce(d.device_name, '') FROM runs r LEFT JOIN devices d "
                              "ON d.run_id = r.id WHERE r.id = ?",
                              -1, &st, NULL);
  if (rc != SQLITE_OK) return vc_sqlfail(err, sql, rc, path, 0, "reading run the run to resume");
  sqlite3_bind_int64(st, 1, run_id);
  rc = sqlite3_step(st);
  if (rc != SQLITE_ROW) {
    sqlite3_finalize(st);
    return rc == SQLITE_DONE
               ? vc_fail(err, VC_ERR_USAGE, "%s has no run %lld to resume", path, (long long)run_id)
               : vc_sqlfail(err, sql, rc, path, 0, "reading run the run to resume");
  }
  char status[32], was_backend[64], digest[80];
  snprintf(status, sizeof status, "%s", (const char *)sqlite3_column_text(st, 0));
  snprintf(was_backend, sizeof was_backend, "%s", (const char *)sqlite3_column_text(st, 1));
  snprintf(digest, sizeof digest, "%s", (const char *)sqlite3_column_text(st, 2));
  snprintf(out->device_name, sizeof out->device_name, "%s",
           (const char *)sqlite3_column_text(st, 3));
  sqlite3_finalize(st);
  if (strcmp(status, "complete") == 0)
    return vc_fail(err, VC_ERR_USAGE, "run %lld in %s is complete: nothing to resume",
                   (long long)run_id, path);
  if (strcmp(was_backend, backend) != 0)
    return vc_fail(err, VC_ERR_USAGE, "run %lld ran on backend %s, not %s", (long long)run_id,
                   was_backend, backend);
  if (strcmp(digest, corpus_digest) != 0)
    return vc_fail(err, VC_ERR_USAGE,
                   "run %lld was of another corpus (digest %.16s…, now %.16s…): the programs "
                   "changed since", (long long)run_id, digest, corpus_digest);

  rc = sqlite3_prepare_v2(sql, "SELECT name FROM programs WHERE run_id = ? ORDER BY name", -1,
                          &st, NULL);
  if (rc != SQLITE_OK) return vc_sqlfail(err, sql, rc, path, 0, "reading run the run to resume");
  sqlite3_bind_int64(st, 1, run_id);
  uint32_t cap = 0;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (out->ndone == cap) {
      cap = cap ? cap * 2 : 64;
      out->done = realloc(out->done, cap * sizeof *out->done);
      if (!out->done) abort();
    }
    out->done[out->ndone++] = vc_strdup((const char *)sqlite3_column_text(st, 0));
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) {
    vc_db_resume_free(out);
    return vc_sqlfail(err, sql, rc, path, 0, "reading run the run to resume");
  }
  rc = sqlite3_prepare_v2(sql, "UPDATE runs SET status = 'running', ended_ns = NULL WHERE id = ?",
                          -1, &st, NULL);
  if (rc == SQLITE_OK) {
    sqlite3_bind_int64(st, 1, run_id);
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
  }
  if (rc != SQLITE_DONE && rc != SQLITE_OK) {
    vc_db_resume_free(out);
    return vc_sqlfail(err, sql, rc, path, 0, "reopening run the run to resume");
  }
  return 0;
}

void vc_db_run_settings_free(vc_db_run_settings *s) {
  free(s->backend);
  free(s->options);
  memset(s, 0, sizeof *s);
}

int vc_db_read_run_settings(vc_db *db, int64_t run_id, vc_db_run_settings *out, vc_error *err) {
  memset(out, 0, sizeof *out);
  sqlite3 *sql = vc_db_sqlite(db);
  const char *path = vc_db_path(db);
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(sql, "SELECT backend, options FROM runs WHERE id = ?", -1, &st, NULL);
  if (rc != SQLITE_OK) return vc_sqlfail(err, sql, rc, path, 0, "reading the run to resume");
  sqlite3_bind_int64(st, 1, run_id);
  rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) {
    const char *b = (const char *)sqlite3_column_text(st, 0);
    const char *o = (const char *)sqlite3_column_text(st, 1);
    out->backend = vc_strdup(b ? b : "");
    out->options = vc_strdup(o ? o : "");
  }
  sqlite3_finalize(st);
  if (rc == SQLITE_DONE)
    return vc_fail(err, VC_ERR_USAGE, "%s has no run %lld to resume", path, (long long)run_id);
  return rc == SQLITE_ROW ? 0 : vc_sqlfail(err, sql, rc, path, 0, "reading the run to resume");
}
