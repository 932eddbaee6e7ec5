/* Caselist files (harness/lang/caselist.c): names and globs, comments,
 * repeated files, bad lines with FILE:LINE, and the globs they add to
 * --filter's with the FILE:LINE each comes from. */
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

#include "harness/lang/caselist.h"

static char dir[256];

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/vc-caselist-XXXXXX");
  assert_non_null(mkdtemp(dir));
  return 0;
}

static int teardown(void **state) {
  (void)state;
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  return system(cmd) == 0 ? 0 : -1;
}

static const char *file(const char *name, const char *text) {
  static char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  return path;
}

static void reads_names_globs_and_comments(void **state) {
  (void)state;
  vc_caselist cl = {0};
  vc_error e;
  const char *p = file("a.txt",
                       "# nightly list\n"
                       "scan\n"
                       "  sort_*   # every sort\r\n"
                       "\n"
                       "\t# indented comment\n"
                       "fixpoint/[ab]*.vyre");
  assert_int_equal(vc_caselist_read(p, &cl, &e), 0);
  assert_int_equal(cl.n, 3);
  assert_string_equal(cl.globs[0], "scan");
  assert_string_equal(cl.globs[1], "sort_*");
  assert_string_equal(cl.globs[2], "fixpoint/[ab]*.vyre"); /* a last line without newline */
  /* repeatable: a second file appends */
  assert_int_equal(vc_caselist_read(file("b.txt", "reduce\n"), &cl, &e), 0);
  assert_int_equal(cl.n, 4);
  assert_true(vc_caselist_match(&cl, "scan", "x/scan.vyre"));
  assert_true(vc_caselist_match(&cl, "sort_bitonic", NULL));
  assert_true(vc_caselist_match(&cl, "other", "fixpoint/b1.vyre"));
  assert_false(vc_caselist_match(&cl, "scan2", "scan2.vyre"));
  vc_caselist_free(&cl);
}

static void bad_lines_name_file_and_line(void **state) {
  (void)state;
  struct {
    const char *text, *want;
  } cases[] = {
      {"ok\nscan sort\n", ":2: one program name or glob a line"},
      {"a\n\nb[x\n", ":3: a '[' without its ']'"},
      {"caf\xc3\xa9\n", ":1: a character that is not printable ASCII"},
      /* an option pasted into the list, not a glob of programs named --db */
      {"scan\n--db\n", ":2: an option, not a program name or glob"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    vc_caselist cl = {0};
    vc_error e;
    assert_int_equal(vc_caselist_read(file("x.txt", "keep\n"), &cl, &e), 0);
    const char *p = file("bad.txt", cases[i].text);
    assert_int_equal(vc_caselist_read(p, &cl, &e), VC_ERR_USAGE);
    if (!strstr(e.msg, cases[i].want)) fprintf(stderr, "got: %s\n", e.msg);
    assert_non_null(strstr(e.msg, cases[i].want));
    assert_non_null(strstr(e.msg, "bad.txt"));
    assert_int_equal(cl.n, 1); /* what it held before, nothing of the bad file */
    vc_caselist_free(&cl);
  }
  vc_caselist cl = {0};
  vc_error e;
  char missing[400];
  snprintf(missing, sizeof missing, "%s/none.txt", dir);
  assert_int_equal(vc_caselist_read(missing, &cl, &e), VC_ERR_IO);
  assert_non_null(strstr(e.msg, "none.txt"));
}

static void joins_the_filters(void **state) {
  (void)state;
  vc_caselist cl = {0};
  vc_error e;
  assert_int_equal(vc_caselist_read(file("l.txt", "scan\ndeep/*\n"), &cl, &e), 0);
  const char *filters[] = {"sort"};
  const char **all = NULL, **from = NULL;
  assert_int_equal(vc_caselist_with_filters(&cl, filters, 1, &all, &from, &e), 0);
  assert_string_equal(all[0], "sort");
  assert_string_equal(all[1], "scan");
  assert_string_equal(all[2], "deep/*");
  /* where each comes from, to name one that matches no program */
  assert_string_equal(from[0], "--filter");
  assert_non_null(strstr(from[1], "/l.txt:1"));
  assert_non_null(strstr(from[2], "/l.txt:2"));
  free(all);
  free(from);
  vc_caselist_free(&cl);
  /* a list of comments only selects nothing: refused, not "everything" */
  assert_int_equal(vc_caselist_read(file("empty.txt", "# nothing\n\n"), &cl, &e), 0);
  assert_int_equal(vc_caselist_with_filters(&cl, NULL, 0, &all, &from, &e), VC_ERR_USAGE);
  assert_null(all);
  assert_null(from);
  assert_non_null(strstr(e.msg, "name no program"));
  vc_caselist_free(&cl);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(reads_names_globs_and_comments, setup, teardown),
      cmocka_unit_test_setup_teardown(bad_lines_name_file_and_line, setup, teardown),
      cmocka_unit_test_setup_teardown(joins_the_filters, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
