/* The plan validator (harness/split/validate.h): the splitter's plan of a
 * corpus program passes; the same plan broken once per rule, as a wrong
 * splitter would break it, fails with that rule and a message naming the
 * program, the segment and the buffer, slot or let. check refuses such a
 * plan as a harness bug before it runs anything. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness/exec/check.h"
#include "harness/lang/parse.h"
#include "harness/split/split.h"
#include "harness/split/validate.h"

/* three segments: a u64 var spilled twice, an i64 let spilled, g recomputed */
#define SPILLS VC_SOURCE_DIR "/corpus/values/spill_u64_high_word.vyre"
/* four segments, chains of recomputed lets (k uses gid) */
#define REMATS VC_SOURCE_DIR "/corpus/values/recomputed_lets.vyre"

typedef struct fixture {
  vc_program *p;
  vc_split *s;
} fixture;

static fixture load(const char *path) {
  vc_diags d;
  vc_diags_init(&d);
  fixture f = {vc_parse_file(path, &d), NULL};
  if (!f.p) vc_diags_print(&d, stderr);
  vc_diags_free(&d);
  assert_non_null(f.p);
  vc_error e;
  vc_error_clear(&e);
  assert_int_equal(vc_split_program(f.p, &f.s, &e), 0);
  vc_error_clear(&e);
  vc_plan_rule r = vc_plan_validate(f.s, f.p, &e);
  if (r) fprintf(stderr, "%s\n", e.msg);
  assert_int_equal(r, VC_PLAN_OK); /* the unbroken plan passes */
  return f;
}

static void unload(fixture *f) {
  vc_split_free(f->s);
  vc_program_free(f->p);
}

/* The plan breaks rule `want`, with every one of the NULL-ended words in
   the message; check refuses it too. */
static void refused(const fixture *f, vc_plan_rule want, ...) {
  vc_error e;
  vc_error_clear(&e);
  vc_plan_rule got = vc_plan_validate(f->s, f->p, &e);
  fprintf(stderr, "  %s\n", e.msg);
  assert_int_equal(got, want);
  assert_int_equal(e.code, VC_ERR_INTERNAL);
  char head[128];
  snprintf(head, sizeof head, "plan validator: %s: program %s", vc_plan_rule_name(want),
           f->p->name);
  assert_non_null(strstr(e.msg, head));
  va_list ap;
  va_start(ap, want);
  for (const char *w; (w = va_arg(ap, const char *));) {
    if (!strstr(e.msg, w)) fail_msg("\"%s\" not in \"%s\"", w, e.msg);
  }
  va_end(ap);
  vc_check_result r;
  vc_oracle_opts o = {0};
  vc_check_program_plan(f->p, f->s, &o, &r);
  assert_int_equal(r.verdict, VC_CHECK_INTERNAL);
  assert_string_equal(r.why, e.msg);
}

/* Index in plan s of the spill buffer of the source symbol named name. */
static uint32_t spill_buffer(const fixture *f, const char *name) {
  for (uint32_t i = f->s->nuser; i < f->s->nbuffers; i++)
    if (strcmp(f->p->syms[f->s->spill_sym[i - f->s->nuser]].name, name) == 0) return i;
  fail_msg("no spill of %s", name);
  return 0;
}

static void remove_kid(vc_node *list, uint32_t i) {
  memmove(&list->kids[i], &list->kids[i + 1], (list->nkids - i - 1) * sizeof *list->kids);
  list->nkids--;
}

static void drop_last_binding(vc_split_segment *g) {
  g->prog->nbuffers--;
  g->nbind--;
}

static void drop_listed(uint32_t *syms, uint32_t *n, uint32_t sym) {
  for (uint32_t i = 0; i < *n; i++)
    if (syms[i] == sym) {
      memmove(&syms[i], &syms[i + 1], (*n - i - 1) * sizeof *syms);
      (*n)--;
      return;
    }
  fail_msg("symbol %u not listed", sym);
}

