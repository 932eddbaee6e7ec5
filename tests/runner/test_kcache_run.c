/* The kernel cache end to end (docs/usage.md, "Kernel cache"): runs of the
 * vyre-conform program on a real backend (KC_BACKEND: opencl on PoCL,
 * vulkan on lavapipe) sharing a cache folder: a warm run's compiles are
 * hits, a corrupted entry is recompiled and rewritten, two runs at once
 * both pass, --no-cache leaves no files, and the default folder follows
 * XDG_CACHE_HOME. Also --caselist, which the same runs exercise. */
#include <dirent.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
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

static const char *backend = "opencl";
/* PoCL compiles a native kernel slowly on a shared machine: the split
   modes exercise the same cache path. */
static const char *modes = "host-split,resident-split";

static const char prog_spill[] =
    "(program spill (workgroup 8) (grid 4)\n"
    "  (buffer a u32 32 read_write (init iota))\n"
    "  (buffer out u32 32 write)\n"
    "  (entry (let g (global_id x)) (let v (load a g))\n"
    "    (store a g (add v 100u)) (barrier grid)\n"
    "    (store out g (add v (load a (sub 31u g))))))\n";
static const char prog_plain[] =
    "(program plain (workgroup 4) (grid 2)\n"
    "  (buffer o u32 8 write)\n"
    "  (entry (store o (global_id x) (mul (global_id x) 3u))))\n";

static int setup(void **state) {
  (void)state;
  const char *b = getenv("KC_BACKEND");
  if (b && *b) backend = b;
  if (strcmp(backend, "vulkan") == 0) modes = "native,host-split,resident-split";
  ru_make_dir("vc-kcache");
  char sub[300];
  snprintf(sub, sizeof sub, "%s/corpus", ru_dir);
  mkdir(sub, 0777);
  ru_write_file("corpus/spill.vyre", prog_spill);
  ru_write_file("corpus/plain.vyre", prog_plain);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  return ru_remove_dir();
}

/* Runs vyre-conform in dir with env before it; returns the exit status. */
static int run(const char *env, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int run(const char *env, const char *fmt, ...) {
  char args[2048], cmd[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(args, sizeof args, fmt, ap);
  va_end(ap);
  snprintf(cmd, sizeof cmd, "cd %s && %s%s/vyre-conform --backend %s --mode %s %s >>out.txt 2>&1",
           ru_dir, env ? env : "", VC_BINARY_DIR, backend, modes, args);
  int st = system(cmd);
  assert_true(WIFEXITED(st));
  if (WEXITSTATUS(st) != 0) {
    char show[600];
    snprintf(show, sizeof show, "cat %s/out.txt >&2", ru_dir);
    (void)!system(show);
  }
  return WEXITSTATUS(st);
}

/* Hits of run `run` in db, and results whose every kernel was a hit (a
   split mode compiles one kernel per segment, native one). */
static int64_t hits(const char *db, int run_id) {
  char sql[200];
  snprintf(sql, sizeof sql, "select total(cache_hits) from results where run_id=%d", run_id);
  return ru_query(db, sql);
}

static int64_t all_hit(const char *db, int run_id) {
  char sql[400];
  snprintf(sql, sizeof sql,
           "select count(*) from results r join programs p on p.id=r.program_id where "
           "r.run_id=%d and r.cache_hits = (case r.mode when 'native' then 1 else p.segments end)",
           run_id);
  return ru_query(db, sql);
}

static int64_t passes(const char *db, int run_id) {
  char sql[200];
  snprintf(sql, sizeof sql, "select count(*) from results where run_id=%d and status='pass'",
           run_id);
  return ru_query(db, sql);
}

static int64_t nresults(const char *db, int run_id) {
  char sql[200];
  snprintf(sql, sizeof sql, "select count(*) from results where run_id=%d", run_id);
  return ru_query(db, sql);
}

/* Entry files under folder (recursively), and the path of the first kernel
   entry in sorted order (not the Vulkan pipeline cache's: SPIR-V begins
   with its magic number after the 80-byte header). */
static int entries(const char *folder, char *kernel_entry, size_t n) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "find %s -type f -name '*.vck' | sort", folder);
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  char line[1024];
  int count = 0;
  if (kernel_entry) kernel_entry[0] = '\0';
  while (fgets(line, sizeof line, p)) {
    line[strcspn(line, "\n")] = '\0';
    count++;
    if (!kernel_entry || kernel_entry[0]) continue;
    FILE *f = fopen(line, "rb");
    uint8_t h[84];
    size_t got = f ? fread(h, 1, sizeof h, f) : 0;
    if (f) fclose(f);
    bool spirv = got == 84 && h[80] == 0x03 && h[81] == 0x02 && h[82] == 0x23 && h[83] == 0x07;
    if (strcmp(backend, "vulkan") != 0 || spirv) snprintf(kernel_entry, n, "%s", line);
  }
  pclose(p);
  return count;
}

