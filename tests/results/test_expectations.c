/* The expectations format: parsing, errors with file:line:col, matching, expiry. */
#include <stdio.h>
#include <string.h>

#include "fixture.h"
#include "harness/model/expectations.h"

static const char good[] =
    "# known problems of the nightly lavapipe run\n"
    "\n"
    "fail  loop_budget_*  *  backend=vulkan driver=*22.3.6* expires=2999-12-31 "
    "reason=\"lavapipe's 65535-iteration budget \\\"per invocation\\\"\"\n"
    "   flake atomics_contended native reason=timing # trailing comment\n"
    "skip * resident-split backend=cuda device=\"NVIDIA H200*\" reason=\"not yet\"\n"
    "fail old_bug host-split expires=2001-02-03 reason=\"fixed long ago\"\n";

static const vc_exp_config lavapipe = {"vulkan", "llvmpipe (LLVM 15.0.6, 256 bits)", "llvmpipe",
                                       "Mesa 22.3.6"};
static const vc_exp_config h200 = {"cuda", "NVIDIA H200", "NVIDIA", "580.159.04"};

static void test_parse_good(void **state) {
  (void)state;
  vc_expectations e;
  vc_error err = {0};
  assert_int_equal(vc_expectations_parse("exp.txt", good, &e, &err), 0);
  assert_int_equal(e.n, 4);
  const vc_expectation *x = &e.items[0];
  assert_int_equal(x->kind, VC_EXP_FAIL);
  assert_int_equal(x->line, 3);
  assert_string_equal(x->program, "loop_budget_*");
  assert_string_equal(x->mode, "*");
  assert_string_equal(x->backend, "vulkan");
  assert_string_equal(x->driver, "*22.3.6*");
  assert_int_equal(x->expires, 29991231);
  assert_string_equal(x->reason, "lavapipe's 65535-iteration budget \"per invocation\"");
  assert_null(x->device);
  x = &e.items[1];
  assert_int_equal(x->kind, VC_EXP_FLAKE);
  assert_int_equal(x->line, 4);
  assert_string_equal(x->reason, "timing");
  assert_int_equal(x->expires, 0);
  assert_string_equal(e.items[2].device, "NVIDIA H200*");
  assert_int_equal(e.items[2].kind, VC_EXP_SKIP);
  vc_expectations_free(&e);
}

