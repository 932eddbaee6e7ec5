/* The generator: the same bytes per (options, seed, index), every program
 * valid (checked on the oracle and split-on-oracle), every construct of the
 * feature table occurring, --features restricting what occurs, and the
 * option words it accepts. */
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
#include "harness/lang/parse.h"

static char *gen(const vc_gen_opts *o, uint64_t seed, uint32_t index, vc_gen_stats *st) {
  vc_strbuf sb;
  vc_sb_init(&sb);
  vc_error e;
  vc_error_clear(&e);
  int rc = vc_gen_program_ex(o, seed, index, true, st, &sb, &e);
  if (rc) fail_msg("%s", e.msg);
  return vc_sb_take(&sb);
}

static void same_bytes_per_seed(void **state) {
  (void)state;
  for (uint32_t size = VC_GEN_SMALL; size <= VC_GEN_LARGE; size++) {
    vc_gen_opts o = {size, VC_GEN_ALL_FEATURES, {0}};
    for (uint32_t i = 0; i < 20; i++) {
      char *a = gen(&o, 42, i, NULL), *b = gen(&o, 42, i, NULL);
      char *c = gen(&o, 43, i, NULL), *d = gen(&o, 42, i + 1, NULL);
      assert_string_equal(a, b);
      /* the name holds seed and index; the rest must differ too */
      assert_string_not_equal(strchr(a, '\n'), strchr(c, '\n'));
      assert_string_not_equal(strchr(a, '\n'), strchr(d, '\n'));
      free(a);
      free(b);
      free(c);
      free(d);
    }
  }
}

/* The unchecked text is the checked one: the check decides nothing but
   whether the program is written. */
static void check_changes_no_byte(void **state) {
  (void)state;
  vc_gen_opts o;
  vc_gen_opts_default(&o);
  for (uint32_t i = 0; i < 20; i++) {
    vc_strbuf a, b;
    vc_sb_init(&a);
    vc_sb_init(&b);
    assert_int_equal(vc_gen_program_ex(&o, 9, i, false, NULL, &a, NULL), 0);
    assert_int_equal(vc_gen_program(&o, 9, i, &b, NULL), 0);
    assert_string_equal(vc_sb_str(&a), vc_sb_str(&b));
    vc_sb_free(&a);
    vc_sb_free(&b);
  }
}

/* Every generated program is valid: vc_gen_program fails on one the check
   refuses, and here the check runs again from the text as `check` would. */
static void all_valid(uint32_t size, uint32_t n, uint64_t seed) {
  vc_gen_opts o = {size, VC_GEN_ALL_FEATURES, {0}};
  for (uint32_t i = 0; i < n; i++) {
    char *t = gen(&o, seed, i, NULL);
    if (i % 10 == 0) {
      vc_diags d;
      vc_diags_init(&d);
      vc_program *p = vc_parse("g.vyre", t, strlen(t), &d);
      assert_non_null(p);
      vc_oracle_opts oo;
      memset(&oo, 0, sizeof oo);
      vc_check_result r;
      vc_check_program(p, &oo, &r);
      if (r.verdict != VC_CHECK_OK) fail_msg("seed %llu index %u: %s", (unsigned long long)seed, i, r.why);
      vc_program_free(p);
      vc_diags_free(&d);
    }
    free(t);
  }
}

/* The sanitizer build checks memory, not the generator's statistics: it
   runs a tenth of the programs (the release build all of them). */
#if defined(__SANITIZE_ADDRESS__)
#define SHARE 10u
#else
#define SHARE 1u
#endif

static void valid_small(void **state) {
  (void)state;
  all_valid(VC_GEN_SMALL, 3000 / SHARE, 1);
}
static void valid_medium(void **state) {
  (void)state;
  all_valid(VC_GEN_MEDIUM, 2000 / SHARE, 2);
}
static void valid_large(void **state) {
  (void)state;
  all_valid(VC_GEN_LARGE, 1000 / SHARE, 3);
}

/* What a program's text shows when its stats count a construct. */
static const char *marker(vc_gen_feature f) {
  switch (f) {
  case VC_GEN_GRID_BARRIER: return "(barrier grid)";
  case VC_GEN_RETURN: return "(return)";
  case VC_GEN_IF: return "(if ";
  case VC_GEN_LOOP: return "(loop ";
  case VC_GEN_WHILE: return "(while ";
  case VC_GEN_ATOMIC: return "(atomic ";
  case VC_GEN_SHARED: return "(barrier workgroup)";
  case VC_GEN_FIXPOINT: return "(fixpoint (max";
  case VC_GEN_FIXPOINT_FLAG: return "(flag flag)";
  case VC_GEN_I32: return "i32";
  case VC_GEN_F32: return " f32 "; /* "f32" may stand in a hex seed */
  case VC_GEN_U64: return "u64";
  case VC_GEN_I64: return "i64";
  case VC_GEN_CAST: return "cast ";
  case VC_GEN_SELECT: return NULL; /* comparisons have many spellings */
  case VC_GEN_DIM2: return "(global_id y)";
  case VC_GEN_DIM3: return "(global_id z)";
  case VC_GEN_OOB: return "(expect out-of-bounds)";
  case VC_GEN_F32_DIV: return "(div (cast f32";
  default: return NULL;
  }
}

