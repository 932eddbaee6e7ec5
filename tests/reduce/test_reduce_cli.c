/* vyre-conform reduce end to end on PoCL: a planted bit flip and a planted
 * worker crash or hang are reduced to a few statements that keep the
 * signature; the output is a valid program that still fails the same way;
 * bad input gets its own exit status. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/exitcodes.h"
#include "reduce_util.h"

#define SCAN "corpus/algorithms/prefix_scan_two_level.vyre"

static char dir[512];

static void reduced(const char *flags, const char *sig, const char *out) {
  char args[2048], *log = NULL;
  snprintf(args, sizeof args, "reduce " SCAN " --backend opencl --cache '%s/kc' %s --out '%s'",
           dir, flags, out);
  assert_int_equal(ru_run("", args, &log), VC_EXIT_OK);
  char want[256];
  snprintf(want, sizeof want, "signature: %s\n", sig);
  assert_non_null(strstr(log, want));
  assert_non_null(strstr(log, "before: statements 25, buffers 4, segments 3"));
  assert_non_null(strstr(log, "step 1 "));
  free(log);
  vc_reduce_size s;
  assert_true(ru_size(out, &s));
  assert_true(s.statements <= 15);
  assert_true(ru_valid(out));
  char *text = ru_read(out);
  snprintf(want, sizeof want, "(doc \"reduced from " SCAN " by vyre-conform reduce on opencl; "
           "keeps: %s\")", sig);
  assert_non_null(strstr(text, want));
  free(text);
  /* the reduced program fails the same way */
  snprintf(args, sizeof args, "reduce '%s' --backend opencl --cache '%s/kc' %s --out '%s.again'",
           out, dir, flags, out);
  assert_int_equal(ru_run("", args, &log), VC_EXIT_OK);
  snprintf(want, sizeof want, "signature: %s\n", sig);
  assert_non_null(strstr(log, want));
  free(log);
}

static void test_flip(void **state) {
  (void)state;
  char out[600];
  snprintf(out, sizeof out, "%s/flip.vyre", dir);
  reduced("--inject-flip host-split:out:1500", "host-split diverge buffer=out class=integer", out);
  /* element 1500 must still exist: the buffer shrank no further */
  char *text = ru_read(out);
  assert_non_null(strstr(text, "(buffer out u32 1501 "));
  free(text);
}

/* Every candidate crashes the device process: the reducer survives each. */
static void test_crash_isolated(void **state) {
  (void)state;
  char out[600];
  snprintf(out, sizeof out, "%s/crash.vyre", dir);
  reduced("--mode resident-split --inject-crash 'prefix_scan*@resident-split'",
          "resident-split crash", out);
}

/* Every candidate hangs: each is killed after --timeout, the reducer goes on. */
static void test_hang_isolated(void **state) {
  (void)state;
  char args[2048], *log = NULL, out[600];
  snprintf(out, sizeof out, "%s/hang.vyre", dir);
  snprintf(args, sizeof args,
           "reduce corpus/atomics/counters.vyre --backend opencl --mode host-split --timeout 1 "
           "--inject-hang 'counters@host-split' --cache '%s/kc' --quiet --out '%s'",
           dir, out);
  assert_int_equal(ru_run("", args, &log), VC_EXIT_OK);
  assert_non_null(strstr(log, "signature: host-split timeout\n"));
  free(log);
  vc_reduce_size s;
  assert_true(ru_size(out, &s));
  assert_true(s.statements <= 15);
  assert_true(ru_valid(out));
}

static void test_bad_input(void **state) {
  (void)state;
  char args[2048], *log = NULL;
  /* a program that passes */
  snprintf(args, sizeof args, "reduce " SCAN " --backend opencl --cache '%s/kc' --out '%s/x.vyre'",
           dir, dir);
  assert_int_equal(ru_run("", args, &log), VC_EXIT_NOTHING);
  assert_non_null(strstr(log, SCAN ": nothing to reduce: no selected mode fails on opencl"));
  free(log);
  snprintf(args, sizeof args, "reduce " SCAN " --check --out '%s/x.vyre'", dir);
  assert_int_equal(ru_run("env -u VYRE_CONFORM_MUTANT", args, &log), VC_EXIT_NOTHING);
  assert_non_null(strstr(log, "nothing to reduce: the check passes"));
  free(log);
  /* unknown mode, no --out, no device nor --check */
  snprintf(args, sizeof args, "reduce " SCAN " --backend opencl --mode sideways --out '%s/x.vyre'",
           dir);
  assert_int_equal(ru_run("", args, &log), VC_EXIT_USAGE);
  assert_non_null(strstr(log, "sideways"));
  free(log);
  assert_int_equal(ru_run("", "reduce " SCAN " --backend opencl", NULL), VC_EXIT_USAGE);
  assert_int_equal(ru_run("", "reduce " SCAN " --out /dev/null", NULL), VC_EXIT_USAGE);
  /* unreadable, and not a program (with file:line:col) */
  snprintf(args, sizeof args, "reduce '%s/none.vyre' --check --out '%s/x.vyre'", dir, dir);
  assert_int_equal(ru_run("", args, &log), VC_EXIT_INPUT);
  assert_non_null(strstr(log, "cannot read"));
  free(log);
  char bad[600];
  snprintf(bad, sizeof bad, "%s/bad.vyre", dir);
  FILE *f = fopen(bad, "w");
  assert_non_null(f);
  fputs("(program bad\n  (entry (store nowhere 0u 1u)))\n", f);
  fclose(f);
  snprintf(args, sizeof args, "reduce '%s' --check --out '%s/x.vyre'", bad, dir);
  assert_int_equal(ru_run("", args, &log), VC_EXIT_INPUT);
  snprintf(args, sizeof args, "%s:2:", bad);
  assert_non_null(strstr(log, args));
  free(log);
}

int main(void) {
  ru_tmpdir(dir, sizeof dir, "cli");
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_flip),
      cmocka_unit_test(test_crash_isolated),
      cmocka_unit_test(test_hang_isolated),
      cmocka_unit_test(test_bad_input),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