static void flip_last_byte(const char *path) {
  FILE *f = fopen(path, "r+b");
  assert_non_null(f);
  assert_int_equal(fseek(f, -1, SEEK_END), 0);
  int c = fgetc(f);
  assert_int_equal(fseek(f, -1, SEEK_END), 0);
  fputc(c ^ 0x5a, f);
  fclose(f);
}

static void warm_run_hits_and_corrupt_entry_is_rewritten(void **state) {
  (void)state;
  assert_int_equal(run(NULL, "--cache kc --db w.db corpus"), VC_EXIT_OK);
  int64_t n = nresults("w.db", 1);
  assert_true(n > 0);
  assert_int_equal(passes("w.db", 1), n);
  assert_int_equal(hits("w.db", 1), 0); /* cold */
  char victim[1024];
  char kc[300];
  snprintf(kc, sizeof kc, "%s/kc", ru_dir);
  assert_true(entries(kc, victim, sizeof victim) > 0);
  assert_true(victim[0]);

  assert_int_equal(run(NULL, "--cache kc --db w.db corpus"), VC_EXIT_OK);
  assert_int_equal(passes("w.db", 2), n);
  assert_int_equal(all_hit("w.db", 2), n); /* warm: every kernel from the cache */
  int64_t warm = hits("w.db", 2);
  assert_true(warm > 0);

  flip_last_byte(victim); /* the payload's digest no longer matches */
  assert_int_equal(run(NULL, "--cache kc --db w.db corpus"), VC_EXIT_OK);
  assert_int_equal(passes("w.db", 3), n);
  assert_true(hits("w.db", 3) < warm); /* that kernel was compiled again */

  assert_int_equal(run(NULL, "--cache kc --db w.db corpus"), VC_EXIT_OK);
  assert_int_equal(passes("w.db", 4), n);
  assert_int_equal(hits("w.db", 4), warm); /* and its entry rewritten whole */
}

static void two_runs_share_one_cache(void **state) {
  (void)state;
  char cmd[4096];
  snprintf(cmd, sizeof cmd,
           "cd %s && { (%s/vyre-conform --backend %s --mode %s --cache shared --db s1.db corpus "
           ">s1.txt 2>&1; echo $? >s1.rc) & (%s/vyre-conform --backend %s --mode %s --cache "
           "shared --db s2.db corpus >s2.txt 2>&1; echo $? >s2.rc) & wait; }",
           ru_dir, VC_BINARY_DIR, backend, modes, VC_BINARY_DIR, backend, modes);
  assert_int_equal(system(cmd), 0);
  for (int i = 1; i <= 2; i++) {
    char path[400];
    snprintf(path, sizeof path, "%s/s%d.rc", ru_dir, i);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    int rc = -1;
    assert_int_equal(fscanf(f, "%d", &rc), 1);
    fclose(f);
    assert_int_equal(rc, 0);
    char db[16];
    snprintf(db, sizeof db, "s%d.db", i);
    assert_int_equal(passes(db, 1), nresults(db, 1));
  }
  /* what they left is whole: a third run hits every kernel */
  assert_int_equal(run(NULL, "--cache shared --db s3.db corpus"), VC_EXIT_OK);
  assert_int_equal(all_hit("s3.db", 1), nresults("s3.db", 1));
  char folder[300];
  snprintf(folder, sizeof folder, "%s/shared", ru_dir);
  snprintf(cmd, sizeof cmd, "find %s -name '*.tmp.*' | grep -q .", folder);
  assert_int_not_equal(system(cmd), 0); /* no temporary file left behind */
}

