/* The interpreter's fast paths give what the plain ones give: constants
 * fused with their use, registers numbered per segment, shadow pages
 * recycled at segment starts and kept across runs in a scratch. Some tests
 * look at the oracle's internals (oracles/machine.h) to make sure the fast
 * path they test is taken. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness/model/inputs.h"
#include "oracle_util.h"
#include "oracles/machine.h"

typedef struct binop {
  const char *type, *op;
  bool to_u32; /* a comparison: the result is u32 */
} binop;

/* Every 32-bit binary operation with a constant right operand. */
static const binop binops[] = {
    {"u32", "add", false}, {"u32", "sub", false}, {"u32", "mul", false}, {"u32", "div", false},
    {"u32", "rem", false}, {"u32", "min", false}, {"u32", "max", false}, {"u32", "and", false},
    {"u32", "or", false},  {"u32", "xor", false}, {"u32", "shl", false}, {"u32", "shr", false},
    {"u32", "eq", true},   {"u32", "ne", true},   {"u32", "lt", true},   {"u32", "le", true},
    {"u32", "gt", true},   {"u32", "ge", true},   {"u32", "land", true}, {"u32", "lor", true},
    {"i32", "div", false}, {"i32", "rem", false}, {"i32", "min", false}, {"i32", "max", false},
    {"i32", "shr", false}, {"i32", "lt", true},   {"i32", "le", true},   {"i32", "gt", true},
    {"i32", "ge", true},   {"f32", "add", false}, {"f32", "sub", false}, {"f32", "mul", false},
    {"f32", "div", false}, {"f32", "min", false}, {"f32", "max", false}, {"f32", "eq", true},
    {"f32", "ne", true},   {"f32", "lt", true},   {"f32", "le", true},
};

static const char *const values[] = {
    /* u32 */ "0u 1u 2u 3u 5u 7u 16u 31u 32u 33u 255u 12345u 0x7fffffffu 0x80000000u "
              "0xdeadbeefu 0xffffffffu",
    /* i32 */ "0i 1i -1i 2i -2i 7i -7i 31i 32i 33i 12345i -12345i 2147483647i -2147483648i "
              "-2147483647i 100i",
    /* f32 */ "0.0f 1.0f -1.0f 1.5f -2.5f 0x7f800000f 0xff800000f 0x7fc12345f 0x80000000f "
              "3.0e38f -3.0e38f 1.0e-45f 0.1f 100.0f 0x3f800001f 7.0f"};

static const char *const constants[][6] = {
    {"0u", "1u", "3u", "31u", "0x80000000u", "0xffffffffu"},
    {"0i", "1i", "-1i", "5i", "-2147483648i", "2147483647i"},
    {"0.0f", "1.0f", "-2.0f", "0x7f800000f", "0x7fc00000f", "0x80000000f"}};

static int type_index(const char *t) { return t[0] == 'u' ? 0 : t[0] == 'i' ? 1 : 2; }

/* A program storing (op x C) for 16 values x and 6 constants C. */
static char *binop_program(const binop *b) {
  int t = type_index(b->type);
  size_t cap = 8192;
  char *text = malloc(cap);
  assert_non_null(text);
  int n = snprintf(text, cap,
                   "(program fused (workgroup 16)"
                   " (buffer xs %s 16 read (init (values %s)))"
                   " (buffer out %s 96 write)%s"
                   " (entry (let x (load xs (global_id x)))",
                   b->type, values[t], b->to_u32 ? "u32" : b->type,
                   t == 2 && !b->to_u32 ? " (expect (ulp out 1))" : "");
  for (int k = 0; k < 6; k++)
    n += snprintf(text + n, cap - (size_t)n, " (store out (add (mul %du 16u) (global_id x)) (%s x %s))",
                  k, b->op, constants[t][k]);
  snprintf(text + n, cap - (size_t)n, "))");
  return text;
}

static uint32_t count_fused(const vc_oracle *o) {
  uint32_t n = 0;
  for (uint32_t pc = 0; pc < o->ncode; pc++) n += o->xcode[pc].op >= VC_OP_COUNT;
  return n;
}

/* Each fused instruction back to the plain constant it begins with. */
static void unfuse(vc_oracle *o) {
  for (uint32_t pc = 0; pc < o->ncode; pc++)
    if (o->xcode[pc].op >= VC_OP_COUNT) o->xcode[pc].op = VC_OP_K;
}

