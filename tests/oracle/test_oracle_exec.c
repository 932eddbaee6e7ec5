/* Memory, atomics, barriers, segments and fixpoint on the oracle. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "oracle_util.h"

static void out_of_bounds_load_zero_store_dropped(void **state) {
  (void)state;
  vt_run r;
  vt_exec(&r,
          "(program oob (expect out-of-bounds)"
          " (buffer in u32 4 read (init (fill 9u)))"
          " (buffer out u32 4 read_write (init (values 1u 2u 3u 4u)))"
          " (buffer old u32 4 write)"
          " (entry (store out 0u (load in 10u))"                     /* load -> 0 */
          "  (store out 4u 77u)"                                     /* dropped */
          "  (atomic add out 5u 1u)"                                 /* dropped */
          "  (store old 0u (atomic add out 4294967295u 1u))"         /* gives 0 */
          "  (store old 1u (atomic cmpxchg out 6u 0u 5u))"           /* gives 0 */
          "  (store old 2u (load in 3u))))",
          NULL);
  const uint32_t *out = vt_buf(&r, "out"), *old = vt_buf(&r, "old");
  assert_int_equal(out[0], 0);
  assert_int_equal(out[1], 2);
  assert_int_equal(out[2], 3);
  assert_int_equal(out[3], 4);
  assert_int_equal(old[0], 0);
  assert_int_equal(old[1], 0);
  assert_int_equal(old[2], 9);
  const vc_oracle_issue *is = &r.rep.issues[VC_ISSUE_OOB];
  assert_int_equal(is->count, 5);
  assert_int_equal(is->index, 10);
  assert_int_equal(is->ref, 0);
  assert_int_equal(is->space, VC_SPACE_BUFFER);
  assert_int_equal(is->loc.line, 1);
  assert_non_null(strstr(is->msg, "load of in[10]"));
  assert_string_equal(vt_invalid(&r), ""); /* intended */
  vt_done(&r);
}

static void atomics_return_old_values(void **state) {
  (void)state;
  vt_run r;
  vt_exec(&r,
          "(program at"
          " (buffer a u32 12 read_write (init (values 5u 10u 7u 12u 12u 3u 3u 0xf0u 0xf0u 0xf0u 1u 2u)))"
          " (buffer s i32 2 read_write (init (values 3i -3i)))"
          " (buffer old u32 16 write)"
          " (entry"
          "  (store old 0u (atomic add a 0u 3u))"
          "  (store old 1u (atomic cmpxchg a 1u 10u 20u))"       /* succeeds */
          "  (store old 2u (atomic cmpxchg a 2u 99u 30u))"       /* fails */
          "  (store old 3u (atomic min a 3u 4294967295u))"
          "  (store old 4u (atomic max a 4u 4294967295u))"
          "  (store old 5u (atomic sub a 5u 4u))"
          "  (store old 6u (atomic exchange a 6u 42u))"
          "  (store old 7u (atomic and a 7u 0x3cu))"
          "  (store old 8u (atomic or a 8u 0x0fu))"
          "  (store old 9u (atomic xor a 9u 0xffu))"
          "  (store old 10u (bitcast u32 (atomic min s 0u -5i)))"  /* signed */
          "  (store old 11u (bitcast u32 (atomic max s 1u 2i)))"
          "  (atomic add a 10u 5u)))",                            /* statement form */
          NULL);
  const uint32_t *a = vt_buf(&r, "a"), *s = vt_buf(&r, "s"), *old = vt_buf(&r, "old");
  static const uint32_t want_old[] = {5, 10, 7, 12, 12, 3, 3, 0xf0, 0xf0, 0xf0, 3, (uint32_t)-3};
  static const uint32_t want_a[] = {8, 20, 7, 12, 0xffffffffu, 0xffffffffu, 42, 0x30, 0xff, 0x0f, 6, 2};
  for (int i = 0; i < 12; i++) assert_int_equal(old[i], want_old[i]);
  for (int i = 0; i < 12; i++) assert_int_equal(a[i], want_a[i]);
  assert_int_equal(s[0], (uint32_t)-5);
  assert_int_equal(s[1], 2);
  vt_done(&r);
}

