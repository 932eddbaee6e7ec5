/* The printer: parse -> print -> parse gives an equal program, for written
 * programs, for generated ones, and for every file of the corpus. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "harness/lang/parse.h"
#include "harness/lang/print.h"
#include "parser_util.h"
#include "program_gen.h"

/* Every form, statement, expression and initialiser at least once. */
static const char *const written[] = {
    "(program everything\n"
    "  (doc \"covers \\\"every\\\" form \\\\ of the format\")\n"
    "  (tags large slow.ish x-y)\n"
    "  (workgroup 8 4 2)\n"
    "  (grid 3 2 1)\n"
    "  (buffer zero u32 16 read (init zero))\n"
    "  (buffer iota f32 16 read (init iota))\n"
    "  (buffer fill i32 16 read (init (fill -2147483648)))\n"
    "  (buffer vals f32 16 read_write (init (values 0x7fc00000f 0x7f800000f 0xff800000f -0.0 "
    "1e-45\n"
    "                                          1.1754942e-38 3.4028235e38 0.1 -2.5e-20 7f)))\n"
    "  (buffer uvals u32 4 read (init (values 4294967295 0 0xdeadbeef)))\n"
    "  (buffer ivals i32 4 read (init (values -2147483648 2147483647i 0xffffffffi)))\n"
    "  (buffer hex u32 4 read (init (hex \"00010203ff\")))\n"
    "  (buffer rnd u32 64 read (init (random 0xfedcba9876543210)))\n"
    "  (buffer rndf f32 64 read_write (init (random-f32 7 -1e-3 2.5e30)))\n"
    "  (buffer flag u32 1 read_write)\n"
    "  (buffer out i32 64 write)\n"
    "  (shared tile u32 256)\n"
    "  (shared ftile f32 16)\n"
    "  (fixpoint (max 10) (flag flag))\n"
    "  (expect out-of-bounds)\n"
    "  (expect (ulp vals 4))\n"
    "  (expect (ulp rndf 0))\n"
    "  (expect (digest \"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\"))\n"
    "  (expect reject \"a \\\"quoted\\\" reason\")\n"
    "  (expect (passes 3))\n"
    "  (expect (converges))\n"
    "  (entry\n"
    "    (let gid (global_id x))\n"
    "    (let lid (add (local_id y) (add (group_id z) (add (num_groups x) (group_size y)))))\n"
    "    (var acc 0i)\n"
    "    (var f 1.5)\n"
    "    (set f (div (mul f 2.0) (sub (load vals gid) (neg f))))\n"
    "    (set f (min (max f (abs f)) (bitcast f32 (load zero 0u))))\n"
    "    (set acc (rem (div acc 3i) (cast i32 f)))\n"
    "    (set acc (shl (shr (and acc (or 1i (xor acc (not acc)))) 1i) 2i))\n"
    "    (store tile lid (select (land (lt gid 4u) (lor (le gid 1u) (lnot (ge gid 9u))))\n"
    "                            (eq gid 1u) (ne gid (gt lid 2u))))\n"
    "    (store ftile 0u (cast f32 gid))\n"
    "    (atomic add flag 0u 1u)\n"
    "    (atomic cmpxchg tile 0u 1u 2u)\n"
    "    (let old (atomic exchange out gid (atomic max out 1u -5i)))\n"
    "    (atomic sub out 2u (atomic min out 3u old))\n"
    "    (atomic and tile 1u (atomic or tile 2u (atomic xor tile 3u 0xffu)))\n"
    "    (barrier workgroup)\n"
    "    (if (lt gid 2u)\n"
    "      (block\n"
    "        (let inner 2u)\n"
    "        (store tile inner gid))\n"
    "      (return))\n"
    "    (if 1u (barrier workgroup))\n"
    "    (loop i 0u 4u)\n"
    "    (loop j -3 3i\n"
    "      (set acc (add acc j))\n"
    "      (loop k 0u 2u\n"
    "        (store out k acc)))\n"
    "    (block)\n"
    "    (block\n"
    "      (barrier grid)\n"
    "      (block (barrier grid)))\n"
    "    (barrier grid)\n"
    "    (store out gid (add acc (load fill gid)))))\n",
    "(program minimal (entry))\n",
    "(program one_liner (buffer o u32 1 write) (entry (store o 0u 1u)))",
    "(program loops (buffer o u32 4 read_write) (shared s i32 2)\n"
    "  (entry (var n 0u) (while (lt n (atomic load o 0u)) (set n (add n 1u))\n"
    "    (if (eq n 2u) (continue) (atomic store s 1u -3i))\n"
    "    (loop i 0u 3u (while 1u (break)) (continue) (break)))\n"
    "   (atomic store o 1u (atomic load o 2u))))",
    "(program expected (buffer o i32 12 write) (buffer f f32 2 read_write)\n"
    "  (expect (buffer o (values 1i -2i 3i 4i 5i 6i 7i 8i 9i 10i)))\n"
    "  (expect (buffer o (at 10) (values -2147483648i)))"
    "  (expect (buffer f (at 1) (values -0.0f)))\n"
    "  (entry))",
    "(program wide (buffer a u64 4 read (init (values 0u64 18446744073709551615u64 7u64)))\n"
    "  (buffer b i64 4 read_write (init (fill -9223372036854775808i64)))\n"
    "  (buffer r u64 2 read (init (random 0x123456789abcdef0))) (shared t i64 2)\n"
    "  (expect (buffer b (at 1) (values 9223372036854775807i64 -1i64)))\n"
    "  (entry (let x (add (load a 1u) 0xfedcba9876543210u64))\n"
    "   (atomic max b 0u (bitcast i64 x)) (store t 0u (cast i64 (cast f32 x)))\n"
    "   (store b 1u (shr (load t 0u) 63i64))))",
};

