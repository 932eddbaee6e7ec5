/* Results files of an older schema: data/v1.sqlite was made by the release
 * before schema version 2 (vyre-conform on PoCL: run 1, let_load and
 * bfs_levels in host-split and resident-split; run 2, let_load in
 * host-split with a flipped bit, so one divergence). Read as it is, it
 * stays byte for byte the same; opened for writing, it is migrated in
 * place, keeps every row, and compares with runs of the new version. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "fixture.h"
#include "harness/base/exitcodes.h"
#include "harness/cli/commands_results.h"
#include "results/gate/merge.h"
#include "results/report/report.h"
#include "results/store/load.h"
#include "results/store/schema.h"

static const char fixture_v1[] = VC_SOURCE_DIR "/tests/results/data/v1.sqlite";

static void copy_file(const char *from, const char *to) {
  FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
  assert_non_null(in);
  assert_non_null(out);
  char buf[8192];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, in)) > 0) assert_int_equal(fwrite(buf, 1, n, out), n);
  fclose(in);
  assert_int_equal(fclose(out), 0);
}

static void run_digest(const char *path, int64_t run, char hex[65]) {
  vc_error err = {0};
  vc_run_data *r = NULL;
  if (vc_run_load(path, run, &r, &err))
    fail_msg("loading %s:%lld: %s", path, (long long)run, err.msg);
  vc_report_digest(r, hex);
  vc_run_free(r);
}

static int has_column(const char *path, const char *table, const char *column) {
  char sql[200];
  snprintf(sql, sizeof sql, "SELECT count(*) FROM pragma_table_info('%s') WHERE name='%s'", table,
           column);
  return (int)fx_query_int(path, sql);
}

static void test_old_file_is_read_as_it_is(void **state) {
  (void)state;
  char path[512], before[65], after[65];
  fx_path(&fx_tmp, "v1.db", path);
  copy_file(fixture_v1, path);
  fx_file_digest(path, before);
  vc_error err = {0};
  vc_run_data *r = NULL;
  assert_int_equal(vc_run_load(path, 1, &r, &err), 0);
  assert_string_equal(r->status, "complete");
  assert_string_equal(r->info.backend, "opencl");
  assert_string_equal(r->info.selection, ""); /* not recorded by version 1 */
  assert_true(r->has_device);
  assert_string_equal(r->device.api, "opencl");
  assert_int_equal(r->nprogs, 2);
  assert_string_equal(r->progs[0].info.name, "bfs_levels");
  assert_string_equal(r->progs[1].info.name, "let_load");
  uint32_t segs = 0;
  for (uint32_t p = 0; p < r->nprogs; p++) {
    assert_int_equal(r->progs[p].nresults, 2);
    for (uint32_t i = 0; i < r->progs[p].nresults; i++) {
      const vc_result *x = &r->progs[p].results[i];
      assert_int_equal(x->status, VC_ST_PASS);
      assert_false(x->converged); /* not recorded by version 1: reads as 0 */
      assert_int_equal(strlen(x->output_digest), 64);
      segs += x->nsegs;
    }
  }
  assert_true(segs > 0);
  vc_run_free(r);
  assert_int_equal(vc_run_load(path, 2, &r, &err), 0);
  assert_int_equal(r->nprogs, 1);
  assert_int_equal(r->progs[0].results[0].status, VC_ST_DIVERGE);
  assert_int_equal(r->progs[0].results[0].ndivs, 1);
  assert_string_equal(r->progs[0].results[0].divs[0].buffer, "out");
  assert_int_equal(r->progs[0].results[0].divs[0].cls, VC_DIV_INTEGER);
  vc_run_free(r);
  fx_file_digest(path, after);
  assert_string_equal(before, after);
  assert_int_equal(fx_query_int(path, "PRAGMA user_version"), 1);
}

