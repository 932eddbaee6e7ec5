/* The wire between worker and runner: every column of a result and of a
 * program comes back as it went, the column table's newest ones included. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness/run/wire.h"

/* Compares one column of two records by its kind. */
#define SAME_U32(a, b) assert_int_equal((a), (b))
#define SAME_U64(a, b) assert_int_equal((a), (b))
#define SAME_I64(a, b) assert_int_equal((a), (b))
#define SAME_BOOL(a, b) assert_int_equal((a), (b))
#define SAME_TEXT(a, b) assert_string_equal((a), (b))
#define SAME_CHARS(a, b) assert_string_equal((a), (b))
#define SAME_MODE(a, b) assert_string_equal((a), (b))
#define SAME_STATUS(a, b) assert_int_equal((a), (b))
#define SAME_DIVCLASS(a, b) assert_int_equal((a), (b))
#define SAME_COLUMN(kind, field, column, size) SAME_##kind(sent->field, got->field);

static void same_result(const vc_result *sent, const vc_result *got) {
  VC_RESULT_COLUMNS(SAME_COLUMN)
}

static void same_program(const vc_program_info *sent, const vc_program_info *got) {
  VC_PROGRAM_COLUMNS(SAME_COLUMN)
}

static vc_result sample_result(bool converged, vc_divergence *div, vc_segment_timing *seg) {
  vc_result r = {.mode = "resident-split",
                 .repeat = 2,
                 .status = VC_ST_DIVERGE,
                 .wall_ns = 11,
                 .device_ns = 12,
                 .compile_ns = 13,
                 .bytes_up = 14,
                 .bytes_down = 15,
                 .launches = 16,
                 .passes = 17,
                 .converged = converged,
                 .nondeterministic = true,
                 .participants = 18,
                 .virtual_per_participant = 19,
                 .device_barriers = (uint64_t)1 << 40,
                 .divs = div,
                 .ndivs = 1,
                 .segs = seg,
                 .nsegs = 1};
  snprintf(r.reason, sizeof r.reason, "buffer out differs at element 3");
  snprintf(r.output_digest, sizeof r.output_digest, "%064x", 0xabc);
  return r;
}

static void test_result_round_trip(void **state) {
  (void)state;
  vc_divergence div = {
      .buffer = "out", .type = "u32", .first_index = 3, .count = 1, .cls = VC_DIV_INTEGER};
  vc_segment_timing seg = {.pass = 1, .segment = 2, .wall_ns = 3, .launches = 4};
  for (int converged = 0; converged < 2; converged++) {
    vc_result sent = sample_result(converged, &div, &seg), got;
    vc_wbuf b;
    vc_wbuf_init(&b);
    vc_put_result(&b, &sent);
    char mode[32];
    vc_get_result(&b, &got, mode, sizeof mode);
    assert_false(b.bad);
    assert_int_equal(b.pos, b.len);
    same_result(&sent, &got);
    assert_int_equal(got.converged, converged);
    assert_int_equal(got.ndivs, 1);
    assert_string_equal(got.divs[0].buffer, "out");
    assert_int_equal(got.nsegs, 1);
    assert_int_equal(got.segs[0].launches, 4);
    free(got.divs);
    free(got.segs);
    vc_wbuf_free(&b);
  }
}

static void test_program_round_trip(void **state) {
  (void)state;
  vc_program_info sent = {"spill", "corpus/spill.vyre", "d1g3st", 2, 1, 32, 4, 256, "split", 90, "(program spill)", 11, 12, 13, 14}, got;
  vc_wbuf b;
  vc_wbuf_init(&b);
  vc_put_program_info(&b, &sent);
  vc_get_program_info(&b, &got);
  assert_false(b.bad);
  same_program(&sent, &got);
  vc_wbuf_free(&b);
}

/* A message cut short is noticed, not read past. */
static void test_truncated_result(void **state) {
  (void)state;
  vc_divergence div = {.buffer = "out"};
  vc_segment_timing seg = {0};
  vc_result sent = sample_result(true, &div, &seg), got;
  vc_wbuf b;
  vc_wbuf_init(&b);
  vc_put_result(&b, &sent);
  b.len -= 5;
  char mode[32];
  vc_get_result(&b, &got, mode, sizeof mode);
  assert_true(b.bad);
  free(got.divs);
  free(got.segs);
  vc_wbuf_free(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_result_round_trip),
      cmocka_unit_test(test_program_round_trip),
      cmocka_unit_test(test_truncated_result),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
