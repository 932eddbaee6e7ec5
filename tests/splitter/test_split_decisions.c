/* The reading of a plan's decisions (harness/split/decisions.h): small
 * programs, each with the exact set of decisions its plan takes, so that a
 * decision found where it is not taken fails as well as one missed; every
 * decision of the table has a program that takes it; and a plan changed
 * behind the reader's back is refused, not misread; docs/splitter.md has
 * a row for every decision. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness/lang/parse.h"
#include "harness/split/decisions.h"
#include "harness/split/split.h"

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

static void decisions(const char *text, vc_split_decisions *d) {
  vc_program *p = parse(text);
  vc_split *s = split(p);
  vc_error e;
  vc_error_clear(&e);
  int rc = vc_split_decisions_of(s, d, &e);
  if (rc) fprintf(stderr, "%s\n", e.msg);
  assert_int_equal(rc, 0);
  vc_split_free(s);
  vc_program_free(p);
}

typedef struct dcase {
  const char *what;
  const char *text;
  const char *taken; /* every decision the plan takes, names separated by spaces */
} dcase;

#define PROG(body) "(program t (workgroup 4) " body ")"

static const dcase cases[] = {
    {"no barrier", PROG("(buffer o u32 4 write) (entry (store o (global_id x) 1u))"),
     "no-barrier bind-write-fresh"},
    {"a chain three deep whose root is used only through it",
     PROG("(buffer o u32 4 write) (entry (let a (global_id x)) (let b (add a 1u))"
          " (let c (mul b 3u)) (barrier grid) (store o (global_id x) c))"),
     "recompute-depth-1 recompute-depth-2 recompute-depth-3 recompute-for-chain "
     "recompute-for-chain-2 bind-write-fresh first-bound-late-write"},
    {"a chain two deep, both read",
     PROG("(buffer o u32 4 write) (entry (let a (global_id x)) (let b (add a 1u))"
          " (barrier grid) (store o a b))"),
     "recompute-depth-1 recompute-depth-2 bind-write-fresh first-bound-late-write"},
    {"a loaded let across an empty segment",
     PROG("(buffer i u32 4 read (init iota)) (buffer o u32 4 write)"
          " (entry (let x (load i (global_id x))) (barrier grid) (barrier grid)"
          " (store o (global_id x) x))"),
     "empty-middle-segment spill-let-load spill-u32 spill-passthrough bind-write-fresh "
     "first-bound-late-write"},
    {"leading and trailing barriers, one in a block",
     PROG("(buffer o u32 4 write) (entry (barrier grid)"
          " (block (store o (global_id x) 1u) (barrier workgroup) (barrier grid)))"),
     "barrier-in-block workgroup-barrier-kept empty-first-segment empty-last-segment "
     "bind-write-fresh first-bound-late-write output-last-bound-early"},
    {"two returns and a pure let between them",
     PROG("(buffer o u32 4 write) (entry (let g (global_id x)) (if (eq g 1u) (return))"
          " (let p (add g 7u)) (return) (barrier grid) (store o g p))"),
     "recompute-depth-1 recompute-before-return spill-let-skippable spill-u32 "
     "return-before-declaration return-after-declaration return-top-level-saves "
     "return-nested-saves returns-around-declaration bind-write-fresh first-bound-late-write"},
    {"a var set only under an if, not read there",
     PROG("(buffer o u32 4 write) (entry (var v 1u) (barrier grid)"
          " (if (eq (global_id x) 2u) (set v 5u)) (barrier grid) (store o (global_id x) v))"),
     "spill-var spill-u32 save-after-set save-after-nested-set reload-for-set "
     "bind-write-fresh first-bound-late-write"},
    {"a reloaded var saved before a return, set after its last use",
     PROG("(buffer o u32 4 write) (entry (var v (global_id x)) (barrier grid)"
          " (if (eq (global_id x) 1u) (return)) (set v (add v 1u)) (barrier grid)"
          " (store o (global_id x) v) (set v 0u) (if (eq (global_id x) 3u) (return)))"),
     "spill-var spill-u32 save-after-set return-saves-reloaded return-nested-saves "
     "no-save-after-last-use return-no-save bind-write-fresh first-bound-late-write"},
    {"spills of every type",
     PROG("(buffer fi f32 4 read (init iota)) (buffer o1 i32 4 write) (buffer o2 f32 4 write)"
          " (buffer o3 u64 4 write) (buffer o4 i64 4 write)"
          " (entry (var a (cast i32 (global_id x))) (let b (load fi (global_id x)))"
          " (var c (cast u64 (global_id x))) (var d (cast i64 (global_id x))) (barrier grid)"
          " (store o1 (global_id x) a) (store o2 (global_id x) b) (store o3 (global_id x) c)"
          " (store o4 (global_id x) d))"),
     "spill-var spill-let-load spill-i32 spill-f32-bits spill-u64 spill-i64 bind-64bit "
     "bind-write-fresh first-bound-late-write"},
    {"lets of an atomic, of a var and of a spilled let",
     PROG("(buffer n u32 1 read_write) (buffer o u32 4 write)"
          " (entry (let t (atomic add n 0u 1u)) (var v 3u) (let lv (add v 1u))"
          " (let u (add t 1u)) (barrier grid) (store o (global_id x) (add (add t lv) u)))"),
     "spill-let-atomic spill-let-of-var spill-let-of-spilled spill-u32 bind-atomic-read-write "
     "output-last-bound-early bind-write-fresh first-bound-late-write"},
    {"a spill in a 2-D dispatch",
     "(program t (workgroup 2 2) (buffer o u32 4 write) (entry (var v (global_id y))"
     " (barrier grid) (store o (add (global_id x) (mul (global_id y) 2u)) v)))",
     "spill-var spill-u32 spill-slot-2d bind-write-fresh first-bound-late-write"},
    {"a spill in a 3-D dispatch",
     "(program t (workgroup 2 1 2) (buffer o u32 4 write) (entry (var v (global_id z))"
     " (barrier grid) (store o (add (global_id x) (mul (global_id z) 2u)) v)))",
     "spill-var spill-u32 spill-slot-3d bind-write-fresh first-bound-late-write"},
    {"a fixpoint with a flag and a return before a saved let",
     PROG("(buffer o u32 4 write) (buffer f u32 1 read_write) (fixpoint (max 2) (flag f))"
          " (entry (let g (global_id x)) (if (eq g 1u) (return)) (let p (add g 1u))"
          " (barrier grid) (store o g p))"),
     "fixpoint-flag fixpoint-spill fixpoint-return-zero return-before-declaration "
     "return-nested-saves spill-let-skippable spill-u32 recompute-depth-1 "
     "recompute-before-return bind-write-fixpoint first-bound-late-write never-bound"},
    {"a fixpoint of a fixed pass count",
     PROG("(buffer a u32 4 read_write) (fixpoint (max 2))"
          " (entry (store a (global_id x) (add (load a (global_id x)) 1u)))"),
     "no-barrier fixpoint-count bind-read-write"},
    {"a read_write buffer only written, first bound late",
     PROG("(buffer a u32 4 read_write) (entry (barrier grid) (store a (global_id x) 1u))"),
     "empty-first-segment first-bound-late-read-write bind-write-caller-visible"},
    {"a read input first bound late",
     PROG("(buffer i u32 4 read (init iota)) (buffer o u32 4 write)"
          " (entry (barrier grid) (store o (global_id x) (load i (global_id x))))"),
     "empty-first-segment first-bound-late-read bind-write-fresh first-bound-late-write"},
    {"a write buffer written again, then read by a later segment",
     PROG("(buffer o u32 4 write) (buffer p u32 4 write) (entry (store o (global_id x) 5u)"
          " (barrier grid) (store o (global_id x) 6u) (barrier grid)"
          " (store p (global_id x) (load o (sub 3u (global_id x)))))"),
     "bind-write-fresh bind-write-written-before read-prior-output first-bound-late-write"},
    {"a buffer unbound in a middle segment",
     PROG("(buffer o u32 4 read_write) (buffer m u32 4 write)"
          " (entry (store o (global_id x) (add (load o (global_id x)) 1u)) (barrier grid)"
          " (store m (global_id x) 1u) (barrier grid)"
          " (store o (global_id x) (add (load o (global_id x)) 2u)))"),
     "bind-read-write buffer-passthrough bind-write-fresh first-bound-late-write "
     "output-last-bound-early"},
    {"a buffer no segment binds",
     PROG("(buffer u u32 4 read_write) (buffer o u32 4 write) (entry (store o (global_id x) 1u))"),
     "no-barrier bind-write-fresh never-bound"},
    {"a shared array in two segments",
     PROG("(shared s u32 4) (buffer o u32 4 write) (entry (store s (local_id x) 1u)"
          " (barrier workgroup) (barrier grid) (store s (local_id x) 2u) (barrier workgroup)"
          " (store o (global_id x) (load s (sub 3u (local_id x)))))"),
     "shared-several-segments workgroup-barrier-kept bind-write-fresh first-bound-late-write"},
    {"sibling names",
     PROG("(buffer o u32 8 write) (entry (block (let t (global_id x)) (store o t 1u))"
          " (barrier grid) (block (let t (global_id x)) (store o (add t 4u) 2u)))"),
     "rename-sibling bind-write-fresh bind-write-written-before"},
    {"sibling names past a taken one",
     PROG("(buffer o u32 12 write) (entry (block (let t (global_id x)) (store o t 1u))"
          " (block (let t (global_id x)) (store o (add t 4u) 2u)) (let t_0 (global_id x))"
          " (store o (add t_0 8u) 3u))"),
     "no-barrier rename-sibling rename-skips-taken bind-write-fresh"},
    {"a u64 let recomputed",
     PROG("(buffer o u64 4 write) (entry (let w (cast u64 (global_id x))) (barrier grid)"
          " (store o (global_id x) w))"),
     "recompute-depth-1 recompute-64bit bind-64bit bind-write-fresh first-bound-late-write"},
};

