/* SHA-256 (harness/base/sha256.c): the FIPS 180-4 examples, any split of
 * the input, the x86 SHA extensions' compression against the portable one,
 * and the choice between them following the CPU. */
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

#include "harness/base/sha256.h"

static void hex_of(const void *data, size_t n, char out[65]) {
  vc_sha256 s;
  vc_sha256_init(&s);
  vc_sha256_update(&s, data, n);
  uint8_t d[32];
  vc_sha256_final(&s, d);
  vc_sha256_hex(d, out);
}

static void fips_examples(void **state) {
  (void)state;
  char h[65];
  hex_of("", 0, h);
  assert_string_equal(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  hex_of("abc", 3, h);
  assert_string_equal(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  hex_of(two, strlen(two), h);
  assert_string_equal(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  char *a = malloc(1000000);
  assert_non_null(a);
  memset(a, 'a', 1000000);
  hex_of(a, 1000000, h);
  assert_string_equal(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  free(a);
}

/* A fixed pseudo-random message of n bytes. */
static uint8_t *message(size_t n, uint32_t seed) {
  uint8_t *m = malloc(n ? n : 1);
  assert_non_null(m);
  for (size_t i = 0; i < n; i++) {
    seed = seed * 1664525u + 1013904223u;
    m[i] = (uint8_t)(seed >> 24);
  }
  return m;
}

static void any_split(void **state) {
  (void)state;
  size_t n = 64 * 37 + 13;
  uint8_t *m = message(n, 7);
  char whole[65];
  hex_of(m, n, whole);
  for (uint32_t seed = 1; seed < 40; seed++) {
    vc_sha256 s;
    vc_sha256_init(&s);
    size_t at = 0;
    while (at < n) {
      seed = seed * 1103515245u + 12345u;
      size_t k = (seed >> 16) % 200;
      if (k > n - at) k = n - at;
      vc_sha256_update(&s, m + at, k);
      at += k;
    }
    uint8_t d[32];
    char h[65];
    vc_sha256_final(&s, d);
    vc_sha256_hex(d, h);
    assert_string_equal(h, whole);
  }
  free(m);
}

/* The child's part: the compression's name, then the digests of messages
   of every length up to 300 bytes and of a few larger ones, on stdout. */
static int print_digests(void) {
  printf("%-15s", vc_sha256_impl());
  static const size_t big[] = {4096, 65536 + 7, 1u << 20};
  for (size_t n = 0; n < 300 + 3; n++) {
    size_t len = n < 300 ? n : big[n - 300];
    uint8_t *m = message(len, (uint32_t)len + 1);
    char h[65];
    hex_of(m, len, h);
    free(m);
    fputs(h, stdout);
  }
  return fflush(stdout) == 0 ? 0 : 1;
}

/* print_digests in a new process of this program (the choice of
   compression is made once a process) with VYRE_CONFORM_SHA256 set to
   `impl` (NULL: unset); its name in which. */
static char *digests_with(const char *impl, char which[16]) {
  int fd[2];
  assert_int_equal(pipe(fd), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    close(fd[0]);
    dup2(fd[1], 1);
    if (impl) setenv("VYRE_CONFORM_SHA256", impl, 1);
    else unsetenv("VYRE_CONFORM_SHA256");
    execl("/proc/self/exe", "test_sha256", "--digests", (char *)NULL);
    _exit(127);
  }
  close(fd[1]);
  size_t cap = 15 + 303 * 64 + 1, got = 0;
  char *all = calloc(cap, 1);
  assert_non_null(all);
  ssize_t r;
  while (got < cap - 1 && (r = read(fd[0], all + got, cap - 1 - got)) > 0) got += (size_t)r;
  close(fd[0]);
  int st = 0;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  assert_int_equal(got, cap - 1);
  memcpy(which, all, 15);
  which[15] = '\0';
  for (int i = 14; i >= 0 && which[i] == ' '; i--) which[i] = '\0';
  return all;
}

/* Whether /proc/cpuinfo lists the SHA extensions (Linux on x86). */
static int cpu_has_sha(void) {
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return -1;
  char line[4096];
  int has = 0;
  while (fgets(line, sizeof line, f))
    if (strncmp(line, "flags", 5) == 0) {
      has = strstr(line, " sha_ni") != NULL;
      break;
    }
  fclose(f);
  return has;
}

static void both_compressions_agree(void **state) {
  (void)state;
  char dflt[16], port[16];
  char *a = digests_with(NULL, dflt);
  char *b = digests_with("portable", port);
  assert_string_equal(port, "portable");
  assert_string_equal(a + 15, b + 15);
  int has = cpu_has_sha();
#if defined(__x86_64__)
  if (has >= 0) assert_string_equal(dflt, has ? "sha-ni" : "portable");
#else
  assert_string_equal(dflt, "portable");
#endif
  free(a);
  free(b);
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--digests") == 0) return print_digests();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(fips_examples),
      cmocka_unit_test(any_split),
      cmocka_unit_test(both_compressions_agree),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
