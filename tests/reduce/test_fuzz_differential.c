/* The differentials without an oracle (harness/fuzz/differential.h), on
 * runs made in memory: a split mode's bytes against native's, a twin's
 * against its original's, only where both passed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "harness/fuzz/differential.h"

typedef struct prog {
  const char *name;
  vc_status st[VC_MODE_COUNT];
  const char *digest[VC_MODE_COUNT];
} prog;

static vc_result results[8][VC_MODE_COUNT];
static vc_prog_data progs[8];
static vc_run_data run;

/* progs must be sorted by name, as a loaded run's are */
static void make_run(const prog *p, uint32_t n) {
  memset(&run, 0, sizeof run);
  memset(results, 0, sizeof results);
  memset(progs, 0, sizeof progs);
  for (uint32_t i = 0; i < n; i++) {
    progs[i].info.name = p[i].name;
    progs[i].results = results[i];
    progs[i].nresults = VC_MODE_COUNT;
    for (int m = 0; m < VC_MODE_COUNT; m++) {
      results[i][m].mode = vc_mode_name((vc_mode)m);
      results[i][m].status = p[i].st[m];
      snprintf(results[i][m].output_digest, sizeof results[i][m].output_digest, "%s",
               p[i].digest[m]);
    }
  }
  run.progs = progs;
  run.nprogs = n;
}

typedef struct seen {
  char lines[8][128];
  uint32_t n;
} seen;

static void record(void *ctx, const vc_fz_diff *d) {
  seen *s = ctx;
  snprintf(s->lines[s->n++], sizeof s->lines[0], "%s %s/%s %s/%s",
           d->kind == VC_FZ_DIFF_TWIN ? "twin" : "modes", d->a->info.name, d->ra->mode,
           d->b->info.name, d->rb->mode);
}

#define P VC_ST_PASS
#define D VC_ST_DIVERGE

static void test_split_against_native(void **state) {
  (void)state;
  const prog p[] = {
      {"a", {P, P, P}, {"11", "11", "11"}}, /* all alike */
      {"b", {P, P, P}, {"11", "22", "11"}}, /* host-split differs */
      {"c", {P, D, P}, {"11", "22", "33"}}, /* a failure is the oracle's finding; resident differs */
      {"d", {P, P, P}, {"11", "", "11"}},   /* no digest: nothing to compare */
  };
  make_run(p, 4);
  seen s = {0};
  assert_int_equal(vc_fz_differentials(&run, record, &s), 2);
  assert_string_equal(s.lines[0], "modes b/native b/host-split");
  assert_string_equal(s.lines[1], "modes c/native c/resident-split");
}

static void test_twin_against_original(void **state) {
  (void)state;
  const prog p[] = {
      {"fz_1_0", {P, P, P}, {"11", "11", "11"}},
      {"fz_1_0_t", {P, P, D}, {"11", "11", "99"}}, /* alike where both passed */
      {"fz_1_1", {P, P, P}, {"11", "11", "11"}},
      {"fz_1_1_t", {P, P, P}, {"44", "44", "44"}}, /* every mode differs */
      {"x_t", {P, P, P}, {"55", "55", "55"}},      /* no original */
  };
  make_run(p, 5);
  seen s = {0};
  assert_int_equal(vc_fz_differentials(&run, record, &s), 3);
  assert_string_equal(s.lines[0], "twin fz_1_1/native fz_1_1_t/native");
  assert_string_equal(s.lines[1], "twin fz_1_1/host-split fz_1_1_t/host-split");
  assert_string_equal(s.lines[2], "twin fz_1_1/resident-split fz_1_1_t/resident-split");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_split_against_native),
      cmocka_unit_test(test_twin_against_original),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