static bool named(const char *list, const char *name) {
  size_t n = strlen(name);
  for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return true;
  return false;
}

static void each_case_takes_exactly_its_decisions(void **state) {
  (void)state;
  int bad = 0;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    vc_split_decisions d;
    decisions(cases[c].text, &d);
    for (uint32_t k = 0; k < VC_DEC_COUNT; k++) {
      const char *name = vc_split_decision_name((vc_split_decision)k);
      bool want = named(cases[c].taken, name);
      if (want != (d.n[k] > 0)) {
        fprintf(stderr, "%s: %s is %s (taken %u times)\n", cases[c].what, name,
                want ? "missed" : "found where it is not taken", d.n[k]);
        bad = 1;
      }
    }
    /* a name the table does not have is a typo in the case */
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", cases[c].taken);
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
      bool known = false;
      for (uint32_t k = 0; k < VC_DEC_COUNT && !known; k++)
        known = strcmp(tok, vc_split_decision_name((vc_split_decision)k)) == 0;
      if (!known) {
        fprintf(stderr, "%s: no decision is named %s\n", cases[c].what, tok);
        bad = 1;
      }
    }
  }
  assert_int_equal(bad, 0);
}

static void every_decision_has_a_case(void **state) {
  (void)state;
  int bad = 0;
  for (uint32_t k = 0; k < VC_DEC_COUNT; k++) {
    const char *name = vc_split_decision_name((vc_split_decision)k);
    bool found = false;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0] && !found; c++)
      found = named(cases[c].taken, name);
    if (!found) {
      fprintf(stderr, "no case takes %s\n", name);
      bad = 1;
    }
  }
  assert_int_equal(bad, 0);
}

