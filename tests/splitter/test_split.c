/* Splitter scenarios: segment structure, what is recomputed and what is
 * spilled, buffer binding, and split-on-oracle equality for each. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness/exec/check.h"
#include "harness/model/inputs.h"
#include "harness/lang/parse.h"
#include "harness/split/split.h"
#include "oracles/oracle.h"

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
  int rc = vc_split_program(p, &s, &e);
  if (rc) fprintf(stderr, "%s\n", e.msg);
  assert_int_equal(rc, 0);
  return s;
}

/* The split plan run on the oracle gives the unsplit oracle's bytes. */
static void assert_split_exact(const vc_program *p) {
  vc_check_result r;
  vc_oracle_opts o = {0};
  vc_check_program(p, &o, &r);
  if (r.verdict != VC_CHECK_OK) fprintf(stderr, "check: %s\n", r.why);
  assert_int_equal(r.verdict, VC_CHECK_OK);
}

/* Oracle output of buffer `name` of a whole program (freed by the caller). */
static uint32_t *oracle_output(const vc_program *p, const char *name) {
  uint32_t **bufs = calloc(p->nbuffers, sizeof *bufs);
  for (uint32_t i = 0; i < p->nbuffers; i++) {
    bufs[i] = malloc(vc_buffer_bytes(&p->buffers[i]));
    vc_inputs_fill(&p->buffers[i], bufs[i]);
  }
  vc_oracle *o = NULL;
  vc_error e;
  vc_oracle_report rep;
  vc_oracle_opts opts = {0};
  assert_int_equal(vc_oracle_compile(p, &o, &e), 0);
  assert_int_equal(vc_oracle_run(o, bufs, &opts, &rep, &e), 0);
  vc_oracle_free(o);
  int want = vc_program_find_buffer(p, name);
  assert_true(want >= 0);
  uint32_t *out = bufs[want];
  for (uint32_t i = 0; i < p->nbuffers; i++)
    if ((int)i != want) free(bufs[i]);
  free(bufs);
  return out;
}

static bool remat_has(const vc_split_segment *g, const vc_program *p, const char *name) {
  for (uint32_t i = 0; i < g->nremat; i++)
    if (strcmp(p->syms[g->remat[i]].name, name) == 0) return true;
  return false;
}

static bool list_has(const uint32_t *l, uint32_t n, const vc_program *p, const char *name) {
  for (uint32_t i = 0; i < n; i++)
    if (strcmp(p->syms[l[i]].name, name) == 0) return true;
  return false;
}

static const vc_buffer *bound(const vc_split_segment *g, const char *name) {
  for (uint32_t i = 0; i < g->nbind; i++)
    if (strcmp(g->prog->buffers[i].name, name) == 0) return &g->prog->buffers[i];
  return NULL;
}

static void no_barrier_one_segment_untouched(void **state) {
  (void)state;
  vc_program *p = parse("(program t (workgroup 4) (grid 2)"
                        " (buffer a u32 8 read (init iota)) (buffer o u32 8 write)"
                        " (entry (let g (global_id x)) (store o g (mul (load a g) 3u))))");
  vc_split *s = split(p);
  assert_int_equal(s->nsegs, 1);
  assert_int_equal(s->barriers, 0);
  assert_int_equal(s->nbuffers, s->nuser);
  assert_true(vc_node_equal(s->segs[0].prog->entry, p->entry));
  assert_split_exact(p);
  vc_split_free(s);
  vc_program_free(p);
}

static void workgroup_barrier_does_not_split(void **state) {
  (void)state;
  vc_program *p = parse("(program t (workgroup 4) (grid 2)"
                        " (buffer o u32 8 write) (shared t u32 4)"
                        " (entry (let l (local_id x)) (store t l l) (barrier workgroup)"
                        "  (store o (global_id x) (load t (sub 3u l)))))");
  vc_split *s = split(p);
  assert_int_equal(s->nsegs, 1);
  assert_split_exact(p);
  vc_split_free(s);
  vc_program_free(p);
}

