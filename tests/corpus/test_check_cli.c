/* vyre-conform check as a user runs it, on files written here: what
 * --write-digests does to a file's bytes, the limits of check (--timeout,
 * --max-memory, the harness's own limits, diagnostics of a binary file) and
 * a symlink loop under PATH. */
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

/* Runs vyre-conform with args (a shell word list); its stdout and stderr
   together go to out (malloc'ed). Returns the exit status. */
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
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  size_t k;
  while ((k = fread(buf + n, 1, cap - n - 1, p)) > 0) {
    n += k;
    if (n + 1 == cap) buf = realloc(buf, cap *= 2);
  }
  buf[n] = '\0';
  int st = pclose(p);
  *out = buf;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void put(const char *name, const char *text, size_t len) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(text, 1, len, f), len);
  fclose(f);
}

static char *get(const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  char *buf = calloc(1, 1 << 16);
  size_t n = fread(buf, 1, (1 << 16) - 1, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/vc_check_cli_XXXXXX");
  return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  return system(cmd);
}

/* The file after --write-digests is the file before with exactly one
   (expect (digest "...")) form (plus the separator `sep`) inserted. */
static void assert_only_inserted(const char *before, const char *after, const char *sep) {
  const char *form = strstr(after, "(expect (digest \"");
  assert_non_null(form);
  size_t at = (size_t)(form - after);
  size_t len = strlen("(expect (digest \"\"))") + 64 + strlen(sep);
  assert_memory_equal(after + at + len - strlen(sep), sep, strlen(sep));
  assert_int_equal(strlen(after), strlen(before) + len);
  assert_memory_equal(after, before, at);
  assert_string_equal(after + at + len, before + at);
}

static void write_digest_one_line_program(void **state) {
  (void)state;
  static const char text[] =
      "(program one (workgroup 2) (buffer o u32 2 write) (entry (store o (global_id x) 5u)))\n";
  put("one.vyre", text, strlen(text));
  char *out;
  assert_int_equal(run(&out, "check --write-digests one.vyre"), 0);
  assert_non_null(strstr(out, "digest written"));
  free(out);
  char *after = get("one.vyre");
  assert_only_inserted(text, after, " ");
  free(after);
  assert_int_equal(run(&out, "check --require-digests one.vyre"), 0);
  free(out);
}

static void write_digest_entry_inside_a_line(void **state) {
  (void)state;
  /* a doc that mentions both forms, and (entry after another form */
  static const char text[] =
      "(program mid\n"
      "  (doc \"not here: (entry or (expect (digest \\\"x\\\"))\")\n"
      "  (buffer o u32 2 write) (entry\n"
      "    (store o (global_id x) 5u)))";
  put("mid.vyre", text, strlen(text));
  char *out;
  assert_int_equal(run(&out, "check --write-digests mid.vyre"), 0);
  free(out);
  char *after = get("mid.vyre");
  const char *form = strstr(after, "(buffer o u32 2 write) (expect (digest \"");
  assert_non_null(form);
  assert_memory_equal(after, text, (size_t)(strstr(text, "(buffer o") - text));
  free(after);
  assert_int_equal(run(&out, "check --require-digests mid.vyre"), 0);
  free(out);
}

static void write_digest_own_line_and_replace(void **state) {
  (void)state;
  /* (entry on a line of its own, CRLF line ends: the form gets its own
     line with the same indentation and line end */
  static const char text[] = "(program own\r\n"
                             "  (buffer o u32 2 write)\r\n"
                             "  (entry (store o (global_id x) 5u)))\r\n";
  put("own.vyre", text, strlen(text));
  char *out;
  assert_int_equal(run(&out, "check --write-digests own.vyre"), 0);
  free(out);
  char *after = get("own.vyre");
  const char *form = strstr(after, "(expect (digest \"");
  assert_non_null(form);
  assert_memory_equal(form - 2, "  ", 2);
  assert_only_inserted(text, after, "\r\n  ");
  /* a stale digest: only its 64 hex digits change */
  char *stale = strdup(after);
  char *hex = strstr(stale, "(expect (digest \"") + strlen("(expect (digest \"");
  memset(hex, '0', 64);
  put("own.vyre", stale, strlen(stale));
  assert_int_equal(run(&out, "check own.vyre"), 1);
  assert_non_null(strstr(out, "differs from the golden"));
  free(out);
  assert_int_equal(run(&out, "check --write-digests own.vyre"), 0);
  free(out);
  char *again = get("own.vyre");
  assert_string_equal(again, after);
  free(again);
  free(stale);
  free(after);
}

static void binary_file_gives_twenty_diagnostics(void **state) {
  (void)state;
  char bin[8192];
  uint32_t x = 12345;
  for (size_t i = 0; i < sizeof bin; i++) {
    x = x * 1103515245u + 12345u;
    bin[i] = (char)(x >> 16);
  }
  put("bin.vyre", bin, sizeof bin);
  char *out;
  assert_int_equal(run(&out, "check bin.vyre"), 4);
  uint32_t diags = 0;
  /* lines "bin.vyre:LINE:COL: message" */
  for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
    diags += strncmp(l, "bin.vyre:", 9) == 0 && l[9] >= '0' && l[9] <= '9';
  assert_int_equal(diags, 20);
  assert_non_null(strstr(out, "too many errors ("));
  free(out);
}

static void symlink_loop_is_walked_once(void **state) {
  (void)state;
  char cmd[1024];
  snprintf(cmd, sizeof cmd,
           "mkdir -p %s/tree/sub && ln -s .. %s/tree/sub/up && ln -s sub %s/tree/again", dir, dir,
           dir);
  assert_int_equal(system(cmd), 0);
  static const char text[] = "(program t (buffer o u32 1 write) (entry (store o 0u 1u)))\n";
  put("tree/sub/t.vyre", text, strlen(text));
  char *out;
  assert_int_equal(run(&out, "check tree"), 0);
  assert_non_null(strstr(out, "1 program checked"));
  free(out);
}

static void timeout_stops_the_oracle(void **state) {
  (void)state;
  static const char text[] =
      "(program slow (workgroup 256) (grid 4096) (buffer o u32 1048576 read_write)\n"
      " (entry (let g (global_id x)) (var a 0u)\n"
      "  (loop i 0u 4000u (set a (add (mul a 3u) i))) (store o g a)))\n";
  put("slow.vyre", text, strlen(text));
  char *out;
  assert_int_equal(run(&out, "check --timeout 1 slow.vyre"), 1);
  assert_non_null(strstr(out, "not finished within the time limit (--timeout)"));
  free(out);
}

static void memory_budget_refuses_naming_the_figure(void **state) {
  (void)state;
  static const char text[] =
      "(program mem (workgroup 64) (grid 64) (buffer a u32 65536 read_write (init iota))\n"
      " (entry (let g (global_id x)) (store a g (add (load a g) 1u))))\n";
  put("mem.vyre", text, strlen(text));
  char *out;
  assert_int_equal(run(&out, "check --max-memory 100000 mem.vyre"), 0);
  assert_non_null(strstr(out, "unsup mem.vyre: not checked: unsupported: the oracle's runs need about"));
  assert_non_null(strstr(out, "more than the memory budget of 0 MiB (100000 bytes)"));
  /* an unsupported program is not counted as checked */
  assert_non_null(strstr(out, "0 programs checked, 0 failed, 0 unreadable or malformed, "
                              "1 program not checked (unsupported)"));
  free(out);
  assert_int_equal(run(&out, "check --max-memory 100000000 mem.vyre"), 0);
  assert_non_null(strstr(out, "ok    mem.vyre"));
  free(out);
}

static void harness_limit_is_unsupported(void **state) {
  (void)state;
  /* 2^29 invocations and a value spilled across the barrier: one element
     per invocation does not fit a spill buffer */
  static const char text[] =
      "(program big (workgroup 1024) (grid 65535 8) (buffer a u32 4 read_write)\n"
      " (entry (let g (global_id x)) (let v (load a (and g 3u))) (barrier grid)\n"
      "  (if (lt g 4u) (store a g (add v 1u)))))\n";
  put("big.vyre", text, strlen(text));
  char *out;
  assert_int_equal(run(&out, "check --quiet big.vyre"), 0);
  assert_non_null(strstr(out, "unsup big.vyre: not checked: unsupported:"));
  assert_non_null(strstr(out, "a limit of the harness"));
  assert_non_null(strstr(out, "268435456 (2^28)"));
  assert_null(strstr(out, "invalid"));
  free(out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(write_digest_one_line_program),
      cmocka_unit_test(write_digest_entry_inside_a_line),
      cmocka_unit_test(write_digest_own_line_and_replace),
      cmocka_unit_test(binary_file_gives_twenty_diagnostics),
      cmocka_unit_test(symlink_loop_is_walked_once),
      cmocka_unit_test(timeout_stops_the_oracle),
      cmocka_unit_test(memory_budget_refuses_naming_the_figure),
      cmocka_unit_test(harness_limit_is_unsupported),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
