/* Checks that no program's bytes can make: the plan's segment and launch
 * counts against the source's grid barriers, and the comparison's
 * self-check. Each plants the fault it guards against. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness/exec/check.h"
#include "harness/exec/compare_selfcheck.h"
#include "harness/exec/conform.h"
#include "harness/exec/plan_check.h"
#include "harness/exec/reference.h"
#include "harness/lang/parse.h"
#include "harness/split/split.h"
#include "oracles/oracle_backend.h"

static vc_program *parse(const char *text) {
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = vc_parse("test.vyre", text, strlen(text), &d);
  if (!p) vc_diags_print(&d, stderr);
  vc_diags_free(&d);
  assert_non_null(p);
  return p;
}

static vc_split *split(const vc_program *p) {
  vc_split *s = NULL;
  vc_error e;
  vc_error_clear(&e);
  assert_int_equal(vc_split_program(p, &s, &e), 0);
  return s;
}

/* What a splitter that drops empty segments would hand over. */
static void drop_segment(vc_split *s, uint32_t k) {
  vc_program_free(s->segs[k].prog);
  memmove(&s->segs[k], &s->segs[k + 1], (s->nsegs - k - 1) * sizeof *s->segs);
  s->nsegs--;
  s->barriers--;
}

static const char leading[] = "(program lead (workgroup 4) (grid 2) (buffer o u32 8 write)"
                              " (entry (barrier grid) (store o (global_id x) 7u)))";

static void dropped_empty_segment_is_caught(void **state) {
  (void)state;
  vc_program *p = parse(leading);
  vc_split *s = split(p);
  assert_int_equal(s->nsegs, 2);
  char why[512];
  assert_true(vc_plan_segments_ok(p, s, why, sizeof why));
  drop_segment(s, 0);
  /* the bytes cannot show it: split-on-oracle alone would agree */
  assert_false(vc_plan_segments_ok(p, s, why, sizeof why));
  assert_non_null(strstr(why, "lead"));
  assert_non_null(strstr(why, "1 segment,"));
  assert_non_null(strstr(why, "1 grid barrier"));

  vc_check_result r;
  vc_oracle_opts o = {0};
  vc_check_program_plan(p, s, &o, &r);
  /* the plan validator refuses it first: a harness bug (exit 7) */
  assert_int_equal(r.verdict, VC_CHECK_INTERNAL);
  assert_non_null(strstr(r.why, "plan validator: segment-count"));
  assert_non_null(strstr(r.why, "split plan of lead has 1 segment"));

  /* In a run: the mode launched what the (short) plan says, and the
     result is an error even though every byte agreed. */
  vc_mode_out mo;
  memset(&mo, 0, sizeof mo);
  mo.passes = 1;
  mo.launches = 1;
  vc_result res;
  memset(&res, 0, sizeof res);
  res.status = VC_ST_PASS;
  vc_judge_segment_counts(p, s, VC_MODE_HOST_SPLIT, &mo, &res);
  assert_int_equal(res.status, VC_ST_ERROR);
  assert_non_null(strstr(res.reason, "segment count check"));
  assert_non_null(strstr(res.reason, "(bytes: pass)"));
  /* native's one kernel is built from the short plan too */
  res.status = VC_ST_DIVERGE;
  vc_judge_segment_counts(p, s, VC_MODE_NATIVE, &mo, &res);
  assert_int_equal(res.status, VC_ST_ERROR);
  assert_non_null(strstr(res.reason, "(bytes: diverge)"));
  vc_split_free(s);
  /* the plan as the splitter made it passes, native with one launch */
  s = split(p);
  res.status = VC_ST_PASS;
  vc_judge_segment_counts(p, s, VC_MODE_NATIVE, &mo, &res);
  assert_int_equal(res.status, VC_ST_PASS);
  mo.launches = 2;
  vc_judge_segment_counts(p, s, VC_MODE_HOST_SPLIT, &mo, &res);
  assert_int_equal(res.status, VC_ST_PASS);
  vc_split_free(s);
  vc_program_free(p);
}

