/* The rules of docs/semantics.md that no CPU device can show, checked in
 * the generated source instead (docs/detection.md, "CPU-invisible"):
 * PoCL and lavapipe never fuse a multiply and an add across statements and
 * mask shift amounts themselves, so a generator that forgets the
 * FP_CONTRACT pragma, GLSL's `precise` or the shift mask still gives the
 * right bytes there, and only the text shows it. The native kernel's grid
 * barrier must wait for every participant and pass the participant count
 * unchanged, and a count fixpoint must run every pass: on a CPU device a
 * leak or a short count shows only sometimes, or only as an untrustworthy
 * run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backends/common/cgen/cgen.h"
#include "backends/common/native/cgen_native.h"
#include "harness/lang/parse.h"
#include "harness/split/split.h"

static vc_program *parse(const char *text) {
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = vc_parse("rules.vyre", text, strlen(text), &d);
  if (!p) vc_diags_print(&d, stderr);
  vc_diags_free(&d);
  assert_non_null(p);
  return p;
}

static char *gen(const vc_program *p, vc_dialect d) {
  vc_strbuf sb;
  vc_sb_init(&sb);
  vc_kernel_desc k = {.kind = VC_KERNEL_SEGMENT, .prog = p, .label = "segment 0"};
  vc_error err = {0};
  if (vc_cgen_kernel(&k, d, &sb, &err)) fail_msg("generate: %s", err.msg);
  return vc_sb_take(&sb);
}

static unsigned count(const char *s, const char *what) {
  unsigned n = 0;
  for (const char *q = strstr(s, what); q; q = strstr(q + 1, what)) n++;
  return n;
}

/* a*b + c and a*b - c in f32, through temporaries a contracting compiler
   may fuse */
static const char fma_prog[] =
    "(program fma (workgroup 4)\n"
    "  (buffer a f32 4 read (init (values 1.5f 2.5f 3.5f 4.5f)))\n"
    "  (buffer out f32 4 write)\n"
    "  (entry\n"
    "    (let i (global_id x))\n"
    "    (let x (load a i))\n"
    "    (store out i (sub (add (mul x x) x) (mul x 0.1f)))))\n";

static void opencl_forbids_contraction(void **state) {
  (void)state;
  vc_program *p = parse(fma_prog);
  char *s = gen(p, VC_DIALECT_OPENCL_C);
  /* the default is ON: the pragma must be there, before any function */
  const char *pragma = strstr(s, "#pragma OPENCL FP_CONTRACT OFF");
  assert_non_null(pragma);
  assert_true(pragma < strstr(s, "vc_seg0"));
  free(s);
  vc_program_free(p);
}

/* Every f32 declaration (symbols v<n>, temporaries t<n>) is `precise`:
   SPIR-V NoContraction on each operation. */
static void glsl_marks_every_float_precise(void **state) {
  (void)state;
  vc_program *p = parse(fma_prog);
  char *s = gen(p, VC_DIALECT_GLSL);
  unsigned decls = 0, precise = 0;
  for (const char *q = strstr(s, "float "); q; q = strstr(q + 1, "float ")) {
    if (q[6] != 't' && q[6] != 'v') continue; /* a declaration of a value, not a cast */
    decls++;
    precise += q - s >= 8 && strncmp(q - 8, "precise ", 8) == 0;
  }
  assert_true(decls >= 4);
  assert_int_equal(precise, decls);
  free(s);
  vc_program_free(p);
}

static const char shift_prog[] =
    "(program shifts (workgroup 4)\n"
    "  (buffer n u32 4 read (init (values 1 33 31 64)))\n"
    "  (buffer su i32 4 read (init (values -8i -8i -1i 5i)))\n"
    "  (buffer outu u32 4 write)\n"
    "  (buffer outi i32 4 write)\n"
    "  (entry\n"
    "    (let i (global_id x))\n"
    "    (let k (load n i))\n"
    "    (let v (load su i))\n"
    "    (store outu i (xor (shl k k) (shr k k)))\n"
    "    (store outi i (xor (shl v (cast i32 k)) (shr v (cast i32 k))))))\n";

/* Four shifts, four masks, in every language (OpenCL masks by itself,
   GLSL and CUDA leave amounts >= 32 undefined). */
static void every_shift_masked(void **state) {
  (void)state;
  vc_program *p = parse(shift_prog);
  for (vc_dialect d = VC_DIALECT_OPENCL_C; d <= VC_DIALECT_CUDA; d++) {
    char *s = gen(p, d);
    unsigned shifts = count(s, "<<") + count(s, ">>");
    unsigned masks = count(s, " & 31u)") + count(s, " & 31)");
    assert_int_equal(shifts, 4);
    assert_int_equal(masks, 4);
    free(s);
  }
  vc_program_free(p);
}

