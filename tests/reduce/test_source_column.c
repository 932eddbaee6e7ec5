/* programs.source (schema 4): a recorded program's text is read back; a
 * file of version 3 (no such column) is read with it empty and migrated,
 * every row kept, when a run is written to it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results/store/load.h"
#include "results/store/record.h"
#include "results/store/schema.h"

static void write_run(const char *path, const char *source) {
  vc_db *db = NULL;
  vc_error err;
  vc_error_clear(&err);
  assert_int_equal(vc_db_open(path, 1000, &db, &err), 0);
  vc_run_info ri;
  memset(&ri, 0, sizeof ri);
  ri.backend = "opencl";
  ri.modes = "native";
  int64_t run = 0;
  assert_int_equal(vc_db_begin_run(db, &ri, &run, &err), 0);
  vc_result res;
  memset(&res, 0, sizeof res);
  res.mode = "native";
  res.status = VC_ST_PASS;
  vc_program_info p;
  memset(&p, 0, sizeof p);
  p.name = "p";
  p.path = "p.vyre";
  p.source_digest = "d";
  p.tags = "";
  p.source = source;
  assert_int_equal(vc_db_record_program(db, run, &p, &res, 1, &err), 0);
  assert_int_equal(vc_db_end_run(db, run, "complete", &err), 0);
  vc_db_close(db);
}

static int64_t query(const char *path, const char *sql) {
  sqlite3 *h = NULL;
  assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
  sqlite3_stmt *st = NULL;
  assert_int_equal(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK);
  int64_t v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
  sqlite3_finalize(st);
  sqlite3_close(h);
  return v;
}

static const char text[] = "(program p\n  (buffer o u32 1 write)\n  (entry (store o 0u 1u)))\n";

static void test_source_read_back(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s/tests-source-%d.db", VC_BINARY_DIR, (int)getpid());
  unlink(path);
  write_run(path, text);
  vc_run_data *r = NULL;
  vc_error err;
  vc_error_clear(&err);
  assert_int_equal(vc_run_load(path, VC_RUN_LATEST, &r, &err), 0);
  assert_int_equal(r->nprogs, 1);
  assert_string_equal(r->progs[0].info.source, text);
  vc_run_free(r);
  unlink(path);
}

static void test_version_6_migrates(void **state) {
  (void)state;
  char path[512], sql[256];
  snprintf(path, sizeof path, "%s/tests-source-v6-%d.db", VC_BINARY_DIR, (int)getpid());
  unlink(path);
  write_run(path, text);
  sqlite3 *h = NULL;
  assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
  assert_int_equal(sqlite3_exec(h, "ALTER TABLE programs DROP COLUMN source; PRAGMA user_version=6;",
                                NULL, NULL, NULL),
                   SQLITE_OK);
  sqlite3_close(h);
  vc_run_data *r = NULL;
  vc_error err;
  vc_error_clear(&err);
  assert_int_equal(vc_run_load(path, VC_RUN_LATEST, &r, &err), 0);
  assert_string_equal(r->progs[0].info.source, "");
  vc_run_free(r);
  write_run(path, text); /* writing migrates */
  assert_int_equal(query(path, "PRAGMA user_version"), VC_DB_SCHEMA_VERSION);
  assert_int_equal(query(path, "SELECT count(*) FROM programs"), 2);
  snprintf(sql, sizeof sql, "SELECT count(*) FROM programs WHERE source = ''");
  assert_int_equal(query(path, sql), 1);
  assert_int_equal(query(path, "SELECT length(source) FROM programs WHERE run_id = 2"),
                   (int64_t)strlen(text));
  unlink(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_source_read_back),
      cmocka_unit_test(test_version_6_migrates),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
