/* vyre-conform generate and transform as a user runs them: the same files
 * for the same seed, different ones for another, what --stats prints, the
 * usage errors (exit 2) of bad options, and transform --verify. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

static char dir[256];

/* Runs vyre-conform with args; stdout and stderr together into *out. */
static int run(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int run(char **out, const char *fmt, ...) {
  char args[2048], cmd[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(args, sizeof args, fmt, ap);
  va_end(ap);
  snprintf(cmd, sizeof cmd, "cd %s && %s/vyre-conform %s 2>&1", dir, VC_BINARY_DIR, args);
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  size_t cap = 1 << 16, n = 0, k;
  char *buf = malloc(cap);
  while ((k = fread(buf + n, 1, cap - n - 1, p)) > 0) {
    n += k;
    if (n + 1 == cap) buf = realloc(buf, cap *= 2);
  }
  buf[n] = '\0';
  int st = pclose(p);
  *out = buf;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...) {
  char c[2048], cmd[2600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c, sizeof c, fmt, ap);
  va_end(ap);
  snprintf(cmd, sizeof cmd, "cd %s && %s", dir, c);
  int st = system(cmd);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void same_files_per_seed(void **state) {
  (void)state;
  char *o;
  assert_int_equal(run(&o, "generate --seed 7 --count 40 --out a"), 0);
  free(o);
  assert_int_equal(run(&o, "generate --seed 7 --count 40 --out b"), 0);
  free(o);
  assert_int_equal(run(&o, "generate --seed 8 --count 40 --out c"), 0);
  free(o);
  assert_int_equal(sh("test $(ls a | wc -l) = 40 && test -f a/gen_7_0.vyre && test -f a/gen_7_39.vyre"), 0);
  assert_int_equal(sh("diff -r a b >/dev/null"), 0);
  assert_int_equal(sh("cmp -s a/gen_7_3.vyre c/gen_8_3.vyre"), 1);
  /* the doc names what made the program, and there is no golden digest */
  assert_int_equal(sh("grep -q 'generate --seed 7 --size small --features all; program 5' a/gen_7_5.vyre"), 0);
  assert_int_equal(sh("! grep -q digest a/*.vyre"), 0);
  /* check, the user's command, accepts every one */
  assert_int_equal(run(&o, "check --quiet a"), 0);
  free(o);
}

static void stats_and_features(void **state) {
  (void)state;
  char *o;
  assert_int_equal(run(&o, "generate --seed 3 --count 30 --out d --size medium --features loop,while,shared --stats"), 0);
  assert_non_null(strstr(o, "loop "));
  assert_non_null(strstr(o, "30 programs"));
  assert_non_null(strstr(o, "programs/s (generated and checked)"));
  free(o);
  assert_int_equal(sh("! grep -q '(barrier grid)' d/*.vyre && ! grep -q '(atomic' d/*.vyre"), 0);
  assert_int_equal(sh("grep -q '(loop' d/*.vyre && grep -q '(while' d/*.vyre"), 0);
}

static void usage_errors(void **state) {
  (void)state;
  static const char *const bad[] = {
      "generate --seed 1 --count 0 --out e",
      "generate --seed 1 --count 5 --out e --size huge",
      "generate --seed 1 --count 5 --out e --features loop,nope",
      "generate --count 5 --out e",
      "generate --seed 1 --out e",
      "generate --seed 1 --count 5",
      "generate --seed x --count 5 --out e",
      "transform",
      "transform a/gen_7_0.vyre",
      "transform a/gen_7_0.vyre --seed 1 --only shuffle",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char *o;
    int rc = run(&o, "%s", bad[i]);
    if (rc != 2) fail_msg("'%s' exits %d, not 2: %s", bad[i], rc, o);
    assert_non_null(strstr(o, "Try 'vyre-conform"));
    free(o);
  }
  char *o;
  assert_int_equal(run(&o, "generate --seed 1 --count 1 --out e --size huge"), 2);
  assert_non_null(strstr(o, "'huge'"));
  free(o);
  assert_int_equal(run(&o, "generate --seed 1 --count 1 --out e --features nope"), 2);
  assert_non_null(strstr(o, "'nope'"));
  free(o);
  assert_int_equal(sh("test ! -e e"), 0); /* nothing written */
}

static void transform_cli(void **state) {
  (void)state;
  char *o;
  assert_int_equal(run(&o, "transform a/gen_7_1.vyre --seed 4 --verify --out t.vyre"), 0);
  free(o);
  assert_int_equal(run(&o, "transform a/gen_7_1.vyre --seed 4 --verify"), 0);
  free(o);
  assert_int_equal(sh("%s/vyre-conform transform a/gen_7_1.vyre --seed 4 | cmp -s - t.vyre",
                      VC_BINARY_DIR), 0);
  assert_int_equal(run(&o, "check t.vyre"), 0);
  free(o);
  assert_int_equal(run(&o, "transform %s/corpus/control/continue_then_workgroup_barrier.vyre --seed 2 --only all --verify",
                       VC_SOURCE_DIR), 0);
  free(o);
  assert_int_equal(run(&o, "transform missing.vyre --seed 1"), 4);
  free(o);
  assert_int_equal(sh("printf '(program p (entry (let x)))' > bad.vyre"), 0);
  assert_int_equal(run(&o, "transform bad.vyre --seed 1"), 4);
  assert_non_null(strstr(o, "bad.vyre:1:"));
  free(o);
}

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/vc_gen_cli_XXXXXX");
  return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  return system(cmd) == 0 ? 0 : -1;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(same_files_per_seed),
      cmocka_unit_test(stats_and_features),
      cmocka_unit_test(usage_errors),
      cmocka_unit_test(transform_cli),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