static void launches_are_passes_times_segments(void **state) {
  (void)state;
  vc_program *p = parse("(program fx (workgroup 4) (grid 1) (buffer c u32 4 read_write)"
                        " (fixpoint (max 3))"
                        " (entry (let g (global_id x)) (let v (load c g)) (barrier grid)"
                        "  (barrier grid) (store c g (add v 1u))))");
  vc_split *s = split(p);
  char why[512];
  vc_mode_out mo;
  memset(&mo, 0, sizeof mo);
  mo.passes = 3;
  mo.launches = 9;
  assert_true(vc_plan_launches_ok(p, s, VC_MODE_RESIDENT_SPLIT, &mo, why, sizeof why));
  mo.launches = 6; /* one segment per pass never launched */
  assert_false(vc_plan_launches_ok(p, s, VC_MODE_RESIDENT_SPLIT, &mo, why, sizeof why));
  assert_non_null(strstr(why, "made 6 launches in 3 passes"));
  assert_non_null(strstr(why, "make 9"));
  vc_split_free(s);
  vc_program_free(p);
}

static void leading_trailing_adjacent_barriers_pass(void **state) {
  (void)state;
  static const char *const texts[] = {
      leading,
      "(program trail (workgroup 4) (grid 2) (buffer o u32 8 write)"
      " (entry (store o (global_id x) 7u) (barrier grid)))",
      "(program adj (workgroup 4) (grid 2) (buffer a u32 8 read_write (init iota))"
      " (entry (let g (global_id x)) (let v (load a g)) (barrier grid) (barrier grid)"
      "  (block (barrier grid)) (store a g (add v 1u))))",
      "(program only (workgroup 4) (grid 1) (buffer o u32 4 write) (entry (barrier grid)))"};
  static const uint32_t segs[] = {2, 2, 4, 2};
  for (int i = 0; i < 4; i++) {
    vc_program *p = parse(texts[i]);
    vc_check_result r;
    vc_oracle_opts o = {0};
    vc_check_program(p, &o, &r);
    if (r.verdict != VC_CHECK_OK) fprintf(stderr, "%s: %s\n", p->name, r.why);
    assert_int_equal(r.verdict, VC_CHECK_OK);
    assert_int_equal(r.segments, segs[i]);
    assert_int_equal(vc_program_grid_barriers(p), segs[i] - 1);
    vc_program_free(p);
  }
}

/* ---- the comparison's self-check ---- */

static void ignores_last_element(const vc_buffer *b, const uint32_t *e, const uint32_t *a,
                                 uint32_t ulp, vc_buffer_diff *out) {
  vc_buffer bb = *b;
  if (bb.count) bb.count--;
  vc_compare_buffer(&bb, e, a, ulp, out);
}

static void ignores_first_element(const vc_buffer *b, const uint32_t *e, const uint32_t *a,
                                  uint32_t ulp, vc_buffer_diff *out) {
  vc_buffer bb = *b;
  if (bb.count) bb.count--;
  vc_compare_buffer(&bb, e + 1, a + 1, ulp, out);
  if (out->mismatches) out->div.first_index++;
}

static const char *last_name;
static void ignores_last_buffer(const vc_buffer *b, const uint32_t *e, const uint32_t *a,
                                uint32_t ulp, vc_buffer_diff *out) {
  if (strcmp(b->name, last_name) == 0) {
    memset(out, 0, sizeof *out);
    return;
  }
  vc_compare_buffer(b, e, a, ulp, out);
}

static void broken_comparisons_fail_the_self_check(void **state) {
  (void)state;
  /* two outputs, the last one f32 with an ulp tolerance, NaN last element */
  vc_program *p = parse("(program two (workgroup 4) (grid 1)"
                        " (buffer in u32 4 read (init iota)) (buffer a u32 4 write)"
                        " (buffer f f32 4 read_write (init (values 1.0 2.0 0.0 0x7fc00000f)))"
                        " (expect (ulp f 4))"
                        " (entry (let g (global_id x)) (store a g (load in g))))");
  vc_reference ref;
  vc_error e;
  vc_error_clear(&e);
  vc_oracle_opts o = {0};
  assert_int_equal(vc_reference_run(p, &o, &ref, &e), 0);
  char why[512] = "";
  assert_true(vc_compare_selfcheck(p, ref.outputs, vc_compare_buffer, true, why, sizeof why));

  assert_false(vc_compare_selfcheck(p, ref.outputs, ignores_last_element, true, why, sizeof why));
  assert_non_null(strstr(why, "comparison self-check"));
  assert_non_null(strstr(why, "f[3]"));

  last_name = "f";
  assert_false(vc_compare_selfcheck(p, ref.outputs, ignores_last_buffer, true, why, sizeof why));
  assert_non_null(strstr(why, "f[3]"));

  assert_false(vc_compare_selfcheck(p, ref.outputs, ignores_first_element, true, why, sizeof why));
  assert_non_null(strstr(why, "a[0]"));
  vc_reference_free(&ref);
  vc_program_free(p);
}

