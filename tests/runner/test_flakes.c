/* End-to-end on the OpenCL backend (PoCL): a flake (a mode that fails, then
 * passes on a --flake-reruns rerun) is a failure unless a flake entry of the
 * expectations lists it for this device. --inject-flip M:B:I@1 makes a real
 * device run fail on its first attempt only: a failure that a rerun hides.
 * Unlisted, the run exits 1 and names it, compare finds a new failure (and,
 * the run being planted, refuses it: exit 10) and
 * the report fails it showing what the failed attempt got; listed (scoped to
 * this backend, device and driver), it is a known flake and the run passes;
 * an entry for another device, another buffer, or past its date lists
 * nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "harness/base/exitcodes.h"
#include "harness/model/verdict.h"
#include "run_util.h"

static const char prog_b[] =
    "(program b_plain (workgroup 4) (grid 2)\n"
    "  (buffer o u32 8 write)\n"
    "  (entry (store o (global_id x) (mul (global_id x) 3u))))\n";
static const char prog_c[] =
    "(program c_third (workgroup 4) (grid 1)\n"
    "  (buffer o i32 4 write)\n"
    "  (entry (store o (global_id x) (sub 0i (cast i32 (global_id x))))))\n";

/* o[2] flips on the first attempt of host-split only */
#define FLIP_ONCE "--mode host-split,native --progress plain --inject-flip host-split:o:2@1 corpus"

static int setup(void **state) {
  (void)state;
  ru_make_dir("vc-flakes");
  char sub[300];
  snprintf(sub, sizeof sub, "%s/corpus", ru_dir);
  mkdir(sub, 0777);
  ru_write_file("corpus/b.vyre", prog_b);
  ru_write_file("corpus/c.vyre", prog_c);
  /* a baseline without faults, for compare */
  assert_int_equal(ru_run(NULL, "--backend opencl --mode host-split,native --expectations none "
                                "--db base.db corpus"),
                   0);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  return ru_remove_dir();
}

/* Without a flakes entry: exit 1, the flakes named, each row `flake` with
   the failed attempt's divergence kept (attempt 1: o[2] is 7, not 6); the
   report fails the run and shows that attempt's values; compare finds new
   failures. */
static void unlisted_flake_fails_the_run(void **state) {
  (void)state;
  assert_int_equal(ru_run(NULL, "--backend opencl --db u.db --expectations none " FLIP_ONCE),
                   VC_EXIT_FAIL);
  assert_true(ru_file_contains("out.txt", "b_plain host-split:flake (a failure: no flake entry "
                                          "lists it) native:pass"));
  assert_true(ru_file_contains("out.txt", "host-split #1 (a failure: no flake entry lists it): "
                                          "passed on attempt 2; attempt 1: diverge: "));
  assert_true(ru_file_contains("out.txt", "2 flakes (failed, then passed on a rerun) that no "
                                          "flake entry lists, failing the run"));
  assert_true(ru_file_contains("out.txt", "flakes not listed in any expectations file (none was "
                                          "read): b_plain host-split, c_third host-split"));
  assert_int_equal(ru_query("u.db", "select count(*) from results where status = 'flake' and "
                                    "attempts = 2 and mode = 'host-split'"),
                   2);
  /* the failed attempt's divergence, beside the result's own (none) */
  assert_int_equal(ru_query("u.db", "select count(*) from divergences d join results r on "
                                    "d.result_id = r.id join programs p on r.program_id = p.id "
                                    "where p.name = 'b_plain' and d.attempt = 1 and d.buffer = 'o' "
                                    "and d.first_index = 2 and d.actual_hex like '% 07000000 %'"),
                   1);
  assert_int_equal(ru_query("u.db", "select count(*) from divergences where attempt = 0"), 0);

  assert_int_equal(ru_run(NULL, "report u.db --md u.md --html u.html --junit u.xml"), 0);
  assert_true(ru_file_contains("u.md", "FAIL &mdash;"));
  assert_true(ru_file_contains("u.md", "### `b_plain` host-split opencl: NEW FAILURE, flake"));
  assert_true(ru_file_contains("u.md", "**attempt 1 of 2: diverge**"));
  assert_true(ru_file_contains("u.md", "| **2 \xe2\x89\xa0** | **6** | **7** | `0x00000006` | "
                                       "`0x00000007` |"));
  assert_true(ru_file_contains("u.html", "attempt 1 of 2: diverge"));
  assert_true(ru_file_contains("u.xml", "<failure type=\"flake\""));

  /* compare judges the flake a new failure, and refuses the planted run */
  assert_int_equal(ru_run(NULL, "compare base.db u.db --no-timing"), VC_EXIT_PLANTED);
  assert_true(ru_file_contains("out.txt", "NEW FAILURE        b_plain host-split: pass -> flake"));
  assert_true(ru_file_contains("out.txt", "summary: 2 new-failure"));
}

/* A flake entry for this backend, device and driver lists it: the mode is
   rerun although the entry excuses its failure (so that a known flake is
   told from a failure), recorded `flake`, excused and counted apart; the
   run records which file listed it, and report and compare agree. */
