/* The recorder: rows written through record.h come back, field by field. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "results/store/load.h"
#include "results/store/schema.h"

static void test_status_names(void **state) {
  (void)state;
  for (int s = 0; s < VC_STATUS_COUNT; s++)
    assert_int_equal(vc_status_from_name(vc_status_name((vc_status)s)), s);
  assert_string_equal(vc_status_name(VC_ST_TIMEOUT), "timeout");
  assert_int_equal(vc_status_from_name("passed"), -1);
  assert_int_equal(vc_status_from_name(NULL), -1);
}

/* One program with two results: every column is set to a distinct value. */
static void record_detailed(const char *path, int64_t *run) {
  vc_error err = {0};
  vc_db *db;
  assert_int_equal(vc_db_open(path, 1000, &db, &err), 0);
  vc_run_info info = fx_run_info(&(fx_run){.shard = "2/3"});
  info.selection = "filter=acc* shard=2/3 programs=1";
  assert_int_equal(vc_db_begin_run(db, &info, run, &err), 0);
  vc_device_info dev;
  fx_device(&dev, "Test GPU 9000");
  assert_int_equal(vc_db_record_device(db, *run, &dev, "fp-42", &err), 0);
  vc_divergence divs[2] = {{.buffer = "acc",
                            .type = "f32",
                            .first_index = 5,
                            .count = 2,
                            .context_start = 3,
                            .expected_hex = "3f800000 40000000",
                            .actual_hex = "3f800001 40000000",
                            .cls = VC_DIV_F32_ULP,
                            .max_ulp = 1},
                           {.buffer = "out",
                            .type = "u32",
                            .first_index = 9,
                            .count = 1,
                            .context_start = 8,
                            .expected_hex = "00000001",
                            .actual_hex = "00000002",
                            .cls = VC_DIV_INTEGER}};
  vc_segment_timing segs[3] = {
      {0, 0, 11, 12, 13, 14, 1}, {0, 1, 21, 22, 23, 24, 1}, {1, 0, 31, 32, 33, 34, 2}};
  vc_result res[2] = {{.mode = "native",
                       .repeat = 0,
                       .status = VC_ST_PASS,
                       .wall_ns = 1001,
                       .device_ns = 1002,
                       .compile_ns = 1003,
                       .bytes_up = 1004,
                       .bytes_down = 1005,
                       .launches = 1,
                       .passes = 3,
                       .converged = true,
                       .participants = 4,
                       .virtual_per_participant = 5,
                       .device_barriers = 6},
                      {.mode = "host-split",
                       .repeat = 1,
                       .status = VC_ST_DIVERGE,
                       .wall_ns = 2001,
                       .device_ns = 2002,
                       .compile_ns = 2003,
                       .bytes_up = 2004,
                       .bytes_down = 2005,
                       .launches = 7,
                       .passes = 2,
                       .nondeterministic = true,
                       .divs = divs,
                       .ndivs = 2,
                       .segs = segs,
                       .nsegs = 3}};
  snprintf(res[0].output_digest, sizeof res[0].output_digest, "%064d", 7);
  snprintf(res[1].reason, sizeof res[1].reason, "buffer acc differs at element 5");
  vc_program_info prog = {
      "accumulate", "corpus/basic/accumulate.vyre", "d1g3st", 2, 1, 1024, 16, 12288, "basic split", 0,
      "(program accumulate)", 5, 6, 7, 30};
  assert_int_equal(vc_db_record_program(db, *run, &prog, res, 2, &err), 0);
  assert_int_equal(vc_db_end_run(db, *run, "complete", &err), 0);
  vc_db_close(db);
}