static void written_programs(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof written / sizeof written[0]; i++) {
    vc_program *p = pt_parse_ok(written[i]);
    pt_assert_roundtrip(p);
    vc_program_free(p);
  }
}

/* The canonical layout, exactly. */
static void canonical_layout(void **state) {
  (void)state;
  const char *want =
      "(program lay\n"
      "  (doc \"d\")\n"
      "  (tags t)\n"
      "  (workgroup 1 2)\n"
      "  (grid 2)\n"
      "  (buffer o f32 9 read_write (init (values\n"
      "      1.0f 2.0f 3.0f 4.0f 5.0f 6.0f 7.0f 8.0f\n"
      "      9.5f)))\n"
      "  (shared s i32 2)\n"
      "  (fixpoint (max 2))\n"
      "  (expect out-of-bounds)\n"
      "  (entry\n"
      "    (let a 1u)\n"
      "    (if (eq a 2u)\n"
      "      (block\n"
      "        (return))\n"
      "      (loop i 0u a\n"
      "        (barrier workgroup)))))\n";
  const char *good =
      "(program  lay\n(entry (let a 1) (if (eq a 2u) (block (return)) (loop i 0 a\n"
      "(barrier workgroup)))) (expect out-of-bounds) (buffer o f32 9 read_write\n"
      "(init (values 1f 2f 3f 4f 5f 6f 7f 8f 9.5))) (shared s i32 2) (grid 2 1 1)\n"
      "(fixpoint (max 2)) (doc \"d\") (tags t) (workgroup 1 2))";
  vc_program *p = pt_parse_ok(good);
  char *text = pt_print(p);
  assert_string_equal(text, want);
  free(text);
  vc_program_free(p);
}

static void node_on_one_line(void **state) {
  (void)state;
  vc_program *p = pt_parse_ok(
      "(program p (buffer o u32 4 write) (entry (if (lt (global_id x) 4u)"
      " (block (store o 0u 1u) (atomic add o 1u 2u)) (return))))");
  vc_strbuf sb;
  vc_sb_init(&sb);
  vc_print_node(p, p->entry->kids[0], &sb);
  assert_string_equal(vc_sb_str(&sb),
                      "(if (lt (global_id x) 4u) (block (store o 0u 1u) "
                      "(atomic add o 1u 2u)) (return))");
  vc_sb_free(&sb);
  vc_sb_init(&sb);
  vc_print_node(p, p->entry->kids[0]->kids[0], &sb);
  assert_string_equal(vc_sb_str(&sb), "(lt (global_id x) 4u)");
  vc_sb_free(&sb);
  vc_program_free(p);
}

/* The splitter's spill buffers print as they are, marked by a comment. */
static void spill_buffers_print(void **state) {
  (void)state;
  vc_program *p = pt_parse_ok("(program p (buffer o u32 4 write) (entry))");
  vc_buffer *b = vc_arena_alloc(&p->arena, 2 * sizeof *b);
  b[0] = p->buffers[0];
  b[1] = (vc_buffer){.name = "__spill0",
                     .type = VC_F32,
                     .count = 64,
                     .access = VC_READ_WRITE,
                     .init = {.kind = VC_INIT_NONE},
                     .role = VC_ROLE_SPILL};
  p->buffers = b;
  p->nbuffers = 2;
  char *text = pt_print(p);
  assert_non_null(strstr(text, "\n  (buffer __spill0 f32 64 read_write) ; spill\n"));
  free(text);
  vc_program_free(p);
}

/* ---- generated programs ---- */

static void generated_programs(void **state) {
  (void)state;
  for (uint64_t seed = 1; seed <= 400; seed++) {
    vc_program *p = pg_generate(seed);
    pt_assert_roundtrip(p);
    vc_program_free(p);
  }
}

/* ---- the corpus ---- */

typedef struct corpus_walk {
  uint32_t files, checked, rejects;
} corpus_walk;

static void check_corpus_file(const char *path, corpus_walk *w) {
  w->files++;
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = vc_parse_file(path, &d);
  bool reject = d.expect_reject != NULL;
  if (reject) {
    w->rejects++;
  } else {
    if (!p) vc_diags_print(&d, stderr);
    assert_non_null(p);
    pt_assert_roundtrip(p);
    w->checked++;
  }
  vc_program_free(p);
  vc_diags_free(&d);
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

static void walk(const char *dir, corpus_walk *w) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(path, &st) != 0) continue;
    if (S_ISDIR(st.st_mode))
      walk(path, w);
    else if (S_ISREG(st.st_mode) && ends_with(path, ".vyre"))
      check_corpus_file(path, w);
  }
  closedir(d);
}

static void corpus_programs(void **state) {
  (void)state;
  corpus_walk w = {0};
  walk(VC_SOURCE_DIR "/corpus", &w);
  printf("corpus: %u files, %u round-tripped, %u expected to be refused\n", w.files, w.checked,
         w.rejects);
  assert_int_equal(w.files, w.checked + w.rejects);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(written_programs),   cmocka_unit_test(canonical_layout),
      cmocka_unit_test(node_on_one_line),   cmocka_unit_test(spill_buffers_print),
      cmocka_unit_test(generated_programs), cmocka_unit_test(corpus_programs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
