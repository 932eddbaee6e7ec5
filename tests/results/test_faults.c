/* Faults of a results file: each is a clear error and leaves the file as it was. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "fixture.h"
#include "results/store/db_internal.h"
#include "results/store/load.h"
#include "results/store/schema.h"

static const fx_prog two[] = {{"a", "ppp", 0, 0}, {"b", "pdp", 0, 0}};

static void exec_sql(sqlite3 *db, const char *sql) {
  char *msg = NULL;
  if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) fail_msg("%s: %s", sql, msg);
}

/* Opening must fail with VC_ERR_DB and a message containing want, and the
   file must keep every byte; the reader must refuse it the same way. */
static void assert_refused_untouched(const char *path, const char *want) {
  char before[65], after[65];
  fx_file_digest(path, before);
  vc_error err = {0};
  vc_db *db = (vc_db *)&err; /* must be reset to NULL */
  assert_int_equal(vc_db_open(path, 200, &db, &err), VC_ERR_DB);
  assert_null(db);
  print_message("refused: %s\n", err.msg);
  if (!strstr(err.msg, want)) fail_msg("message \"%s\" lacks \"%s\"", err.msg, want);
  assert_non_null(strstr(err.msg, path));
  vc_run_data *r = NULL;
  assert_int_equal(vc_run_load(path, VC_RUN_LATEST, &r, &err), VC_ERR_DB);
  if (!strstr(err.msg, want)) fail_msg("reader's message \"%s\" lacks \"%s\"", err.msg, want);
  fx_file_digest(path, after);
  assert_string_equal(before, after);
}

static void test_locked_by_another_writer(void **state) {
  (void)state;
  char path[512];
  fx_path(&fx_tmp, "locked.db", path);
  fx_write_run(path, &(fx_run){.progs = two, .nprogs = 2});
  sqlite3 *other;
  assert_int_equal(sqlite3_open(path, &other), SQLITE_OK);
  exec_sql(other, "BEGIN IMMEDIATE; UPDATE runs SET host='other' WHERE id=1");

  vc_error err = {0};
  vc_db *db;
  assert_int_equal(vc_db_open(path, 150, &db, &err), 0); /* reading is not blocked */
  vc_run_info info = fx_run_info(&(fx_run){0});
  int64_t run;
  assert_int_equal(vc_db_begin_run(db, &info, &run, &err), VC_ERR_DB);
  char want[600];
  snprintf(want, sizeof want, "results database %s is locked by another writer; waited 150 ms",
           path);
  assert_string_equal(err.msg, want);

  exec_sql(other, "ROLLBACK");
  assert_int_equal(vc_db_begin_run(db, &info, &run, &err), 0);
  exec_sql(other, "BEGIN IMMEDIATE; UPDATE runs SET host='other' WHERE id=1");
  vc_result res[3];
  uint32_t n = fx_results(&two[0], 1, res);
  vc_program_info pi = {.name = "c"};
  assert_int_equal(vc_db_record_program(db, run, &pi, res, n, &err), VC_ERR_DB);
  assert_string_equal(err.msg, want);
  exec_sql(other, "COMMIT");
  assert_int_equal(vc_db_record_program(db, run, &pi, res, n, &err), 0);
  vc_db_close(db);
  sqlite3_close(other);
  assert_int_equal(fx_query_int(path, "SELECT count(*) FROM programs WHERE name='c'"), 1);
}

static void test_garbage_file(void **state) {
  (void)state;
  char path[512], wal[520];
  fx_path(&fx_tmp, "garbage.db", path);
  unsigned char junk[8192];
  uint32_t x = 12345;
  for (size_t i = 0; i < sizeof junk; i++)
    junk[i] = (unsigned char)((x = x * 1103515245u + 12345u) >> 24);
  fx_write_file(path, junk, sizeof junk);
  assert_refused_untouched(path, "is corrupt");
  snprintf(wal, sizeof wal, "%s-wal", path);
  assert_int_not_equal(access(wal, F_OK), 0);
}