static void test_rows_round_trip(void **state) {
  (void)state;
  char path[512];
  fx_path(&fx_tmp, "rt.db", path);
  int64_t run;
  record_detailed(path, &run);

  vc_error err = {0};
  vc_run_data *r;
  assert_int_equal(vc_run_load(path, run, &r, &err), 0);
  assert_string_equal(r->status, "complete");
  assert_true(r->ended_ns >= r->info.started_ns);
  assert_string_equal(r->info.shard, "2/3");
  assert_string_equal(r->info.harness_commit, "0123456789ab");
  assert_string_equal(r->info.modes, "native,host-split,resident-split");
  assert_string_equal(r->info.selection, "filter=acc* shard=2/3 programs=1");
  assert_true(r->has_device);
  assert_string_equal(r->device.device_name, "Test GPU 9000");
  assert_string_equal(r->device.driver_version, "Mesa 22.3.6");
  assert_int_equal(r->device.vendor_id, 0x10005);
  assert_int_equal(r->device.max_grid[2], 65535);
  assert_int_equal(r->device.global_mem_bytes, (uint64_t)8 << 30);
  assert_true(r->device.timestamps);
  assert_false(r->device.cooperative);
  assert_string_equal(r->device.extra, "subgroup_size=8\nsubgroup_ops=basic,vote\n");
  assert_string_equal(r->fingerprint, "fp-42");

  assert_int_equal(r->nprogs, 1);
  const vc_prog_data *p = &r->progs[0];
  assert_string_equal(p->info.name, "accumulate");
  assert_string_equal(p->info.tags, "basic split");
  assert_int_equal(p->info.buffer_bytes, 12288);
  assert_int_equal(p->nresults, 2);
  const vc_result *a = &p->results[0], *b = &p->results[1];
  assert_string_equal(a->mode, "native");
  assert_int_equal(a->status, VC_ST_PASS);
  assert_int_equal(a->compile_ns, 1003);
  assert_int_equal(a->device_barriers, 6);
  assert_int_equal(a->virtual_per_participant, 5);
  assert_true(a->converged);
  assert_false(p->results[1].converged);
  assert_int_equal(a->ndivs + a->nsegs, 0);
  assert_string_equal(b->mode, "host-split");
  assert_int_equal(b->repeat, 1);
  assert_int_equal(b->status, VC_ST_DIVERGE);
  assert_true(b->nondeterministic);
  assert_string_equal(b->reason, "buffer acc differs at element 5");
  assert_int_equal(b->bytes_down, 2005);
  assert_int_equal(b->ndivs, 2);
  assert_int_equal(b->divs[0].cls, VC_DIV_F32_ULP);
  assert_string_equal(b->divs[0].actual_hex, "3f800001 40000000");
  assert_int_equal(b->divs[0].max_ulp, 1);
  assert_int_equal(b->divs[1].first_index, 9);
  assert_int_equal(b->nsegs, 3);
  assert_int_equal(b->segs[2].pass, 1);
  assert_int_equal(b->segs[2].launches, 2);
  assert_int_equal(b->segs[1].device_ns, 22);
  vc_run_free(r);
  /* the reader closes as the last connection: no log files are left behind */
  char aside[600];
  snprintf(aside, sizeof aside, "%s-wal", path);
  assert_int_not_equal(access(aside, F_OK), 0);
  snprintf(aside, sizeof aside, "%s-shm", path);
  assert_int_not_equal(access(aside, F_OK), 0);

  /* the file itself: ours, this version, WAL */
  assert_int_equal(fx_query_int(path, "PRAGMA application_id"), VC_DB_APPLICATION_ID);
  assert_int_equal(fx_query_int(path, "PRAGMA user_version"), VC_DB_SCHEMA_VERSION);
  assert_int_equal(
      fx_query_int(path, "SELECT count(*) FROM pragma_journal_mode WHERE journal_mode='wal'"), 1);
  assert_int_equal(fx_query_int(path, "SELECT count(*) FROM divergences"), 2);
  assert_int_equal(fx_query_int(path, "SELECT count(*) FROM segments"), 3);
}

static void test_each_open_appends_a_run(void **state) {
  (void)state;
  char path[512];
  fx_path(&fx_tmp, "append.db", path);
  fx_prog progs[] = {{"a", "ppp", 0, 0}};
  int64_t r1 = fx_write_run(path, &(fx_run){.progs = progs, .nprogs = 1});
  int64_t r2 = fx_write_run(path, &(fx_run){.progs = progs, .nprogs = 1});
  int64_t r3 = fx_write_run(path, &(fx_run){.progs = progs, .nprogs = 1, .end_status = ""});
  assert_true(r1 < r2 && r2 < r3);
  assert_int_equal(fx_query_int(path, "SELECT count(*) FROM runs"), 3);
  vc_error err = {0};
  vc_run_data *r;
  /* the default is the last complete run, not the one still running */
  assert_int_equal(vc_run_load(path, VC_RUN_LAST_COMPLETE, &r, &err), 0);
  assert_int_equal(r->id, r2);
  vc_run_free(r);
  assert_int_equal(vc_run_load(path, VC_RUN_LATEST, &r, &err), 0);
  assert_int_equal(r->id, r3);
  assert_string_equal(r->status, "running");
  vc_run_free(r);
  assert_int_not_equal(vc_run_load(path, 99, &r, &err), 0);
  assert_non_null(strstr(err.msg, "has no run 99"));
}