static void constant_operands_fused_as_unfused(void **state) {
  (void)state;
  for (size_t k = 0; k < sizeof binops / sizeof binops[0]; k++) {
    const binop *b = &binops[k];
    char *text = binop_program(b);
    vt_run fused, plain;
    vt_exec(&fused, text, NULL);
    vt_exec(&plain, text, NULL);
    free(text);
    if (count_fused(fused.o) == 0) fail_msg("%s %s: no constant was fused", b->type, b->op);
    unfuse(plain.o);
    vt_rerun(&plain, NULL);
    assert_int_equal(count_fused(plain.o), 0);
    const uint32_t *f = vt_buf(&fused, "out"), *p = vt_buf(&plain, "out");
    for (uint32_t i = 0; i < 96; i++)
      if (f[i] != p[i])
        fail_msg("%s %s: out[%u] fused 0x%08x, plain 0x%08x", b->type, b->op, i, f[i], p[i]);
    assert_int_equal(fused.rep.ops, plain.rep.ops); /* two instructions, counted as two */
    assert_string_equal(vt_invalid(&fused), "");
    vt_done(&fused);
    vt_done(&plain);
  }
}

/* Both operands constants: the first constant stays a plain instruction,
   the second is fused with the operation that follows it. */
static void both_operands_constants(void **state) {
  (void)state;
  static const uint32_t want[] = {0u, 10u, 25u, 1u};
  vt_check("", "(store out 0u (sub 5u 5u)) (store out 1u (add 5u 5u)) (store out 2u (mul 5u 5u))"
               " (store out 3u (eq 5u 5u))",
           want, 4);
}

/* Six segments, each with lets of its own and a var carried through all:
   the segments name few of the program's registers, numbered from 0. */
static void registers_numbered_per_segment(void **state) {
  (void)state;
  char text[4096];
  int n = snprintf(text, sizeof text,
                   "(program regs (workgroup 64) (grid 4) (buffer out u32 256 write)"
                   " (buffer mid u32 256 write)"
                   " (entry (let g (global_id x)) (var v (mul g 2654435761u))");
  for (int s = 1; s <= 5; s++)
    n += snprintf(text + n, sizeof text - (size_t)n,
                  " (barrier grid) (block (let a%d (add g %du)) (let b%d (mul a%d 3u))"
                  " (var w%d (xor b%d v)) (set w%d (add w%d %du)) (set v (xor (shl v 1u) w%d))"
                  " (store mid g w%d))",
                  s, s, s, s, s, s, s, s, s, s, s);
  snprintf(text + n, sizeof text - (size_t)n, " (store out g v)))");
  vt_run r;
  vt_exec(&r, text, NULL);
  assert_int_equal(r.o->nsegs, 6);
  assert_true(r.o->xnregs < r.o->nregs);
  for (uint32_t s = 0; s < r.o->nsegs; s++) assert_true(r.o->seg_nregs[s] >= r.o->npersist);
  const uint32_t *out = vt_buf(&r, "out"), *mid = vt_buf(&r, "mid");
  for (uint32_t g = 0; g < 256; g++) {
    uint32_t v = g * 2654435761u, w = 0;
    for (uint32_t s = 1; s <= 5; s++) {
      w = ((g + s) * 3u ^ v) + s;
      v = (v << 1) ^ w;
    }
    assert_int_equal(out[g], v);
    assert_int_equal(mid[g], w);
  }
  assert_string_equal(vt_invalid(&r), "");
  vt_done(&r);
}

/* Runs text with the given scratch; returns its report. */
static vc_oracle_report run_with(const char *text, vc_oracle_scratch *s, uint32_t **out) {
  vc_program *p = vt_parse(text);
  vc_oracle *o = NULL;
  vc_error err = {0};
  if (vc_oracle_compile(p, &o, &err)) fail_msg("vc_oracle_compile: %s", err.msg);
  uint32_t **bufs = calloc(p->nbuffers + 1u, sizeof *bufs);
  assert_non_null(bufs);
  for (uint32_t i = 0; i < p->nbuffers; i++) {
    bufs[i] = calloc(1, vc_buffer_bytes(&p->buffers[i]) + 4u);
    assert_non_null(bufs[i]);
    vc_inputs_fill(&p->buffers[i], bufs[i]);
  }
  vc_oracle_report rep;
  if (vc_oracle_run_with(o, bufs, NULL, s, &rep, &err)) fail_msg("vc_oracle_run_with: %s", err.msg);
  if (out) {
    *out = bufs[0];
    bufs[0] = NULL;
  }
  for (uint32_t i = 0; i < p->nbuffers; i++) free(bufs[i]);
  free(bufs);
  vc_oracle_free(o);
  vc_program_free(p);
  return rep;
}