/* ---- names in segment programs ---- */

static void renamed_symbols_do_not_collide(void **state) {
  (void)state;
  /* two sibling scopes reuse x (symbols 1 and 2); the user's own x_1 and
     x_2 are what a rename to NAME_INDEX would produce */
  vc_program *p = parse("(program t (workgroup 2) (buffer o u32 8 write)"
                        " (entry (let g (global_id x))"
                        "  (if (lt g 1u) (block (let x 1u) (store o g x)))"
                        "  (if (lt g 2u) (block (let x 2u) (store o g x)))"
                        "  (let x_1 3u) (let x_2 4u) (barrier grid) (store o g (add x_1 x_2))))");
  vc_split *s = split(p);
  for (uint32_t k = 0; k < s->nsegs; k++) {
    const vc_program *g = s->segs[k].prog;
    for (uint32_t i = 0; i < g->nsyms; i++) {
      for (uint32_t j = i + 1; j < g->nsyms; j++)
        assert_string_not_equal(g->syms[i].name, g->syms[j].name);
      for (uint32_t b = 0; b < g->nbuffers; b++)
        assert_string_not_equal(g->syms[i].name, g->buffers[b].name);
    }
    /* the user's names stay as they are */
    assert_string_equal(g->syms[3].name, "x_1");
    assert_string_equal(g->syms[4].name, "x_2");
  }
  vc_split_free(s);
  vc_program_free(p);
}

static void harness_limit_is_unsupported_not_invalid(void **state) {
  (void)state;
  vc_program *p = parse("(program big (workgroup 1024) (grid 65535 8) (buffer a u32 4 read_write)"
                        " (entry (let g (global_id x)) (let v (load a (and g 3u))) (barrier grid)"
                        "  (if (lt g 4u) (store a g (add v 1u)))))");
  vc_check_result r;
  vc_oracle_opts o = {0};
  vc_check_program(p, &o, &r);
  assert_int_equal(r.verdict, VC_CHECK_UNSUPPORTED);
  assert_non_null(strstr(r.why, "a limit of the harness"));
  assert_non_null(strstr(r.why, "268435456 (2^28)"));
  vc_program_free(p);
}

typedef struct statuses {
  vc_status st[8];
  char reason[8][512];
  uint32_t n;
} statuses;

static void on_program(void *ctx, const vc_program_info *info) {
  (void)ctx;
  (void)info;
}

static void on_result(void *ctx, const vc_result *r) {
  statuses *s = ctx;
  if (s->n == 8) return;
  s->st[s->n] = r->status;
  snprintf(s->reason[s->n++], sizeof s->reason[0], "%s", r->reason);
}

/* The conformance step records the harness's limit as unsupported in every
   mode, before anything runs. */