static void grid_barrier_left_in_segment(void **state) {
  (void)state;
  fixture f = load(SPILLS);
  const vc_node *cut = NULL; /* the source's first grid barrier */
  for (uint32_t i = 0; i < f.p->entry->nkids && !cut; i++)
    if (f.p->entry->kids[i]->kind == VC_S_BARRIER) cut = f.p->entry->kids[i];
  assert_non_null(cut);
  vc_program *seg0 = f.s->segs[0].prog;
  vc_node_append(seg0, seg0->entry, vc_node_clone(seg0, cut));
  char at[32];
  snprintf(at, sizeof at, "grid barrier at %u:%u", cut->loc.line, cut->loc.col);
  refused(&f, VC_PLAN_BARRIER, "segment 0 (spill_u64_high_word.seg0)", at, NULL);
  unload(&f);
}

static void touched_buffer_missing_from_table(void **state) {
  (void)state;
  fixture f = load(SPILLS);
  drop_last_binding(&f.s->segs[2]); /* __spill_n_2, which segment 2 reloads */
  refused(&f, VC_PLAN_BUFFER_TABLE, "segment 2", "touches buffer 3",
          "not in the segment's table of 3", NULL);
  unload(&f);
}

static void wrong_access(void **state) {
  (void)state;
  fixture f = load(SPILLS);
  vc_program *seg2 = f.s->segs[2].prog;
  assert_string_equal(seg2->buffers[0].name, "hout");
  seg2->buffers[0].access = VC_READ; /* its stores would never come back */
  refused(&f, VC_PLAN_ACCESS, "segment 2", "binds hout read", "only writes it", ": write", NULL);
  unload(&f);
}

static void fresh_binding_of_an_earlier_write(void **state) {
  (void)state;
  /* what fresh-write-buffer makes: o, written in segment 0, bound fresh */
  vc_diags d;
  vc_diags_init(&d);
  static const char text[] = "(program rew (workgroup 4) (grid 2) (buffer o u32 8 write)"
                             " (entry (let g (global_id x)) (store o g 1u) (barrier grid)"
                             "  (store o (xor g 1u) 2u)))";
  fixture f = {vc_parse("rew.vyre", text, strlen(text), &d), NULL};
  vc_diags_free(&d);
  assert_non_null(f.p);
  vc_error e;
  vc_error_clear(&e);
  assert_int_equal(vc_split_program(f.p, &f.s, &e), 0);
  assert_int_equal(vc_plan_validate(f.s, f.p, &e), VC_PLAN_OK);
  assert_int_equal(f.s->segs[1].prog->buffers[0].access, VC_READ_WRITE);
  f.s->segs[1].prog->buffers[0].access = VC_WRITE;
  refused(&f, VC_PLAN_ACCESS, "segment 1", "binds o write", "an earlier segment wrote it",
          ": read_write", NULL);
  unload(&f);
}

static void spill_read_before_written(void **state) {
  (void)state;
  fixture f = load(SPILLS);
  /* segment 0 forgets to save n: no store, so (bound only where touched) no
     binding and no save either */
  vc_split_segment *g = &f.s->segs[0];
  uint32_t n = spill_buffer(&f, "n");
  assert_int_equal(g->bind[g->nbind - 1], n);
  uint32_t local = g->nbind - 1;
  uint32_t i = 0;
  while (i < g->prog->entry->nkids && !(g->prog->entry->kids[i]->kind == VC_S_STORE &&
                                        g->prog->entry->kids[i]->ref == local))
    i++;
  assert_true(i < g->prog->entry->nkids);
  remove_kid(g->prog->entry, i);
  drop_last_binding(g);
  drop_listed(g->spill_out, &g->nspill_out, f.s->spill_sym[n - f.s->nuser]);
  refused(&f, VC_PLAN_SPILL_ORDER, "segment 2", "reads spill buffer __spill_n_2 (value n)",
          "before any earlier segment wrote it", NULL);
  unload(&f);
}

