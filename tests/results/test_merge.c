/* merge: a whole shard set becomes one run; anything else is refused, by name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "harness/cli/commands_results.h"
#include "harness/base/exitcodes.h"
#include "harness/model/digest.h"
#include "results/gate/judged_by.h"
#include "results/gate/merge.h"
#include "results/gate/provenance.h"
#include "results/store/load.h"

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

/* The selection of groups 1 to ngroups, as the runner records it: every
   fixture program has source digest "abcdef". */
typedef struct selection {
  char digest[65];
  char list[512];
  uint32_t n;
} selection;

static selection sel_of(int ngroups) {
  selection s = {0};
  vc_named_digest items[6];
  for (int g = 0; g < ngroups; g++)
    for (int p = 0; p < 2; p++) items[s.n++] = (vc_named_digest){progs[g][p].name, "abcdef"};
  vc_selection_digest(items, s.n, s.digest);
  size_t used = 0;
  for (uint32_t i = 0; i < s.n; i++)
    used += (size_t)snprintf(s.list + used, sizeof s.list - used, "%s %s\n", items[i].digest,
                             items[i].name);
  return s;
}

static selection sel2, sel3;

/* The programs of group g (1 to 3) as shard "K/N" into shard_path[slot],
   with overrides; cut from the selection of N groups unless spec names one. */
static void write_shard(int slot, const char *shard, int g, fx_run spec) {
  sel2 = sel_of(2);
  sel3 = sel_of(3);
  const selection *sel = strstr(shard, "/3") ? &sel3 : &sel2;
  spec.shard = shard;
  if (!spec.progs) {
    spec.progs = progs[g - 1];
    spec.nprogs = 2;
  }
  if (!spec.selection_digest) {
    spec.selection_digest = sel->digest;
    spec.selection_programs = sel->n;
    spec.selection_list = sel->list;
  }
  fx_write_run(shard_path[slot], &spec);
}

static int merge_mixed(uint32_t n, bool allow_mixed, vc_error *err) {
  const char *inputs[4] = {shard_path[0], shard_path[1], shard_path[2], shard_path[3]};
  int64_t run;
  return vc_merge(out_path, inputs, n, 1000, allow_mixed, &run, err);
}

static int merge(uint32_t n, vc_error *err) { return merge_mixed(n, false, err); }

/* A refusal names the problem and writes nothing. */
static void assert_refused(uint32_t n, const char *want) {
  vc_error err = {0};
  assert_int_equal(merge(n, &err), VC_ERR_USAGE);
  if (!strstr(err.msg, want)) fail_msg("message \"%s\" lacks \"%s\"", err.msg, want);
  assert_int_not_equal(access(out_path, F_OK), 0);
}

static void test_complete_set_merges(void **state) {
  (void)state;
  /* given out of order: the merged run lists shard 1's programs first; each
     shard's corpus digest covers only its own programs */
  write_shard(0, "2/3", 3, (fx_run){.repeats = 2, .corpus_digest = "c3"});
  write_shard(1, "0/3", 1, (fx_run){.repeats = 2, .corpus_digest = "c1"});
  write_shard(2, "1/3", 2, (fx_run){.repeats = 2, .corpus_digest = "c2"});
  vc_error err = {0};
  assert_int_equal(merge(3, &err), 0);
  vc_run_data *r;
  assert_int_equal(vc_run_load(out_path, VC_RUN_LAST_COMPLETE, &r, &err), 0);
  assert_string_equal(r->status, "complete");
  assert_string_equal(r->info.shard, "");
  assert_string_equal(r->info.selection_digest, sel3.digest);
  assert_int_equal(r->info.selection_programs, 6);
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
  assert_null(strstr(r->info.options, "mixed="));
  assert_string_equal(r->info.host, "ci-runner-1");
  char planted[VC_PLANTED_TEXT];
  vc_run_planted(r, planted, sizeof planted);
  assert_string_equal(planted, "");
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
  write_shard(1, "1/2", 2, (fx_run){.selection_digest = "0ther", .selection_programs = 4});
  char want[1200];
  snprintf(want, sizeof want, "selection digests differ: %s has", shard_path[0]);
  assert_refused(2, want);
  assert_refused(2, "has \"0ther\"");
  unlink(shard_path[1]);
  write_shard(1, "1/3", 2, (fx_run){0});
  assert_refused(2, "selection digests differ"); /* cut from another selection */
  unlink(shard_path[1]);
  write_shard(1, "1/2", 2, (fx_run){.selection_digest = sel_of(2).digest, .selection_programs = 5});
  assert_refused(2, "selection sizes differ");
  unlink(shard_path[1]);
  write_shard(1, "", 2, (fx_run){0});
  assert_refused(2, "is not a shard");
  unlink(shard_path[1]);
  write_shard(1, "1/2", 1, (fx_run){0});
  assert_refused(2, "program a1 is in two shards");
  unlink(shard_path[1]);
  write_shard(1, "2/2", 2, (fx_run){0});
  assert_refused(2, "malformed shard \"2/2\"");
  unlink(shard_path[1]);
  /* a shard of a harness that recorded no selection */
  write_shard(1, "1/2", 2, (fx_run){.selection_digest = ""});
  assert_refused(2, "records no selection digest");
}