/* Each bad line gives the error at its line and column. */
static void test_parse_errors(void **state) {
  (void)state;
  static const struct {
    const char *text, *where, *what;
  } cases[] = {
      {"fial a native reason=x\n", "e.txt:1:1:", "unknown status \"fial\""},
      {"# c\nfail a\n", "e.txt:2:7:", "missing the mode glob"},
      {"fail a native reason=x colour=red\n", "e.txt:1:24:", "unknown key \"colour\""},
      {"fail a native reason=x reason=y\n", "e.txt:1:24:", "reason is given twice"},
      {"fail a native expires=2027-02-29 reason=x\n", "e.txt:1:23:", "not a date"},
      {"fail a native expires=27-01-01 reason=x\n", "e.txt:1:23:", "not a date"},
      {"fail a native reason=\"open\n", "e.txt:1:22:", "unterminated string"},
      {"fail a native backend=vulkan\n", "e.txt:1:29:", "missing reason"},
      {"fail a native reason=\"a\\nb\"\n", "e.txt:1:24:", "unknown escape"},
      {"\n\nfail a native stray reason=x\n", "e.txt:3:15:", "expected key=value"},
      {"fail a backend=vulkan reason=x\n", "e.txt:1:8:", "missing the mode glob"},
      {"skip a b backend= reason=x\n", "e.txt:1:18:", "backend= needs a value"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    vc_expectations e;
    vc_error err = {0};
    assert_int_equal(vc_expectations_parse("e.txt", cases[i].text, &e, &err), VC_ERR_PARSE);
    if (strncmp(err.msg, cases[i].where, strlen(cases[i].where)) || !strstr(err.msg, cases[i].what))
      fail_msg("case %zu: got \"%s\", want %s ... %s", i, err.msg, cases[i].where, cases[i].what);
  }
}

static void test_load_from_file(void **state) {
  (void)state;
  fx_dir d;
  fx_dir_make(&d);
  char path[512];
  fx_path(&d, "expectations.txt", path);
  vc_expectations e;
  vc_error err = {0};
  assert_int_equal(vc_expectations_load(path, &e, &err), VC_ERR_IO);
  assert_non_null(strstr(err.msg, path));
  fx_write_file(path, good, strlen(good));
  assert_int_equal(vc_expectations_load(path, &e, &err), 0);
  assert_int_equal(e.n, 4);
  assert_string_equal(e.file, path);
  vc_expectations_free(&e);
  fx_write_file(path, "skip a b reason=x\nfail\n", 23);
  assert_int_equal(vc_expectations_load(path, &e, &err), VC_ERR_PARSE);
  char where[600];
  snprintf(where, sizeof where, "%s:2:5: missing the program glob", path);
  assert_string_equal(err.msg, where);
  fx_dir_remove(&d);
}

static void test_matching(void **state) {
  (void)state;
  vc_expectations e;
  vc_error err = {0};
  assert_int_equal(vc_expectations_parse("exp.txt", good, &e, &err), 0);
  int today = 20261129;
  const vc_expectation *x =
      vc_expectations_match(&e, &lavapipe, today, "loop_budget_70k", "native");
  assert_non_null(x);
  assert_int_equal(x->line, 3);
  /* the driver glob matches the version, the name, or both together */
  vc_exp_config other = lavapipe;
  other.driver_version = "Mesa 23.0.1";
  assert_null(vc_expectations_match(&e, &other, today, "loop_budget_70k", "native"));
  assert_null(vc_expectations_match(&e, &h200, today, "loop_budget_70k", "native"));
  /* line 4 has no backend: it applies everywhere */
  x = vc_expectations_match(&e, &h200, today, "atomics_contended", "native");
  assert_non_null(x);
  assert_int_equal(x->kind, VC_EXP_FLAKE);
  assert_null(vc_expectations_match(&e, &h200, today, "atomics_contended", "host-split"));
  /* line 5: device glob, on cuda only */
  assert_non_null(vc_expectations_match(&e, &h200, today, "anything", "resident-split"));
  assert_null(vc_expectations_match(&e, &lavapipe, today, "anything", "resident-split"));
  vc_exp_config nodevice = {"cuda", "", "", ""};
  assert_null(vc_expectations_match(&e, &nodevice, today, "anything", "resident-split"));
  /* line 6 expired in 2001: it matches nothing any more */
  assert_null(vc_expectations_match(&e, &lavapipe, today, "old_bug", "host-split"));
  assert_non_null(vc_expectations_match(&e, &lavapipe, 20010203, "old_bug", "host-split"));
  vc_expectations_free(&e);
}

static void test_expiry_boundary(void **state) {
  (void)state;
  vc_expectation x = {.expires = 20270301};
  assert_false(vc_expectation_expired(&x, 20270228));
  assert_false(vc_expectation_expired(&x, 20270301)); /* the date itself still applies */
  assert_true(vc_expectation_expired(&x, 20270302));
  x.expires = 0;
  assert_false(vc_expectation_expired(&x, 99991231));
  int today = vc_today_utc();
  assert_true(today > 20250101 && today < 30000101);
}

/* First match wins: a narrow entry above a broad one. */
static void test_first_match_wins(void **state) {
  (void)state;
  vc_expectations e;
  vc_error err = {0};
  const char text[] = "flake a native reason=narrow\nfail * * reason=broad\n";
  assert_int_equal(vc_expectations_parse("f.txt", text, &e, &err), 0);
  assert_string_equal(vc_expectations_match(&e, &lavapipe, 20260101, "a", "native")->reason,
                      "narrow");
  assert_string_equal(vc_expectations_match(&e, &lavapipe, 20260101, "a", "host-split")->reason,
                      "broad");
  vc_expectations_free(&e);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_parse_good),      cmocka_unit_test(test_parse_errors),
      cmocka_unit_test(test_load_from_file),  cmocka_unit_test(test_matching),
      cmocka_unit_test(test_expiry_boundary), cmocka_unit_test(test_first_match_wins),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
