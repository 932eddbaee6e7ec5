/* The start order of a run with several workers (harness/run/schedule.c):
 * costliest first, ties in corpus order, a file that did not parse last. */
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

static uint32_t find(const vc_corpus *c, const char *end) {
  for (uint32_t i = 0; i < c->n; i++) {
    size_t a = strlen(c->files[i].path), b = strlen(end);
    if (a >= b && strcmp(c->files[i].path + a - b, end) == 0) return i;
  }
  fail_msg("%s not collected", end);
  return 0;
}

static void test_costliest_first(void **state) {
  (void)state;
  char bad[] = "/tmp/vc-schedule-XXXXXX.vyre";
  int fd = mkstemps(bad, 5);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, "(program", 8), 8);
  close(fd);
  const char *paths[] = {VC_SOURCE_DIR "/corpus/size/one_invocation.vyre",
                         VC_SOURCE_DIR "/corpus/semantics/int_wrap.vyre", bad,
                         VC_SOURCE_DIR "/corpus/size/grid_16m.vyre",
                         VC_SOURCE_DIR "/corpus/size/large_accumulator.vyre"};
  vc_corpus c;
  memset(&c, 0, sizeof c);
  vc_error err = {0};
  assert_int_equal(vc_corpus_collect(&c, paths, 5, &err), 0);
  vc_corpus_parse(&c);
  assert_int_equal(c.n, 5);
  /* the run's items in corpus order: small, bad, small, the two large */
  uint32_t idx[5] = {find(&c, "one_invocation.vyre"), find(&c, bad + 5),
                     find(&c, "int_wrap.vyre"), find(&c, "grid_16m.vyre"),
                     find(&c, "large_accumulator.vyre")};
  uint64_t cost[5];
  for (int i = 0; i < 5; i++) cost[i] = vc_schedule_cost(&c.files[idx[i]]);
  assert_int_equal(cost[1], 0); /* did not parse */
  assert_true(cost[0] > 0 && cost[2] > 0);
  assert_true(cost[3] > cost[2] && cost[4] > cost[2]);
  uint32_t order[5];
  vc_schedule_order(&c, idx, 5, order);
  for (int k = 1; k < 5; k++) assert_true(cost[order[k - 1]] >= cost[order[k]]);
  /* the two large ones lead, the unparsed file trails */
  assert_true((order[0] == 3 || order[0] == 4) && (order[1] == 3 || order[1] == 4));
  assert_int_equal(order[4], 1);
  /* equal costs keep their given order */
  uint32_t same[2] = {idx[0], idx[0]}, o2[2];
  vc_schedule_order(&c, same, 2, o2);
  assert_int_equal(o2[0], 0);
  assert_int_equal(o2[1], 1);
  vc_corpus_free(&c);
  unlink(bad);
}

/* A program's own (expect (timeout S)) puts it first, the longest first,
   whatever its cost: bitonic_sort (900 s, 512 invocations) before
   large_accumulator (600 s) and grid_16m (300 s), then the rest by cost. */
static void test_own_timeout_first(void **state) {
  (void)state;
  const char *paths[] = {VC_SOURCE_DIR "/corpus/semantics/int_wrap.vyre",
                         VC_SOURCE_DIR "/corpus/size/grid_16m.vyre",
                         VC_SOURCE_DIR "/corpus/algorithms/bitonic_sort.vyre",
                         VC_SOURCE_DIR "/corpus/size/grid_65536.vyre",
                         VC_SOURCE_DIR "/corpus/size/large_accumulator.vyre"};
  vc_corpus c;
  memset(&c, 0, sizeof c);
  vc_error err = {0};
  assert_int_equal(vc_corpus_collect(&c, paths, 5, &err), 0);
  vc_corpus_parse(&c);
  assert_int_equal(c.n, 5);
  uint32_t idx[5] = {find(&c, "int_wrap.vyre"), find(&c, "grid_16m.vyre"),
                     find(&c, "bitonic_sort.vyre"), find(&c, "grid_65536.vyre"),
                     find(&c, "large_accumulator.vyre")};
  /* without its timeout bitonic_sort would come after grid_65536 */
  assert_true(vc_schedule_cost(&c.files[idx[2]]) < vc_schedule_cost(&c.files[idx[3]]));
  uint32_t order[5];
  vc_schedule_order(&c, idx, 5, order);
  const uint32_t want[5] = {2, 4, 1, 3, 0};
  for (int k = 0; k < 5; k++) assert_int_equal(order[k], want[k]);
  vc_corpus_free(&c);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_costliest_first),
                                     cmocka_unit_test(test_own_timeout_first)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