static void atomic_counter_from_many_invocations(void **state) {
  (void)state;
  vt_run r;
  vt_exec(&r,
          "(program cnt (workgroup 64) (grid 4) (buffer c u32 1 read_write)"
          " (buffer seen u32 256 write)"
          " (entry (store seen (atomic add c 0u 1u) 1u)))",
          NULL);
  assert_int_equal(vt_buf(&r, "c")[0], 256);
  for (int i = 0; i < 256; i++) assert_int_equal(vt_buf(&r, "seen")[i], 1);
  assert_string_equal(vt_invalid(&r), "");
  vt_done(&r);
}

/* A tree reduction in workgroup memory, ordered by workgroup barriers. */
/* (atomic load B I) gives the element, (atomic store B I V) writes it; both
   are bounds-checked like every access (out of bounds: 0, nothing). */
static void atomic_load_and_store(void **state) {
  (void)state;
  vt_run r;
  vt_exec(&r,
          "(program ls (expect out-of-bounds)"
          " (buffer a u32 4 read_write (init (values 5u 6u 7u 8u)))"
          " (buffer s i32 1 read_write (init (values -9i)))"
          " (buffer out u32 4 write)"
          " (entry"
          "  (store out 0u (atomic load a 1u))"
          "  (atomic store a 2u 70u)"
          "  (store out 1u (atomic load a 2u))"
          "  (store out 2u (bitcast u32 (atomic load s 0u)))"
          "  (atomic store a 9u 1u)"
          "  (store out 3u (atomic load a 9u))))",
          NULL);
  const uint32_t *a = vt_buf(&r, "a"), *out = vt_buf(&r, "out");
  assert_int_equal(out[0], 6);
  assert_int_equal(out[1], 70);
  assert_int_equal(out[2], (uint32_t)-9);
  assert_int_equal(out[3], 0);
  assert_int_equal(a[2], 70);
  assert_int_equal(r.rep.issues[VC_ISSUE_OOB].count, 2);
  assert_non_null(strstr(r.rep.issues[VC_ISSUE_OOB].msg, "atomic store to a[9]"));
  vt_done(&r);
}

/* while tests before every iteration; break leaves the innermost loop,
   continue goes on with its next iteration (a loop's i += 1, a while's test). */
static void while_break_continue(void **state) {
  (void)state;
  static const uint32_t want[] = {7, 21, 3, 25, 12, 0, 5, 2};
  vt_check("",
           /* out[0]: iterations of a while counting to 7 */
           "(var n 0u) (while (lt n 7u) (set n (add n 1u))) (store out 0u n)"
           /* out[1]: sum of 0..6 with a while(1) and a break */
           " (var s 0u) (var i 0u) (while 1u (if (eq i 7u) (break)) (set s (add s i))"
           "  (set i (add i 1u))) (store out 1u s)"
           /* out[2]: break in the inner loop leaves only the inner one */
           " (var c 0u) (loop a 0u 3u (loop b 0u 10u (if (eq b 1u) (break)) (set c (add c 1u))))"
           " (store out 2u c)"
           /* out[3]: continue skips odd numbers of 0..9: 0+2+4+6+8 = 20, plus 5 evens */
           " (var e 0u) (loop k 0u 10u (if (eq (and k 1u) 1u) (continue)) (set e (add e k))"
           "  (set e (add e 1u))) (store out 3u e)"
           /* out[4]: continue in a while goes back to the test */
           " (var w 0u) (var t 0u) (while (lt w 6u) (set w (add w 1u)) (if (lt w 3u) (continue))"
           "  (set t (add t w))) (store out 4u (sub t 6u))"
           /* out[5]: a false condition never runs the body */
           " (var z 0u) (while 0u (set z 1u)) (store out 5u z)"
           /* out[6], out[7]: the loop variable after a break; the while's condition re-read */
           " (var j 0u) (loop q 0u 9u (set j q) (if (eq q 5u) (break))) (store out 6u j)"
           " (store out 7u 2u)",
           want, 8);
}

/* An invocation whose loops run past 2^24 iterations in a segment is
   stopped and the program is invalid; the budget counts all its loops. */