/* Each construct occurs, and where it is counted the program shows it. */
static void every_construct_occurs(void **state) {
  (void)state;
  vc_gen_stats total;
  memset(&total, 0, sizeof total);
  for (uint32_t size = VC_GEN_SMALL; size <= VC_GEN_MEDIUM; size++) {
    vc_gen_opts o = {size, VC_GEN_ALL_FEATURES, {0}};
    for (uint32_t i = 0; i < 600; i++) {
      vc_gen_stats one;
      memset(&one, 0, sizeof one);
      char *t = gen(&o, 77, i, &one);
      for (uint32_t f = 0; f < VC_GEN_FEATURE_COUNT; f++) {
        total.count[f] += one.count[f];
        const char *m = marker((vc_gen_feature)f);
        bool typed = f == VC_GEN_I32 || f == VC_GEN_F32 || f == VC_GEN_U64 || f == VC_GEN_I64;
        if (one.count[f] && m && !typed && !strstr(t, m)) /* a literal 5i shows no "i32" */
          fail_msg("program %u counts %s but has no \"%s\"", i,
                   vc_gen_feature_name((vc_gen_feature)f), m);
      }
      free(t);
    }
  }
  for (uint32_t f = 0; f < VC_GEN_FEATURE_COUNT; f++)
    if (!total.count[f]) fail_msg("%s never occurred", vc_gen_feature_name((vc_gen_feature)f));
}

/* Without a feature its construct does not occur (and the programs stay valid). */
static void features_restrict(void **state) {
  (void)state;
  for (uint32_t f = 0; f < VC_GEN_FEATURE_COUNT; f++) {
    const char *m = marker((vc_gen_feature)f);
    /* y is in every 3-D program; return, break and partial writes stand
       under ifs, and a flag fixpoint is a fixpoint too */
    if (!m || f == VC_GEN_DIM2 || f == VC_GEN_IF || f == VC_GEN_FIXPOINT) continue;
    vc_gen_opts o = {VC_GEN_SMALL, VC_GEN_ALL_FEATURES & ~(UINT64_C(1) << f), {0}};
    for (uint32_t i = 0; i < 150; i++) {
      vc_gen_stats one;
      memset(&one, 0, sizeof one);
      char *t = gen(&o, 5, i, &one);
      const char *body = strstr(t, "\n  (workgroup"); /* past the doc, which lists the features */
      assert_non_null(body);
      if (strstr(body, m))
        fail_msg("without %s program %u has \"%s\"", vc_gen_feature_name((vc_gen_feature)f), i, m);
      assert_int_equal(one.count[f], 0);
      free(t);
    }
  }
  /* and by the counts, every construct: left out, it is never counted */
  for (uint32_t f = 0; f < VC_GEN_FEATURE_COUNT; f++) {
    vc_gen_opts o = {VC_GEN_MEDIUM, VC_GEN_ALL_FEATURES & ~(UINT64_C(1) << f), {0}};
    vc_gen_stats st;
    memset(&st, 0, sizeof st);
    for (uint32_t i = 0; i < 40; i++) free(gen(&o, 6, i, &st));
    if (st.count[f]) fail_msg("without %s it was counted %llu times",
                              vc_gen_feature_name((vc_gen_feature)f),
                              (unsigned long long)st.count[f]);
  }
}

/* The proof: a text the check refuses is a generator bug naming seed and
   index (a race, as a faulty generator would write it). */
static void refusal_names_seed_and_index(void **state) {
  (void)state;
  vc_error e;
  vc_error_clear(&e);
  const char *racy = "(program r (workgroup 4) (grid 2) (buffer o u32 8 read_write)\n"
                     "  (entry (store o (global_id x) (load o (rem (add (global_id x) 1u) 8u)))))";
  assert_int_equal(vc_gen_check_text(racy, 12, 34, &e), VC_ERR_INTERNAL);
  assert_non_null(strstr(e.msg, "generator bug: seed 12 index 34 is invalid: data race"));
  assert_int_equal(vc_gen_check_text("(program", 1, 2, &e), VC_ERR_INTERNAL);
  assert_non_null(strstr(e.msg, "seed 1 index 2 does not parse"));
  vc_gen_opts o;
  vc_gen_opts_default(&o);
  vc_strbuf sb;
  vc_sb_init(&sb);
  assert_int_equal(vc_gen_program_ex(&o, 3, 4, false, NULL, &sb, NULL), 0);
  assert_int_equal(vc_gen_check_text(vc_sb_str(&sb), 3, 4, &e), 0);
  vc_sb_free(&sb);
}