static void barriers_in_nested_blocks_are_flattened(void **state) {
  (void)state;
  vc_program *p = parse("(program t (workgroup 2) (grid 2)"
                        " (buffer a u32 4 read_write (init iota)) (buffer o u32 4 write)"
                        " (entry (let g (global_id x))"
                        "  (block (store a g (add (load a g) 1u))"
                        "   (block (barrier grid) (let v (load a (sub 3u g)))"
                        "    (barrier grid) (store o g v)))))");
  vc_split *s = split(p);
  assert_int_equal(s->nsegs, 3);
  assert_int_equal(s->barriers, 2);
  assert_split_exact(p);
  vc_split_free(s);
  vc_program_free(p);
}

static void n_barriers_give_n_plus_one_segments(void **state) {
  (void)state;
  static const struct {
    const char *body;
    uint32_t segs, empty;
  } cases[] = {
      {"(store o (global_id x) 1u)", 1, 0},
      {"(barrier grid) (store o (global_id x) 1u)", 2, 1}, /* leading */
      {"(store o (global_id x) 1u) (barrier grid)", 2, 1}, /* trailing */
      {"(store o (global_id x) 1u) (barrier grid) (barrier grid)"
       " (store o (global_id x) (add (load o (global_id x)) 1u))", 3, 1}, /* adjacent */
      {"(barrier grid) (barrier grid) (store o (global_id x) 1u) (barrier grid)", 4, 3},
      {"(barrier grid) (store o (global_id x) 1u) (barrier grid) (barrier grid) (barrier grid)", 5,
       4},
  };
  for (uint32_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    char text[1024];
    snprintf(text, sizeof text,
             "(program t (workgroup 2) (grid 2) (buffer o u32 4 read_write) (entry %s))",
             cases[c].body);
    vc_program *p = parse(text);
    vc_split *s = split(p);
    assert_int_equal(s->nsegs, cases[c].segs);
    assert_int_equal(s->barriers, cases[c].segs - 1);
    uint32_t empty = 0; /* kept as launches, so launch counts are predictable */
    for (uint32_t k = 0; k < s->nsegs; k++) empty += s->segs[k].prog->entry->nkids == 0;
    assert_int_equal(empty, cases[c].empty);
    assert_split_exact(p);
    vc_split_free(s);
    vc_program_free(p);
  }
}

static void literal_and_builtin_lets_are_recomputed(void **state) {
  (void)state;
  vc_program *p = parse("(program t (workgroup 4) (grid 2) (buffer o u32 8 read_write)"
                        " (entry (let g (global_id x)) (let k 7u) (let h (add (mul g k) 1u))"
                        "  (store o g 5u) (barrier grid) (store o g (add (load o g) h))))");
  vc_split *s = split(p);
  assert_int_equal(s->nsegs, 2);
  assert_int_equal(s->nbuffers, s->nuser); /* nothing spilled */
  assert_true(remat_has(&s->segs[1], p, "h"));
  assert_true(remat_has(&s->segs[1], p, "g"));
  assert_true(remat_has(&s->segs[1], p, "k")); /* operand of h */
  assert_split_exact(p);
  vc_split_free(s);
  vc_program_free(p);
}

/* v is loaded before the barrier and the memory changes at the barrier:
   recomputing the load afterwards would read the new value. */
static const char spilled_load[] =
    "(program t (workgroup 4) (grid 2)"
    " (buffer a u32 8 read_write (init iota)) (buffer o u32 8 write)"
    " (entry (let g (global_id x)) (let v (load a g))"
    "  (store a g (add v 100u)) (barrier grid) (store o g v)))";
static const char naive_recompute[] =
    "(program t (workgroup 4) (grid 2)"
    " (buffer a u32 8 read_write (init iota)) (buffer o u32 8 write)"
    " (entry (let g (global_id x)) (let v (load a g))"
    "  (store a g (add v 100u)) (barrier grid) (let w (load a g)) (store o g w)))";

