/* The plan of --shard K/N (harness/run/shard_plan.c) and the costs it reads
 * (harness/run/shard_costs.c): longest processing time first, ties by name,
 * the same plan for the programs in any order, an oversized program alone,
 * every program in one shard, and a balance name order does not give. */
#define _GNU_SOURCE /* mkstemps */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness/run/schedule.h"
#include "harness/run/shard_plan.h"

static void test_known_list(void **state) {
  (void)state;
  /* 7 -> 0; 5 -> 1; 4 -> 1 (9); d 3 -> 0 (10); e 3 -> 1 (12); 2 -> 0 (12) */
  vc_shard_item it[] = {{"f", 2}, {"e", 3}, {"a", 7}, {"c", 4}, {"d", 3}, {"b", 5}};
  uint32_t s[6];
  vc_shard_assign(it, 6, 2, s);
  uint32_t want[6] = {0, 1, 0, 1, 0, 1};
  for (int i = 0; i < 6; i++) assert_int_equal(s[i], want[i]);
}

static void test_ties_by_name(void **state) {
  (void)state;
  vc_shard_item a[] = {{"y", 5}, {"x", 5}, {"z", 5}};
  uint32_t s[3];
  vc_shard_assign(a, 3, 2, s);
  /* x first to shard 0, y to shard 1, z back to shard 0 (the lowest of equals) */
  assert_int_equal(s[1], 0);
  assert_int_equal(s[0], 1);
  assert_int_equal(s[2], 0);
}

static uint64_t lcg(uint64_t *x) {
  *x = *x * 6364136223846793005ull + 1442695040888963407ull;
  return *x >> 33;
}

/* n programs p000.. with costs from seed: every N-th one (by name) heavy,
   so that name order (i mod N) piles the heavy ones into one shard. */
static void synthetic(vc_shard_item *it, char (*names)[8], uint32_t n, uint32_t every,
                      uint64_t seed) {
  for (uint32_t i = 0; i < n; i++) {
    snprintf(names[i], 8, "p%03u", i);
    it[i].name = names[i];
    it[i].cost = (i % every == 1 ? 400 : 20) + lcg(&seed) % 100;
  }
}

static void test_any_order(void **state) {
  (void)state;
  enum { N = 40 };
  vc_shard_item it[N], perm[N];
  char names[N][8];
  synthetic(it, names, N, 4, 7);
  it[5].cost = it[6].cost = it[7].cost; /* ties, decided by name */
  uint32_t s[N], t[N], ix[N];
  vc_shard_assign(it, N, 4, s);
  uint64_t seed = 99;
  for (int round = 0; round < 20; round++) {
    for (uint32_t i = 0; i < N; i++) ix[i] = i;
    for (uint32_t i = N - 1; i > 0; i--) { /* Fisher-Yates */
      uint32_t j = (uint32_t)(lcg(&seed) % (i + 1)), x = ix[i];
      ix[i] = ix[j];
      ix[j] = x;
    }
    for (uint32_t i = 0; i < N; i++) perm[i] = it[ix[i]];
    vc_shard_assign(perm, N, 4, t);
    for (uint32_t i = 0; i < N; i++) assert_int_equal(t[i], s[ix[i]]);
  }
}

static void test_oversized_alone(void **state) {
  (void)state;
  /* by position, big would share shard 1 with f */
  vc_shard_item it[] = {{"a", 10}, {"big", 100}, {"c", 10}, {"d", 10}, {"e", 10}, {"f", 10}};
  uint32_t s[6];
  vc_shard_assign(it, 6, 4, s); /* mean 37.5 */
  for (int i = 0; i < 6; i++)
    if (i != 1) assert_int_not_equal(s[i], s[1]);
}

static void test_each_in_one_shard(void **state) {
  (void)state;
  enum { N = 23 };
  vc_shard_item it[N];
  char names[N][8];
  synthetic(it, names, N, 3, 5);
  for (uint32_t n = 1; n <= 8; n++) {
    uint32_t s[N], count[8] = {0};
    memset(s, 0xff, sizeof s);
    vc_shard_assign(it, N, n, s);
    for (uint32_t i = 0; i < N; i++) {
      assert_true(s[i] < n);
      count[s[i]]++;
    }
    uint32_t sum = 0;
    for (uint32_t k = 0; k < n; k++) {
      assert_true(count[k] > 0); /* 23 programs fill 8 shards */
      sum += count[k];
    }
    assert_int_equal(sum, N);
  }
}

/* The largest shard over the mean, leaving out shards that hold a program
   costlier than the mean (they hold it alone), in hundredths. */
static uint64_t excess_pct(const vc_shard_item *it, uint32_t n, const uint32_t *s, uint32_t ns) {
  uint64_t load[8] = {0}, total = 0;
  bool over[8] = {false};
  for (uint32_t i = 0; i < n; i++) total += it[i].cost;
  for (uint32_t i = 0; i < n; i++) {
    load[s[i]] += it[i].cost;
    if (it[i].cost * ns > total) over[s[i]] = true;
  }
  uint64_t rest = 0, max = 0;
  uint32_t nrest = 0;
  for (uint32_t k = 0; k < ns; k++)
    if (!over[k]) {
      rest += load[k];
      nrest++;
      if (load[k] > max) max = load[k];
    }
  return nrest && rest ? max * 100 * nrest / rest : 0;
}

static void test_balance_where_name_order_fails(void **state) {
  (void)state;
  enum { N = 64 };
  vc_shard_item it[N];
  char names[N][8];
  for (uint64_t seed = 1; seed <= 20; seed++) {
    synthetic(it, names, N, 4, seed);
    if (seed % 5 == 0) it[(seed * 4) % N].cost = 20000; /* an oversized one, in name shard 0 */
    uint32_t rr[N], lpt[N];
    for (uint32_t i = 0; i < N; i++) rr[i] = i % 4;
    assert_true(excess_pct(it, N, rr, 4) > 125); /* the list is one name order fails */
    vc_shard_assign(it, N, 4, lpt);
    assert_true(excess_pct(it, N, lpt, 4) <= 125);
  }
}

