/* merge: a whole shard set becomes one run; anything else is refused, by name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "harness/cli/commands_results.h"
#include "harness/base/exitcodes.h"
#include "results/store/load.h"
#include "results/gate/merge.h"

static char shard_path[4][512], out_path[512];

static int setup(void **state) {
  fx_tmp_setup(state);
  for (int i = 0; i < 4; i++) {
    char name[32];
    snprintf(name, sizeof name, "shard%d.db", i + 1);
    fx_path(&fx_tmp, name, shard_path[i]);
  }
  fx_path(&fx_tmp, "merged.db", out_path);
  return 0;
}

static const fx_prog progs[3][2] = {{{"a1", "ppp", 5, 0}, {"a2", "pdp", 5, 0}},
                                    {{"b1", "ppp", 5, 0}, {"b2", "ppu", 5, 0}},
                                    {{"c1", "ppp", 5, 0}, {"c2", "ppp", 5, 0}}};

/* The programs of group g (1 to 3) as shard "K/N" into shard_path[slot], with overrides. */
static void write_shard(int slot, const char *shard, int g, fx_run spec) {
  spec.shard = shard;
  spec.progs = progs[g - 1];
  spec.nprogs = 2;
  fx_write_run(shard_path[slot], &spec);
}

static int merge(uint32_t n, vc_error *err) {
  const char *inputs[4] = {shard_path[0], shard_path[1], shard_path[2], shard_path[3]};
  int64_t run;
  return vc_merge(out_path, inputs, n, 1000, &run, err);
}

/* A refusal names the problem and writes nothing. */
static void assert_refused(uint32_t n, const char *want) {
  vc_error err = {0};
  assert_int_equal(merge(n, &err), VC_ERR_USAGE);
  if (!strstr(err.msg, want)) fail_msg("message \"%s\" lacks \"%s\"", err.msg, want);
  assert_int_not_equal(access(out_path, F_OK), 0);
}

static void test_complete_set_merges(void **state) {
  (void)state;
  /* given out of order: the merged run lists shard 1's programs first */
  write_shard(0, "2/3", 3, (fx_run){.repeats = 2});
  write_shard(1, "0/3", 1, (fx_run){.repeats = 2});
  write_shard(2, "1/3", 2, (fx_run){.repeats = 2, .device_name = "second device"});
  vc_error err = {0};
  assert_int_equal(merge(3, &err), 0);
  vc_run_data *r;
  assert_int_equal(vc_run_load(out_path, VC_RUN_LAST_COMPLETE, &r, &err), 0);
  assert_string_equal(r->status, "complete");
  assert_string_equal(r->info.shard, "");
  assert_int_equal(r->nprogs, 6);
  assert_string_equal(r->progs[0].info.name, "a1");
  assert_string_equal(r->progs[5].info.name, "c2");
  for (uint32_t p = 0; p < 6; p++) assert_int_equal(r->progs[p].nresults, 6);
  assert_int_equal(r->progs[1].results[0].ndivs, 0);
  assert_int_equal(r->progs[1].results[2].status, VC_ST_DIVERGE);
  assert_int_equal(r->progs[1].results[2].ndivs, 1);
  assert_int_equal(r->progs[1].results[2].nsegs, 2);
  assert_true(r->has_device);
  assert_string_equal(r->device.device_name, "llvmpipe (LLVM 15.0.6, 256 bits)");
  assert_non_null(strstr(r->info.options, "merged-shards=3"));
  assert_string_equal(r->info.host, "ci-runner-1");
  vc_run_free(r);
  /* the shards themselves are untouched */
  assert_int_equal(fx_query_int(shard_path[0], "SELECT count(*) FROM programs"), 2);
}

static void test_missing_shard_refused(void **state) {
  (void)state;
  write_shard(0, "0/3", 1, (fx_run){0});
  write_shard(1, "2/3", 3, (fx_run){0});
  assert_refused(2, "shard missing: 1/3 (2 of 3 given)");
  assert_refused(1, "shards missing: 1/3, 2/3");
}

static void test_duplicate_shard_refused(void **state) {
  (void)state;
  write_shard(0, "0/2", 1, (fx_run){0});
  write_shard(1, "1/2", 2, (fx_run){0});
  write_shard(2, "0/2", 3, (fx_run){0});
  char want[1200];
  snprintf(want, sizeof want, "shard 0/2 appears twice: %s and %s", shard_path[0], shard_path[2]);
  assert_refused(3, want);
}