static void option_words(void **state) {
  (void)state;
  uint32_t size = 9;
  uint64_t feat = 0;
  vc_error e;
  vc_error_clear(&e);
  assert_int_equal(vc_gen_size_parse("medium", &size, &e), 0);
  assert_int_equal(size, VC_GEN_MEDIUM);
  assert_int_equal(vc_gen_size_parse("huge", &size, &e), VC_ERR_USAGE);
  assert_non_null(strstr(e.msg, "huge"));
  assert_int_equal(vc_gen_features_parse("loop,while", &feat, &e), 0);
  assert_int_equal(feat, (UINT64_C(1) << VC_GEN_LOOP) | (UINT64_C(1) << VC_GEN_WHILE));
  assert_int_equal(vc_gen_features_parse("all", &feat, &e), 0);
  assert_int_equal(feat, VC_GEN_ALL_FEATURES);
  assert_int_equal(vc_gen_features_parse("loop,nope", &feat, &e), VC_ERR_USAGE);
  assert_non_null(strstr(e.msg, "'nope'"));
  vc_strbuf sb;
  vc_sb_init(&sb);
  vc_gen_features_print((UINT64_C(1) << VC_GEN_LOOP) | (UINT64_C(1) << VC_GEN_OOB), &sb);
  assert_string_equal(vc_sb_str(&sb), "loop,oob");
  /* weights: NAME=PCT, 0 leaves the construct out; printed as parsed */
  vc_gen_opts o;
  vc_gen_opts_default(&o);
  assert_int_equal(vc_gen_opts_features_parse("all,loop=250,hex=0,if=100", &o, &e), 0);
  assert_int_equal(o.weight[VC_GEN_LOOP], 250);
  assert_int_equal(o.weight[VC_GEN_IF], 0);
  assert_int_equal(o.features, VC_GEN_ALL_FEATURES & ~(UINT64_C(1) << VC_GEN_HEX));
  sb.len = 0;
  vc_gen_opts_features_print(&o, &sb);
  assert_non_null(strstr(vc_sb_str(&sb), ",loop=250"));
  assert_null(strstr(vc_sb_str(&sb), "hex"));
  for (const char *bad = "loop=x\0loop=\0loop=1001\0loop=-1\0nope=5\0"; *bad; bad += strlen(bad) + 1)
    if (vc_gen_opts_features_parse(bad, &o, &e) != VC_ERR_USAGE) fail_msg("'%s' accepted", bad);
  vc_sb_free(&sb);
}

/* A weight changes how often its construct occurs: more above 100, fewer
   below, as --stats counts it. */
static void weights_change_rates(void **state) {
  (void)state;
  static const vc_gen_feature fs[] = {VC_GEN_LOOP, VC_GEN_SHARED, VC_GEN_HEX, VC_GEN_XCHG_STMT,
                                      VC_GEN_RETURN, VC_GEN_CAST};
  for (uint32_t k = 0; k < sizeof fs / sizeof fs[0]; k++) {
    uint64_t n[3];
    static const uint16_t w[3] = {30, 100, 300};
    for (uint32_t j = 0; j < 3; j++) {
      vc_gen_opts o = {VC_GEN_SMALL, VC_GEN_ALL_FEATURES, {0}};
      o.weight[fs[k]] = w[j];
      vc_gen_stats st;
      memset(&st, 0, sizeof st);
      for (uint32_t i = 0; i < 200; i++) free(gen(&o, 8, i, &st));
      n[j] = st.count[fs[k]];
    }
    if (!(n[0] < n[1] && n[1] < n[2]))
      fail_msg("%s at 30, 100, 300: %llu, %llu, %llu", vc_gen_feature_name(fs[k]),
               (unsigned long long)n[0], (unsigned long long)n[1], (unsigned long long)n[2]);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(same_bytes_per_seed),   cmocka_unit_test(check_changes_no_byte),
      cmocka_unit_test(valid_small),           cmocka_unit_test(valid_medium),
      cmocka_unit_test(valid_large),           cmocka_unit_test(every_construct_occurs),
      cmocka_unit_test(features_restrict),     cmocka_unit_test(option_words),
      cmocka_unit_test(refusal_names_seed_and_index), cmocka_unit_test(weights_change_rates),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
