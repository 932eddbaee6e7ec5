/* The expectations format: parsing, errors with file:line:col, matching, expiry. */
#include <stdio.h>
#include <string.h>

#include "fixture.h"
#include "harness/model/attempt_log.h"
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

/* A program's name is matched whole: an entry for f32_signed_zero excuses
   neither f32_signed_zero_x nor x_f32_signed_zero, and a glob only what it
   spells out. */
static void test_names_match_whole(void **state) {
  (void)state;
  vc_expectations e;
  vc_error err = {0};
  assert_int_equal(vc_expectations_parse("exp.txt",
                                         "fail f32_signed_zero * reason=\"exact\"\n"
                                         "fail loop_* native reason=\"glob\"\n",
                                         &e, &err),
                   0);
  int today = 20261129;
  assert_non_null(vc_expectations_match(&e, &lavapipe, today, "f32_signed_zero", "native"));
  assert_null(vc_expectations_match(&e, &lavapipe, today, "f32_signed_zero_x", "native"));
  assert_null(vc_expectations_match(&e, &lavapipe, today, "x_f32_signed_zero", "native"));
  assert_null(vc_expectations_match(&e, &lavapipe, today, "f32_signed_zer", "native"));
  assert_non_null(vc_expectations_match(&e, &lavapipe, today, "loop_budget", "native"));
  assert_null(vc_expectations_match(&e, &lavapipe, today, "a_loop_budget", "native"));
  assert_null(vc_expectations_match(&e, &lavapipe, today, "loop_budget", "host-split"));
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


/* ---- the scope below the program ---- */

static vc_divergence div_of(const char *buffer, vc_divclass cls) {
  vc_divergence d;
  memset(&d, 0, sizeof d);
  snprintf(d.buffer, sizeof d.buffer, "%s", buffer);
  d.cls = cls;
  d.count = 1;
  return d;
}

static vc_result result_of(const char *mode, vc_status st, vc_divergence *divs, uint32_t n,
                           const char *reason) {
  vc_result r;
  memset(&r, 0, sizeof r);
  r.mode = mode;
  r.status = st;
  r.divs = divs;
  r.ndivs = n;
  snprintf(r.reason, sizeof r.reason, "%s", reason);
  return r;
}

static void test_parse_scope(void **state) {
  (void)state;
  vc_expectations e;
  vc_error err = {0};
  const char text[] =
      "fail f32_signed_zero * buffer=add_a_zero class=f32-signed-zero reason=fold\n"
      "fail * native status=untrustworthy note=\"*loop ended*\" reason=budget\n";
  assert_int_equal(vc_expectations_parse("s.txt", text, &e, &err), 0);
  assert_string_equal(e.items[0].buffer, "add_a_zero");
  assert_string_equal(e.items[0].cls, "f32-signed-zero");
  assert_null(e.items[0].status);
  assert_string_equal(e.items[1].status, "untrustworthy");
  assert_string_equal(e.items[1].note, "*loop ended*");
  vc_expectations_free(&e);
  static const struct {
    const char *text, *where, *what;
  } bad[] = {
      {"fail a * class=f32-sign reason=x\n", "e.txt:1:16:", "not a divergence class"},
      {"fail a * status=pass reason=x\n", "e.txt:1:17:", "not a failing status"},
      {"fail a * status=unsupported reason=x\n", "e.txt:1:17:", "untrustworthy"},
      {"skip a * buffer=out reason=x\n", "e.txt:1:1:", "skip takes no"},
      {"fail a * buffer= reason=x\n", "e.txt:1:17:", "buffer= needs a value"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    assert_int_equal(vc_expectations_parse("e.txt", bad[i].text, &e, &err), VC_ERR_PARSE);
    if (strncmp(err.msg, bad[i].where, strlen(bad[i].where)) || !strstr(err.msg, bad[i].what))
      fail_msg("case %zu: got \"%s\", want %s ... %s", i, err.msg, bad[i].where, bad[i].what);
  }
}

/* A scoped entry covers a result only when every divergence is in scope:
   a fault in another buffer, class or mode is not hidden behind it. */
static void test_scope_covers(void **state) {
  (void)state;
  vc_expectations e;
  vc_error err = {0};
  const char text[] =
      "fail f32_signed_zero * buffer=add_a_zero class=f32-signed-zero reason=fold\n"
      "fail f32_signed_zero host-split buffer=mul_* reason=\"another entry\"\n"
      "fail * native status=untrustworthy note=\"*loop ended*\" reason=budget\n";
  assert_int_equal(vc_expectations_parse("s.txt", text, &e, &err), 0);
  int today = 20261201;
  vc_divergence zero = div_of("add_a_zero", VC_DIV_F32_SIGNED_ZERO);
  vc_divergence zero_ulp = div_of("add_a_zero", VC_DIV_F32_ULP);
  vc_divergence min = div_of("min_nan", VC_DIV_F32_NAN);
  vc_divergence mul = div_of("mul_neg", VC_DIV_F32_NAN);
  vc_divergence payload = div_of("min_nan", VC_DIV_NAN_PAYLOAD);
  vc_divergence two[2] = {zero, min};
  vc_divergence with_payload[2] = {zero, payload};
  vc_divergence zero_mul[2] = {zero, mul};
  vc_result r = result_of("host-split", VC_ST_DIVERGE, &zero, 1, "");
  const vc_expectation *x = vc_expectations_cover(&e, &lavapipe, today, "f32_signed_zero", &r);
  assert_non_null(x);
  assert_int_equal(x->line, 1);
  /* another class in the same buffer */
  r = result_of("host-split", VC_ST_DIVERGE, &zero_ulp, 1, "");
  assert_null(vc_expectations_cover(&e, &lavapipe, today, "f32_signed_zero", &r));
  /* the known fault and a new one in another buffer */
  r = result_of("native", VC_ST_DIVERGE, two, 2, "");
  assert_null(vc_expectations_cover(&e, &lavapipe, today, "f32_signed_zero", &r));
  /* an allowed NaN payload is no failure to scope */
  r = result_of("native", VC_ST_DIVERGE, with_payload, 2, "");
  assert_non_null(vc_expectations_cover(&e, &lavapipe, today, "f32_signed_zero", &r));
  /* two entries together cover two buffers, only in the mode of the second */
  r = result_of("host-split", VC_ST_DIVERGE, zero_mul, 2, "");
  assert_non_null(vc_expectations_cover(&e, &lavapipe, today, "f32_signed_zero", &r));
  r.mode = "resident-split";
  assert_null(vc_expectations_cover(&e, &lavapipe, today, "f32_signed_zero", &r));
  /* a failure without divergences is outside a buffer/class scope */
  r = result_of("host-split", VC_ST_ERROR, NULL, 0, "compile error");
  assert_null(vc_expectations_cover(&e, &lavapipe, today, "f32_signed_zero", &r));
  /* status= and note= */
  r = result_of("native", VC_ST_UNTRUSTWORTHY, NULL, 0,
                "native run untrustworthy (bytes: pass): a virtual-workgroup loop ended early");
  assert_int_equal(vc_expectations_cover(&e, &lavapipe, today, "spin", &r)->line, 3);
  snprintf(r.reason, sizeof r.reason, "native run untrustworthy (bytes: pass): 6 grid barriers "
                                      "completed, the passes need 7");
  assert_null(vc_expectations_cover(&e, &lavapipe, today, "spin", &r));
  r = result_of("native", VC_ST_DIVERGE, &min, 1, "a loop ended");
  assert_null(vc_expectations_cover(&e, &lavapipe, today, "spin", &r));
  vc_expectations_free(&e);
}

/* The attempt log is read back as it was written: a "; " inside a reason
   does not start an entry, a status with no reason has an empty one. */
static void test_attempt_log(void **state) {
  (void)state;
  char log[512] = "";
  size_t u = 0;
  vc_attempt_log_append(log, sizeof log, &u, 1, VC_ST_DIVERGE,
                        "3 elements differ in 1 buffer; first: left[256] (integer)");
  vc_attempt_log_append(log, sizeof log, &u, 2, VC_ST_TIMEOUT, "");
  vc_attempt_log_append(log, sizeof log, &u, 3, VC_ST_PASS, "");
  assert_string_equal(log, "1 diverge: 3 elements differ in 1 buffer; first: left[256] "
                           "(integer); 2 timeout; 3 pass");
  vc_attempt_entry at[4];
  assert_int_equal(vc_attempt_log_parse(log, at, 4), 3);
  assert_int_equal(at[0].attempt, 1);
  assert_int_equal(at[0].status, VC_ST_DIVERGE);
  assert_string_equal(at[0].reason, "3 elements differ in 1 buffer; first: left[256] (integer)");
  assert_int_equal(at[1].attempt, 2);
  assert_int_equal(at[1].status, VC_ST_TIMEOUT);
  assert_string_equal(at[1].reason, "");
  assert_int_equal(at[2].status, VC_ST_PASS);
  assert_int_equal(vc_attempt_log_parse(log, at, 1), 1);
  assert_int_equal(vc_attempt_log_parse("", at, 4), 0);
  assert_int_equal(vc_attempt_log_parse("garbage", at, 4), 0);
}

/* A flake is listed only when flake entries cover every failed attempt:
   its status and reason, and its divergences (attempt_divs), as a failing
   result is covered; a fail entry lists no flake; scope by device and
   expiry as for any entry. */
static void test_cover_flake(void **state) {
  (void)state;
  vc_divergence d = {.buffer = "left", .type = "u32", .first_index = 256, .count = 3,
                     .cls = VC_DIV_INTEGER, .attempt = 1};
  vc_result r = {.mode = "host-split", .status = VC_ST_FLAKE, .attempts = 3,
                 .attempt_divs = &d, .nattempt_divs = 1};
  snprintf(r.attempt_log, sizeof r.attempt_log,
           "1 diverge: 3 elements differ in 1 buffer; first: left[256] (integer); "
           "2 timeout: no result within 60 s; 3 pass");
  const vc_exp_config pocl = {"opencl", "pthread-skylake", "Portable Computing Language", "3.1"};
  struct {
    const char *text;
    bool listed;
    uint32_t line;
  } cases[] = {
      {"flake shared_atomics host-split reason=x\n", true, 1},
      {"flake shared_* * backend=opencl device=pthread-* driver=*Portable* reason=x\n", true, 1},
      {"flake shared_atomics host-split backend=vulkan reason=x\n", false, 0},
      {"flake shared_atomics host-split device=NVIDIA* reason=x\n", false, 0},
      {"flake shared_atomics native reason=x\n", false, 0},
      {"flake shared_atomics host-split expires=2020-01-01 reason=x\n", false, 0},
      {"fail shared_atomics host-split reason=x\n", false, 0},
      /* buffer= covers the divergence, not the timeout without one */
      {"flake shared_atomics host-split buffer=left reason=x\n", false, 0},
      {"flake shared_atomics host-split buffer=left reason=x\n"
       "flake shared_atomics host-split status=timeout note=\"*60 s\" reason=y\n",
       true, 1},
      {"flake shared_atomics host-split status=diverge reason=x\n", false, 0},
      {"flake shared_atomics host-split buffer=right reason=x\n"
       "flake shared_atomics host-split status=timeout reason=y\n",
       false, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    vc_expectations e;
    vc_error err = {0};
    assert_int_equal(vc_expectations_parse("flakes.txt", cases[i].text, &e, &err), 0);
    const vc_expectation *x =
        vc_expectations_cover_flake(&e, &pocl, 20261201, "shared_atomics", &r);
    if (cases[i].listed) {
      assert_non_null(x);
      assert_int_equal(x->line, cases[i].line);
    } else {
      assert_null(x);
    }
    vc_expectations_free(&e);
  }
  /* not a flake: nothing to list */
  vc_expectations e;
  vc_error err = {0};
  assert_int_equal(vc_expectations_parse("f.txt", "flake * * reason=x\n", &e, &err), 0);
  vc_result pass = {.mode = "host-split", .status = VC_ST_PASS};
  assert_null(vc_expectations_cover_flake(&e, &pocl, 20261201, "p", &pass));
  /* an attempt log that names no failure: an entry without scope only */
  vc_result bare = {.mode = "host-split", .status = VC_ST_FLAKE, .attempts = 2};
  assert_non_null(vc_expectations_cover_flake(&e, &pocl, 20261201, "p", &bare));
  vc_expectations_free(&e);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_parse_good),      cmocka_unit_test(test_parse_errors),
      cmocka_unit_test(test_load_from_file),  cmocka_unit_test(test_matching),
      cmocka_unit_test(test_names_match_whole),
      cmocka_unit_test(test_expiry_boundary), cmocka_unit_test(test_first_match_wins),
      cmocka_unit_test(test_parse_scope),     cmocka_unit_test(test_scope_covers),
      cmocka_unit_test(test_attempt_log),     cmocka_unit_test(test_cover_flake),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
