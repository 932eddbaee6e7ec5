/* The parts of results/package that need no device: the unsupported
 * reasons' classes (every phrase the plugins and the harness write), the
 * manifest's JSON reader, and SHA256SUMS written and checked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness/base/file.h"
#include "results/package/json.h"
#include "results/package/reasons.h"
#include "results/package/sums.h"

static void reasons_by_class(void **state) {
  (void)state;
  static const struct {
    const char *reason, *cls;
  } cases[] = {
      {"Vulkan device 0 (llvmpipe): kernel k: the number of buffers is 40, above the plugin's limit "
       "of 32 bindings per kernel", "harness limit"},
      {"p: a limit of the harness: a spilled value takes one element per invocation", "harness limit"},
      {"buffers need 9000 bytes, over the budget of 100 (--max-buffer-bytes)", "harness limit"},
      {"oracle: p: shared arrays exceed 65536 bytes", "harness limit"},
      {"pocl: k uses 64-bit atomics, and the device lacks cl_khr_int64_base_atomics", "missing feature"},
      {"Vulkan device 0 (x): kernel k uses shaderInt64, and the device lacks it", "missing feature"},
      {"cuda: H200 cannot launch cooperatively (CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH is 0)",
       "missing feature"},
      {"pocl: k: workgroup of 2048 invocations exceeds the device's maximum of 1024", "device limit"},
      {"Vulkan device 0 (x): a buffer of 9 bytes is above maxMemoryAllocationSize 8", "device limit"},
      {"buffer big needs 99 bytes, the device allows 10 per buffer", "device limit"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const char *got = vc_unsupported_class(cases[i].reason);
    assert_non_null(got);
    assert_string_equal(got, cases[i].cls);
  }
  assert_null(vc_unsupported_class(""));
  assert_null(vc_unsupported_class(NULL));
  assert_null(vc_unsupported_class("the driver said no"));
}

static void json_reads_the_manifest_shapes(void **state) {
  (void)state;
  const char *text = "{\"a\": \"x\\n\\u00e9\\\"\", \"n\": 1796196646636164675, \"t\": true,\n"
                     " \"l\": [1, {\"k\": null}], \"e\": {}, \"f\": false}";
  vc_arena arena;
  vc_arena_init(&arena);
  vc_json *j = NULL;
  vc_error err = {0};
  assert_int_equal(vc_json_parse(text, strlen(text), "m.json", &arena, &j, &err), 0);
  assert_string_equal(vc_json_str(j, "a"), "x\n\xc3\xa9\"");
  assert_true(vc_json_int(j, "n", 0) == 1796196646636164675LL); /* beyond a double's 53 bits */
  assert_true(vc_json_get(j, "t")->b);
  assert_false(vc_json_get(j, "f")->b);
  assert_int_equal(vc_json_get(j, "l")->n, 2);
  assert_int_equal(vc_json_get(vc_json_get(j, "l")->items[1], "k")->kind, VC_JSON_NULL);
  assert_int_equal(vc_json_get(j, "e")->n, 0);
  assert_null(vc_json_get(j, "missing"));
  assert_string_equal(vc_json_str(j, "missing"), "");
  static const char *const bad[] = {"{\"a\": }", "{\"a\" 1}", "[1, 2", "{\"a\": \"x}", "{} x",
                                    "\"\\u0000\"", "[tru]"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    err = (vc_error){0};
    assert_int_not_equal(vc_json_parse(bad[i], strlen(bad[i]), "m.json", &arena, &j, &err), 0);
    assert_non_null(strstr(err.msg, "m.json: not valid JSON at byte "));
  }
  vc_arena_free(&arena);
}

typedef struct findings {
  char text[4096];
  int invalid, warnings;
} findings;

static void collect(void *ctx, const char *path, const char *what, int invalid) {
  findings *f = ctx;
  size_t n = strlen(f->text);
  snprintf(f->text + n, sizeof f->text - n, "%s: %s\n", path, what);
  invalid ? f->invalid++ : f->warnings++;
}

static void put(const char *path, const char *text) {
  vc_strbuf sb;
  vc_sb_init(&sb);
  vc_sb_puts(&sb, text);
  vc_error err = {0};
  assert_int_equal(vc_file_write(path, &sb, &err), 0);
  vc_sb_free(&sb);
}

static void sums_catch_changes(void **state) {
  (void)state;
  char dir[] = "/tmp/vc-sums-XXXXXX", p[256];
  assert_non_null(mkdtemp(dir));
  snprintf(p, sizeof p, "%s/sub", dir);
  assert_int_equal(mkdir(p, 0755), 0);
  snprintf(p, sizeof p, "%s/a.txt", dir);
  put(p, "a\n");
  snprintf(p, sizeof p, "%s/sub/b.txt", dir);
  put(p, "b\n");
  vc_error err = {0};
  assert_int_equal(vc_sums_write(dir, &err), 0);
  snprintf(p, sizeof p, "%s/SHA256SUMS", dir);
  char *sums = vc_file_read_all(p);
  assert_non_null(sums);
  /* sha256sum's format, by path, the list itself left out */
  assert_string_equal(sums, "87428fc522803d31065e7bce3cf03fe475096631e5e07bbd7a0fde60c4cf25c7  a.txt\n"
                            "0263829989b6fd954f72baaf2fc64bc2e2f01d692d4de72986ea808f6e99813f  sub/b.txt\n");
  free(sums);
  findings f = {{0}, 0, 0};
  assert_int_equal(vc_sums_check(dir, collect, &f), 0);
  assert_int_equal(f.invalid + f.warnings, 0);
  snprintf(p, sizeof p, "%s/sub/b.txt", dir);
  put(p, "B\n");
  snprintf(p, sizeof p, "%s/extra", dir);
  put(p, "x");
  snprintf(p, sizeof p, "%s/a.txt", dir);
  assert_int_equal(unlink(p), 0);
  assert_int_equal(vc_sums_check(dir, collect, &f), 2);
  assert_int_equal(f.warnings, 1);
  assert_non_null(strstr(f.text, "a.txt: listed in SHA256SUMS, missing from the package\n"));
  assert_non_null(strstr(f.text, "sub/b.txt: sha256 "));
  assert_non_null(strstr(f.text, "extra: not listed in SHA256SUMS"));
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  assert_int_equal(system(cmd), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(reasons_by_class),
      cmocka_unit_test(json_reads_the_manifest_shapes),
      cmocka_unit_test(sums_catch_changes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
