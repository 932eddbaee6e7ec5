/* The key=value option parser the plugins share (harness/base/kvopts.h):
 * every kind of value, its range and its refusals, and the messages that
 * name the key and what it accepts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "harness/base/kvopts.h"

typedef struct opts {
  uint32_t count, deadline_ms;
  uint64_t bytes;
  int mode;
  char dir[8];
  bool count_given;
} opts;

static const vc_kv_choice modes[] = {{"auto", 7}, {"off", 0}, {"on", 1}, {NULL, 0}};
static const vc_kv_key keys[] = {
    {"count", VC_KV_U32, offsetof(opts, count), 0, UINT32_MAX, "N", NULL, 0,
     VC_KV_GIVEN(opts, count_given)},
    {"deadline", VC_KV_U32, offsetof(opts, deadline_ms), 1, 86400, "SECONDS", NULL, 1000, 0},
    {"staging", VC_KV_BYTES, offsetof(opts, bytes), 4096, UINT64_MAX, "BYTES", NULL, 0, 0},
    {"mode", VC_KV_CHOICE, offsetof(opts, mode), 0, 0, NULL, modes, 0, 0},
    {"dir", VC_KV_TEXT, offsetof(opts, dir), 1, sizeof(((opts *)0)->dir) - 1, "DIR", NULL, 0, 0},
};
#define NKEYS (sizeof keys / sizeof keys[0])

static int parse(const char *text, opts *o, vc_error *e) {
  memset(o, 0, sizeof *o);
  vc_error_clear(e);
  return vc_kv_parse("Test", text, keys, NKEYS, o, e);
}

static void accepts_every_kind(void **state) {
  (void)state;
  opts o;
  vc_error e;
  assert_int_equal(parse(NULL, &o, &e), 0);
  assert_int_equal(parse("", &o, &e), 0);
  assert_false(o.count_given);
  assert_int_equal(parse(",count=4294967295,,deadline=86400,staging=3g,mode=on,dir=/opt/x,", &o,
                         &e),
                   0);
  assert_int_equal(o.count, 4294967295u);
  assert_true(o.count_given);
  assert_int_equal(o.deadline_ms, 86400000u);
  assert_int_equal(o.bytes, 3ull << 30);
  assert_int_equal(o.mode, 1);
  assert_string_equal(o.dir, "/opt/x");
  assert_int_equal(parse("staging=4096,staging=8K,mode=on,mode=auto,count=0", &o, &e), 0);
  assert_int_equal(o.bytes, 8192); /* the last one given wins */
  assert_int_equal(o.mode, 7);
  assert_int_equal(o.count, 0);
  assert_true(o.count_given);
  assert_int_equal(parse("staging=16m", &o, &e), 0);
  assert_int_equal(o.bytes, 16u << 20);
}

/* Each refusal is VC_ERR_USAGE naming the item and what the key accepts. */
static void refuses_bad_values(void **state) {
  (void)state;
  static const struct {
    const char *text, *msg;
  } cases[] = {
      {"count=4294967296", "Test option count=4294967296: expected a number from 0 to 4294967295"},
      {"count=-1", "Test option count=-1: expected a number from 0 to 4294967295"},
      {"count=1x", "Test option count=1x: expected a number from 0 to 4294967295"},
      {"count= 1", "Test option count= 1: expected a number from 0 to 4294967295"},
      {"count=", "Test option count=: expected a number from 0 to 4294967295"},
      {"count", "Test option count: needs a value, a number from 0 to 4294967295"},
      {"deadline=0", "Test option deadline=0: expected a number from 1 to 86400"},
      {"deadline=86401", "Test option deadline=86401: expected a number from 1 to 86400"},
      {"staging=4095", "Test option staging=4095: expected a byte count (k, m, g: KiB, MiB, "
                       "GiB) of at least 4096"},
      {"staging=12x", "Test option staging=12x: expected a byte count (k, m, g: KiB, MiB, GiB) "
                      "of at least 4096"},
      {"staging=k", "Test option staging=k: expected a byte count (k, m, g: KiB, MiB, GiB) of "
                    "at least 4096"},
      {"staging=17179869184g", "Test option staging=17179869184g: expected a byte count (k, m, "
                               "g: KiB, MiB, GiB) of at least 4096"},
      {"mode=yes", "Test option mode=yes: expected auto, off or on"},
      {"mode=", "Test option mode=: expected auto, off or on"},
      {"dir=", "Test option dir=: expected DIR of 1 to 7 characters"},
      {"dir=/usr/local", "Test option dir=/usr/local: expected DIR of 1 to 7 characters"},
      {"count=1,fast=yes", "unknown Test option 'fast=yes' (known: count=N, deadline=SECONDS, "
                           "staging=BYTES, mode=auto|off|on, dir=DIR)"},
      {"Count=1", "unknown Test option 'Count=1' (known: count=N, deadline=SECONDS, "
                  "staging=BYTES, mode=auto|off|on, dir=DIR)"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    opts o;
    vc_error e;
    if (parse(cases[i].text, &o, &e) != VC_ERR_USAGE) fail_msg("accepted %s", cases[i].text);
    if (strcmp(e.msg, cases[i].msg) != 0)
      fail_msg("%s:\n  got  %s\n  want %s", cases[i].text, e.msg, cases[i].msg);
  }
}

/* A refused value leaves the bytes around its field alone. */
static void refusal_writes_nothing_else(void **state) {
  (void)state;
  opts o;
  vc_error e;
  assert_int_equal(parse("dir=1234567", &o, &e), 0);
  assert_string_equal(o.dir, "1234567");
  memset(&o, 0x5a, sizeof o);
  vc_error_clear(&e);
  assert_int_equal(vc_kv_parse("Test", "dir=12345678", keys, NKEYS, &o, &e), VC_ERR_USAGE);
  for (size_t i = 0; i < sizeof o.dir; i++) assert_int_equal((unsigned char)o.dir[i], 0x5a);
}

static void known_list(void **state) {
  (void)state;
  char buf[256];
  vc_kv_known(keys, NKEYS, buf, sizeof buf);
  assert_string_equal(buf, "count=N, deadline=SECONDS, staging=BYTES, mode=auto|off|on, dir=DIR");
  char small[12];
  vc_kv_known(keys, NKEYS, small, sizeof small);
  assert_string_equal(small, "count=N, de"); /* cut, still terminated */
}

/* A choice's value back to its name, as descriptions write it. */
static void choice_names(void **state) {
  (void)state;
  static const vc_kv_choice c[] = {{"add", 0}, {"cas", 1}, {NULL, 0}};
  assert_string_equal(vc_kv_choice_name(c, 0), "add");
  assert_string_equal(vc_kv_choice_name(c, 1), "cas");
  assert_string_equal(vc_kv_choice_name(c, 2), "?");
  assert_string_equal(vc_kv_choice_name(NULL, 0), "?");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(accepts_every_kind),
      cmocka_unit_test(refuses_bad_values),
      cmocka_unit_test(refusal_writes_nothing_else),
      cmocka_unit_test(known_list),
      cmocka_unit_test(choice_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