static void wide_value_in_narrow_slot(void **state) {
  (void)state;
  fixture f = load(SPILLS);
  /* h (u64) in 32-bit slots, consistently in every segment's table */
  uint32_t h = spill_buffer(&f, "h");
  f.s->buffers[h].type = VC_U32;
  for (uint32_t k = 0; k < f.s->nsegs; k++)
    for (uint32_t i = 0; i < f.s->segs[k].nbind; i++)
      if (f.s->segs[k].bind[i] == h) f.s->segs[k].prog->buffers[i].type = VC_U32;
  refused(&f, VC_PLAN_SPILL_SLOT, "spill buffer __spill_h_1 holds h, a u64, in u32 elements",
          "(32 bits)", "needs u64 elements (64 bits)", NULL);
  unload(&f);
}

static void recomputed_operand_not_available(void **state) {
  (void)state;
  fixture f = load(REMATS);
  /* segment 1 recomputes k = 7 gid + 3 without gid */
  vc_split_segment *g = &f.s->segs[1];
  uint32_t gid = 0;
  while (strcmp(f.p->syms[gid].name, "gid") != 0) gid++;
  uint32_t i = 0;
  while (!(g->prog->entry->kids[i]->kind == VC_S_LET && g->prog->entry->kids[i]->ref == gid)) i++;
  remove_kid(g->prog->entry, i);
  drop_listed(g->remat, &g->nremat, gid);
  refused(&f, VC_PLAN_RECOMPUTE, "segment 1 (recomputed_lets.seg1)", "recomputed let k uses gid",
          "not available", NULL);
  unload(&f);
}

static void recomputed_let_that_loads(void **state) {
  (void)state;
  fixture f = load(SPILLS);
  /* segment 2 recomputes g; make it g = a[0], a load */
  vc_split_segment *g = &f.s->segs[2];
  assert_int_equal(g->nremat, 1);
  vc_node *let = NULL;
  for (uint32_t i = 0; i < g->prog->entry->nkids && !let; i++)
    if (g->prog->entry->kids[i]->kind == VC_S_LET && g->prog->entry->kids[i]->ref == g->remat[0])
      let = g->prog->entry->kids[i];
  assert_non_null(let);
  vc_node *ld = vc_node_new(g->prog, VC_E_LOAD, (vc_loc){0, 0}, 1);
  ld->space = VC_SPACE_BUFFER;
  ld->ref = 2; /* __spill_h_1, bound and read there */
  ld->type = VC_U64;
  ld->kids[0] = let->kids[0];
  let->kids[0] = ld;
  refused(&f, VC_PLAN_RECOMPUTE, "segment 2", "recomputed let g reads memory", NULL);
  unload(&f);
}

static void wrong_segment_count(void **state) {
  (void)state;
  fixture f = load(SPILLS);
  /* the middle segment left out of the plan */
  vc_program_free(f.s->segs[1].prog);
  memmove(&f.s->segs[1], &f.s->segs[2], sizeof *f.s->segs);
  f.s->nsegs--;
  f.s->barriers--;
  refused(&f, VC_PLAN_SEGMENTS, "has 2 segments", "the source has 2 grid barriers (3 segments)",
          NULL);
  unload(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(grid_barrier_left_in_segment),
      cmocka_unit_test(touched_buffer_missing_from_table),
      cmocka_unit_test(wrong_access),
      cmocka_unit_test(fresh_binding_of_an_earlier_write),
      cmocka_unit_test(spill_read_before_written),
      cmocka_unit_test(wide_value_in_narrow_slot),
      cmocka_unit_test(recomputed_operand_not_available),
      cmocka_unit_test(recomputed_let_that_loads),
      cmocka_unit_test(wrong_segment_count),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
