/* The escapers and formatters that every report and output goes through. */
#include <string.h>

#include "fixture.h"
#include "results/report/escape.h"
#include "results/report/fmt.h"

typedef void (*escaper)(vc_strbuf *sb, const char *s);

static void assert_escaped(escaper fn, const char *in, const char *want) {
  vc_strbuf sb;
  vc_sb_init(&sb);
  fn(&sb, in);
  if (strcmp(vc_sb_str(&sb), want))
    fail_msg("escaped \"%s\" as \"%s\", want \"%s\"", in ? in : "(null)", vc_sb_str(&sb), want);
  vc_sb_free(&sb);
}

static void test_markup(void **state) {
  (void)state;
  assert_escaped(vc_esc_markup, "<a href=\"x\">&'</a>",
                 "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
  assert_escaped(vc_esc_markup, "tab\tok\nline", "tab\tok\nline");
  assert_escaped(vc_esc_markup, "bell\x07 del\x7f", "bell? del?");
  assert_escaped(vc_esc_markup, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
                 "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
  /* a lone continuation byte, an overlong form, a surrogate, past U+10FFFF, a cut sequence */
  assert_escaped(vc_esc_markup, "a\x80z", "a?z");
  assert_escaped(vc_esc_markup, "\xc0\xaf", "??");
  assert_escaped(vc_esc_markup, "\xe0\x80\x80", "???");
  assert_escaped(vc_esc_markup, "\xed\xa0\x80", "???");
  assert_escaped(vc_esc_markup, "\xf4\x90\x80\x80", "????");
  assert_escaped(vc_esc_markup, "\xe2\x82", "??");
  assert_escaped(vc_esc_markup, NULL, "");
}

static void test_json(void **state) {
  (void)state;
  assert_escaped(vc_esc_json, "a\"b\\c\nd\te\x01", "\"a\\\"b\\\\c\\nd\\te\\u0001\"");
  assert_escaped(vc_esc_json, "\xff ok \xc3\xa9", "\"? ok \xc3\xa9\"");
  assert_escaped(vc_esc_json, "", "\"\"");
}

static void test_markdown(void **state) {
  (void)state;
  assert_escaped(vc_esc_md, "a|b\nc\r\td", "a\\|b c  d");
  assert_escaped(vc_esc_md, "<br>", "&lt;br>");
}

static void test_figures(void **state) {
  (void)state;
  static const struct {
    uint64_t ns;
    const char *text;
  } times[] = {{0, "0 ns"},
               {999, "999 ns"},
               {1500, "1.5 us"},
               {2750000, "2.75 ms"},
               {1234000000, "1.234 s"},
               {423000000000ull, "7 min 3 s"},
               {93900000000000ull, "26 h 5 min"}};
  char out[VC_FMT_LEN];
  for (size_t i = 0; i < sizeof times / sizeof times[0]; i++) {
    vc_fmt_ns(out, times[i].ns);
    assert_string_equal(out, times[i].text);
  }
  vc_fmt_bytes(out, 512);
  assert_string_equal(out, "512 B");
  vc_fmt_bytes(out, 1536);
  assert_string_equal(out, "1.5 KiB");
  vc_fmt_bytes(out, (uint64_t)3 << 30);
  assert_string_equal(out, "3 GiB");
  vc_fmt_utc(out, 1764445623000000000LL);
  assert_string_equal(out, "2025-11-29 19:47:03 UTC");
  vc_fmt_utc(out, 0);
  assert_string_equal(out, "-");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_markup),
      cmocka_unit_test(test_json),
      cmocka_unit_test(test_markdown),
      cmocka_unit_test(test_figures),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