static void harness_limit_is_unsupported_in_a_run(void **state) {
  (void)state;
  char path[] = "/tmp/vc_gate_big_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  static const char text[] =
      "(program big (workgroup 1024) (grid 65535 8) (buffer a u32 4 read_write)"
      " (entry (let g (global_id x)) (let v (load a (and g 3u))) (barrier grid)"
      "  (if (lt g 4u) (store a g (add v 1u)))))";
  assert_int_equal(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
  close(fd);
  const vc_backend *be = vc_oracle_backend();
  vc_dev *dev = NULL;
  vc_error e;
  vc_error_clear(&e);
  assert_int_equal(be->open(0, NULL, &dev, &e), 0);
  vc_conform_opts o;
  memset(&o, 0, sizeof o);
  o.modes[0] = VC_MODE_HOST_SPLIT;
  o.modes[1] = VC_MODE_RESIDENT_SPLIT;
  o.nmodes = 2;
  o.repeat = 1;
  statuses got = {0};
  vc_conform_sink sink = {&got, on_program, NULL, on_result, NULL};
  assert_int_equal(vc_conform_program(path, be, dev, NULL, &o, &sink, &e), 0);
  be->close(dev);
  unlink(path);
  assert_int_equal(got.n, 2);
  for (uint32_t i = 0; i < 2; i++) {
    assert_int_equal(got.st[i], VC_ST_UNSUPPORTED);
    assert_non_null(strstr(got.reason[i], "268435456 (2^28)"));
  }
}

/* ---- fixpoints: converged, and what the program states about it ---- */

/* Each pass extends a prefix of ones by one element: 8 passes, the last
   changes nothing. With (max 5) it runs out of passes first. */
#define PREFIX(max, expects)                                                                \
  "(program prefix (workgroup 8) (grid 1)"                                                  \
  " (buffer x u32 8 read_write (init (values 1))) (buffer f u32 1 read_write)"              \
  " (fixpoint (max " max ") (flag f)) " expects                                             \
  " (entry (let g (global_id x)) (let v (load x g))"                                        \
  "  (let left (select (gt g 0u) (load x (sub (max g 1u) 1u)) 0u)) (barrier grid)"          \
  "  (if (land (ne left 0u) (eq v 0u)) (block (store x g 1u) (store f 0u 1u)))))"

static void check_verdict(const char *text, vc_check_verdict want, const char *fragment) {
  vc_program *p = parse(text);
  vc_check_result r;
  vc_oracle_opts o = {0};
  vc_check_program(p, &o, &r);
  if (r.verdict != want) fprintf(stderr, "%s\n", r.why);
  assert_int_equal(r.verdict, want);
  if (fragment) assert_non_null(strstr(r.why, fragment));
  vc_program_free(p);
}

static void check_verifies_passes_and_convergence(void **state) {
  (void)state;
  check_verdict(PREFIX("20", "(expect (passes 8)) (expect (converges))"), VC_CHECK_OK, NULL);
  check_verdict(PREFIX("20", "(expect (passes 7))"), VC_CHECK_FAILED,
                "(expect (passes 7)), but the oracle ran 8 passes");
  check_verdict(PREFIX("5", "(expect (converges))"), VC_CHECK_FAILED,
                "(expect (converges)), but the oracle's fixpoint did not converge in 5 passes");
  check_verdict(PREFIX("5", "(expect (passes 5))"), VC_CHECK_OK, NULL);
}

/* Both split modes on the oracle backend say whether the fixpoint converged. */
static void modes_record_convergence(void **state) {
  (void)state;
  static const char *const maxes[] = {"20", "5"};
  for (int k = 0; k < 2; k++) {
    char text[1024];
    snprintf(text, sizeof text, PREFIX("%s", ""), maxes[k]);
    vc_program *p = parse(text);
    vc_split *s = split(p);
    vc_reference ref;
    vc_error e;
    vc_error_clear(&e);
    vc_oracle_opts o = {0};
    assert_int_equal(vc_reference_run(p, &o, &ref, &e), 0);
    assert_int_equal(ref.report.converged, k == 0);
    const vc_backend *be = vc_oracle_backend();
    vc_dev *dev = NULL;
    assert_int_equal(be->open(0, NULL, &dev, &e), 0);
    vc_exec x;
    vc_exec_init(&x, be, dev, p, s);
    for (vc_mode m = VC_MODE_HOST_SPLIT; m <= VC_MODE_RESIDENT_SPLIT; m++) {
      vc_mode_out mo;
      assert_int_equal(vc_exec_run(&x, m, (const uint32_t *const *)ref.inputs, &mo, &e), 0);
      assert_int_equal(mo.passes, k == 0 ? 8 : 5);
      assert_int_equal(mo.converged, k == 0);
      vc_result r;
      memset(&r, 0, sizeof r);
      vc_mode_note_convergence(p, &mo, &r);
      assert_int_equal(r.converged, k == 0);
      if (k == 0)
        assert_string_equal(r.reason, "");
      else
        assert_string_equal(r.reason, "the fixpoint did not converge in 5 passes (its max)");
      vc_mode_out_free(&mo);
    }
    vc_exec_free(&x);
    be->close(dev);
    vc_reference_free(&ref);
    vc_split_free(s);
    vc_program_free(p);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(dropped_empty_segment_is_caught),
      cmocka_unit_test(launches_are_passes_times_segments),
      cmocka_unit_test(leading_trailing_adjacent_barriers_pass),
      cmocka_unit_test(broken_comparisons_fail_the_self_check),
      cmocka_unit_test(renamed_symbols_do_not_collide),
      cmocka_unit_test(harness_limit_is_unsupported_not_invalid),
      cmocka_unit_test(harness_limit_is_unsupported_in_a_run),
      cmocka_unit_test(check_verifies_passes_and_convergence),
      cmocka_unit_test(modes_record_convergence),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