/* A real results file whose first page (after the header) was overwritten. */
static void test_damaged_file(void **state) {
  (void)state;
  char path[512];
  fx_path(&fx_tmp, "damaged.db", path);
  fx_write_run(path, &(fx_run){.progs = two, .nprogs = 2});
  FILE *f = fopen(path, "r+b");
  assert_non_null(f);
  fseek(f, 100, SEEK_SET);
  unsigned char junk[900];
  memset(junk, 0xa5, sizeof junk);
  assert_int_equal(fwrite(junk, 1, sizeof junk, f), sizeof junk);
  fclose(f);
  assert_refused_untouched(path, "is corrupt");
}

/* A real results file damaged deep inside, in a page that opening and
   starting a run never read: the recorder refuses it before writing a row
   (a page check), and leaves no -wal or -shm beside it. */
static void test_damaged_deep_page(void **state) {
  (void)state;
  char path[512], before[65], after[65], aside[520];
  fx_path(&fx_tmp, "deep.db", path);
  fx_prog many[40];
  char names[40][16];
  for (int i = 0; i < 40; i++) {
    snprintf(names[i], sizeof names[i], "prog%02d", i);
    many[i] = (fx_prog){names[i], "pdp", 0, 0};
  }
  fx_write_run(path, &(fx_run){.progs = many, .nprogs = 40});
  struct stat st; /* not through SQLite, whose read-only connection leaves a -wal */
  assert_int_equal(stat(path, &st), 0);
  int64_t pages = st.st_size / 4096;
  assert_true(pages > 8);
  FILE *f = fopen(path, "r+b");
  assert_non_null(f);
  fseek(f, (long)(pages - 2) * 4096, SEEK_SET);
  unsigned char junk[4096];
  memset(junk, 0x5a, sizeof junk);
  assert_int_equal(fwrite(junk, 1, sizeof junk, f), sizeof junk);
  fclose(f);
  fx_file_digest(path, before);
  vc_error err = {0};
  vc_db *db = NULL;
  assert_int_equal(vc_db_open(path, 200, &db, &err), VC_ERR_DB);
  assert_null(db);
  print_message("refused: %s\n", err.msg);
  assert_non_null(strstr(err.msg, "is corrupt"));
  assert_non_null(strstr(err.msg, "left untouched"));
  fx_file_digest(path, after);
  assert_string_equal(before, after);
  snprintf(aside, sizeof aside, "%s-wal", path);
  assert_int_not_equal(access(aside, F_OK), 0);
  snprintf(aside, sizeof aside, "%s-shm", path);
  assert_int_not_equal(access(aside, F_OK), 0);
}

static void test_foreign_database(void **state) {
  (void)state;
  char path[512];
  fx_path(&fx_tmp, "foreign.db", path);
  sqlite3 *other;
  assert_int_equal(sqlite3_open(path, &other), SQLITE_OK);
  exec_sql(other, "CREATE TABLE notes(id INTEGER PRIMARY KEY, text TEXT);"
                  "INSERT INTO notes(text) VALUES('keep me')");
  sqlite3_close(other);
  assert_refused_untouched(path, "another application");
  assert_int_equal(fx_query_int(path, "SELECT count(*) FROM sqlite_master"), 1);
  assert_int_equal(
      fx_query_int(path, "SELECT count(*) FROM pragma_journal_mode WHERE journal_mode='wal'"), 0);

  /* stamped by another application, but still empty: not ours either */
  fx_path(&fx_tmp, "stamped.db", path);
  assert_int_equal(sqlite3_open(path, &other), SQLITE_OK);
  exec_sql(other, "PRAGMA application_id=305419896; CREATE TABLE t(x); DROP TABLE t");
  sqlite3_close(other);
  assert_refused_untouched(path, "application_id 0x12345678");
}

/* A foreign WAL database whose log still holds transactions: checking it
   must not checkpoint the log into it. */
