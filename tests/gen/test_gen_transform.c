/* The equivalence transformations: each keeps the oracle's output bytes and
 * passes and leaves a program the check accepts (valid, split-on-oracle
 * agreeing), on generated programs and, built with VC_XF_CORPUS, on every
 * corpus program the check accepts; each changes the programs it can; the
 * same seed gives the same text; and the legality rules hold on programs
 * built so that an illegal move would change the output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness/exec/check.h"
#include "harness/gen/gen.h"
#include "harness/lang/corpus.h"
#include "harness/lang/parse.h"
#include "harness/lang/print.h"

static char *xf(const char *name, const char *src, uint64_t seed) {
  vc_strbuf sb;
  vc_sb_init(&sb);
  vc_error e;
  vc_error_clear(&e);
  if (vc_gen_transform(name, src, seed, &sb, &e)) fail_msg("%s: %s", name, e.msg);
  return vc_sb_take(&sb);
}

/* The printer's text of src: what a transformation that changes nothing gives. */
static char *printed(const char *src) {
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = vc_parse("p.vyre", src, strlen(src), &d);
  assert_non_null(p);
  vc_strbuf sb;
  vc_sb_init(&sb);
  vc_print_program(p, &sb);
  vc_program_free(p);
  vc_diags_free(&d);
  return vc_sb_take(&sb);
}

static bool check_ok(const char *src, char *why, size_t n) {
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = vc_parse("p.vyre", src, strlen(src), &d);
  vc_diags_free(&d);
  if (!p) {
    snprintf(why, n, "does not parse");
    return false;
  }
  vc_oracle_opts oo;
  memset(&oo, 0, sizeof oo);
  vc_check_result r;
  vc_check_program(p, &oo, &r);
  vc_program_free(p);
  snprintf(why, n, "%s", r.why);
  return r.verdict == VC_CHECK_OK;
}

/* Every transformation and the two chains on src: equivalent and checked;
   changed[t] counts the programs transformation t altered. */
static void all_transforms(const char *what, const char *src, uint64_t seed, uint32_t *changed) {
  static const char *const chains[] = {"all", "random"};
  char *base = printed(src);
  for (uint32_t t = 0; t < VC_GEN_TRANSFORM_COUNT + 2; t++) {
    const char *name = t < VC_GEN_TRANSFORM_COUNT ? vc_gen_transform_name((vc_gen_transform_id)t)
                                                  : chains[t - VC_GEN_TRANSFORM_COUNT];
    char *out = xf(name, src, seed);
    vc_error e;
    vc_error_clear(&e);
    if (vc_gen_equivalent(src, out, &e)) fail_msg("%s, %s seed %llu: %s\n%s", what, name,
                                                  (unsigned long long)seed, e.msg, out);
    char why[1024];
    if (!check_ok(out, why, sizeof why))
      fail_msg("%s, %s seed %llu: the check refuses the result: %s\n%s", what, name,
               (unsigned long long)seed, why, out);
    if (strcmp(out, base) != 0) changed[t]++;
    free(out);
  }
  free(base);
}

#ifndef VC_XF_CORPUS
static void generated_programs(void **state) {
  (void)state;
  uint32_t changed[VC_GEN_TRANSFORM_COUNT + 2] = {0}, n = 0;
  for (uint32_t size = VC_GEN_SMALL; size <= VC_GEN_MEDIUM; size++) {
    vc_gen_opts o = {size, VC_GEN_ALL_FEATURES, {0}};
    for (uint32_t i = 0; i < (size == VC_GEN_SMALL ? 300u : 60u); i++, n++) {
      vc_strbuf sb;
      vc_sb_init(&sb);
      assert_int_equal(vc_gen_program(&o, 31, i, &sb, NULL), 0);
      char what[64];
      snprintf(what, sizeof what, "generated %s %u", vc_gen_size_name((vc_gen_size)size), i);
      all_transforms(what, vc_sb_str(&sb), 1000 + i, changed);
      vc_sb_free(&sb);
    }
  }
  /* each transformation changes most programs it is given */
  for (uint32_t t = 0; t < VC_GEN_TRANSFORM_COUNT; t++) {
    print_message("%-15s changed %u of %u\n", vc_gen_transform_name((vc_gen_transform_id)t),
                  changed[t], n);
    /* move-barrier needs a local statement beside a barrier and no return before it */
    uint32_t least = t == VC_GEN_T_MOVE_BARRIER ? n / 8 : n / 2;
    if (changed[t] < least)
      fail_msg("%s changed only %u of %u programs", vc_gen_transform_name((vc_gen_transform_id)t),
               changed[t], n);
  }
}