static void test_mismatched_sets_refused(void **state) {
  (void)state;
  write_shard(0, "0/2", 1, (fx_run){0});
  write_shard(1, "1/2", 2, (fx_run){.corpus_digest = "0ther"});
  char want[1200];
  snprintf(want, sizeof want, "corpus digests differ: %s has", shard_path[0]);
  assert_refused(2, want);
  assert_refused(2, "has \"0ther\"");
  unlink(shard_path[1]);
  write_shard(1, "1/2", 2, (fx_run){.harness_version = "0.2.0"});
  assert_refused(2, "harness versions differ");
  unlink(shard_path[1]);
  write_shard(1, "1/2", 2, (fx_run){.backend = "opencl"});
  assert_refused(2, "backends differ");
  unlink(shard_path[1]);
  write_shard(1, "1/3", 2, (fx_run){0});
  assert_refused(2, "shard counts differ");
  unlink(shard_path[1]);
  write_shard(1, "", 2, (fx_run){0});
  assert_refused(2, "is not a shard");
  unlink(shard_path[1]);
  write_shard(1, "1/2", 1, (fx_run){0});
  assert_refused(2, "program a1 is in two shards");
  unlink(shard_path[1]);
  write_shard(1, "2/2", 2, (fx_run){0});
  assert_refused(2, "malformed shard \"2/2\"");
}

static void test_incomplete_shard_merges_as_interrupted(void **state) {
  (void)state;
  write_shard(0, "0/2", 1, (fx_run){0});
  write_shard(1, "1/2", 2, (fx_run){.end_status = "interrupted"});
  char *out;
  const char *argv[] = {"merge", "-o", out_path, shard_path[0], shard_path[1]};
  assert_int_equal(fx_capture(vc_cmd_merge, 5, argv, &out), VC_EXIT_FAIL);
  assert_non_null(strstr(out, "interrupted, 4 programs"));
  free(out);
  assert_int_equal(fx_query_int(out_path, "SELECT count(*) FROM runs WHERE status='interrupted'"),
                   1);
}

static void test_command(void **state) {
  (void)state;
  write_shard(0, "0/2", 1, (fx_run){0});
  write_shard(1, "1/2", 2, (fx_run){0});
  char *out;
  const char *ok[] = {"merge", shard_path[0], shard_path[1], "-o", out_path};
  assert_int_equal(fx_capture(vc_cmd_merge, 5, ok, &out), VC_EXIT_OK);
  assert_non_null(strstr(out, "merged 2 shards"));
  assert_non_null(strstr(out, "complete, 4 programs"));
  free(out);
  /* a second merge appends a second run */
  assert_int_equal(fx_capture(vc_cmd_merge, 5, ok, &out), VC_EXIT_OK);
  free(out);
  assert_int_equal(fx_query_int(out_path, "SELECT count(*) FROM runs"), 2);
  const char *refused[] = {"merge", "-o", out_path, shard_path[0]};
  assert_int_equal(fx_capture(vc_cmd_merge, 4, refused, &out), VC_EXIT_FAIL);
  free(out);
  const char *into_input[] = {"merge", "-o", shard_path[0], shard_path[0], shard_path[1]};
  assert_int_equal(fx_capture(vc_cmd_merge, 5, into_input, &out), VC_EXIT_FAIL);
  free(out);
  const char *no_out[] = {"merge", shard_path[0]};
  assert_int_equal(fx_capture(vc_cmd_merge, 2, no_out, &out), VC_EXIT_USAGE);
  free(out);
  fx_write_file(shard_path[2],
                "not a database, just some text that is long enough to be read "
                "as a header and refused by it............................",
                120);
  const char *corrupt[] = {"merge", "-o", out_path, shard_path[0], shard_path[2]};
  assert_int_equal(fx_capture(vc_cmd_merge, 5, corrupt, &out), VC_EXIT_DB);
  free(out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_complete_set_merges, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_missing_shard_refused, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_duplicate_shard_refused, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_mismatched_sets_refused, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_incomplete_shard_merges_as_interrupted, setup,
                                      fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_command, setup, fx_tmp_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