static void test_foreign_wal_database(void **state) {
  (void)state;
  char path[512], wal[520], before[65], after[65];
  fx_path(&fx_tmp, "foreign-wal.db", path);
  snprintf(wal, sizeof wal, "%s-wal", path);
  sqlite3 *other;
  assert_int_equal(sqlite3_open(path, &other), SQLITE_OK);
  exec_sql(other, "PRAGMA journal_mode=WAL; CREATE TABLE notes(text TEXT);"
                  "PRAGMA wal_checkpoint; INSERT INTO notes VALUES('only in the log')");
  assert_int_equal(sqlite3_db_config(other, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL), SQLITE_OK);
  sqlite3_close(other);
  fx_file_digest(wal, before);
  assert_refused_untouched(path, "another application");
  fx_file_digest(wal, after);
  assert_string_equal(before, after);
}

static void set_version(const char *path, int version) {
  sqlite3 *other;
  assert_int_equal(sqlite3_open(path, &other), SQLITE_OK);
  char sql[64];
  snprintf(sql, sizeof sql, "PRAGMA user_version=%d", version);
  exec_sql(other, sql);
  sqlite3_close(other);
}

static void test_other_schema_versions(void **state) {
  (void)state;
  char path[512];
  fx_path(&fx_tmp, "newer.db", path);
  fx_write_run(path, &(fx_run){.progs = two, .nprogs = 2});
  set_version(path, VC_DB_SCHEMA_VERSION + 1);
  assert_refused_untouched(path, "newer than this harness's version");
  fx_path(&fx_tmp, "older.db", path);
  fx_write_run(path, &(fx_run){.progs = two, .nprogs = 2});
  set_version(path, VC_DB_SCHEMA_OLDEST - 1);
  assert_refused_untouched(path, "older than any it can migrate");
}

/* The page limit stands in for a full disk: the program in flight is lost,
   everything recorded before stays whole and readable. */
static void test_disk_full(void **state) {
  (void)state;
  char path[512];
  fx_path(&fx_tmp, "full.db", path);
  vc_error err = {0};
  int64_t run;
  vc_db *db = fx_begin(path, &run);
  sqlite3 *sql = vc_db_sqlite(db);
  exec_sql(sql, "PRAGMA max_page_count=24");
  vc_result res[9];
  uint32_t recorded = 0;
  int rc = 0;
  for (uint32_t i = 0; i < 100000 && !rc; i++) {
    char name[32];
    snprintf(name, sizeof name, "prog%05u", i);
    uint32_t n = fx_results(&(fx_prog){name, "dpd", 0, 0}, 3, res);
    vc_program_info pi = {.name = name, .path = "corpus/long/path/to/a/program.vyre", .tags = "t"};
    rc = vc_db_record_program(db, run, &pi, res, n, &err);
    if (!rc) recorded++;
  }
  assert_int_equal(rc, VC_ERR_DB);
  print_message("after %u programs: %s\n", recorded, err.msg);
  if (!strstr(err.msg, "is full")) fail_msg("unexpected message: %s", err.msg);
  assert_non_null(strstr(err.msg, path));
  assert_true(recorded > 0);
  vc_db_close(db);

  vc_run_data *r;
  assert_int_equal(vc_run_load(path, run, &r, &err), 0);
  assert_int_equal(r->nprogs, recorded);
  for (uint32_t p = 0; p < r->nprogs; p++) {
    assert_int_equal(r->progs[p].nresults, 9);
    assert_int_equal(r->progs[p].results[0].ndivs, 1);
  }
  vc_run_free(r);
  assert_int_equal(
      fx_query_int(path, "SELECT count(*) FROM pragma_integrity_check WHERE integrity_check='ok'"),
      1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_locked_by_another_writer, fx_tmp_setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_garbage_file, fx_tmp_setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_damaged_file, fx_tmp_setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_damaged_deep_page, fx_tmp_setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_foreign_database, fx_tmp_setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_foreign_wal_database, fx_tmp_setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_other_schema_versions, fx_tmp_setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_disk_full, fx_tmp_setup, fx_tmp_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