/* i32 shr is the language's >> on the signed value, never on its bits as
   u32 (which would be logical). */
static void i32_shr_is_arithmetic(void **state) {
  (void)state;
  vc_program *p = parse(shift_prog);
  char *s = gen(p, VC_DIALECT_OPENCL_C);
  const char *q = strstr(s, ">>");
  const char *last = NULL;
  for (; q; q = strstr(q + 1, ">>")) last = q;
  assert_non_null(last); /* the i32 one comes second */
  const char *line = last;
  while (line > s && line[-1] != '\n') line--;
  const char *cast = strstr(line, "as_uint");
  assert_true(cast == NULL || cast > last); /* the shifted operand is not a cast to uint */
  free(s);
  vc_program_free(p);
}

static const char barrier_prog[] =
    "(program two_barriers (workgroup 4) (grid 8)\n"
    "  (buffer a u32 32 read_write)\n"
    "  (entry\n"
    "    (let i (global_id x))\n"
    "    (store a i i)\n"
    "    (barrier grid)\n"
    "    (store a i (load a (xor i 5u)))\n"
    "    (barrier grid)\n"
    "    (store a i (add (load a (xor i 9u)) 1u))))\n";

/* The counter barrier waits for all np participants in OpenCL C and GLSL. */
static void native_barrier_waits_for_all(void **state) {
  (void)state;
  vc_program *p = parse(barrier_prog);
  vc_split *sp = NULL;
  vc_error err = {0};
  if (vc_split_program(p, &sp, &err)) fail_msg("split: %s", err.msg);
  vc_native_desc nd;
  vc_split_native_desc(sp, &nd);
  vc_kernel_desc k = {.kind = VC_KERNEL_NATIVE, .prog = p, .native = &nd, .label = "native"};
  for (vc_dialect d = VC_DIALECT_OPENCL_C; d <= VC_DIALECT_GLSL; d++) {
    vc_native_opts o;
    vc_native_opts_default(d, &o);
    vc_strbuf sb;
    vc_sb_init(&sb);
    if (vc_cgen_native(&k, &o, &sb, &err)) fail_msg("native: %s", err.msg);
    const char *s = vc_sb_str(&sb);
    unsigned calls = count(s, "vc_nat_grid_barrier(");
    assert_true(calls >= 3); /* the definition and two barriers */
    assert_int_equal(count(s, "lead, np);"), calls - 1);
    assert_non_null(strstr(s, "target = np + "));
    vc_sb_free(&sb);
  }
  vc_split_free(sp);
  vc_program_free(p);
}

static const char count_fixpoint[] =
    "(program five_passes (workgroup 4) (grid 2)\n"
    "  (buffer a u32 8 read_write)\n"
    "  (fixpoint (max 5))\n"
    "  (entry\n"
    "    (let i (global_id x))\n"
    "    (store a i (add (load a i) 1u))\n"
    "    (barrier grid)\n"
    "    (store a i (add (load a (xor i 1u)) 0u))))\n";

/* (fixpoint (max 5)) without a flag: the pass loop ends at exactly 5, in
   every language (a short count shows on a CPU device only as an
   untrustworthy native run, issue 13). */
static void native_runs_every_pass(void **state) {
  (void)state;
  vc_program *p = parse(count_fixpoint);
  vc_split *sp = NULL;
  vc_error err = {0};
  if (vc_split_program(p, &sp, &err)) fail_msg("split: %s", err.msg);
  vc_native_desc nd;
  vc_split_native_desc(sp, &nd);
  vc_kernel_desc k = {.kind = VC_KERNEL_NATIVE, .prog = p, .native = &nd, .label = "native"};
  for (vc_dialect d = VC_DIALECT_OPENCL_C; d <= VC_DIALECT_CUDA; d++) {
    vc_native_opts o;
    vc_native_opts_default(d, &o);
    vc_strbuf sb;
    vc_sb_init(&sb);
    if (vc_cgen_native(&k, &o, &sb, &err)) fail_msg("native: %s", err.msg);
    assert_int_equal(count(vc_sb_str(&sb), "pass == 5u)"), 1);
    vc_sb_free(&sb);
  }
  vc_split_free(sp);
  vc_program_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(opencl_forbids_contraction),
      cmocka_unit_test(glsl_marks_every_float_precise),
      cmocka_unit_test(every_shift_masked),
      cmocka_unit_test(i32_shr_is_arithmetic),
      cmocka_unit_test(native_barrier_waits_for_all),
      cmocka_unit_test(native_runs_every_pass),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