static void test_ended_run_takes_no_results(void **state) {
  (void)state;
  char path[512];
  fx_path(&fx_tmp, "ended.db", path);
  fx_prog progs[] = {{"a", "ppp", 0, 0}};
  int64_t run =
      fx_write_run(path, &(fx_run){.progs = progs, .nprogs = 1, .end_status = "interrupted"});
  vc_error err = {0};
  vc_db *db;
  assert_int_equal(vc_db_open(path, 1000, &db, &err), 0);
  vc_result res[3];
  uint32_t n = fx_results(&(fx_prog){"b", "ppp", 0, 0}, 1, res);
  vc_program_info pi = {.name = "b"};
  assert_int_equal(vc_db_record_program(db, run, &pi, res, n, &err), VC_ERR_DB);
  assert_non_null(strstr(err.msg, "has ended (interrupted)"));
  assert_int_equal(vc_db_end_run(db, run, "complete", &err), VC_ERR_DB);
  assert_int_equal(vc_db_end_run(db, run, "finished", &err), VC_ERR_USAGE);
  assert_non_null(strstr(err.msg, "\"finished\""));
  assert_int_equal(vc_db_record_program(db, 12345, &pi, res, n, &err), VC_ERR_DB);
  assert_non_null(strstr(err.msg, "has no run 12345"));
  vc_db_close(db);
  assert_int_equal(fx_query_int(path, "SELECT count(*) FROM programs"), 1);
}

/* A failure inside a program's transaction leaves none of its rows. */
static void test_program_is_one_transaction(void **state) {
  (void)state;
  char path[512];
  fx_path(&fx_tmp, "txn.db", path);
  fx_prog progs[] = {{"a", "ppp", 0, 0}};
  int64_t run = fx_write_run(path, &(fx_run){.progs = progs, .nprogs = 1, .end_status = ""});
  vc_error err = {0};
  vc_db *db;
  assert_int_equal(vc_db_open(path, 1000, &db, &err), 0);
  vc_result res[3];
  uint32_t n = fx_results(&(fx_prog){"b", "dpp", 0, 0}, 1, res);
  res[2].mode = "native"; /* the same mode and repeat twice: the third insert fails */
  vc_program_info pi = {.name = "b"};
  assert_int_equal(vc_db_record_program(db, run, &pi, res, n, &err), VC_ERR_DB);
  /* the same name again is a duplicate */
  pi.name = "a";
  assert_int_equal(vc_db_record_program(db, run, &pi, res, 1, &err), VC_ERR_DB);
  assert_non_null(strstr(err.msg, "program a is already recorded"));
  vc_db_close(db);
  assert_int_equal(fx_query_int(path, "SELECT count(*) FROM programs WHERE name='b'"), 0);
  assert_int_equal(fx_query_int(path, "SELECT count(*) FROM results"), 3);
  assert_int_equal(fx_query_int(path, "SELECT count(*) FROM divergences"), 0);
}

static void test_malformed_result_refused(void **state) {
  (void)state;
  char path[512];
  fx_path(&fx_tmp, "bad.db", path);
  vc_error err = {0};
  int64_t run;
  vc_db *db = fx_begin(path, &run);
  vc_result res = {.mode = "native", .status = VC_STATUS_COUNT};
  vc_program_info pi = {.name = "x"};
  assert_int_equal(vc_db_record_program(db, run, &pi, &res, 1, &err), VC_ERR_USAGE);
  res.status = VC_ST_PASS;
  res.ndivs = 1; /* and no array */
  assert_int_equal(vc_db_record_program(db, run, &pi, &res, 1, &err), VC_ERR_USAGE);
  vc_db_close(db);
}

static void test_run_spec_split(void **state) {
  (void)state;
  char path[64];
  int64_t id;
  vc_run_spec_split("base.db:12", path, &id);
  assert_string_equal(path, "base.db");
  assert_int_equal(id, 12);
  vc_run_spec_split("base.db", path, &id);
  assert_string_equal(path, "base.db");
  assert_int_equal(id, 0);
  vc_run_spec_split("dir:x/base.db", path, &id);
  assert_string_equal(path, "dir:x/base.db");
  assert_int_equal(id, 0);
  vc_error err = {0};
  vc_run_data *r = NULL;
  assert_int_equal(vc_run_load_spec("base.db:0", &r, &err), VC_ERR_USAGE);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_status_names),
      cmocka_unit_test_setup_teardown(test_rows_round_trip, fx_tmp_setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_each_open_appends_a_run, fx_tmp_setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_ended_run_takes_no_results, fx_tmp_setup,
                                      fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_program_is_one_transaction, fx_tmp_setup,
                                      fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_malformed_result_refused, fx_tmp_setup, fx_tmp_teardown),
      cmocka_unit_test(test_run_spec_split),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