static void let_of_load_is_spilled(void **state) {
  (void)state;
  vc_program *p = parse(spilled_load);
  vc_split *s = split(p);
  assert_int_equal(s->nbuffers, s->nuser + 1);
  assert_true(list_has(s->segs[0].spill_out, s->segs[0].nspill_out, p, "v"));
  assert_true(list_has(s->segs[1].spill_in, s->segs[1].nspill_in, p, "v"));
  assert_false(remat_has(&s->segs[1], p, "v"));
  assert_split_exact(p);
  /* What a splitter that recomputes the load would compute instead: */
  vc_program *naive = parse(naive_recompute);
  uint32_t *good = oracle_output(p, "o"), *bad = oracle_output(naive, "o");
  assert_memory_not_equal(good, bad, 8 * 4);
  assert_int_equal(good[3], 3);
  assert_int_equal(bad[3], 103);
  free(good);
  free(bad);
  vc_program_free(naive);
  vc_split_free(s);
  vc_program_free(p);
}

static void var_set_before_barrier_is_spilled(void **state) {
  (void)state;
  vc_program *p = parse("(program t (workgroup 4) (grid 2)"
                        " (buffer a u32 8 read (init iota)) (buffer o u32 8 write)"
                        " (entry (let g (global_id x)) (var acc 0u)"
                        "  (loop i 0u 4u (set acc (add acc (load a (rem (add g i) 8u)))))"
                        "  (barrier grid) (set acc (mul acc 2u)) (barrier grid) (store o g acc)))");
  vc_split *s = split(p);
  assert_int_equal(s->nsegs, 3);
  assert_int_equal(s->nbuffers, s->nuser + 1);
  assert_true(list_has(s->segs[0].spill_out, s->segs[0].nspill_out, p, "acc"));
  assert_true(list_has(s->segs[1].spill_in, s->segs[1].nspill_in, p, "acc"));
  assert_true(list_has(s->segs[1].spill_out, s->segs[1].nspill_out, p, "acc"));
  assert_true(list_has(s->segs[2].spill_in, s->segs[2].nspill_in, p, "acc"));
  assert_int_equal(s->segs[2].nspill_out, 0);
  assert_split_exact(p);
  vc_split_free(s);
  vc_program_free(p);
}

static void let_of_atomic_is_spilled_not_repeated(void **state) {
  (void)state;
  const char *text = "(program t (workgroup 4) (grid 2)"
                     " (buffer c u32 1 read_write) (buffer o u32 8 write)"
                     " (entry (let g (global_id x)) (let t (atomic add c 0u 1u))"
                     "  (barrier grid) (store o g (select (lt t 8u) 1u 0u))))";
  vc_program *p = parse(text);
  vc_split *s = split(p);
  assert_true(list_has(s->segs[0].spill_out, s->segs[0].nspill_out, p, "t"));
  assert_false(remat_has(&s->segs[1], p, "t"));
  /* the atomic is in segment 0 only */
  assert_non_null(bound(&s->segs[0], "c"));
  assert_null(bound(&s->segs[1], "c"));
  uint32_t *c = oracle_output(p, "c");
  assert_int_equal(c[0], 8); /* once per invocation */
  free(c);
  assert_split_exact(p);
  vc_split_free(s);
  vc_program_free(p);
}

/* An atomic load reads memory the barrier may change: spilled, never
   recomputed (recomputed, o would hold the 7s stored after the load). */
static void let_of_atomic_load_is_spilled(void **state) {
  (void)state;
  const char *text = "(program t (workgroup 4) (grid 2)"
                     " (buffer c u32 8 read_write (init iota)) (buffer o u32 8 write)"
                     " (entry (let g (global_id x)) (let t (atomic load c g))"
                     "  (atomic store c g 7u) (barrier grid) (store o g t)))";
  vc_program *p = parse(text);
  vc_split *s = split(p);
  assert_true(list_has(s->segs[0].spill_out, s->segs[0].nspill_out, p, "t"));
  assert_false(remat_has(&s->segs[1], p, "t"));
  assert_true(remat_has(&s->segs[1], p, "g"));
  assert_null(bound(&s->segs[1], "c"));
  uint32_t *o = oracle_output(p, "o");
  for (uint32_t i = 0; i < 8; i++) assert_int_equal(o[i], i);
  free(o);
  assert_split_exact(p);
  vc_split_free(s);
  vc_program_free(p);
}

/* A while's per-invocation trip count and a value set before a break are
   vars: spilled across the barrier; the loops stay in their segment. */
