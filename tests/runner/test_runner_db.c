/* vyre-conform on the OpenCL backend (PoCL in CI) against a results file it
 * must refuse: the file is never written, not one byte, not its time stamp,
 * and no -wal or -shm file is left beside it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "harness/base/exitcodes.h"

static char dir[256];

static void path_of(const char *name, char out[512]) {
  snprintf(out, 512, "%s/%s", dir, name);
}

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/vc-runner-db-XXXXXX");
  assert_non_null(mkdtemp(dir));
  char path[512];
  path_of("plain.vyre", path);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs("(program plain (workgroup 4) (grid 2)\n"
        "  (buffer o u32 8 write)\n"
        "  (entry (store o (global_id x) (mul (global_id x) 3u))))\n",
        f);
  fclose(f);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  return system(cmd) == 0 ? 0 : -1;
}

/* vyre-conform ARGS in dir, output into dir/out.txt; its exit status. */
static int run(const char *args) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "cd %s && %s/vyre-conform %s >out.txt 2>&1", dir, VC_BINARY_DIR, args);
  int st = system(cmd);
  assert_true(WIFEXITED(st));
  return WEXITSTATUS(st);
}

static char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *data = malloc((size_t)len + 1);
  assert_non_null(data);
  assert_int_equal(fread(data, 1, (size_t)len, f), (size_t)len);
  fclose(f);
  data[len] = '\0';
  *n = (size_t)len;
  return data;
}

static void assert_output_has(const char *text) {
  char path[512];
  size_t n;
  path_of("out.txt", path);
  char *out = slurp(path, &n);
  if (!strstr(out, text)) fail_msg("output lacks \"%s\":\n%s", text, out);
  free(out);
}

static void exec_sql(const char *path, const char *sql) {
  sqlite3 *h = NULL;
  assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
  char *msg = NULL;
  if (sqlite3_exec(h, sql, NULL, NULL, &msg) != SQLITE_OK) fail_msg("%s: %s", sql, msg);
  sqlite3_close(h);
}

static void copy_file(const char *from, const char *to) {
  size_t n;
  char *data = slurp(from, &n);
  FILE *f = fopen(to, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(data, 1, n, f), n);
  fclose(f);
  free(data);
}

/* Refused with message, and never written. */
static void assert_refused_unwritten(const char *name, const char *message) {
  char path[512], args[300];
  path_of(name, path);
  size_t n0, n1;
  char *before = slurp(path, &n0);
  struct stat st0, st1;
  assert_int_equal(stat(path, &st0), 0);
  snprintf(args, sizeof args, "--backend opencl --mode host-split --db %s plain.vyre", name);
  assert_int_equal(run(args), VC_EXIT_DB);
  assert_output_has(message);
  char *after = slurp(path, &n1);
  assert_int_equal(n0, n1);
  assert_memory_equal(before, after, n0);
  assert_int_equal(stat(path, &st1), 0);
  assert_int_equal(st0.st_mtim.tv_sec, st1.st_mtim.tv_sec);
  assert_int_equal(st0.st_mtim.tv_nsec, st1.st_mtim.tv_nsec);
  free(before);
  free(after);
}

/* A results file with a damaged page past the ones a run's start reads:
   before, the run row was written and only recording the device failed,
   under a message saying the file was left untouched. */
static void damaged_page_is_refused_unwritten(void **state) {
  (void)state;
  char path[512], aside[520];
  path_of("c.db", path);
  assert_int_equal(run("--backend opencl --mode host-split --db c.db plain.vyre"), VC_EXIT_OK);
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  assert_true(st.st_size >= 4 * 4096);
  FILE *f = fopen(path, "r+b");
  assert_non_null(f);
  fseek(f, 2 * 4096, SEEK_SET); /* page 3 */
  char junk[3000];
  memset(junk, 0xa5, sizeof junk);
  assert_int_equal(fwrite(junk, 1, sizeof junk, f), sizeof junk);
  fclose(f);

  assert_refused_unwritten("c.db", "results database c.db is corrupt");
  assert_output_has("left untouched");
  snprintf(aside, sizeof aside, "%s-wal", path);
  assert_int_not_equal(access(aside, F_OK), 0);
  snprintf(aside, sizeof aside, "%s-shm", path);
  assert_int_not_equal(access(aside, F_OK), 0);
}

/* Garbage, a foreign database and a newer schema: refused, never written. */
static void foreign_and_newer_files_are_refused_unwritten(void **state) {
  (void)state;
  char path[512], c0[512];
  path_of("junk.db", path);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs("not a database, and it stays as it is\n", f);
  fclose(f);
  assert_refused_unwritten("junk.db", "is corrupt");
  path_of("foreign.db", path);
  exec_sql(path, "CREATE TABLE notes(t); INSERT INTO notes VALUES('keep me')");
  assert_refused_unwritten("foreign.db", "another application");
  assert_int_equal(run("--backend opencl --mode host-split --db c0.db plain.vyre"), VC_EXIT_OK);
  path_of("c0.db", c0);
  path_of("newer.db", path);
  copy_file(c0, path);
  exec_sql(path, "PRAGMA user_version=99");
  assert_refused_unwritten("newer.db", "newer than this harness's version");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(damaged_page_is_refused_unwritten),
      cmocka_unit_test(foreign_and_newer_files_are_refused_unwritten),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