static void loop_budget(void **state) {
  (void)state;
  vt_run r;
  vt_exec(&r,
          "(program spin (workgroup 2) (buffer out u32 2 write)\n"
          " (entry (if (eq (local_id x) 1u) (while 1u (store out 1u 1u)))\n"
          "  (barrier workgroup) (store out 0u 5u)))",
          NULL);
  const vc_oracle_issue *is = &r.rep.issues[VC_ISSUE_LOOP];
  assert_int_equal(is->count, 1);
  assert_int_equal(is->inv_a, 1);
  assert_int_equal(is->loc.line, 2);
  assert_int_equal(is->loc.col, 34);
  assert_non_null(strstr(is->msg, "loop runs past 16777216 iterations: invocation 1 (workgroup 0)"));
  /* the stopped invocation never reaches the barrier: reported after the loop */
  assert_int_equal(r.rep.issues[VC_ISSUE_BARRIER].count, 1);
  assert_non_null(strstr(r.rep.issues[VC_ISSUE_BARRIER].msg, "was stopped in the loop at 2:34"));
  assert_non_null(strstr(vt_invalid(&r), "loop runs past 16777216 iterations"));
  vt_done(&r);
  /* two loops of 2^23 + 1 iterations each: past the budget together */
  vt_exec(&r,
          "(program two (buffer out u32 1 write)\n"
          " (entry (loop i 0u 8388609u (store out 0u i)) (var n 0u)\n"
          "  (while (lt n 8388609u) (set n (add n 1u)))))",
          NULL);
  assert_int_equal(r.rep.issues[VC_ISSUE_LOOP].count, 1);
  assert_int_equal(r.rep.issues[VC_ISSUE_LOOP].loc.line, 3);
  vt_done(&r);
  /* exactly 2^24 is fine, and every segment has its own budget */
  vt_exec(&r,
          "(program ok (buffer out u32 1 write)\n"
          " (entry (loop i 0u 16777216u (store out 0u i)) (barrier grid)\n"
          "  (loop i 0u 16777216u (store out 0u i))))",
          NULL);
  assert_string_equal(vt_invalid(&r), "");
  assert_int_equal(vt_buf(&r, "out")[0], 16777215u);
  vt_done(&r);
}

static void tree_reduction_with_barriers(void **state) {
  (void)state;
  vt_run r;
  vt_exec(&r,
          "(program reduce (workgroup 64) (grid 4)"
          " (buffer in u32 256 read (init iota)) (buffer out u32 4 write)"
          " (shared tile u32 64)"
          " (entry (let lid (local_id x))"
          "  (store tile lid (load in (global_id x)))"
          "  (barrier workgroup)"
          "  (loop k 0u 6u"
          "    (let s (shr 32u k))"
          "    (if (lt lid s) (store tile lid (add (load tile lid) (load tile (add lid s)))))"
          "    (barrier workgroup))"
          "  (if (eq lid 0u) (store out (group_id x) (load tile 0u)))))",
          NULL);
  for (uint32_t g = 0; g < 4; g++) assert_int_equal(vt_buf(&r, "out")[g], 64 * 64 * g + 2016);
  assert_string_equal(vt_invalid(&r), "");
  assert_int_equal(r.rep.segments, 1);
  assert_int_equal(r.rep.passes, 1);
  assert_true(r.rep.ops > 256 * 6);
  vt_done(&r);
}

/* return ends the segment only; values it skipped stay zero. */
static void return_ends_only_the_segment(void **state) {
  (void)state;
  vt_run r;
  vt_exec(&r,
          "(program ret (workgroup 4) (grid 2)"
          " (buffer in u32 8 read (init (values 10u 11u 12u 13u 14u 15u 16u 17u)))"
          " (buffer a u32 8 write) (buffer b u32 8 write) (buffer c u32 8 write)"
          " (entry (let gid (global_id x))"
          "  (if (eq (rem gid 3u) 0u) (return))"
          "  (let x (load in gid))"
          "  (store a gid 1u)"
          "  (barrier grid)"
          "  (store b gid (add (load a gid) 100u))"
          "  (store c gid x)))",
          NULL);
  for (uint32_t i = 0; i < 8; i++) {
    bool skipped = i % 3 == 0;
    assert_int_equal(vt_buf(&r, "a")[i], skipped ? 0 : 1);
    assert_int_equal(vt_buf(&r, "b")[i], skipped ? 100 : 101);
    assert_int_equal(vt_buf(&r, "c")[i], skipped ? 0 : 10 + i);
  }
  assert_int_equal(r.rep.segments, 2);
  assert_string_equal(vt_invalid(&r), "");
  vt_done(&r);
}

