/* vc_sb_puts_swapped: every occurrence replaced, the first matching swap
   at each place, the rest copied. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "harness/base/strbuf.h"

static void swaps_every_occurrence(void **state) {
  (void)state;
  static const char *const swaps[] = {".gpu", ".cta", "fence()", "", "a", "b"};
  vc_strbuf sb;
  vc_sb_init(&sb);
  vc_sb_puts_swapped(&sb, "ld.gpu; fence(); st.gpu.u32 a", swaps, 3);
  assert_string_equal(vc_sb_str(&sb), "ld.cta; ; st.cta.u32 b");
  vc_sb_free(&sb);
  vc_sb_init(&sb);
  vc_sb_puts_swapped(&sb, "no match here", swaps, 2);
  assert_string_equal(vc_sb_str(&sb), "no match here");
  vc_sb_free(&sb);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(swaps_every_occurrence)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