static void no_cache_leaves_no_files_and_default_is_xdg(void **state) {
  (void)state;
  char env[700], path[400];
  snprintf(env, sizeof env, "XDG_CACHE_HOME=%s/xdg HOME=%s/home ", ru_dir, ru_dir);
  assert_int_equal(run(env, "--no-cache --no-reference-cache --db n.db corpus"), VC_EXIT_OK);
  assert_int_equal(hits("n.db", 1), 0);
  struct stat st;
  /* (the driver may keep its own cache there: Mesa's is mesa_shader_cache) */
  snprintf(path, sizeof path, "%s/xdg/vyre-conform", ru_dir);
  assert_int_not_equal(stat(path, &st), 0);
  snprintf(path, sizeof path, "%s/home/.cache/vyre-conform", ru_dir);
  assert_int_not_equal(stat(path, &st), 0);
  /* without --no-cache: $XDG_CACHE_HOME/vyre-conform */
  assert_int_equal(run(env, "--db n.db corpus"), VC_EXIT_OK);
  snprintf(path, sizeof path, "%s/xdg/vyre-conform", ru_dir);
  assert_true(entries(path, NULL, 0) > 0);
  /* and HOME's .cache without XDG_CACHE_HOME */
  snprintf(env, sizeof env, "env -u XDG_CACHE_HOME HOME=%s/home ", ru_dir);
  assert_int_equal(run(env, "--db n.db corpus"), VC_EXIT_OK);
  snprintf(path, sizeof path, "%s/home/.cache/vyre-conform", ru_dir);
  assert_true(entries(path, NULL, 0) > 0);
  assert_int_equal(all_hit("n.db", 2), 0);
  assert_int_equal(run(NULL, "--cache kc2 --no-cache --db n.db corpus"), VC_EXIT_USAGE);
}

/* --caselist selects through the runner's filters; an empty list is refused. */
static void caselist_selects(void **state) {
  (void)state;
  ru_write_file("list.txt", "# one of two\nplain\n");
  ru_write_file("empty.txt", "# nothing\n");
  assert_int_equal(run(NULL, "--no-cache --caselist list.txt --db c.db corpus"), VC_EXIT_OK);
  assert_int_equal(ru_query("c.db", "select count(*) from programs"), 1);
  assert_int_equal(ru_query("c.db", "select count(*) from programs where name='plain'"), 1);
  /* with a --filter: either selects */
  assert_int_equal(run(NULL, "--no-cache --caselist list.txt --filter spill --db c.db corpus"),
                   VC_EXIT_OK);
  assert_int_equal(ru_query("c.db", "select count(*) from programs where run_id=2"), 2);
  assert_int_equal(run(NULL, "--no-cache --caselist empty.txt --db c.db corpus"), VC_EXIT_USAGE);
  assert_int_equal(ru_query("c.db", "select count(*) from runs"), 2); /* no run written */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(warm_run_hits_and_corrupt_entry_is_rewritten, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(two_runs_share_one_cache, setup, teardown),
      cmocka_unit_test_setup_teardown(no_cache_leaves_no_files_and_default_is_xdg, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(caselist_selects, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
