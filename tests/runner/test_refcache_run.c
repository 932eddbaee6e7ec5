/* The reference cache end to end (docs/performance.md, "Reference cache"):
 * runs of the vyre-conform program on PoCL sharing a reference cache folder.
 * A second run judges every result by the cached outputs (reference_cached,
 * no oracle run) with the same statuses and output digests; a damaged entry
 * is said, recomputed and rewritten; two runs at once on a fresh folder both
 * pass; --no-reference-cache keeps nothing; the default folder follows
 * XDG_CACHE_HOME. */
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

#include "run_util.h"

#include "harness/base/exitcodes.h"

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
  ru_make_dir("vc-refcache");
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

/* One PoCL run in the split modes (the cache is the runner's, not the
   backend's), kernels from a kernel cache of the test's own. */
#define RUN(env, ...)                                                                           \
  ru_run(env, "--backend opencl --mode host-split,resident-split --cache kc --progress plain " \
              "--expectations none " __VA_ARGS__)

static int64_t cached_rows(const char *db, int run, int cached) {
  char sql[200];
  snprintf(sql, sizeof sql,
           "select count(*) from results where run_id=%d and reference_cached=%d and "
           "status='pass'",
           run, cached);
  return ru_query(db, sql);
}

/* The rows of run b whose status or output digest differ from run a's. */
static int64_t differing(const char *db, int a, int b) {
  char sql[600];
  snprintf(sql, sizeof sql,
           "select count(*) from results x join programs px on px.id=x.program_id, results y "
           "join programs py on py.id=y.program_id where x.run_id=%d and y.run_id=%d and "
           "px.name=py.name and x.mode=y.mode and x.repeat=y.repeat and "
           "(x.status!=y.status or x.output_digest!=y.output_digest or x.output_digest='')",
           a, b);
  return ru_query(db, sql);
}

static int entries(const char *folder) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "find %s/%s -type f -name '*.vcr' 2>/dev/null | wc -l", ru_dir,
           folder);
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  int n = -1;
  assert_int_equal(fscanf(p, "%d", &n), 1);
  pclose(p);
  return n;
}

/* A warm run does no oracle work and finds what the cold one found; a
   damaged entry is a miss, said, and rewritten. */
static void warm_run_reads_the_cache(void **state) {
  (void)state;
  assert_int_equal(RUN(NULL, "--reference-cache rc --db w.db corpus"), VC_EXIT_OK);
  assert_int_equal(cached_rows("w.db", 1, 0), 4);
  assert_int_equal(entries("rc"), 2);
  assert_int_equal(RUN(NULL, "--reference-cache rc --db w.db corpus"), VC_EXIT_OK);
  assert_int_equal(cached_rows("w.db", 2, 1), 4);
  assert_int_equal(differing("w.db", 1, 2), 0);
  /* the last byte of every entry flipped: each refused and recomputed */
  assert_int_equal(
      ru_sh("for f in $(find rc -name '*.vcr'); do s=$(stat -c %%s $f); "
            "printf '\\377' | dd of=$f bs=1 seek=$((s - 1)) conv=notrunc 2>/dev/null; done"),
      0);
  assert_int_equal(RUN(NULL, "--reference-cache rc --db w.db corpus"), VC_EXIT_OK);
  assert_true(ru_file_contains("out.txt", "reference cache: entry"));
  assert_true(ru_file_contains("out.txt", "refused (its payload's SHA-256 differs"));
  assert_int_equal(cached_rows("w.db", 3, 0), 4);
  assert_int_equal(differing("w.db", 1, 3), 0);
  assert_int_equal(RUN(NULL, "--reference-cache rc --db w.db corpus"), VC_EXIT_OK);
  assert_int_equal(cached_rows("w.db", 4, 1), 4);
  /* --no-reference-cache: the oracle runs, nothing is read or kept */
  assert_int_equal(RUN(NULL, "--no-reference-cache --db w.db corpus"), VC_EXIT_OK);
  assert_int_equal(cached_rows("w.db", 5, 0), 4);
  assert_int_equal(RUN(NULL, "--reference-cache rc --no-reference-cache --db w.db corpus"),
                   VC_EXIT_USAGE);
}

/* Two runs at once on a fresh folder (as ci/qualify runs its backends):
   both pass with the same bytes, and the folder holds whole entries. */
static void two_runs_at_once(void **state) {
  (void)state;
  char one[600], cmd[1400];
  snprintf(one, sizeof one,
           "%s/vyre-conform --backend opencl --mode host-split,resident-split --cache kc "
           "--progress plain --expectations none --reference-cache shared",
           VC_BINARY_DIR);
  snprintf(cmd, sizeof cmd,
           "%s --db t1.db corpus >t1.txt 2>&1 & a=$!; %s --db t2.db corpus >t2.txt 2>&1 & "
           "b=$!; wait $a; x=$?; wait $b; y=$?; [ $x -eq 0 ] && [ $y -eq 0 ]",
           one, one);
  assert_int_equal(ru_sh("%s", cmd), 0);
  for (int i = 1; i <= 2; i++) {
    char db[16];
    snprintf(db, sizeof db, "t%d.db", i);
    assert_int_equal(ru_query(db, "select count(*) from results where status='pass'"), 4);
  }
  char both[400];
  ru_query_text("t1.db", "select group_concat(output_digest) from (select output_digest from "
                         "results order by mode, output_digest)",
                both, sizeof both);
  char other[400];
  ru_query_text("t2.db", "select group_concat(output_digest) from (select output_digest from "
                         "results order by mode, output_digest)",
                other, sizeof other);
  assert_string_equal(both, other);
  assert_int_equal(entries("shared"), 2);
  assert_int_not_equal(ru_sh("find shared -name '*.tmp.*' | grep -q ."), 0);
  assert_int_equal(RUN(NULL, "--reference-cache shared --db t1.db corpus"), VC_EXIT_OK);
  assert_int_equal(cached_rows("t1.db", 2, 1), 4);
}

/* The default folder: $XDG_CACHE_HOME/vyre-conform/reference, else HOME's. */
static void default_folder(void **state) {
  (void)state;
  char env[700];
  snprintf(env, sizeof env, "XDG_CACHE_HOME=%s/xdg HOME=%s/home ", ru_dir, ru_dir);
  assert_int_equal(RUN(env, "--no-reference-cache --db d.db corpus"), VC_EXIT_OK);
  assert_int_equal(entries("xdg"), 0);
  assert_int_equal(entries("home"), 0);
  assert_int_equal(RUN(env, "--db d.db corpus"), VC_EXIT_OK);
  assert_int_equal(entries("xdg/vyre-conform/reference"), 2);
  snprintf(env, sizeof env, "env -u XDG_CACHE_HOME HOME=%s/home ", ru_dir);
  assert_int_equal(RUN(env, "--db d.db corpus"), VC_EXIT_OK);
  assert_int_equal(entries("home/.cache/vyre-conform/reference"), 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(warm_run_reads_the_cache),
      cmocka_unit_test(two_runs_at_once),
      cmocka_unit_test(default_folder),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
