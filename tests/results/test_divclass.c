/* Divergence classes by cause on a device that flushes f32 denormals: the
 * NVIDIA Vulkan 580 cases of the H200 qualification (docs/device-facts.md),
 * where a min of a denormal was classed f32-ulp, its bitcast twin integer,
 * and a comparison of a denormal integer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness/exec/diverge.h"
#include "harness/exec/fingerprint.h"
#include "harness/exec/judge.h"
#include "harness/lang/parse.h"
#include "harness/model/inputs.h"

/* Element 1 of a and b: -2^-149 and +2^-149 (f32_minmax_ties' pair 10);
   min_ab is min(a, b), min_bits its bitcast to u32, eq_ab the comparison,
   count an integer result unrelated to any float. */
static const char text[] =
    "(program flushed (workgroup 2) (grid 1)\n"
    "  (buffer a f32 2 read (init (values 1.0f 0x80000001f)))\n"
    "  (buffer b f32 2 read (init (values 2.0f 0x00000001f)))\n"
    "  (buffer min_ab f32 2 write)\n"
    "  (buffer min_bits u32 2 write)\n"
    "  (buffer eq_ab u32 2 write)\n"
    "  (entry\n"
    "    (let i (global_id x))\n"
    "    (store min_ab i (min (load a i) (load b i)))\n"
    "    (store min_bits i (bitcast u32 (min (load a i) (load b i))))\n"
    "    (store eq_ab i (eq (load a i) (load b i)))))\n";

enum { A, B, MIN, BITS, EQ, NBUF };

typedef struct fixture {
  vc_program *p;
  uint32_t in[NBUF][2];
  uint32_t want[NBUF][2], got[NBUF][2];
  uint32_t *inputs[NBUF], *expected[NBUF], *outputs[NBUF];
} fixture;

static fixture *make(void) {
  fixture *f = calloc(1, sizeof *f);
  assert_non_null(f);
  vc_diags d;
  vc_diags_init(&d);
  f->p = vc_parse("flushed.vyre", text, sizeof text - 1, &d);
  vc_diags_free(&d);
  assert_non_null(f->p);
  assert_int_equal(f->p->nbuffers, NBUF);
  for (int i = 0; i < NBUF; i++) {
    vc_inputs_fill(&f->p->buffers[i], f->in[i]);
    f->inputs[i] = f->in[i];
    f->expected[i] = f->want[i];
    f->outputs[i] = i == A || i == B ? NULL : f->got[i];
  }
  /* The oracle: min(-2^-149, 2^-149) = -2^-149; -2^-149 == 2^-149 is false. */
  uint32_t want_min[2] = {0x3f800000u, 0x80000001u};
  memcpy(f->want[MIN], want_min, sizeof want_min);
  memcpy(f->want[BITS], want_min, sizeof want_min);
  f->want[EQ][0] = 0, f->want[EQ][1] = 0;
  memcpy(f->got, f->want, sizeof f->got);
  return f;
}

static void done(fixture *f) {
  vc_program_free(f->p);
  free(f);
}

/* What the flushing device gives: both operands read as zero, so min keeps
   the first's bits, its twin too, and eq says true. */
static void device_flushes(fixture *f) {
  f->got[MIN][1] = 0x00000001u;
  f->got[BITS][1] = 0x00000001u;
  f->got[EQ][1] = 1;
}

static vc_result judge(fixture *f, bool flushing) {
  vc_mode_out mo;
  memset(&mo, 0, sizeof mo);
  mo.outputs = f->outputs;
  mo.noutputs = NBUF;
  vc_result r;
  memset(&r, 0, sizeof r);
  vc_verdict_judge(f->p, f->expected, &mo, 0, flushing ? f->inputs : NULL, &r);
  return r;
}

static vc_divclass class_of(const vc_result *r, const char *buffer) {
  for (uint32_t i = 0; i < r->ndivs; i++)
    if (!strcmp(r->divs[i].buffer, buffer)) return r->divs[i].cls;
  fail_msg("no divergence in %s", buffer);
  return VC_DIVCLASS_COUNT;
}

/* Without the fingerprint's word the classes stay the value classes. */
static void test_keeping_device_classes_by_value(void **state) {
  (void)state;
  fixture *f = make();
  device_flushes(f);
  vc_result r = judge(f, false);
  assert_int_equal(r.status, VC_ST_DIVERGE);
  assert_int_equal(class_of(&r, "min_ab"), VC_DIV_F32_ULP);
  assert_int_equal(class_of(&r, "min_bits"), VC_DIV_INTEGER);
  assert_int_equal(class_of(&r, "eq_ab"), VC_DIV_INTEGER);
  free(r.divs);
  done(f);
}

static void test_flushing_device_classes_by_cause(void **state) {
  (void)state;
  fixture *f = make();
  device_flushes(f);
  vc_result r = judge(f, true);
  assert_int_equal(r.status, VC_ST_DIVERGE);
  assert_int_equal(r.ndivs, 3);
  assert_int_equal(class_of(&r, "min_ab"), VC_DIV_DENORMAL_FLUSH);
  assert_int_equal(class_of(&r, "min_bits"), VC_DIV_DENORMAL_FLUSH);
  assert_int_equal(class_of(&r, "eq_ab"), VC_DIV_DENORMAL_FLUSH);
  assert_non_null(strstr(r.reason, "first: min_ab[1] (denormal-flush)"));
  free(r.divs);
  done(f);
}

/* A difference no denormal explains keeps its class on a flushing device:
   a normal f32 (element 0), an integer far from any denormal operand. */
static void test_flushing_device_other_faults_keep_their_class(void **state) {
  (void)state;
  fixture *f = make();
  f->got[MIN][0] = 0x3f800001u;      /* 1.0 + 1 ulp, operands 1.0 and 2.0 */
  f->got[BITS][0] = 0x3f800001u;     /* the same through the bitcast */
  f->got[EQ][0] = 7;                 /* not even a boolean */
  vc_result r = judge(f, true);
  assert_int_equal(class_of(&r, "min_ab"), VC_DIV_F32_ULP);
  assert_int_equal(class_of(&r, "min_bits"), VC_DIV_INTEGER);
  assert_int_equal(class_of(&r, "eq_ab"), VC_DIV_INTEGER);
  free(r.divs);
  done(f);
}

static void test_fingerprint_words(void **state) {
  (void)state;
  /* the H200's Vulkan fingerprint, and lavapipe's */
  assert_true(vc_fingerprint_flushes(
      "nan=0x7fffffff denorm-in=preserve denorm-out=flush denorm-add=flush sha256=0eb73c29358afe04"));
  assert_false(vc_fingerprint_flushes(
      "nan=0xffc00000 denorm-in=preserve denorm-out=preserve denorm-add=preserve sha256=1"));
  assert_false(vc_fingerprint_flushes("unavailable: the probe does not build"));
  assert_false(vc_fingerprint_flushes(NULL));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_keeping_device_classes_by_value),
      cmocka_unit_test(test_flushing_device_classes_by_cause),
      cmocka_unit_test(test_flushing_device_other_faults_keep_their_class),
      cmocka_unit_test(test_fingerprint_words),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