static void while_and_break_values_are_spilled(void **state) {
  (void)state;
  const char *text = "(program t (workgroup 4) (grid 2) (buffer o u32 16 write)"
                     " (entry (let g (global_id x)) (var n 0u) (while (lt n g) (set n (add n 1u)))"
                     "  (var f 0u) (loop a 0u 4u (loop b 0u 9u (set f (add f 1u))"
                     "   (if (eq b a) (break))))"
                     "  (barrier grid) (store o g n) (store o (add g 8u) f)))";
  vc_program *p = parse(text);
  vc_split *s = split(p);
  assert_true(list_has(s->segs[0].spill_out, s->segs[0].nspill_out, p, "n"));
  assert_true(list_has(s->segs[0].spill_out, s->segs[0].nspill_out, p, "f"));
  uint32_t *o = oracle_output(p, "o");
  for (uint32_t i = 0; i < 8; i++) assert_int_equal(o[i], i);
  for (uint32_t i = 8; i < 16; i++) assert_int_equal(o[i], 1 + 2 + 3 + 4);
  free(o);
  assert_split_exact(p);
  vc_split_free(s);
  vc_program_free(p);
}

/* check compares the oracle's outputs with (expect (buffer ...)) element by
   element and names the first mismatch with typed values. */
static void expected_values_are_checked(void **state) {
  (void)state;
  static const char ok[] =
      "(program t (workgroup 4) (buffer o i32 4 write) (buffer f f32 2 write)"
      " (expect (buffer o (values 0i -1i -2i -3i))) (expect (buffer f (at 1) (values 0x7fc12345f)))"
      " (entry (let g (global_id x)) (store o g (sub 0i (cast i32 g)))"
      "  (if (eq g 0u) (store f 1u (sub 0x7f800000f 0x7f800000f)))))";
  vc_program *p = parse(ok);
  vc_check_result r;
  vc_oracle_opts o = {0};
  vc_check_program(p, &o, &r);
  if (r.verdict != VC_CHECK_OK) fprintf(stderr, "check: %s\n", r.why);
  assert_int_equal(r.verdict, VC_CHECK_OK); /* any NaN matches a NaN */
  vc_program_free(p);
  static const char bad[] =
      "(program t (workgroup 4) (buffer o i32 4 write)\n"
      " (expect (buffer o (at 2) (values -2i -4i)))"
      " (entry (let g (global_id x)) (store o g (sub 0i (cast i32 g)))))";
  p = parse(bad);
  vc_check_program(p, &o, &r);
  assert_int_equal(r.verdict, VC_CHECK_FAILED);
  assert_non_null(strstr(r.why, "o[3] is -3i, the program expects -4i (expect at 2:2)"));
  vc_program_free(p);
}

/* 64-bit values are spilled with both words: values whose low words are
   equal and whose high words differ come back different. */
static void spill_64_bit_keeps_the_high_word(void **state) {
  (void)state;
  const char *text =
      "(program t (workgroup 4) (grid 2) (buffer a u64 8 read (init iota))"
      " (buffer o u64 8 write) (buffer q i64 8 write)"
      " (expect (buffer o (values 0x100000000u64 0x200000001u64 0x300000002u64 0x400000003u64"
      "   0x500000004u64 0x600000005u64 0x700000006u64 0x800000007u64)))"
      " (expect (buffer q (values -4294967296i64 -8589934592i64 -12884901888i64 -17179869184i64"
      "   -21474836480i64 -25769803776i64 -30064771072i64 -34359738368i64)))"
      " (entry (let g (global_id x)) (var h (load a g))"
      "  (set h (add h (shl (add (cast u64 g) 1u64) 32u64)))"
      "  (let n (neg (bitcast i64 (and h 0xffffffff00000000u64))))"
      "  (barrier grid) (store o g h) (store q g n)))";
  vc_program *p = parse(text);
  vc_split *s = split(p);
  assert_true(list_has(s->segs[0].spill_out, s->segs[0].nspill_out, p, "h"));
  assert_true(list_has(s->segs[0].spill_out, s->segs[0].nspill_out, p, "n"));
  for (uint32_t i = s->nuser; i < s->nbuffers; i++)
    assert_true(vc_type_is_64(s->buffers[i].type)); /* both words */
  vc_check_result r;
  vc_oracle_opts o = {0};
  vc_check_program(p, &o, &r);
  if (r.verdict != VC_CHECK_OK) fprintf(stderr, "check: %s\n", r.why);
  assert_int_equal(r.verdict, VC_CHECK_OK);
  vc_split_free(s);
  vc_program_free(p);
}