/* Counts are per return and per value: two returns, one value each. */
static void returns_are_counted_one_by_one(void **state) {
  (void)state;
  vc_split_decisions d;
  decisions(PROG("(buffer o u32 4 write) (entry (let g (global_id x)) (if (eq g 1u) (return))"
                 " (let p (add g 7u)) (if (eq g 2u) (return)) (return) (barrier grid)"
                 " (store o g p))"),
            &d);
  assert_int_equal(d.n[VC_DEC_RETURN_BEFORE_DECL], 1);
  assert_int_equal(d.n[VC_DEC_RETURN_AFTER_DECL], 2);
  assert_int_equal(d.n[VC_DEC_RETURN_NESTED_SAVES], 2);
  assert_int_equal(d.n[VC_DEC_RETURN_TOP_SAVES], 1);
  assert_int_equal(d.n[VC_DEC_RETURNS_AROUND_DECL], 1);
}

/* A plan that recomputes a loaded let (as a faulty splitter would) is
   refused by the reader, naming the let. */
static void a_plan_the_table_cannot_read_is_refused(void **state) {
  (void)state;
  vc_program *p = parse(PROG("(buffer i u32 4 read (init iota)) (buffer o u32 4 write)"
                             " (entry (let x (load i (global_id x))) (barrier grid)"
                             " (store o (global_id x) x))"));
  vc_split *s = split(p);
  assert_int_equal(s->nbuffers - s->nuser, 1);
  uint32_t *remat = vc_arena_alloc(&s->arena, sizeof *remat);
  remat[0] = s->spill_sym[0];
  s->segs[1].remat = remat;
  s->segs[1].nremat = 1;
  vc_split_decisions d;
  vc_error e;
  vc_error_clear(&e);
  assert_int_equal(vc_split_decisions_of(s, &d, &e), VC_ERR_INTERNAL);
  assert_non_null(strstr(e.msg, "`x'"));
  for (uint32_t k = 0; k < VC_DEC_COUNT; k++) assert_int_equal(d.n[k], 0);
  vc_split_free(s);
  vc_program_free(p);
}

