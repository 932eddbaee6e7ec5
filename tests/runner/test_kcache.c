/* The kernel cache's entries (harness/base/kcache.c) on their own: keys,
 * round trips, every way an entry can be wrong (each a miss that a put
 * replaces), the device options a run passes, and the default folder. */
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

#include "harness/base/kcache.h"

static char dir[256];

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/vc-kc-XXXXXX");
  assert_non_null(mkdtemp(dir));
  return 0;
}

static int teardown(void **state) {
  (void)state;
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  return system(cmd) == 0 ? 0 : -1;
}

static void key_of(vc_kcache_key *k, const char *a, const char *b) {
  vc_kcache_key_begin(k, "test");
  vc_kcache_key_str(k, a);
  vc_kcache_key_str(k, b);
  vc_kcache_key_end(k);
}

static void keys_separate_their_parts(void **state) {
  (void)state;
  vc_kcache_key a, b, c;
  key_of(&a, "ab", "c");
  key_of(&b, "a", "bc");
  key_of(&c, "ab", "c");
  assert_memory_not_equal(a.digest, b.digest, 32);
  assert_memory_equal(a.digest, c.digest, 32);
}

static void round_trip_and_miss(void **state) {
  (void)state;
  vc_kcache_key k, other;
  key_of(&k, "source", "compiler 1.0");
  key_of(&other, "source", "compiler 1.1"); /* another compiler: another key */
  void *p;
  size_t n;
  assert_int_equal(vc_kcache_get(dir, &k, &p, &n), 0);
  vc_error e;
  assert_int_equal(vc_kcache_put(dir, &k, "binary", 7, &e), 0);
  assert_int_equal(vc_kcache_get(dir, &k, &p, &n), 1);
  assert_int_equal(n, 7);
  assert_string_equal(p, "binary");
  free(p);
  assert_int_equal(vc_kcache_get(dir, &other, &p, &n), 0);
  assert_null(p);
  /* off: nothing read, nothing written */
  assert_int_equal(vc_kcache_get("", &k, &p, &n), 0);
  assert_int_equal(vc_kcache_put("", &other, "x", 1, &e), 0);
  assert_int_equal(vc_kcache_get(dir, &other, &p, &n), 0);
}

/* Overwrites byte at of the entry of k with v (or truncates to at when
   v < 0, or appends a byte when at < 0). */
static void damage(const vc_kcache_key *k, long at, int v) {
  char path[1200];
  vc_kcache_path(dir, k, path, sizeof path);
  if (at < 0) {
    FILE *f = fopen(path, "ab");
    assert_non_null(f);
    fputc(0, f);
    fclose(f);
  } else if (v < 0) {
    assert_int_equal(truncate(path, at), 0);
  } else {
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    fseek(f, at, SEEK_SET);
    fputc(v, f);
    fclose(f);
  }
}

static void damaged_entries_miss_and_are_rewritten(void **state) {
  (void)state;
  vc_kcache_key k, other;
  key_of(&k, "s", "c");
  key_of(&other, "t", "c");
  struct {
    long at;
    int v;
  } cases[] = {
      {0, 'X'},   /* magic */
      {8, 0xff},  /* the key in the header */
      {40, 0},    /* the payload digest */
      {72, 99},   /* the size */
      {80, 'B'},  /* the payload */
      {84, -1},   /* cut off */
      {-1, 0},    /* a byte added */
      {0, -1},    /* empty */
  };
  vc_error e;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    assert_int_equal(vc_kcache_put(dir, &k, "payload", 8, &e), 0);
    damage(&k, cases[i].at, cases[i].v);
    void *p = NULL;
    size_t n = 0;
    if (vc_kcache_get(dir, &k, &p, &n) != 0) {
      fprintf(stderr, "case %zu was trusted\n", i);
      fail();
    }
    assert_int_equal(vc_kcache_put(dir, &k, "payload", 8, &e), 0);
    assert_int_equal(vc_kcache_get(dir, &k, &p, &n), 1);
    assert_string_equal(p, "payload");
    free(p);
  }
  /* an entry copied under another key's name is refused */
  char from[1200], to[1200], cmd[2600];
  vc_kcache_path(dir, &k, from, sizeof from);
  vc_kcache_path(dir, &other, to, sizeof to);
  snprintf(cmd, sizeof cmd, "mkdir -p $(dirname %s) && cp %s %s", to, from, to);
  assert_int_equal(system(cmd), 0);
  void *p;
  size_t n;
  assert_int_equal(vc_kcache_get(dir, &other, &p, &n), 0);
}

static void device_options(void **state) {
  (void)state;
  const char *use;
  char *own;
  vc_error e;
  assert_int_equal(vc_kcache_device_options("/c", false, "deadline=5", &use, &own, &e), 0);
  assert_string_equal(use, "deadline=5,cache=/c");
  free(own);
  assert_int_equal(vc_kcache_device_options(NULL, true, NULL, &use, &own, &e), 0);
  assert_string_equal(use, "cache=none");
  free(own);
  /* options that name a cache already are left alone */
  assert_int_equal(vc_kcache_device_options(NULL, false, "cache=/x", &use, &own, &e), 0);
  assert_string_equal(use, "cache=/x");
  assert_null(own);
  /* a relative folder is made absolute: workers may run elsewhere */
  char cwd[512], want[600];
  assert_non_null(getcwd(cwd, sizeof cwd));
  snprintf(want, sizeof want, "cache=%s/rel", cwd);
  assert_int_equal(vc_kcache_device_options("rel", false, NULL, &use, &own, &e), 0);
  assert_string_equal(use, want);
  free(own);
  assert_int_equal(vc_kcache_device_options("/a", true, NULL, &use, &own, &e), VC_ERR_USAGE);
  assert_int_equal(vc_kcache_device_options("/a,b", false, NULL, &use, &own, &e), VC_ERR_USAGE);
  assert_non_null(strstr(e.msg, "comma"));
  assert_int_equal(vc_kcache_device_options("", false, NULL, &use, &own, &e), VC_ERR_USAGE);
}

static void default_folder(void **state) {
  (void)state;
  char d[VC_KCACHE_DIR_MAX];
  vc_error e;
  setenv("XDG_CACHE_HOME", "/x/cache", 1);
  setenv("HOME", "/h", 1);
  assert_int_equal(vc_kcache_default_dir(d, sizeof d, &e), 0);
  assert_string_equal(d, "/x/cache/vyre-conform");
  setenv("XDG_CACHE_HOME", "relative", 1); /* invalid by the XDG spec: ignored */
  assert_int_equal(vc_kcache_default_dir(d, sizeof d, &e), 0);
  assert_string_equal(d, "/h/.cache/vyre-conform");
  unsetenv("XDG_CACHE_HOME");
  unsetenv("HOME");
  assert_int_equal(vc_kcache_default_dir(d, sizeof d, &e), VC_ERR_USAGE);
  assert_non_null(strstr(e.msg, "--no-cache"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(keys_separate_their_parts),
      cmocka_unit_test_setup_teardown(round_trip_and_miss, setup, teardown),
      cmocka_unit_test_setup_teardown(damaged_entries_miss_and_are_rewritten, setup, teardown),
      cmocka_unit_test(device_options),
      cmocka_unit_test(default_folder),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