static char *write_temp(const char *text) {
  static char path[64];
  snprintf(path, sizeof path, "/tmp/vc-shardcosts-XXXXXX.csv");
  int fd = mkstemps(path, 4);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
  close(fd);
  return path;
}

static void test_costs_csv(void **state) {
  (void)state;
  vc_cost_table t = {0};
  vc_error err = {0};
  uint64_t v;
  char *p = write_temp("# costs\nname,cost\nb,20\n\na , 7\n");
  assert_int_equal(vc_cost_table_load(p, &t, &err), 0);
  assert_int_equal(t.n, 2);
  assert_true(vc_cost_table_get(&t, "a", &v) && v == 7);
  assert_true(vc_cost_table_get(&t, "b", &v) && v == 20);
  assert_false(vc_cost_table_get(&t, "c", &v));
  vc_cost_table_free(&t);
  unlink(p);
  /* export's CSV: a program's rows summed */
  p = write_temp("program,mode,status,duration_ms\nx,native,pass,3\nx,host-split,pass,4\ny,native,fail,5\n");
  assert_int_equal(vc_cost_table_load(p, &t, &err), 0);
  assert_true(vc_cost_table_get(&t, "x", &v) && v == 7);
  assert_true(vc_cost_table_get(&t, "y", &v) && v == 5);
  vc_cost_table_free(&t);
  unlink(p);
  const char *bad[] = {"a,1\nb,2,3\n", "a,1\nb,-2\n", "a,1\nb,\n", "a,1\na,2\n", "a,1\n,2\n"};
  for (int i = 0; i < 5; i++) {
    p = write_temp(bad[i]);
    vc_error_clear(&err);
    assert_int_equal(vc_cost_table_load(p, &t, &err), VC_ERR_PARSE);
    char want[96];
    snprintf(want, sizeof want, "%s:2:", p);
    assert_non_null(strstr(err.msg, want));
    assert_null(t.names);
    unlink(p);
  }
  assert_int_equal(vc_cost_table_load("/nonexistent/costs.csv", &t, &err), VC_ERR_IO);
  assert_non_null(strstr(err.msg, "/nonexistent/costs.csv"));
}

/* Programs the costs lack get the estimate scaled by measured/estimated
   over those it lists. */
static void test_missing_scaled(void **state) {
  (void)state;
  const char *paths[] = {VC_SOURCE_DIR "/corpus/semantics/int_wrap.vyre",
                         VC_SOURCE_DIR "/corpus/semantics/shifts.vyre"};
  vc_corpus c;
  memset(&c, 0, sizeof c);
  vc_error err = {0};
  assert_int_equal(vc_corpus_collect(&c, paths, 2, &err), 0);
  vc_corpus_parse(&c);
  char n0[256];
  vc_corpus_program_name(&c.files[0], n0, sizeof n0);
  uint64_t e0 = vc_schedule_cost(&c.files[0]), e1 = vc_schedule_cost(&c.files[1]);
  assert_true(e0 > 0 && e1 > 0);
  vc_cost_table t = {0};
  vc_cost_table_add(&t, n0, e0 * 1000);
  vc_cost_table_add(&t, "not_selected", 5);
  vc_shard_plan p;
  vc_shard_plan_make(&c, &t, 2, &p);
  assert_true(p.measured[0] && !p.measured[1]);
  assert_int_equal(p.items[0].cost, e0 * 1000);
  assert_int_equal(p.items[1].cost, e1 * 1000);
  assert_int_equal(p.load[0] + p.load[1], (e0 + e1) * 1000);
  vc_shard_plan_free(&p);
  vc_cost_table_free(&t);
  vc_corpus_free(&c);
}

/* vc_shard_keep: shards 0..N-1 of a real selection are disjoint and cover it. */
static void test_keep_covers(void **state) {
  (void)state;
  const char *dir[] = {VC_SOURCE_DIR "/corpus/semantics"};
  vc_error err = {0};
  vc_corpus all;
  memset(&all, 0, sizeof all);
  assert_int_equal(vc_corpus_collect(&all, dir, 1, &err), 0);
  assert_true(all.n >= 8);
  for (uint32_t n = 1; n <= 8; n++) {
    uint32_t *seen = calloc(all.n, sizeof *seen);
    for (uint32_t k = 0; k < n; k++) {
      vc_corpus c;
      memset(&c, 0, sizeof c);
      assert_int_equal(vc_corpus_collect(&c, dir, 1, &err), 0);
      vc_corpus_parse(&c);
      vc_shard_keep(&c, NULL, k, n);
      for (uint32_t i = 0; i < c.n; i++)
        for (uint32_t j = 0; j < all.n; j++)
          if (!strcmp(c.files[i].path, all.files[j].path)) seen[j]++;
      vc_corpus_free(&c);
    }
    for (uint32_t j = 0; j < all.n; j++) assert_int_equal(seen[j], 1);
    free(seen);
  }
  vc_corpus_free(&all);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_known_list),
      cmocka_unit_test(test_ties_by_name),
      cmocka_unit_test(test_any_order),
      cmocka_unit_test(test_oversized_alone),
      cmocka_unit_test(test_each_in_one_shard),
      cmocka_unit_test(test_balance_where_name_order_fails),
      cmocka_unit_test(test_costs_csv),
      cmocka_unit_test(test_missing_scaled),
      cmocka_unit_test(test_keep_covers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