static void partial_rewrite_keeps_earlier_bytes(void **state) {
  (void)state;
  vc_program *p = parse("(program t (workgroup 4) (grid 2) (buffer acc u32 8 write)"
                        " (entry (let g (global_id x)) (store acc g (add g 10u)) (barrier grid)"
                        "  (if (lt g 2u) (store acc g 0u))))");
  vc_split *s = split(p);
  const vc_buffer *b0 = bound(&s->segs[0], "acc"), *b1 = bound(&s->segs[1], "acc");
  assert_non_null(b0);
  assert_non_null(b1);
  assert_int_equal(b0->access, VC_WRITE);      /* first writer of a write buffer */
  assert_int_equal(b1->access, VC_READ_WRITE); /* never a fresh zeroed allocation */
  assert_int_equal(s->segs[1].up_bytes, 32);
  uint32_t *acc = oracle_output(p, "acc");
  assert_int_equal(acc[0], 0);
  assert_int_equal(acc[5], 15);
  free(acc);
  assert_split_exact(p);
  vc_split_free(s);
  vc_program_free(p);
}

static void untouched_buffers_are_not_bound(void **state) {
  (void)state;
  vc_program *p = parse("(program t (workgroup 4) (grid 1)"
                        " (buffer in u32 4 read (init iota)) (buffer mid u32 4 read_write)"
                        " (buffer out u32 4 write)"
                        " (entry (let g (global_id x)) (store mid g (load in g)) (barrier grid)"
                        "  (barrier grid) (store out g (load mid g))))");
  vc_split *s = split(p);
  assert_int_equal(s->nsegs, 3);
  assert_int_equal(s->segs[1].nbind, 0);
  assert_null(bound(&s->segs[0], "out"));
  assert_int_equal(bound(&s->segs[0], "in")->access, VC_READ);
  assert_int_equal(bound(&s->segs[2], "out")->access, VC_WRITE);
  assert_int_equal(s->segs[0].up_bytes, 32); /* in (mid is read_write: its contents go up) */
  assert_split_exact(p);
  vc_split_free(s);
  vc_program_free(p);
}

/* An invocation that returns before v is defined keeps v at zero, in every mode. */
static void return_before_definition_keeps_zero(void **state) {
  (void)state;
  vc_program *p = parse("(program t (workgroup 4) (grid 2)"
                        " (buffer a u32 8 read (init iota)) (buffer o u32 8 write)"
                        " (entry (let g (global_id x)) (if (ge g 5u) (return))"
                        "  (let v (add (load a g) 1u)) (let w (add g 1u))"
                        "  (barrier grid) (store o g (add v (mul w 100u)))))");
  vc_split *s = split(p);
  /* w is pure but skippable by the return: spilled, not recomputed */
  assert_true(list_has(s->segs[0].spill_out, s->segs[0].nspill_out, p, "w"));
  uint32_t *o = oracle_output(p, "o");
  assert_int_equal(o[4], 5 + 500);
  assert_int_equal(o[6], 0);
  free(o);
  assert_split_exact(p);
  vc_split_free(s);
  vc_program_free(p);
}

static void grid_barrier_under_if_or_loop_is_refused(void **state) {
  (void)state;
  static const char *const texts[] = {
      "(program t (buffer o u32 1 write) (entry (if 1u (barrier grid))))",
      "(program t (buffer o u32 1 write) (entry (loop i 0u 2u (barrier grid))))",
      "(program t (buffer o u32 1 write) (entry (while 1u (barrier grid))))"};
  static const char *const what[] = {"if", "loop", "while"};
  for (int i = 0; i < 3; i++) {
    vc_diags d;
    vc_diags_init(&d);
    vc_program *p = vc_parse("t.vyre", texts[i], strlen(texts[i]), &d);
    assert_null(p);
    assert_true(vc_diags_contain(&d, "grid barrier"));
    assert_true(vc_diags_contain(&d, what[i]));
    vc_diags_free(&d);
  }
}

