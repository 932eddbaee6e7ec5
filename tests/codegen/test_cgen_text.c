/* The shape of the generated code, without a device: what the generator
 * refuses, and the properties docs/codegen.md promises of the text
 * (pragma first, symbols zeroed at the top, three-address form, a guard per
 * access, helpers only when used). Behaviour is checked on PoCL in
 * test_cgen_pocl.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backends/common/cgen.h"
#include "harness/parse.h"

static vc_program *parse(const char *text) {
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = vc_parse("test.vyre", text, strlen(text), &d);
  if (!p) vc_diags_print(&d, stderr);
  vc_diags_free(&d);
  assert_non_null(p);
  return p;
}

/* Generates p as OpenCL C; returns the source (free it) or NULL with *rc set. */
static char *gen(const vc_program *p, vc_kernel_kind kind, int *rc, vc_error *err) {
  vc_strbuf sb;
  vc_sb_init(&sb);
  vc_kernel_desc k = {.kind = kind, .prog = p, .label = "segment 0"};
  *rc = vc_cgen_kernel(&k, VC_DIALECT_OPENCL_C, &sb, err);
  if (*rc) {
    vc_sb_free(&sb);
    return NULL;
  }
  return vc_sb_take(&sb);
}

static char *gen_ok(const vc_program *p) {
  int rc;
  vc_error err = {0};
  char *s = gen(p, VC_KERNEL_SEGMENT, &rc, &err);
  if (rc) fail_msg("generate: %s", err.msg);
  return s;
}

static unsigned count(const char *s, const char *what) {
  unsigned n = 0;
  for (const char *q = strstr(s, what); q; q = strstr(q + 1, what)) n++;
  return n;
}

static const char simple[] =
    "(program simple (workgroup 4)\n"
    "  (buffer a f32 2 read (init (values 1.5 2.5)))\n"
    "  (buffer c f32 1 read)\n"
    "  (buffer out f32 3 write)\n"
    "  (entry\n"
    "    (let gid (global_id x))\n"
    "    (store out gid (add (mul (load a 0) (load a 1)) (load c 0)))))\n";

static void native_is_unsupported(void **state) {
  (void)state;
  vc_program *p = parse(simple);
  vc_error err = {0};
  int rc;
  assert_null(gen(p, VC_KERNEL_NATIVE, &rc, &err));
  assert_int_equal(rc, VC_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.msg, "native mode is not implemented for OpenCL C yet"));
  vc_program_free(p);
}

static void grid_barrier_is_refused(void **state) {
  (void)state;
  vc_program *p = parse("(program g (buffer o u32 1 write)\n"
                        "  (entry (store o 0 1u)\n"
                        "    (barrier grid)\n"
                        "    (store o 0 2u)))\n");
  vc_error err = {0};
  int rc;
  assert_null(gen(p, VC_KERNEL_SEGMENT, &rc, &err));
  assert_int_equal(rc, VC_ERR_USAGE);
  assert_non_null(strstr(err.msg, "3:5: grid barrier"));
  assert_non_null(strstr(err.msg, "segment 0"));
  vc_program_free(p);
}

static void unknown_dialect_is_refused(void **state) {
  (void)state;
  vc_program *p = parse(simple);
  vc_strbuf sb;
  vc_sb_init(&sb);
  vc_error err = {0};
  vc_kernel_desc k = {.kind = VC_KERNEL_SEGMENT, .prog = p};
  assert_int_equal(vc_cgen_kernel(&k, (vc_dialect)42, &sb, &err), VC_ERR_USAGE);
  vc_sb_free(&sb);
  vc_program_free(p);
}

static void pragma_comes_first(void **state) {
  (void)state;
  vc_program *p = parse(simple);
  char *s = gen_ok(p);
  const char *pragma = strstr(s, "#pragma OPENCL FP_CONTRACT OFF");
  assert_non_null(pragma);
  assert_true(pragma < strstr(s, "void vc_seg0("));
  assert_non_null(strstr(s, "__kernel"));
  assert_non_null(strstr(s, "reqd_work_group_size(4, 1, 1)"));
  free(s);
  vc_program_free(p);
}

/* One operator per temporary: the product is rounded before the sum. */
static void three_address(void **state) {
  (void)state;
  vc_program *p = parse(simple);
  char *s = gen_ok(p);
  const char *mul = strstr(s, " * ");
  assert_non_null(mul);
  const char *eol = strchr(mul, '\n');
  const char *add = strstr(s, " + ");
  assert_non_null(add);
  assert_true(add > eol); /* not on the multiplication's line */
  free(s);
  vc_program_free(p);
}