static void same_text_per_seed(void **state) {
  (void)state;
  vc_gen_opts o;
  vc_gen_opts_default(&o);
  vc_strbuf sb;
  vc_sb_init(&sb);
  assert_int_equal(vc_gen_program(&o, 8, 3, &sb, NULL), 0);
  char *a = xf("random", vc_sb_str(&sb), 5), *b = xf("random", vc_sb_str(&sb), 5);
  assert_string_equal(a, b);
  free(a);
  free(b);
  vc_sb_free(&sb);
}

static void bad_input(void **state) {
  (void)state;
  vc_strbuf sb;
  vc_sb_init(&sb);
  vc_error e;
  vc_error_clear(&e);
  assert_int_equal(vc_gen_transform("shuffle", "(program p (entry))", 1, &sb, &e), VC_ERR_USAGE);
  assert_non_null(strstr(e.msg, "'shuffle'"));
  assert_int_equal(vc_gen_transform("rename", "(program p (entry (let x)))", 1, &sb, &e),
                   VC_ERR_PARSE);
  assert_int_equal(sb.len, 0);
  vc_sb_free(&sb);
}

/* The comparison the tests above rely on tells programs apart. */
static void equivalence_sees_differences(void **state) {
  (void)state;
  const char *a = "(program a (workgroup 2) (grid 2) (buffer o u32 4 write)\n"
                  "  (entry (store o (global_id x) (global_id x))))";
  const char *b = "(program a (workgroup 2) (grid 2) (buffer o u32 4 write)\n"
                  "  (entry (store o (global_id x) (min (global_id x) 2u))))";
  const char *c = "(program a (workgroup 2) (grid 2) (buffer p u32 4 write)\n"
                  "  (entry (store p (global_id x) (global_id x))))";
  const char *d = "(program a (workgroup 2) (grid 2) (buffer o u32 4 read_write)\n"
                  "  (fixpoint (max 2)) (entry (store o (global_id x) (global_id x))))";
  const char *racy = "(program a (workgroup 2) (grid 2) (buffer o u32 4 write)\n"
                     "  (entry (store o 0u (global_id x))))";
  vc_error e;
  vc_error_clear(&e);
  assert_int_equal(vc_gen_equivalent(a, a, &e), 0);
  assert_int_equal(vc_gen_equivalent(a, b, &e), VC_ERR_INTERNAL);
  assert_non_null(strstr(e.msg, "o differs at word 3"));
  assert_int_equal(vc_gen_equivalent(a, c, &e), VC_ERR_INTERNAL);
  assert_non_null(strstr(e.msg, "output buffer o became p"));
  assert_int_equal(vc_gen_equivalent(a, d, &e), VC_ERR_INTERNAL);
  assert_non_null(strstr(e.msg, "passes"));
  assert_int_equal(vc_gen_equivalent(a, racy, &e), VC_ERR_INVALID);
  assert_non_null(strstr(e.msg, "data race"));
  assert_int_equal(vc_gen_equivalent(a, "(program", NULL), VC_ERR_PARSE);
}

/* Programs where an illegal transformation shows: swapping the two stores,
   moving the let across the barrier past the return (invocations that
   return would then keep t = 0 or t = 7 in segment 1), or a barrier inside
   the segment before (return) would change out. */