/* The row count of every table. */
static void table_counts(const char *path, int64_t counts[6]) {
  static const char *const q[6] = {
      "SELECT count(*) FROM runs",        "SELECT count(*) FROM devices",
      "SELECT count(*) FROM programs",    "SELECT count(*) FROM results",
      "SELECT count(*) FROM divergences", "SELECT count(*) FROM segments"};
  for (int i = 0; i < 6; i++) counts[i] = fx_query_int(path, q[i]);
}

static void test_old_file_migrates_and_compares(void **state) {
  (void)state;
  char path[512], old_path[512], d1[65], d2[65], after1[65], after2[65];
  fx_path(&fx_tmp, "migrated.db", path);
  fx_path(&fx_tmp, "v1.db", old_path);
  copy_file(fixture_v1, path);
  copy_file(fixture_v1, old_path);
  run_digest(path, 1, d1);
  run_digest(path, 2, d2);
  int64_t before[6], after[6];
  table_counts(path, before);
  assert_int_equal(has_column(path, "results", "converged"), 0);
  assert_int_equal(has_column(path, "divergences", "attempt"), 0);

  vc_error err = {0};
  vc_db *db = NULL;
  assert_int_equal(vc_db_open(path, 1000, &db, &err), 0);
  assert_int_equal(fx_query_int(path, "PRAGMA user_version"), VC_DB_SCHEMA_VERSION);
  assert_int_equal(fx_query_int(path, "PRAGMA application_id"), VC_DB_APPLICATION_ID);
  assert_int_equal(has_column(path, "results", "converged"), 1);
  assert_int_equal(has_column(path, "runs", "selection"), 1);
  /* schema 9: every divergence of an old file is its result's own */
  assert_int_equal(has_column(path, "divergences", "attempt"), 1);
  assert_int_equal(fx_query_int(path, "SELECT count(*) FROM divergences WHERE attempt != 0"), 0);
  table_counts(path, after);
  for (int i = 0; i < 6; i++) assert_int_equal(after[i], before[i]);
  assert_int_equal(fx_query_int(path, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
  assert_int_equal(fx_query_int(path, "SELECT count(*) FROM sqlite_master WHERE type='index'"
                                      " AND name LIKE '%_by_%'"),
                   6);
  /* schema 12: the litmus tables, new and empty; 13: progress_results; 14: findings;
     15: the crossover tables */
  assert_int_equal(fx_query_int(path, "SELECT count(*) FROM litmus_runs"), 0);
  assert_int_equal(fx_query_int(path, "SELECT count(*) FROM litmus_results"), 0);
  assert_int_equal(fx_query_int(path, "SELECT count(*) FROM progress_results"), 0);
  assert_int_equal(fx_query_int(path, "SELECT count(*) FROM findings"), 0);
  assert_int_equal(fx_query_int(path, "SELECT count(*) FROM crossover_maps"), 0);
  assert_int_equal(fx_query_int(path, "SELECT count(*) FROM crossover_points"), 0);
  assert_int_equal(has_column(path, "litmus_results", "stress_groups"), 1);
  run_digest(path, 1, after1);
  run_digest(path, 2, after2);
  assert_string_equal(d1, after1);
  assert_string_equal(d2, after2);

  /* the new build records run 1's results again as run 3, with the new
     columns set */
  vc_run_data *r = NULL;
  assert_int_equal(vc_run_load(path, 1, &r, &err), 0);
  vc_run_info info = r->info;
  info.selection = "paths=2 programs=2";
  int64_t run = 0;
  assert_int_equal(vc_db_begin_run(db, &info, &run, &err), 0);
  assert_int_equal(run, 3);
  assert_int_equal(vc_db_record_device(db, run, &r->device, r->fingerprint, &err), 0);
  for (uint32_t p = 0; p < r->nprogs; p++) {
    vc_prog_data *pd = &r->progs[p];
    for (uint32_t i = 0; i < pd->nresults; i++) pd->results[i].converged = true;
    assert_int_equal(vc_db_record_program(db, run, &pd->info, pd->results, pd->nresults, &err), 0);
  }
  assert_int_equal(vc_db_end_run(db, run, "complete", &err), 0);
  vc_db_close(db);
  vc_run_free(r);
  assert_int_equal(fx_query_int(path, "SELECT count(*) FROM results WHERE converged=1"), 4);
  assert_int_equal(fx_query_int(path, "SELECT count(*) FROM runs WHERE selection<>''"), 1);

  /* compare: the old run against the new one, in the migrated file and
     from the file of the old version itself */
  char base[600], base_old[600], cand[600];
  snprintf(base, sizeof base, "%s:1", path);
  snprintf(base_old, sizeof base_old, "%s:1", old_path);
  snprintf(cand, sizeof cand, "%s:3", path);
  char *out = NULL;
  const char *argv1[] = {"compare", base, cand, "--no-timing"};
  assert_int_equal(fx_capture(vc_cmd_compare, 4, argv1, &out), VC_EXIT_OK);
  free(out);
  const char *argv2[] = {"compare", base_old, cand, "--no-timing"};
  assert_int_equal(fx_capture(vc_cmd_compare, 4, argv2, &out), VC_EXIT_OK);
  free(out);
  /* and run 2's divergence still fails the gate against run 1 */
  char cand2[600];
  snprintf(cand2, sizeof cand2, "%s:2", path);
  const char *argv3[] = {"compare", base, cand2, "--no-timing"};
  assert_int_not_equal(fx_capture(vc_cmd_compare, 4, argv3, &out), VC_EXIT_OK);
  free(out);
  assert_int_equal(fx_query_int(old_path, "PRAGMA user_version"), 1);
}

/* A migration that fails part-way leaves the file as it was: here a table
   left in the way of the last table's rebuild. */
static void test_failed_migration_changes_nothing(void **state) {
  (void)state;
  char path[512];
  fx_path(&fx_tmp, "blocked.db", path);
  copy_file(fixture_v1, path);
  sqlite3 *h = NULL;
  assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
  assert_int_equal(sqlite3_exec(h, "CREATE TABLE segments_migrated(x)", NULL, NULL, NULL),
                   SQLITE_OK);
  sqlite3_close(h);
  int64_t before[6], after[6];
  table_counts(path, before);
  vc_error err = {0};
  vc_db *db = NULL;
  assert_int_equal(vc_db_open(path, 1000, &db, &err), VC_ERR_DB);
  assert_null(db);
  print_message("refused: %s\n", err.msg);
  assert_non_null(strstr(err.msg, "migrating"));
  assert_int_equal(fx_query_int(path, "PRAGMA user_version"), 1);
  assert_int_equal(has_column(path, "results", "converged"), 0);
  assert_int_equal(has_column(path, "runs", "selection"), 0);
  assert_int_equal(fx_query_int(path, "SELECT count(*) FROM sqlite_master WHERE name LIKE "
                                      "'%_migrated'"),
                   1);
  table_counts(path, after);
  for (int i = 0; i < 6; i++) assert_int_equal(after[i], before[i]);
}

/* A file of version 2 (before results.cache_hits): read as it is, the
   column reading 0; migrated when written, every row kept. The file is
   made by this build and taken back to version 2's schema. */
static void test_version_2_migrates(void **state) {
  (void)state;
  char path[512];
  fx_path(&fx_tmp, "v2.db", path);
  const fx_prog progs[] = {{"a", "ppd", 10, 0}, {"b", "ppp", 10, 0}};
  fx_write_run(path, &(fx_run){.progs = progs, .nprogs = 2});
  sqlite3 *h = NULL;
  assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
  assert_int_equal(sqlite3_exec(h,
                                "ALTER TABLE results DROP COLUMN cache_hits; "
                                "ALTER TABLE results DROP COLUMN stderr; "
                                "ALTER TABLE results DROP COLUMN attempts; "
                                "ALTER TABLE results DROP COLUMN attempt_log; "
                                "PRAGMA user_version=2;",
                                NULL, NULL, NULL),
                   SQLITE_OK);
  sqlite3_close(h);
  assert_int_equal(has_column(path, "results", "cache_hits"), 0);
  vc_run_data *r = NULL;
  vc_error err = {0};
  assert_int_equal(vc_run_load(path, VC_RUN_LAST_COMPLETE, &r, &err), 0);
  assert_int_equal(r->nprogs, 2);
  assert_int_equal(r->progs[0].results[0].cache_hits, 0);
  vc_run_free(r);
  assert_int_equal(fx_query_int(path, "PRAGMA user_version"), 2);
  fx_write_run(path, &(fx_run){.progs = progs, .nprogs = 2}); /* writing migrates */
  assert_int_equal(fx_query_int(path, "PRAGMA user_version"), VC_DB_SCHEMA_VERSION);
  assert_int_equal(has_column(path, "results", "cache_hits"), 1);
  assert_int_equal(fx_query_int(path, "SELECT count(*) FROM results"), 12);
  assert_int_equal(fx_query_int(path, "SELECT count(*) FROM results WHERE run_id=1 AND "
                                      "cache_hits=0"),
                   6);
}

/* A file of version 3 (before results.stderr): read as it is, the captured
   standard error reading ""; migrated when written, every row kept. */
static void test_version_3_migrates(void **state) {
  (void)state;
  char path[512];
  fx_path(&fx_tmp, "v3.db", path);
  const fx_prog progs[] = {{"a", "ppd", 10, 0}, {"b", "ppp", 10, 0}};
  fx_write_run(path, &(fx_run){.progs = progs, .nprogs = 2});
  sqlite3 *h = NULL;
  assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
  assert_int_equal(sqlite3_exec(h, "ALTER TABLE results DROP COLUMN stderr; ALTER TABLE results DROP COLUMN attempts; "
                                "ALTER TABLE results DROP COLUMN attempt_log; "
                                "ALTER TABLE programs DROP COLUMN timeout_s; ALTER TABLE programs DROP COLUMN source; "
                                "PRAGMA user_version=3;",
                                NULL, NULL, NULL),
                   SQLITE_OK);
  sqlite3_close(h);
  vc_run_data *r = NULL;
  vc_error err = {0};
  assert_int_equal(vc_run_load(path, VC_RUN_LAST_COMPLETE, &r, &err), 0);
  assert_string_equal(r->progs[0].results[0].captured_stderr, "");
  vc_run_free(r);
  fx_write_run(path, &(fx_run){.progs = progs, .nprogs = 2}); /* writing migrates */
  assert_int_equal(fx_query_int(path, "PRAGMA user_version"), VC_DB_SCHEMA_VERSION);
  assert_int_equal(has_column(path, "results", "stderr"), 1);
  assert_int_equal(fx_query_int(path, "SELECT count(*) FROM results"), 12);
}

/* A file of version 4 (before results.attempts and attempt_log, the flake
   reruns' record): read as it is, the columns reading 0 and ""; migrated
   when written, every row kept. */
static void test_version_4_migrates(void **state) {
  (void)state;
  char path[512];
  fx_path(&fx_tmp, "v4.db", path);
  const fx_prog progs[] = {{"a", "ppd", 10, 0}, {"b", "ppp", 10, 0}};
  fx_write_run(path, &(fx_run){.progs = progs, .nprogs = 2});
  sqlite3 *h = NULL;
  assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
  assert_int_equal(sqlite3_exec(h,
                                "ALTER TABLE results DROP COLUMN attempts; "
                                "ALTER TABLE results DROP COLUMN attempt_log; "
                                "ALTER TABLE programs DROP COLUMN timeout_s; "
                                "ALTER TABLE programs DROP COLUMN source; "
                                "PRAGMA user_version=4;",
                                NULL, NULL, NULL),
                   SQLITE_OK);
  sqlite3_close(h);
  assert_int_equal(has_column(path, "results", "attempts"), 0);
  vc_run_data *r = NULL;
  vc_error err = {0};
  assert_int_equal(vc_run_load(path, VC_RUN_LAST_COMPLETE, &r, &err), 0);
  assert_int_equal(r->progs[0].results[0].attempts, 0);
  assert_string_equal(r->progs[0].results[0].attempt_log, "");
  vc_run_free(r);
  assert_int_equal(fx_query_int(path, "PRAGMA user_version"), 4);
  fx_write_run(path, &(fx_run){.progs = progs, .nprogs = 2}); /* writing migrates */
  assert_int_equal(fx_query_int(path, "PRAGMA user_version"), VC_DB_SCHEMA_VERSION);
  assert_int_equal(has_column(path, "results", "attempts"), 1);
  assert_int_equal(has_column(path, "results", "attempt_log"), 1);
  assert_int_equal(fx_query_int(path, "SELECT count(*) FROM results"), 12);
  assert_int_equal(fx_query_int(path, "SELECT count(*) FROM results WHERE run_id=1 AND "
                                      "attempts=0 AND attempt_log=''"),
                   6);
}

/* A file of version 5 (before programs.timeout_s): read as it is, the
   column reading 0; migrated when written, every row kept. */
static void test_version_5_migrates(void **state) {
  (void)state;
  char path[512];
  fx_path(&fx_tmp, "v5.db", path);
  const fx_prog progs[] = {{"a", "ppd", 10, 0}, {"b", "ppp", 10, 0}};
  fx_write_run(path, &(fx_run){.progs = progs, .nprogs = 2});
  sqlite3 *h = NULL;
  assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
  assert_int_equal(sqlite3_exec(h,
                                "ALTER TABLE programs DROP COLUMN timeout_s; "
                                "ALTER TABLE programs DROP COLUMN source; "
                                "PRAGMA user_version=5;",
                                NULL, NULL, NULL),
                   SQLITE_OK);
  sqlite3_close(h);
  assert_int_equal(has_column(path, "programs", "timeout_s"), 0);
  vc_run_data *r = NULL;
  vc_error err = {0};
  assert_int_equal(vc_run_load(path, VC_RUN_LAST_COMPLETE, &r, &err), 0);
  assert_int_equal(r->nprogs, 2);
  assert_int_equal(r->progs[0].info.timeout_s, 0);
  vc_run_free(r);
  assert_int_equal(fx_query_int(path, "PRAGMA user_version"), 5);
  fx_write_run(path, &(fx_run){.progs = progs, .nprogs = 2}); /* writing migrates */
  assert_int_equal(fx_query_int(path, "PRAGMA user_version"), VC_DB_SCHEMA_VERSION);
  assert_int_equal(has_column(path, "programs", "timeout_s"), 1);
  assert_int_equal(fx_query_int(path, "SELECT count(*) FROM programs"), 4);
  assert_int_equal(fx_query_int(path, "SELECT count(*) FROM programs WHERE timeout_s=0"), 4);
}

/* A file of version 9 (before runs.selection_digest, selection_programs,
   selection_list, build_id, plugin_id): read as it is, the columns reading
   "" and 0, and refused by merge (its union cannot be checked); migrated
   when written, every run kept, the old one with empty columns. */
static void test_version_9_migrates(void **state) {
  (void)state;
  char path[512], other[512], out[512];
  fx_path(&fx_tmp, "v9.db", path);
  fx_path(&fx_tmp, "v10.db", other);
  fx_path(&fx_tmp, "merged.db", out);
  const fx_prog progs[] = {{"a", "ppd", 10, 0}, {"b", "ppp", 10, 0}};
  fx_selection sel;
  fx_run spec = {.progs = progs, .nprogs = 1, .shard = "0/2"};
  fx_select(&spec, progs, 2, &sel);
  fx_write_run(path, &spec);
  spec.progs = progs + 1;
  spec.shard = "1/2";
  fx_write_run(other, &spec);
  sqlite3 *h = NULL;
  assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
  assert_int_equal(sqlite3_exec(h,
                                "ALTER TABLE runs DROP COLUMN selection_digest; "
                                "ALTER TABLE runs DROP COLUMN selection_programs; "
                                "ALTER TABLE runs DROP COLUMN selection_list; "
                                "ALTER TABLE runs DROP COLUMN build_id; "
                                "ALTER TABLE runs DROP COLUMN plugin_id; "
                                "PRAGMA user_version=9;",
                                NULL, NULL, NULL),
                   SQLITE_OK);
  sqlite3_close(h);
  vc_run_data *r = NULL;
  vc_error err = {0};
  assert_int_equal(vc_run_load(path, VC_RUN_LAST_COMPLETE, &r, &err), 0);
  assert_string_equal(r->info.selection_digest, "");
  assert_int_equal(r->info.selection_programs, 0);
  assert_string_equal(r->info.build_id, "");
  vc_run_free(r);
  const char *inputs[] = {path, other};
  int64_t run;
  assert_int_equal(vc_merge(out, inputs, 2, 1000, false, &run, &err), VC_ERR_USAGE);
  assert_non_null(strstr(err.msg, "records no selection digest"));
  assert_int_equal(fx_query_int(path, "PRAGMA user_version"), 9);
  fx_write_run(path, &spec); /* writing migrates */
  assert_int_equal(fx_query_int(path, "PRAGMA user_version"), VC_DB_SCHEMA_VERSION);
  assert_int_equal(has_column(path, "runs", "selection_digest"), 1);
  assert_int_equal(has_column(path, "runs", "build_id"), 1);
  assert_int_equal(fx_query_int(path, "SELECT count(*) FROM runs"), 2);
  assert_int_equal(fx_query_int(path, "SELECT count(*) FROM runs WHERE id=1 AND "
                                      "selection_digest='' AND selection_programs=0 AND "
                                      "selection_list='' AND build_id='' AND plugin_id=''"),
                   1);
  assert_int_equal(fx_query_int(path, "SELECT selection_programs FROM runs WHERE id=2"), 2);
}

/* A file of version 15 (before results.reference_cached): read as it is,
   the column reading 0; migrated when written, the old rows 0 (no claim
   that their references came from a cache). */
static void test_version_15_migrates(void **state) {
  (void)state;
  char path[512];
  fx_path(&fx_tmp, "v15.db", path);
  const fx_prog progs[] = {{"a", "ppd", 10, 0}, {"b", "ppp", 10, 0}};
  fx_write_run(path, &(fx_run){.progs = progs, .nprogs = 2});
  sqlite3 *h = NULL;
  assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
  assert_int_equal(sqlite3_exec(h,
                                "UPDATE results SET reference_cached=1; "
                                "ALTER TABLE results DROP COLUMN reference_cached; "
                                "PRAGMA user_version=15;",
                                NULL, NULL, NULL),
                   SQLITE_OK);
  sqlite3_close(h);
  vc_run_data *r = NULL;
  vc_error err = {0};
  assert_int_equal(vc_run_load(path, VC_RUN_LAST_COMPLETE, &r, &err), 0);
  assert_int_equal(r->progs[0].results[0].reference_cached, 0);
  vc_run_free(r);
  assert_int_equal(fx_query_int(path, "PRAGMA user_version"), 15);
  fx_write_run(path, &(fx_run){.progs = progs, .nprogs = 2}); /* writing migrates */
  assert_int_equal(fx_query_int(path, "PRAGMA user_version"), VC_DB_SCHEMA_VERSION);
  assert_int_equal(has_column(path, "results", "reference_cached"), 1);
  assert_int_equal(fx_query_int(path, "SELECT count(*) FROM results"), 12);
  assert_int_equal(fx_query_int(path, "SELECT count(*) FROM results WHERE run_id=1 AND "
                                      "reference_cached=0"),
                   6);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_old_file_is_read_as_it_is, fx_tmp_setup,
                                      fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_old_file_migrates_and_compares, fx_tmp_setup,
                                      fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_failed_migration_changes_nothing, fx_tmp_setup,
                                      fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_version_2_migrates, fx_tmp_setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_version_3_migrates, fx_tmp_setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_version_4_migrates, fx_tmp_setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_version_5_migrates, fx_tmp_setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_version_9_migrates, fx_tmp_setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_version_15_migrates, fx_tmp_setup, fx_tmp_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
