/* The fuzz campaign's one call (harness/fuzz/campaign.h) before any device:
 * options that offer no program are a usage error handed back to the
 * command, unprinted, with nothing written; a --from that cannot be read is
 * an input error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/base/exitcodes.h"
#include "harness/fuzz/campaign.h"

static char scratch[64];

static int setup(void **state) {
  (void)state;
  snprintf(scratch, sizeof scratch, "/tmp/vc-fuzz-campaign-XXXXXX");
  return mkdtemp(scratch) ? 0 : -1;
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static void options(vc_fuzz_opts *o, const char *const *from, char *out, size_t n) {
  memset(o, 0, sizeof *o);
  snprintf(out, n, "%s/out", scratch);
  o->dir = out;
  o->db = o->run.db_path = "unused.db";
  o->backend = o->run.backend = "opencl";
  o->seed = 1;
  o->count = 1;
  o->batch = 1;
  o->from = from;
  o->nfrom = 1;
  o->reduce = true;
  o->reduce_timeout_s = 60;
}

/* Files that do not parse offer nothing to draw: the command reports it as
   its usage error; no folder is made. */
static void test_nothing_to_draw(void **state) {
  (void)state;
  char dir[128], bad[160], out[128];
  snprintf(dir, sizeof dir, "%s/from", scratch);
  assert_int_equal(mkdir(dir, 0777), 0);
  snprintf(bad, sizeof bad, "%s/broken.vyre", dir);
  write_file(bad, "(program broken\n");
  const char *from[1] = {dir};
  vc_fuzz_opts o;
  options(&o, from, out, sizeof out);
  vc_error e;
  vc_error_clear(&e);
  assert_int_equal(vc_fuzz_campaign(&o, &e), VC_EXIT_USAGE);
  assert_int_equal(e.code, VC_ERR_USAGE);
  assert_non_null(strstr(e.msg, "--from offers no program"));
  struct stat st;
  assert_int_not_equal(stat(out, &st), 0);
  unlink(bad);
  rmdir(dir);
}

/* A --from that is not there is an input error, not the usage one. */
static void test_missing_from(void **state) {
  (void)state;
  char dir[128], out[128];
  snprintf(dir, sizeof dir, "%s/absent", scratch);
  const char *from[1] = {dir};
  vc_fuzz_opts o;
  options(&o, from, out, sizeof out);
  vc_error e;
  vc_error_clear(&e);
  assert_int_equal(vc_fuzz_campaign(&o, &e), VC_EXIT_INPUT);
  struct stat st;
  assert_int_not_equal(stat(out, &st), 0);
}

static int teardown(void **state) {
  (void)state;
  return rmdir(scratch);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_nothing_to_draw),
      cmocka_unit_test(test_missing_from),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
