/* The output digest (harness/model/digest.c): every byte of every written
 * user buffer, 64-bit ones whole, laid out as docs/format.md says. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "harness/base/sha256.h"
#include "harness/model/digest.h"
#include "parser_util.h"

/* The layout by hand: per written buffer, its name and a NUL, its byte
   count as 8 little-endian bytes, its bytes. */
static void by_hand(const char *const *names, const uint32_t *const *bufs, const size_t *bytes,
                    int n, char hex[65]) {
  vc_sha256 s;
  vc_sha256_init(&s);
  for (int i = 0; i < n; i++) {
    uint8_t len[8];
    for (int k = 0; k < 8; k++) len[k] = (uint8_t)((uint64_t)bytes[i] >> (8 * k));
    vc_sha256_update(&s, names[i], strlen(names[i]) + 1);
    vc_sha256_update(&s, len, 8);
    vc_sha256_update(&s, bufs[i], bytes[i]);
  }
  uint8_t d[32];
  vc_sha256_final(&s, d);
  vc_sha256_hex(d, hex);
}

static void every_word_counts(void **state) {
  (void)state;
  vc_program *p = pt_parse_ok("(program d (buffer in u32 4 read) (buffer w u64 4 write)"
                              " (buffer v u32 3 read_write) (entry))");
  uint32_t in[4] = {9, 9, 9, 9};
  uint32_t w[8] = {1, 2, 3, 4, 5, 6, 7, 8}; /* 4 u64 elements, low word first */
  uint32_t v[3] = {10, 11, 12};
  const uint32_t *bufs[] = {in, w, v};
  char base[65];
  vc_output_digest(p, bufs, base);
  const char *names[] = {"w", "v"};
  const uint32_t *written[] = {w, v};
  const size_t bytes[] = {sizeof w, sizeof v};
  char hand[65];
  by_hand(names, written, bytes, 2, hand);
  assert_string_equal(base, hand);
  /* each word of a written buffer changes it, the high half of the 64-bit
     buffer too; the read-only buffer does not */
  for (int i = 0; i < 8; i++) {
    w[i] ^= 1u << 31;
    char h[65];
    vc_output_digest(p, bufs, h);
    assert_string_not_equal(h, base);
    w[i] ^= 1u << 31;
  }
  v[2]++;
  char h[65];
  vc_output_digest(p, bufs, h);
  assert_string_not_equal(h, base);
  v[2]--;
  in[3]++;
  vc_output_digest(p, bufs, h);
  assert_string_equal(h, base);
  vc_program_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_word_counts),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
