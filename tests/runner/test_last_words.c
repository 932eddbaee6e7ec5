/* End to end on the OpenCL backend (PoCL): a worker that crashes or is
 * killed on --timeout leaves rows that the runner writes itself; each keeps
 * what the worker wrote to its standard error since its last result (here
 * the fault injection's own message, as a driver's assertion would be), and
 * the report's failure section shows it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "run_util.h"

#include "harness/base/exitcodes.h"


/* b_plain and d_mirror state their own long timeouts: under load a cold
   PoCL compile can outlast the 3 s that is meant for c_third's hang alone,
   and b_plain's crash rows would then be timeouts. */
static const char prog_b[] =
    "(program b_plain (workgroup 4) (grid 2) (expect (timeout 120))\n"
    "  (buffer o u32 8 write)\n"
    "  (entry (store o (global_id x) (mul (global_id x) 3u))))\n";
static const char prog_c[] =
    "(program c_third (workgroup 4) (grid 1)\n"
    "  (buffer o i32 4 write)\n"
    "  (entry (store o (global_id x) (sub 0i (cast i32 (global_id x))))))\n";
static const char prog_d[] =
    "(program d_mirror (workgroup 4) (grid 2) (expect (timeout 120))\n"
    "  (buffer a u32 8 read_write (init iota))\n"
    "  (buffer o u32 8 write)\n"
    "  (entry (let g (global_id x)) (store a g (mul (load a g) 2u)) (barrier grid)\n"
    "    (store o g (load a (sub 7u g)))))\n";

static int setup(void **state) {
  (void)state;
  ru_make_dir("vc-lastwords");
  char sub[300];
  snprintf(sub, sizeof sub, "%s/corpus", ru_dir);
  mkdir(sub, 0777);
  ru_write_file("corpus/b.vyre", prog_b);
  ru_write_file("corpus/c.vyre", prog_c);
  ru_write_file("corpus/d.vyre", prog_d);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  return ru_remove_dir();
}

static int run(const char *args) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "cd %s && %s/vyre-conform %s >out.txt 2>err.txt", ru_dir, VC_BINARY_DIR,
           args);
  int st = system(cmd);
  assert_true(WIFEXITED(st));
  return WEXITSTATUS(st);
}

static char *read_all(const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", ru_dir, name);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  assert_non_null(buf);
  size_t got = fread(buf, 1, (size_t)n, f);
  buf[got] = '\0';
  fclose(f);
  return buf;
}

static int64_t query(const char *sql) {
  char path[512];
  snprintf(path, sizeof path, "%s/w.db", ru_dir);
  sqlite3 *h = NULL;
  assert_int_equal(sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(h, sql, -1, &st, NULL);
  if (rc != SQLITE_OK) fprintf(stderr, "%s: %s\n", sql, sqlite3_errmsg(h));
  assert_int_equal(rc, SQLITE_OK);
  int64_t v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
  sqlite3_finalize(st);
  sqlite3_close(h);
  return v;
}

static const char crash_words[] = "vyre-conform worker: --inject-crash: crashing in b_plain at device";
static const char hang_words[] = "vyre-conform worker: --inject-hang: hanging in c_third at native";

/* b_plain crashes in each mode's device phase (host-split in one worker,
   native in the fresh one after it), c_third hangs in native until the
   3 s --timeout kills its worker; two workers at once. */
static void dead_workers_keep_their_last_words(void **state) {
  (void)state;
  assert_int_equal(run("--backend opencl --jobs 2 --mode host-split,native --db w.db "
                       "--expectations none --flake-reruns 0 --timeout 3 "
                       "--inject-crash b_plain@device --inject-hang c_third@native corpus"),
                   VC_EXIT_FAIL);
  assert_int_equal(query("select count(*) from results r join programs p on r.program_id = p.id "
                         "where p.name = 'b_plain' and r.status = 'crash' and r.stderr like "
                         "'%crashing in b_plain at device%'"),
                   2);
  assert_int_equal(query("select count(*) from results r join programs p on r.program_id = p.id "
                         "where p.name = 'c_third' and r.mode = 'native' and "
                         "r.status = 'timeout' and r.stderr like '%hanging in c_third at native%'"),
                   1);
  /* each row holds its own program's text only; passing rows none of it */
  assert_int_equal(query("select count(*) from results where stderr like '%--inject-%'"), 3);
  assert_int_equal(query("select count(*) from results where status = 'pass'"), 3);
  assert_int_equal(query("select count(*) from results r join programs p on r.program_id = p.id "
                         "where p.name = 'b_plain' and r.stderr like '%c_third%'"),
                   0);
  assert_true(query("select max(length(stderr)) from results") <= 1023);
  /* the run's own standard error still has it (passed on by the worker) */
  char *err = read_all("err.txt");
  assert_non_null(strstr(err, crash_words));
  assert_non_null(strstr(err, hang_words));
  free(err);

  assert_int_equal(run("report w.db --html r.html --md r.md"), 0);
  char *html = read_all("r.html");
  const char *failures = strstr(html, "<h2>Failures</h2>");
  assert_non_null(failures);
  char want[256];
  snprintf(want, sizeof want,
           "<summary>standard error of the worker and driver (repeat 0)</summary><pre>%s\n</pre>",
           crash_words);
  assert_non_null(strstr(failures, want));
  snprintf(want, sizeof want, "<pre>%s\n</pre>", hang_words);
  assert_non_null(strstr(failures, want));
  free(html);
  char *md = read_all("r.md");
  failures = strstr(md, "\n## Failures\n");
  assert_non_null(failures);
  assert_non_null(strstr(failures, crash_words));
  assert_non_null(strstr(failures, hang_words));
  free(md);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(dead_workers_keep_their_last_words),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