static void fixpoint_by_flag_and_by_passes(void **state) {
  (void)state;
  /* Each pass extends a prefix of ones by one element; the pass that changes
     nothing leaves the flag at 0. */
  vc_program *p = parse("(program t (workgroup 8) (grid 1)"
                        " (buffer x u32 8 read_write (init (values 1)))"
                        " (buffer f u32 1 read_write)"
                        " (fixpoint (max 20) (flag f))"
                        " (entry (let g (global_id x)) (let v (load x g))"
                        "  (let left (select (gt g 0u) (load x (sub (max g 1u) 1u)) 0u))"
                        "  (barrier grid)"
                        "  (if (land (ne left 0u) (eq v 0u))"
                        "   (block (store x g 1u) (store f 0u 1u)))))");
  vc_check_result r;
  vc_oracle_opts o = {0};
  vc_check_program(p, &o, &r);
  if (r.verdict != VC_CHECK_OK) fprintf(stderr, "%s\n", r.why);
  assert_int_equal(r.verdict, VC_CHECK_OK);
  assert_int_equal(r.report.passes, 8);
  assert_true(r.report.converged);
  vc_program_free(p);

  p = parse("(program t (workgroup 4) (grid 1) (buffer c u32 4 read_write)"
            " (fixpoint (max 5))"
            " (entry (let g (global_id x)) (let v (load c g)) (barrier grid)"
            "  (store c g (add v 1u))))");
  vc_check_program(p, &o, &r);
  assert_int_equal(r.verdict, VC_CHECK_OK);
  assert_int_equal(r.report.passes, 5);
  uint32_t *c = oracle_output(p, "c");
  assert_int_equal(c[2], 5);
  free(c);
  vc_program_free(p);
}

static void traffic_prediction(void **state) {
  (void)state;
  vc_program *p = parse("(program t (workgroup 4) (grid 1)"
                        " (buffer in u32 4 read (init iota)) (buffer out u32 4 write)"
                        " (entry (let g (global_id x)) (let v (load in g)) (barrier grid)"
                        "  (store out g v)))");
  vc_split *s = split(p);
  /* segment 0 reads in (16) and saves v (16 down); segment 1 reloads v (16 up)
     and writes out (16 down) */
  assert_int_equal(s->segs[0].up_bytes, 16);
  assert_int_equal(s->segs[0].down_bytes, 16);
  assert_int_equal(s->segs[1].up_bytes, 16);
  assert_int_equal(s->segs[1].down_bytes, 16);
  assert_int_equal(s->resident_up_once, 16);
  assert_int_equal(s->resident_down_once, 16);
  vc_split_free(s);
  vc_program_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(no_barrier_one_segment_untouched),
      cmocka_unit_test(workgroup_barrier_does_not_split),
      cmocka_unit_test(barriers_in_nested_blocks_are_flattened),
      cmocka_unit_test(n_barriers_give_n_plus_one_segments),
      cmocka_unit_test(literal_and_builtin_lets_are_recomputed),
      cmocka_unit_test(let_of_load_is_spilled),
      cmocka_unit_test(var_set_before_barrier_is_spilled),
      cmocka_unit_test(let_of_atomic_is_spilled_not_repeated),
      cmocka_unit_test(let_of_atomic_load_is_spilled),
      cmocka_unit_test(while_and_break_values_are_spilled),
      cmocka_unit_test(expected_values_are_checked),
      cmocka_unit_test(spill_64_bit_keeps_the_high_word),
      cmocka_unit_test(partial_rewrite_keeps_earlier_bytes),
      cmocka_unit_test(untouched_buffers_are_not_bound),
      cmocka_unit_test(return_before_definition_keeps_zero),
      cmocka_unit_test(grid_barrier_under_if_or_loop_is_refused),
      cmocka_unit_test(fixpoint_by_flag_and_by_passes),
      cmocka_unit_test(traffic_prediction),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