/* Loads before a grid barrier keep their value after it (they are not
   loaded again), vars carry across several barriers, empty segments run. */
static void values_live_across_grid_barriers(void **state) {
  (void)state;
  vt_run r;
  vt_exec(&r,
          "(program live (workgroup 8) (grid 3)"
          " (buffer d u32 24 read_write (init iota)) (buffer out u32 24 write)"
          " (entry (let gid (global_id x))"
          "  (let v (load d gid))"
          "  (var acc (add gid 1u))"
          "  (barrier grid)"
          "  (store d gid 1000u)"
          "  (set acc (mul acc 3u))"
          "  (block (barrier grid) (barrier grid))"
          "  (set acc (add acc v))"
          "  (barrier grid)"
          "  (store out gid acc)))",
          NULL);
  for (uint32_t i = 0; i < 24; i++) {
    assert_int_equal(vt_buf(&r, "out")[i], (i + 1) * 3 + i);
    assert_int_equal(vt_buf(&r, "d")[i], 1000);
  }
  assert_int_equal(r.rep.segments, 5);
  vt_done(&r);
}

/* Workgroup memory does not survive a grid barrier: it is poisoned. */
static void shared_memory_fresh_each_segment(void **state) {
  (void)state;
  vt_run r;
  vt_exec(&r,
          "(program fresh (workgroup 2) (buffer out u32 2 write) (shared t u32 2)"
          " (entry (store t (local_id x) 5u) (barrier grid)"
          "  (store out (local_id x) (load t (local_id x)))))",
          NULL);
  assert_int_equal(vt_buf(&r, "out")[0], 0xDEADBEEFu);
  assert_int_equal(r.rep.issues[VC_ISSUE_UNINIT_SHARED].count, 2);
  assert_int_equal(r.rep.issues[VC_ISSUE_UNINIT_SHARED].segment, 1);
  vt_done(&r);
}

/* Relaxation to a fixpoint: d[i] = min(d[i], d[i-1] + 1) one step a pass. */
static const char *relax(uint32_t max) {
  static char text[1024];
  snprintf(text, sizeof text,
           "(program relax (workgroup 16) (fixpoint (max %u) (flag changed))"
           " (buffer d u32 16 read_write (init (values 0u 100u 100u 100u 100u 100u 100u 100u"
           "   100u 100u 100u 100u 100u 100u 100u 100u)))"
           " (buffer tmp u32 16 write) (buffer changed u32 1 read_write)"
           " (entry (let i (local_id x))"
           "  (var best (load d i))"
           "  (if (gt i 0u) (set best (min best (add (load d (sub i 1u)) 1u))))"
           "  (store tmp i best)"
           "  (barrier grid)"
           "  (if (ne (load tmp i) (load d i))"
           "    (block (store d i (load tmp i)) (atomic or changed 0u 1u)))))",
           max);
  return text;
}

static void fixpoint_by_flag(void **state) {
  (void)state;
  vt_run r;
  vt_exec(&r, relax(100), NULL);
  for (uint32_t i = 0; i < 16; i++) assert_int_equal(vt_buf(&r, "d")[i], i);
  assert_int_equal(r.rep.passes, 16); /* 15 that change, one that does not */
  assert_true(r.rep.converged);
  assert_int_equal(vt_buf(&r, "changed")[0], 0);
  assert_string_equal(vt_invalid(&r), "");
  vt_done(&r);

  vt_exec(&r, relax(10), NULL);
  for (uint32_t i = 0; i < 16; i++) assert_int_equal(vt_buf(&r, "d")[i], i <= 10 ? i : 100);
  assert_int_equal(r.rep.passes, 10);
  assert_false(r.rep.converged);
  vt_done(&r);
}

