/* End-to-end on the OpenCL backend (PoCL): --shard K/N with --shard-costs.
 * Eight programs whose costs (loops of very different lengths, and a costs
 * file saying so) put both heavy ones in shard 0 by name order; the four
 * shards balance them instead: each program runs in exactly one shard,
 * together the selection, each where --shard-plan says; the run records
 * the costs file. A costs database works like a CSV; a malformed costs
 * file is named with its line, exits 4 and writes no results file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness/base/exitcodes.h"
#include "run_util.h"

#define NPROG 8
/* by name: a_heavy and e_heavy are programs 0 and 4, one shard of 4 by i mod 4 */
static const char *const names[NPROG] = {"a_heavy", "b_light", "c_light", "d_light",
                                         "e_heavy", "f_light", "g_light", "h_new"};

static void write_program(const char *name, unsigned iters) {
  char path[64], text[512];
  snprintf(path, sizeof path, "corpus/%s.vyre", name);
  snprintf(text, sizeof text,
           "(program %s (workgroup 64) (grid 1)\n"
           "  (buffer o u32 64 write)\n"
           "  (entry\n"
           "    (var acc 0u)\n"
           "    (loop k 0u %uu (set acc (add acc (xor k (global_id x)))))\n"
           "    (store o (global_id x) acc)))\n",
           name, iters);
  ru_write_file(path, text);
}

static int setup(void **state) {
  (void)state;
  ru_make_dir("vc-shard-run");
  char sub[300];
  snprintf(sub, sizeof sub, "%s/corpus", ru_dir);
  mkdir(sub, 0777);
  for (int i = 0; i < NPROG; i++) write_program(names[i], strstr(names[i], "heavy") ? 4000 : 10);
  /* h_new is not listed: it gets the scaled static estimate */
  ru_write_file("costs.csv", "# name,cost (ms)\n"
                             "a_heavy,900\nb_light,10\nc_light,12\nd_light,11\n"
                             "e_heavy,800\nf_light,9\ng_light,13\n");
  return 0;
}

static int teardown(void **state) {
  (void)state;
  return ru_remove_dir();
}

/* The shard --shard-plan's output (out.txt) puts name in, or -1. */
static int planned_shard(const char *out, const char *name) {
  int shard = -1;
  char line[256], want[80];
  snprintf(want, sizeof want, "  %s ", name);
  const char *p = out;
  while (*p) {
    size_t n = strcspn(p, "\n");
    snprintf(line, sizeof line, "%.*s", (int)n, p);
    p += n + (p[n] == '\n');
    unsigned k, total;
    if (sscanf(line, "shard %u/%u", &k, &total) == 2) shard = (int)k;
    else if (!strncmp(line, want, strlen(want))) return shard;
  }
  return -1;
}

static void test_shards_follow_plan(void **state) {
  (void)state;
  static char plan[16384];
  assert_int_equal(ru_run(NULL, "--shard-plan 4 --shard-costs costs.csv corpus"), 0);
  ru_read_text("out.txt", plan, sizeof plan);
  assert_true(ru_file_contains("out.txt", "costs from costs.csv (7 measured, 1 estimated)"));
  assert_true(ru_file_contains("out.txt", "  h_new "));
  int where[NPROG];
  for (int i = 0; i < NPROG; i++) {
    where[i] = planned_shard(plan, names[i]);
    assert_true(where[i] >= 0 && where[i] < 4);
  }
  /* the two heavy ones, together by name order, sit alone in shards of their own */
  assert_int_not_equal(where[0], where[4]);
  for (int i = 0; i < NPROG; i++)
    if (i != 0 && i != 4) assert_true(where[i] != where[0] && where[i] != where[4]);
  /* nothing was written */
  assert_int_not_equal(access("vyre-conform.db", F_OK), 0);

  int runs_of[NPROG] = {0};
  for (int k = 0; k < 4; k++) {
    assert_int_equal(ru_run(NULL,
                            "--backend opencl --mode native --expectations none --progress plain "
                            "--shard %d/4 --shard-costs costs.csv --db s%d.db corpus",
                            k, k),
                     0);
    char db[16], opts[2048];
    snprintf(db, sizeof db, "s%d.db", k);
    ru_query_text(db, "SELECT options FROM runs", opts, sizeof opts);
    assert_non_null(strstr(opts, "shard-costs=costs.csv"));
    char *rows = ru_rows(db, "SELECT name FROM programs ORDER BY name");
    for (char *line = strtok(rows, "\n"); line; line = strtok(NULL, "\n")) {
      int i = 0;
      while (i < NPROG && strcmp(names[i], line)) i++;
      assert_true(i < NPROG);
      assert_int_equal(where[i], k);
      runs_of[i]++;
    }
    free(rows);
  }
  /* each exactly once: together the selection */
  for (int i = 0; i < NPROG; i++) assert_int_equal(runs_of[i], 1);
}

/* A results database as costs: every program measured, each shard's cost
   the sum of its programs'. */
static void test_costs_from_db(void **state) {
  (void)state;
  assert_int_equal(ru_run(NULL, "--backend opencl --mode native --expectations none "
                                "--progress plain --db whole.db corpus"),
                   0);
  assert_int_equal(ru_run(NULL, "--shard-plan 3 --shard-costs whole.db corpus"), 0);
  assert_true(ru_file_contains("out.txt", "costs from whole.db (8 measured, 0 estimated)"));
  static char plan[16384];
  ru_read_text("out.txt", plan, sizeof plan);
  unsigned long long shard_cost = 0, sum = 0, c;
  int seen = 0;
  char name[64];
  for (const char *p = strchr(plan, '\n'); p && *++p;) {
    unsigned k, n, count;
    if (sscanf(p, "shard %u/%u cost %llu programs %u", &k, &n, &c, &count) == 4) {
      assert_int_equal(sum, shard_cost);
      shard_cost = c;
      sum = 0;
    } else if (sscanf(p, "  %63s %llu measured", name, &c) == 2) {
      sum += c;
      seen++;
    }
    p = strchr(p, '\n');
    if (!p) break;
  }
  assert_int_equal(sum, shard_cost);
  assert_int_equal(seen, NPROG);
}

static void test_bad_costs_file(void **state) {
  (void)state;
  ru_write_file("bad.csv", "a_heavy,900\nb_light,10\nc_light,ten\n");
  assert_int_equal(ru_run(NULL, "--backend opencl --mode native --expectations none "
                                "--shard 0/4 --shard-costs bad.csv --db bad.db corpus"),
                   VC_EXIT_INPUT);
  assert_true(ru_file_contains("out.txt", "bad.csv:3:"));
  assert_int_not_equal(access("bad.db", F_OK), 0); /* no results file */
  assert_int_equal(ru_run(NULL, "--shard-plan 4 --shard-costs bad.csv corpus"), VC_EXIT_INPUT);
  assert_true(ru_file_contains("out.txt", "bad.csv:3:"));
  /* an earlier run's rows stay as they were */
  assert_int_equal(ru_run(NULL, "--backend opencl --mode native --expectations none "
                                "--shard 1/4 --shard-costs missing.csv --db s0.db corpus"),
                   VC_EXIT_INPUT);
  assert_true(ru_file_contains("out.txt", "missing.csv"));
  assert_int_equal(ru_query("s0.db", "SELECT count(*) FROM runs"), 1);
  /* without --shard it balances nothing: a usage error */
  assert_int_equal(ru_run(NULL, "--backend opencl --shard-costs costs.csv corpus"), VC_EXIT_USAGE);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_shards_follow_plan),
      cmocka_unit_test(test_costs_from_db),
      cmocka_unit_test(test_bad_costs_file),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