/* The union of the shards must be the selection they were cut from. */
static void test_union_is_the_selection(void **state) {
  (void)state;
  write_shard(0, "0/2", 1, (fx_run){0});
  write_shard(1, "1/2", 2, (fx_run){.progs = progs[1], .nprogs = 1}); /* b2 never recorded */
  assert_refused(2, "the complete shards miss 1 of the selection's 4 programs: b2");
  unlink(shard_path[1]);
  const fx_prog extra[3] = {progs[1][0], progs[1][1], progs[2][0]};
  write_shard(1, "1/2", 2, (fx_run){.progs = extra, .nprogs = 3});
  char want[1200];
  snprintf(want, sizeof want, "program c1 of %s is not in the selection", shard_path[1]);
  assert_refused(2, want);
  unlink(shard_path[1]);
  /* b1's source changed between the selection and its shard */
  const fx_extra changed[2] = {{.source_digest = "0ddba11"}, {0}};
  write_shard(1, "1/2", 2, (fx_run){.extras = changed});
  assert_refused(2, "program b1 of");
  assert_refused(2, "has source digest 0ddba11, the selection has abcdef");
  unlink(shard_path[1]);
  /* without the list only the digest can tell: still refused */
  selection s = sel_of(2);
  write_shard(0, "0/2", 1, (fx_run){.selection_digest = s.digest, .selection_programs = 4,
                                    .selection_list = ""});
  write_shard(1, "1/2", 2, (fx_run){.progs = progs[1], .nprogs = 1, .selection_digest = s.digest,
                                    .selection_programs = 4, .selection_list = ""});
  assert_refused(2, "the shards' 3 programs do not make the selection");
}

/* Shards that differ in how they ran: refused by name, or merged and
   recorded with --allow-mixed. */
static void test_mixed_refused_or_recorded(void **state) {
  (void)state;
  const struct {
    fx_run spec;
    const char *field, *theirs;
  } cases[] = {
      {{.device_name = "second device"}, "device", "\"second device\""},
      {{.driver_version = "Mesa 24.0.0"}, "driver", "\"llvmpipe Mesa 24.0.0\""},
      {{.options = "repeat=3 timeout=60"}, "repeat", "\"3\""},
      {{.options = "repeat=1 timeout=5"}, "timeout", "\"5\""},
      {{.options = "repeat=1 timeout=60 device-options=fp64=off"}, "device-options",
       "\"fp64=off\""},
      {{.build_id = "another-build"}, "build", "\"another-build\""},
      {{.plugin_id = "another-plugin"}, "plugin", "\"another-plugin\""},
      {{.backend = "opencl"}, "backend", "\"opencl\""},
      {{.harness_version = "0.2.0"}, "harness-version", "\"0.2.0\""},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    write_shard(0, "0/2", 1, (fx_run){0});
    write_shard(1, "1/2", 2, cases[i].spec);
    char want[1400];
    snprintf(want, sizeof want, "the shards differ in %s: %s has", cases[i].field, shard_path[0]);
    assert_refused(2, want);
    snprintf(want, sizeof want, "%s has %s", shard_path[1], cases[i].theirs);
    assert_refused(2, want);
    vc_error err = {0};
    assert_int_equal(merge_mixed(2, true, &err), 0);
    vc_run_data *r;
    assert_int_equal(vc_run_load(out_path, VC_RUN_LATEST, &r, &err), 0);
    char mixed[256];
    assert_true(vc_run_option(r, "mixed", mixed, sizeof mixed));
    assert_string_equal(mixed, cases[i].field);
    assert_int_equal(r->nprogs, 4);
    /* the report says so on its first screen */
    vc_strbuf md;
    vc_sb_init(&md);
    assert_int_equal(fx_report1(vc_report_markdown, r, &md), 0);
    snprintf(want, sizeof want, "**Mixed shards:** run 1 merges shards that differ in %s",
             cases[i].field);
    if (!strstr(vc_sb_str(&md), want)) fail_msg("the report lacks \"%s\"", want);
    vc_sb_free(&md);
    vc_run_free(r);
    unlink(shard_path[0]);
    unlink(shard_path[1]);
    unlink(out_path);
  }
  /* several fields at once: all of them recorded, in the table's order */
  write_shard(0, "0/2", 1, (fx_run){0});
  write_shard(1, "1/2", 2, (fx_run){.build_id = "x", .options = "repeat=2 timeout=60"});
  vc_error err = {0};
  assert_int_equal(merge_mixed(2, true, &err), 0);
  assert_int_equal(fx_query_int(out_path, "SELECT count(*) FROM runs WHERE options LIKE "
                                          "'% mixed=build,repeat'"),
                   1);
}