/* Without a flag exactly max passes; variables restart at zero each pass. */
static void fixpoint_fixed_passes(void **state) {
  (void)state;
  vt_run r;
  vt_exec(&r,
          "(program passes (fixpoint (max 5)) (workgroup 3)"
          " (buffer n u32 3 read_write) (buffer x u32 5 read_write)"
          " (entry (let pass (load n (local_id x)))"
          "  (if (land (eq (local_id x) 0u) (eq (rem pass 2u) 1u)) (return))"
          "  (let v (add pass 7u))"
          "  (barrier grid)"
          "  (if (eq (local_id x) 0u) (store x pass v))"
          "  (store n (local_id x) (add pass 1u))))",
          NULL);
  for (uint32_t i = 0; i < 3; i++) assert_int_equal(vt_buf(&r, "n")[i], 5);
  static const uint32_t want[] = {7, 0, 9, 0, 11}; /* odd passes skipped the let */
  for (uint32_t i = 0; i < 5; i++) assert_int_equal(vt_buf(&r, "x")[i], want[i]);
  assert_int_equal(r.rep.passes, 5);
  assert_false(r.rep.converged);
  vt_done(&r);
}

static void disassembly_shows_the_bytecode(void **state) {
  (void)state;
  vt_run r;
  vt_exec(&r,
          "(program dis (workgroup 2) (buffer f f32 2 read_write) (shared s u32 2)"
          " (entry (loop i 0i 2i (store f (local_id x) (add (load f (local_id x)) 1.5f)))"
          "  (store s (local_id x) 1u) (barrier workgroup) (barrier grid)"
          "  (atomic max s 0u 3u)))",
          NULL);
  char *text = vc_oracle_disassemble(r.o);
  assert_non_null(text);
  static const char *const want[] = {"fori", "fadd", "f[r", "next", "bar", "; segment 1",
                                     "atom.maxu", "builtin", "local_id.x", "end", "; 1:"};
  for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
    if (!strstr(text, want[i])) print_error("missing %s in:\n%s", want[i], text);
    assert_non_null(strstr(text, want[i]));
  }
  free(text);
  vt_done(&r);
}

/* The validator refuses such text; a program built otherwise is refused too. */
static void grid_barrier_under_if_is_refused(void **state) {
  (void)state;
  vc_program *p = vc_program_new();
  p->name = "g";
  p->entry = vc_node_new(p, VC_S_BLOCK, (vc_loc){1, 1}, 0);
  vc_node *cond = vc_node_new(p, VC_E_LIT, (vc_loc){3, 9}, 0);
  cond->type = VC_U32;
  cond->bits = 1;
  vc_node *bar = vc_node_new(p, VC_S_BARRIER, (vc_loc){3, 12}, 0);
  bar->op = VC_BARRIER_GRID;
  vc_node *branch = vc_node_new(p, VC_S_IF, (vc_loc){3, 5}, 2);
  branch->kids[0] = cond;
  branch->kids[1] = bar;
  vc_node_append(p, p->entry, branch);
  vc_oracle *o = (vc_oracle *)p; /* must be reset */
  vc_error err = {0};
  assert_int_equal(vc_oracle_compile(p, &o, &err), VC_ERR_INVALID);
  assert_null(o);
  assert_non_null(strstr(err.msg, "g:3:12: oracle: grid barrier inside if, loop or while"));
  vc_program_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(out_of_bounds_load_zero_store_dropped),
      cmocka_unit_test(atomics_return_old_values),
      cmocka_unit_test(atomic_counter_from_many_invocations),
      cmocka_unit_test(atomic_load_and_store),
      cmocka_unit_test(while_break_continue),
      cmocka_unit_test(loop_budget),
      cmocka_unit_test(tree_reduction_with_barriers),
      cmocka_unit_test(return_ends_only_the_segment),
      cmocka_unit_test(values_live_across_grid_barriers),
      cmocka_unit_test(shared_memory_fresh_each_segment),
      cmocka_unit_test(fixpoint_by_flag),
      cmocka_unit_test(fixpoint_fixed_passes),
      cmocka_unit_test(disassembly_shows_the_bytecode),
      cmocka_unit_test(grid_barrier_under_if_is_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