/* Twenty segments, each writing a fresh slice of 4096 words (4 shadow
   pages) from the slice before: the pages go back to the pool at each
   segment start, so the run holds those of two slices, not of twenty. */
static void shadow_pages_recycled_per_segment(void **state) {
  (void)state;
  char text[8192];
  int n = snprintf(text, sizeof text,
                   "(program slices (workgroup 256) (grid 16) (buffer acc u32 81920 read_write)"
                   " (entry (let g (global_id x)) (store acc g g)");
  for (int s = 1; s < 20; s++)
    n += snprintf(text + n, sizeof text - (size_t)n,
                  " (barrier grid) (store acc (add g %du) (add (load acc (add (rem (add g 1u) "
                  "4096u) %du)) 1u))",
                  s * 4096, (s - 1) * 4096);
  snprintf(text + n, sizeof text - (size_t)n, "))");
  vc_oracle_scratch *s = vc_oracle_scratch_new();
  assert_non_null(s);
  uint32_t *acc = NULL;
  vc_oracle_report rep = run_with(text, s, &acc);
  for (int k = 0; k < VC_ISSUE_COUNT; k++) assert_int_equal(rep.issues[k].count, 0);
  for (uint32_t k = 1; k < 20; k++)
    for (uint32_t g = 0; g < 4096; g += 511)
      assert_int_equal(acc[k * 4096 + g], (g + k) % 4096 + k); /* read g+1 of the slice before */
  assert_true(s->pool.owned <= 2 * 4 + 2);
  assert_int_equal(s->pool.nfree, s->pool.owned); /* all back in the pool after the run */
  free(acc);
  vc_oracle_scratch_free(s);
}

static const char writes_by_1[] =
    "(program a (workgroup 2) (buffer buf u32 4 read_write)"
    " (entry (if (eq (local_id x) 1u) (store buf 0u 7u))))";
static const char writes_by_0[] =
    "(program b (workgroup 2) (buffer buf u32 4 read_write)"
    " (entry (if (eq (local_id x) 0u) (store buf 0u 9u))))";
static const char racy[] =
    "(program c (workgroup 2) (buffer buf u32 4 read_write)"
    " (entry (store buf 0u (local_id x))))";

/* A scratch carries the phase counter on: the pages of one run, given to
   the next, hold records older than all of its phases. Without that, b's
   store would meet a's record of the same phase by another invocation. */
static void scratch_records_never_seen_by_the_next_run(void **state) {
  (void)state;
  vc_oracle_scratch *s = vc_oracle_scratch_new();
  assert_non_null(s);
  for (int round = 0; round < 3; round++) {
    vc_oracle_report a = run_with(writes_by_1, s, NULL);
    vc_oracle_report b = run_with(writes_by_0, s, NULL);
    for (int k = 0; k < VC_ISSUE_COUNT; k++) {
      assert_int_equal(a.issues[k].count, 0);
      assert_int_equal(b.issues[k].count, 0);
    }
    /* and a race after them is found as on a fresh scratch */
    vc_oracle_report c = run_with(racy, s, NULL), fresh = run_with(racy, NULL, NULL);
    assert_int_equal(c.issues[VC_ISSUE_RACE].count, 1);
    assert_int_equal(c.issues[VC_ISSUE_RACE].count, fresh.issues[VC_ISSUE_RACE].count);
    assert_string_equal(c.issues[VC_ISSUE_RACE].msg, fresh.issues[VC_ISSUE_RACE].msg);
  }
  assert_true(s->pool.owned >= 1);
  vc_oracle_scratch_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(constant_operands_fused_as_unfused),
      cmocka_unit_test(both_operands_constants),
      cmocka_unit_test(registers_numbered_per_segment),
      cmocka_unit_test(shadow_pages_recycled_per_segment),
      cmocka_unit_test(scratch_records_never_seen_by_the_next_run),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