static void names_and_meanings(void **state) {
  (void)state;
  for (uint32_t k = 0; k < VC_DEC_COUNT; k++) {
    const char *name = vc_split_decision_name((vc_split_decision)k);
    assert_true(strlen(name) > 0 && strchr(name, ' ') == NULL);
    assert_true(strlen(vc_split_decision_what((vc_split_decision)k)) > 10);
    for (uint32_t j = 0; j < k; j++)
      assert_string_not_equal(name, vc_split_decision_name((vc_split_decision)j));
  }
  assert_string_equal(vc_split_decision_name(VC_DEC_COUNT), "?");
}

/* docs/splitter.md, section 8, has a row for every decision. */
static void every_decision_is_documented(void **state) {
  (void)state;
  FILE *f = fopen(VC_SOURCE_DIR "/docs/splitter.md", "rb");
  assert_non_null(f);
  static char doc[1 << 17];
  size_t n = fread(doc, 1, sizeof doc - 1, f);
  fclose(f);
  doc[n] = '\0';
  int bad = 0;
  for (uint32_t k = 0; k < VC_DEC_COUNT; k++) {
    char row[128];
    snprintf(row, sizeof row, "| `%s` |", vc_split_decision_name((vc_split_decision)k));
    if (!strstr(doc, row)) {
      fprintf(stderr, "docs/splitter.md has no row %s\n", row);
      bad = 1;
    }
  }
  assert_int_equal(bad, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(each_case_takes_exactly_its_decisions),
      cmocka_unit_test(every_decision_has_a_case),
      cmocka_unit_test(returns_are_counted_one_by_one),
      cmocka_unit_test(a_plan_the_table_cannot_read_is_refused),
      cmocka_unit_test(names_and_meanings),
      cmocka_unit_test(every_decision_is_documented),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