/* A fault planted in any shard makes the merged run planted. */
static void test_planted_shard_carried(void **state) {
  (void)state;
  write_shard(0, "0/2", 1, (fx_run){0});
  write_shard(1, "1/2", 2,
              (fx_run){.options = "repeat=1 timeout=60 inject-crash=b1",
                       .command_line = "vyre-conform --backend vulkan --inject-crash b1 corpus/"});
  vc_error err = {0};
  assert_int_equal(merge(2, &err), 0);
  vc_run_data *r;
  assert_int_equal(vc_run_load(out_path, VC_RUN_LATEST, &r, &err), 0);
  char planted[VC_PLANTED_TEXT];
  vc_run_planted(r, planted, sizeof planted);
  assert_non_null(strstr(planted, "inject-crash"));
  vc_run_free(r);
  unlink(out_path);
  /* recorded only in the command line, and as an option of another shard */
  unlink(shard_path[1]);
  write_shard(1, "1/2", 2,
              (fx_run){.command_line = "vyre-conform --backend vulkan --inject-flip native:out:3 "
                                       "corpus/"});
  write_shard(2, "0/2", 1, (fx_run){.options = "repeat=1 timeout=60 mutant=skip-last"});
  const char *inputs[2] = {shard_path[2], shard_path[1]};
  int64_t run;
  assert_int_equal(vc_merge(out_path, inputs, 2, 1000, false, &run, &err), 0);
  assert_int_equal(vc_run_load(out_path, run, &r, &err), 0);
  vc_run_planted(r, planted, sizeof planted);
  assert_non_null(strstr(planted, "--inject-flip native:out:3"));
  assert_non_null(strstr(planted, "mutant=skip-last"));
  vc_run_free(r);
}

static void test_incomplete_shard_merges_as_interrupted(void **state) {
  (void)state;
  write_shard(0, "0/2", 1, (fx_run){0});
  /* interrupted before b2: the union misses it, the merged run says so */
  write_shard(1, "1/2", 2, (fx_run){.end_status = "interrupted", .progs = progs[1], .nprogs = 1});
  char *out;
  const char *argv[] = {"merge", "-o", out_path, shard_path[0], shard_path[1]};
  assert_int_equal(fx_capture(vc_cmd_merge, 5, argv, &out), VC_EXIT_FAIL);
  assert_non_null(strstr(out, "interrupted, 3 programs"));
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
  /* a refused set is bad input (4), neither a regression (1) nor usage (2) */
  const char *refused[] = {"merge", "-o", out_path, shard_path[0]};
  assert_int_equal(fx_capture(vc_cmd_merge, 4, refused, &out), VC_EXIT_INPUT);
  free(out);
  const char *into_input[] = {"merge", "-o", shard_path[0], shard_path[0], shard_path[1]};
  assert_int_equal(fx_capture(vc_cmd_merge, 5, into_input, &out), VC_EXIT_INPUT);
  free(out);
  write_shard(3, "1/2", 2, (fx_run){.build_id = "another-build"});
  const char *differ[] = {"merge", "-o", out_path, shard_path[0], shard_path[3]};
  char *errs;
  assert_int_equal(fx_capture_err(vc_cmd_merge, 5, differ, &out, &errs), VC_EXIT_INPUT);
  assert_non_null(strstr(errs, "the shards differ in build"));
  free(out);
  free(errs);
  const char *mixed[] = {"merge", "--allow-mixed", "-o", out_path, shard_path[0], shard_path[3]};
  assert_int_equal(fx_capture(vc_cmd_merge, 6, mixed, &out), VC_EXIT_OK);
  free(out);
  assert_int_equal(fx_query_int(out_path, "SELECT count(*) FROM runs WHERE options LIKE "
                                          "'% mixed=build'"),
                   1);
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
      cmocka_unit_test_setup_teardown(test_union_is_the_selection, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_mixed_refused_or_recorded, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_planted_shard_carried, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_incomplete_shard_merges_as_interrupted, setup,
                                      fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_command, setup, fx_tmp_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