static void listed_flake_is_known(void **state) {
  (void)state;
  ru_write_file("flakes.txt",
                "flake b_plain host-split backend=opencl device=* driver=*Portable* "
                "expires=2999-12-31 reason=\"flips once\"\n"
                "flake c_third host-split buffer=o class=integer reason=\"flips once too\"\n");
  assert_int_equal(ru_run(NULL, "--backend opencl --db k.db --expectations flakes.txt " FLIP_ONCE),
                   0);
  assert_true(ru_file_contains("out.txt", "b_plain host-split:flake (known flake) native:pass"));
  assert_true(ru_file_contains("out.txt", "2 known flakes excused, not counted above (listed in "
                                          "flakes.txt)"));
  assert_true(ru_file_contains("out.txt", "known flakes: b_plain host-split, c_third host-split"));
  assert_int_equal(ru_query("k.db", "select count(*) from results where status = 'flake' and "
                                    "attempts = 2"),
                   2);
  assert_int_equal(ru_query("k.db", "select count(*) from runs where options like "
                                    "'%expectations=flakes.txt%'"),
                   1);
  assert_int_equal(ru_run(NULL, "report k.db --md k.md"), 0);
  assert_true(ru_file_contains("k.md", "PASS &mdash;"));
  assert_true(ru_file_contains("k.md", "| known flake, flakes.txt:1: flips once |"));
  assert_true(ru_file_contains("k.md", "**b_plain host-split repeat 0, attempt 1 of 2: diverge**"));
  assert_int_equal(ru_run(NULL, "compare base.db k.db --no-timing --expectations flakes.txt"),
                   VC_EXIT_PLANTED);
  assert_true(ru_file_contains("out.txt", "summary: no changes"));
  /* by default compare judges by the file the run recorded; without it the
     flakes are new failures */
  assert_int_equal(ru_run(NULL, "compare base.db k.db --no-timing"), VC_EXIT_PLANTED);
  assert_true(ru_file_contains("out.txt", "summary: no changes"));
  assert_int_equal(ru_run(NULL, "compare base.db k.db --no-timing --expectations none"),
                   VC_EXIT_PLANTED);
  assert_true(ru_file_contains("out.txt", "NEW FAILURE        b_plain host-split: pass -> flake"));

  /* failing on every attempt: a flake entry accepts failing too */
  assert_int_equal(ru_run(NULL, "--backend opencl --db k3.db --expectations flakes.txt --mode "
                                "host-split --inject-flip host-split:o:2 corpus"),
                   0);
  assert_int_equal(ru_query("k3.db", "select count(*) from results where status = 'diverge' and "
                                     "attempts = 3"),
                   2);
  /* a fail entry excuses the failure itself: nothing to rerun */
  ru_write_file("fail.txt", "fail * host-split reason=\"known to fail\"\n");
  assert_int_equal(ru_run(NULL, "--backend opencl --db f.db --expectations fail.txt " FLIP_ONCE),
                   0);
  assert_int_equal(ru_query("f.db", "select count(*) from results where status = 'diverge' and "
                                    "attempts = 1"),
                   2);
}

/* Entries scoped to another backend, device, driver or buffer list
   nothing: the run fails. */
static void other_scope_does_not_excuse(void **state) {
  (void)state;
  const char *entries[] = {
      "flake * host-split backend=vulkan reason=\"another backend\"\n",
      "flake * host-split device=\"NVIDIA*\" reason=\"another device\"\n",
      "flake * host-split driver=\"Mesa*\" reason=\"another driver\"\n",
      "flake * host-split buffer=other reason=\"another buffer\"\n",
      "flake * native reason=\"another mode\"\n",
  };
  for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
    ru_write_file("other.txt", entries[i]);
    assert_int_equal(ru_run(NULL, "--backend opencl --db o%zu.db --expectations other.txt " FLIP_ONCE,
                            i),
                     VC_EXIT_FAIL);
    assert_true(ru_file_contains("out.txt", "flakes not listed in other.txt: b_plain host-split, "
                                            "c_third host-split"));
  }
}

/* An entry past its date lists nothing and is named; the exit status is
   the run's for a failure and an expired entry (vc_run_verdict_exit). */
static void expired_entry_lists_nothing(void **state) {
  (void)state;
  ru_write_file("old.txt", "flake * host-split backend=opencl expires=2020-01-01 reason=\"old\"\n");
  vc_run_verdict both = {.failures = 2, .expired = 1};
  assert_int_equal(ru_run(NULL, "--backend opencl --db x.db --expectations old.txt " FLIP_ONCE),
                   vc_run_verdict_exit(&both));
  assert_true(ru_file_contains("out.txt", "old.txt:1: expectation for * host-split expired on "
                                          "2020-01-01: old"));
  assert_true(ru_file_contains("out.txt", "flakes not listed in old.txt: b_plain host-split, "
                                          "c_third host-split"));
  assert_int_equal(ru_run(NULL, "compare base.db x.db --no-timing --expectations old.txt"),
                   VC_EXIT_PLANTED);
  assert_true(ru_file_contains("out.txt", "summary: 2 new-failure, 1 expired"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(unlisted_flake_fails_the_run),
      cmocka_unit_test(listed_flake_is_known),
      cmocka_unit_test(other_scope_does_not_excuse),
      cmocka_unit_test(expired_entry_lists_nothing),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