static const char *const traps[] = {
    "(program t (workgroup 4) (grid 2) (buffer o u32 8 write)\n"
    "  (entry (let id (global_id x)) (store o id 1u) (store o id 2u)\n"
    "    (var v 3u) (set v (add v 1u)) (set v (mul v 5u)) (store o id (add (load o id) v))))",
    "(program t (workgroup 4) (grid 2) (buffer o u32 8 write) (buffer k u32 8 read (init iota))\n"
    "  (entry (let id (global_id x)) (var t 0u) (if (eq (rem id 2u) 0u) (return))\n"
    "    (set t 7u) (barrier grid) (set t (add t (load k id))) (store o id t)))",
    "(program t (workgroup 4) (grid 2) (buffer o u32 8 write)\n"
    "  (entry (let id (global_id x)) (var t 1u) (if (eq (rem id 3u) 0u) (return))\n"
    "    (set t (add t 5u)) (barrier grid) (store o id t)))",
};

static void legality(void **state) {
  (void)state;
  uint32_t changed[VC_GEN_TRANSFORM_COUNT + 2] = {0};
  for (uint32_t i = 0; i < sizeof traps / sizeof traps[0]; i++)
    for (uint64_t seed = 0; seed < 60; seed++) all_transforms("trap", traps[i], seed, changed);
}

/* What the transformations that must change something do change. */
static void changes_shown(void **state) {
  (void)state;
  const char *src =
      "(program c (workgroup 3) (grid 3) (buffer o u32 9 write) (buffer k u32 9 read (init iota))\n"
      "  (entry (let id (global_id x)) (let a (load k id)) (let b (add id 1u)) (barrier grid)\n"
      "    (let c (mul a 2u)) (store o id (add c b))))";
  char *e = xf("empty-segments", src, 1);
  assert_true(strstr(strstr(e, "(barrier grid)") + 1, "(barrier grid)") != NULL);
  char *d = xf("dead-code", src, 1);
  assert_non_null(strstr(d, " u32 1 read)"));
  assert_non_null(strstr(d, "(if "));
  char *r = xf("rename", src, 1);
  assert_null(strstr(r, "(let a "));
  bool moved = false, swapped = false;
  for (uint64_t s = 0; s < 20; s++) {
    char *m = xf("move-barrier", src, s), *o = xf("reorder", src, s);
    moved |= strstr(m, "(barrier grid)\n    (let b") != NULL ||
             strstr(m, "(let c (mul a 2u))\n    (barrier grid)") != NULL;
    swapped |= strstr(o, "(let b (add id 1u))\n    (let a") != NULL;
    free(m);
    free(o);
  }
  assert_true(moved);
  assert_true(swapped);
  free(e);
  free(d);
  free(r);
}

#else
static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  vc_strbuf sb;
  vc_sb_init(&sb);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) vc_sb_putn(&sb, buf, n);
  fclose(f);
  return vc_sb_take(&sb);
}

/* Every corpus program the check accepts (tagged large ones left out, as
   the default CI run does). */
static void corpus_programs(void **state) {
  (void)state;
  const char *paths[] = {VC_SOURCE_DIR "/corpus"};
  vc_corpus c;
  assert_int_equal(vc_corpus_collect(&c, paths, 1, NULL), 0);
  vc_corpus_parse(&c);
  uint32_t changed[VC_GEN_TRANSFORM_COUNT + 2] = {0}, n = 0;
  for (uint32_t i = 0; i < c.n; i++) {
    vc_program *p = c.files[i].program;
    if (!p || vc_program_has_tag(p, "large") || vc_program_expect(p, VC_EXPECT_REJECT)) continue;
    char *src = slurp(c.files[i].path), why[1024];
    if (check_ok(src, why, sizeof why)) {
      all_transforms(c.files[i].rel, src, i, changed);
      n++;
    }
    free(src);
  }
  print_message("%u corpus programs transformed\n", n);
  assert_true(n > 100);
  vc_corpus_free(&c);
}
#endif

int main(void) {
  const struct CMUnitTest tests[] = {
#ifdef VC_XF_CORPUS
      cmocka_unit_test(corpus_programs),
#else
      cmocka_unit_test(generated_programs), cmocka_unit_test(same_text_per_seed),
      cmocka_unit_test(bad_input),          cmocka_unit_test(legality),
      cmocka_unit_test(equivalence_sees_differences),
      cmocka_unit_test(changes_shown),
#endif
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