static void symbols_start_at_zero(void **state) {
  (void)state;
  vc_program *p = parse(simple);
  char *s = gen_ok(p);
  const char *decl = strstr(s, "uint v0 = 0u; /* gid */");
  assert_non_null(decl);
  const char *use = strstr(s, "  v0 = global_id_x;");
  assert_non_null(use);
  assert_true(decl < use);
  free(s);
  vc_program_free(p);
}

static void every_access_is_guarded(void **state) {
  (void)state;
  vc_program *p = parse("(program guarded (workgroup 4)\n"
                        "  (buffer a f32 2 read) (buffer c f32 1 read) (buffer out f32 3 write)\n"
                        "  (entry (let gid (global_id x)) (let j (rem gid 3u))\n"
                        "    (store out gid (add (mul (load a j) (load a gid)) (load c j)))))\n");
  char *s = gen_ok(p);
  /* two loads of a[2], one of c[1], one store to out[3] */
  assert_int_equal(count(s, " < 2u) {"), 2);
  assert_int_equal(count(s, " < 1u) {"), 1);
  assert_int_equal(count(s, "if (v0 < 3u) {"), 1);
  assert_int_equal(count(s, "b0["), 2);
  assert_int_equal(count(s, "b1["), 1);
  assert_int_equal(count(s, "b2["), 1);
  free(s);
  vc_program_free(p);
}

/* A literal index is decided when generating: compilers check constant
   indices even under a false guard (glslang refuses b.d[4294967295u]). */
static void literal_indices_are_decided(void **state) {
  (void)state;
  vc_program *p = parse(simple);
  char *s = gen_ok(p);
  assert_int_equal(count(s, " < 2u) {"), 0); /* a[0], a[1]: in bounds, no guard */
  assert_int_equal(count(s, "b0[0u]"), 1);
  assert_int_equal(count(s, "b0[1u]"), 1);
  free(s);
  vc_program_free(p);
  p = parse("(program oob (workgroup 1) (buffer a u32 4 read) (buffer o u32 4 write)\n"
            "  (expect out-of-bounds)\n"
            "  (entry (store o 0u (load a 4294967295u)) (store o 4u 7u)\n"
            "    (atomic add o 9u 1u)))\n");
  s = gen_ok(p);
  assert_int_equal(count(s, "4294967295u]"), 0); /* out of bounds: no access at all */
  assert_int_equal(count(s, "b1[4u]"), 0);
  assert_int_equal(count(s, "b1[9u]"), 0);
  assert_int_equal(count(s, "b1[0u]"), 1);
  free(s);
  vc_program_free(p);
}

static void helpers_only_when_used(void **state) {
  (void)state;
  vc_program *p = parse(simple);
  char *s = gen_ok(p);
  assert_null(strstr(s, "vc_div_u32"));
  assert_null(strstr(s, "vc_isnan_f32"));
  free(s);
  vc_program_free(p);
  p = parse("(program h (buffer o i32 2 write) (buffer f f32 1 write)\n"
            "  (entry (store o 0 (div -7 2i)) (store f 0 (min 1.0 2.0))))\n");
  s = gen_ok(p);
  assert_int_equal(count(s, "int vc_div_i32("), 1);
  assert_int_equal(count(s, "float vc_min_f32("), 1);
  assert_int_equal(count(s, "uint vc_isnan_f32("), 1); /* needed by min */
  assert_null(strstr(s, "vc_rem_i32"));
  free(s);
  vc_program_free(p);
}

static void same_program_same_text(void **state) {
  (void)state;
  vc_program *p = parse(simple);
  char *a = gen_ok(p), *b = gen_ok(p);
  assert_string_equal(a, b);
  free(a);
  free(b);
  vc_program_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(native_is_unsupported),  cmocka_unit_test(grid_barrier_is_refused),
      cmocka_unit_test(unknown_dialect_is_refused), cmocka_unit_test(pragma_comes_first),
      cmocka_unit_test(three_address),          cmocka_unit_test(symbols_start_at_zero),
      cmocka_unit_test(every_access_is_guarded),
      cmocka_unit_test(literal_indices_are_decided), cmocka_unit_test(helpers_only_when_used),
      cmocka_unit_test(same_program_same_text),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
