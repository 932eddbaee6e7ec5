/* The report sections that HTML and Markdown share (results/report/
 * sections.c): each says the same words in both dialects, and the dialects
 * spell only. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "results/report/markup.h"
#include "results/report/sections.h"
#include "results/store/record.h"

static char base_path[512], cand_path[512], exp_path[512];

/* The baseline passes everywhere but in `wide`; the candidates have a new
   failure, a known one, unsupported cells, a flake, a crash with captured
   standard error, planted faults, and a newer run left unfinished. */
static const fx_prog base_progs[] = {{"atomics_add", "ppp", 3, 0},
                                     {"barrier_chain", "ppp", 8, 0},
                                     {"shaky", "ppp", 4, 0},
                                     {"wide", "pep", 20, 0},
                                     {"wide_u", "ppp", 5, 0}};
static const fx_prog cand_progs[] = {{"atomics_add", "ppp", 3, 0},
                                     {"barrier_chain", "dpp", 8, 0},
                                     {"shaky", "fpf", 4, 0},
                                     {"wide", "ppp", 20, 0},
                                     {"wide_u", "uuc", 5, 0}};
static const fx_extra cand_extras[] = {[1] = {.err_text = "driver: lost a barrier\n"},
                                       [4] = {.path = "corpus/odd/with `ticks` | pipes.vyre",
                                              .err_text = "abort at step 2 | `tick`\n"}};

static int setup(void **state) {
  fx_tmp_setup(state);
  fx_path(&fx_tmp, "base.db", base_path);
  fx_path(&fx_tmp, "cand.db", cand_path);
  fx_path(&fx_tmp, "known.txt", exp_path);
  const char text[] = "fail barrier_chain native reason=\"the driver's barrier bug\"\n";
  fx_write_file(exp_path, text, strlen(text));
  fx_write_run(base_path, &(fx_run){.progs = base_progs, .nprogs = 5});
  fx_write_run(cand_path, &(fx_run){.progs = cand_progs,
                                    .nprogs = 5,
                                    .repeats = 3,
                                    .extras = cand_extras,
                                    .command_line = "vyre-conform --backend vulkan --inject-flip "
                                                    "native:out:3 corpus/"});
  fx_write_run(cand_path, &(fx_run){.progs = cand_progs, .nprogs = 5, .backend = "opencl"});
  fx_write_run(cand_path, &(fx_run){.progs = cand_progs, .nprogs = 5, .end_status = ""});
  return 0;
}

static vc_run_data *load_run(const char *path, int64_t id) {
  vc_error err = {0};
  vc_run_data *r;
  assert_int_equal(vc_run_load(path, id, &r, &err), 0);
  return r;
}

/* The words of a text without its markup: tags, entities, fence lines
   (```lang) and every other sign go; the runs of letters and digits stay,
   one space between them. */
static void words(const char *text, vc_strbuf *out) {
  bool line_start = true;
  for (const char *p = text; *p;) {
    if (line_start && !strncmp(p, "```", 3)) {
      while (*p && *p != '\n') p++;
      continue;
    }
    line_start = *p == '\n';
    const char *end = NULL;
    if (*p == '<' && (isalpha((unsigned char)p[1]) || p[1] == '/')) end = strchr(p, '>');
    if (*p == '&') {
      const char *semi = strchr(p, ';');
      if (semi && semi - p <= 8) end = semi;
    }
    if (end) {
      p = end + 1;
    } else if (isalnum((unsigned char)*p)) {
      vc_sb_putc(out, *p++);
      continue;
    } else {
      p++;
    }
    if (out->len && vc_sb_str(out)[out->len - 1] != ' ') vc_sb_putc(out, ' ');
  }
}

typedef void (*section_fn)(const vc_markup *d, const vc_qual *q, vc_strbuf *sb);

static void assert_same_words(const char *what, const char *html, const char *md) {
  vc_strbuf a, b;
  vc_sb_init(&a);
  vc_sb_init(&b);
  words(html, &a);
  words(md, &b);
  const char *x = vc_sb_str(&a), *y = vc_sb_str(&b);
  size_t i = 0;
  while (x[i] && x[i] == y[i]) i++;
  if (x[i] || y[i])
    fail_msg("%s: the HTML and the Markdown say different things from \"...%.60s\":\n"
             "HTML:     %.120s\nMarkdown: %.120s",
             what, i > 60 ? x + i - 60 : x, x + i, y + i);
  if (a.len < 40) fail_msg("%s: says almost nothing: \"%s\"", what, x);
  vc_sb_free(&a);
  vc_sb_free(&b);
}

static void build(vc_qual *q, vc_run_data **runs, vc_run_data **base) {
  runs[0] = load_run(cand_path, 1);
  runs[1] = load_run(cand_path, 2);
  *base = load_run(base_path, 1);
  /* q points into its options until vc_qual_free: they outlive this call */
  static vc_report_opts opts;
  opts = (vc_report_opts){.expectations = exp_path, .baseline = *base};
  vc_error err = {0};
  if (vc_qual_build((const vc_run_data *const *)runs, 2, &opts, q, &err))
    fail_msg("judging the runs: %s", err.msg);
}

static void release(vc_qual *q, vc_run_data **runs, vc_run_data *base) {
  vc_qual_free(q);
  vc_run_free(runs[0]);
  vc_run_free(runs[1]);
  vc_run_free(base);
}

/* Every shared section says the same words in HTML and Markdown. */
static void test_sections_say_the_same(void **state) {
  (void)state;
  vc_qual q;
  vc_run_data *runs[2], *base;
  build(&q, runs, &base);
  assert_true(q.has_cmp);
  assert_true(q.planted);
  static const struct {
    const char *name;
    section_fn fn;
  } sections[] = {{"changes", vc_section_changes},
                  {"counts", vc_section_counts},
                  {"flakes", vc_section_flakes},
                  {"failures", vc_section_failures}};
  for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++) {
    vc_strbuf html, md;
    vc_sb_init(&html);
    vc_sb_init(&md);
    sections[i].fn(&vc_markup_html, &q, &html);
    sections[i].fn(&vc_markup_md, &q, &md);
    assert_same_words(sections[i].name, vc_sb_str(&html), vc_sb_str(&md));
    vc_sb_free(&html);
    vc_sb_free(&md);
  }
  /* the first screen after the dialect's own opening (box or title), and
     the record of each run */
  vc_strbuf html, md, open;
  vc_sb_init(&html);
  vc_sb_init(&md);
  vc_sb_init(&open);
  vc_section_first_screen(&vc_markup_html, &q, &html);
  vc_markup_html.verdict_open(&open, &q);
  assert_memory_equal(vc_sb_str(&html), vc_sb_str(&open), open.len);
  size_t html_skip = open.len;
  open.len = 0;
  vc_section_first_screen(&vc_markup_md, &q, &md);
  vc_markup_md.verdict_open(&open, &q);
  assert_memory_equal(vc_sb_str(&md), vc_sb_str(&open), open.len);
  assert_same_words("first screen", vc_sb_str(&html) + html_skip, vc_sb_str(&md) + open.len);
  assert_non_null(strstr(vc_sb_str(&md), "**Warning:**"));
  assert_non_null(strstr(vc_sb_str(&md), "**Run 1 had faults planted on purpose:**"));
  html.len = md.len = 0;
  vc_section_run_record(&vc_markup_html, runs[0], &html);
  vc_section_run_record(&vc_markup_md, runs[0], &md);
  assert_same_words("run record", vc_sb_str(&html), vc_sb_str(&md));
  vc_sb_free(&html);
  vc_sb_free(&md);
  vc_sb_free(&open);
  release(&q, runs, base);
}

/* What the sections decide, in the Markdown too: the known entries and the
   unsupported reasons name their cells; a failure-free report says why. */
static void test_sections_name_their_cells(void **state) {
  (void)state;
  vc_qual q;
  vc_run_data *runs[2], *base;
  build(&q, runs, &base);
  vc_strbuf md;
  vc_sb_init(&md);
  vc_section_counts(&vc_markup_md, &q, &md);
  const char *text = vc_sb_str(&md);
  assert_non_null(strstr(text, "- **the driver's barrier bug** (line 1; scope `barrier_chain "
                               "native`): 1 cell: `barrier_chain` native\n"));
  assert_non_null(
      strstr(text, "- unsupported in native: planted by the test: 1 cell (`wide_u` native)\n"));
  assert_non_null(strstr(text, "\nMedians are over the programs"));
  vc_sb_free(&md);
  release(&q, runs, base);

  const fx_prog pass[] = {{"a", "ppp", 1, 0}};
  char path[512];
  fx_path(&fx_tmp, "pass.db", path);
  fx_write_run(path, &(fx_run){.progs = pass, .nprogs = 1});
  vc_run_data *r = load_run(path, 1);
  vc_strbuf html;
  vc_sb_init(&md);
  vc_sb_init(&html);
  fx_report1(vc_report_markdown, r, &md);
  fx_report1(vc_report_html, r, &html);
  assert_non_null(strstr(vc_sb_str(&md), "\nNone: every result that ran matched the oracle.\n"));
  assert_non_null(
      strstr(vc_sb_str(&html), "<p>None: every result that ran matched the oracle.</p>"));
  vc_sb_free(&md);
  vc_sb_free(&html);
  vc_run_free(r);
}

/* The Markdown spelling: a code span holding a backtick is opened by two;
   a fence is longer than any run of backticks inside; a cell's | is
   escaped; text in HTML is escaped, in an attribute too. */
static void test_dialect_spelling(void **state) {
  (void)state;
  vc_strbuf sb;
  vc_sb_init(&sb);
  vc_markup_md.code(&sb, "a`b|c");
  assert_string_equal(vc_sb_str(&sb), "`` a`b\\|c ``");
  sb.len = 0;
  vc_markup_md.code(&sb, "plain");
  assert_string_equal(vc_sb_str(&sb), "`plain`");
  sb.len = 0;
  vc_markup_md.collapsed(&sb, "source", "lisp", "(x ```` y)");
  assert_string_equal(vc_sb_str(&sb), "\n<details><summary>source</summary>\n\n`````lisp\n"
                                      "(x ```` y)\n`````\n\n</details>\n");
  sb.len = 0;
  vc_markup_html.code(&sb, "<a & 'b'>");
  assert_string_equal(vc_sb_str(&sb), "<code>&lt;a &amp; &#39;b&#39;&gt;</code>");
  sb.len = 0;
  vc_markup_md.command(&sb, "Reproduce:", "vc x");
  assert_string_equal(vc_sb_str(&sb), "\nReproduce:\n\n```sh\nvc x\n```\n");
  vc_sb_free(&sb);
}

/* A dialect that leaves every optional hook out still writes every section
   (the defaults of markup.h), with the same words. */
static void test_optional_hooks(void **state) {
  (void)state;
  vc_markup bare = vc_markup_html;
  bare.name_of = NULL;
  bare.link_open = NULL;
  bare.link_close = "</a>"; /* written only after a link_open */
  bare.new_mark = NULL;
  bare.verdict_close = NULL;
  bare.failure_open = NULL;
  bare.failure_close = NULL;
  bare.table_close = NULL;
  bare.row_marked = NULL;
  bare.list.close = NULL;
  vc_qual q;
  vc_run_data *runs[2], *base;
  build(&q, runs, &base);
  vc_strbuf a, b;
  vc_sb_init(&a);
  vc_sb_init(&b);
  vc_section_failures(&bare, &q, &a);
  vc_section_counts(&bare, &q, &a);
  vc_section_failures(&vc_markup_html, &q, &b);
  vc_section_counts(&vc_markup_html, &q, &b);
  assert_null(strstr(vc_sb_str(&a), "<a href"));
  assert_null(strstr(vc_sb_str(&a), "</a>"));
  assert_null(strstr(vc_sb_str(&a), "<div class=\"failure"));
  assert_same_words("without optional hooks", vc_sb_str(&a), vc_sb_str(&b));
  vc_sb_free(&a);
  vc_sb_free(&b);
  release(&q, runs, base);
}

/* The grid-sync contract of a litmus run with a sweep of two stress
   settings: a row per setting, the controls' weak outcomes drawn in HTML
   only (Markdown has the table), the forward-progress checks in both. */
static void litmus_rows(vc_db *db, int64_t id, const char *place, bool control, uint32_t stress,
                        uint64_t weak) {
  static const char *const outcomes[] = {"r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=0", "r0=1 r1=1"};
  vc_litmus_result rows[4];
  for (int o = 0; o < 4; o++) {
    uint64_t count = o == 0 ? weak : o == 1 ? 1000 - weak : 0;
    rows[o] = (vc_litmus_result){"sb", "plain", place, control, control ? "weak" : "pass", "",
                                 outcomes[o], !control && o == 0, o == 0, count, 1000, 0, 0,
                                 1000000, stress};
  }
  vc_error e = {0};
  assert_int_equal(vc_db_record_litmus(db, id, rows, 4, &e), 0);
}

static void test_litmus_section(void **state) {
  (void)state;
  char path[512];
  fx_path(&fx_tmp, "litmus.db", path);
  static const fx_prog pass[] = {{"atomics_add", "ppp", 3, 0}};
  fx_write_run(path, &(fx_run){.progs = pass, .nprogs = 1});
  vc_db *db;
  vc_error e = {0};
  assert_int_equal(vc_db_open(path, 1000, &db, &e), 0);
  vc_litmus_run_info ri = {"0.1.0", "b", "vyre-conform litmus --backend vulkan", "h", "vulkan",
                           "llvmpipe (LLVM 15.0.6, 256 bits)", "Mesa 22.3.6", 0, 0, 1,
                           "stress-groups=0,64", "running"};
  int64_t id;
  assert_int_equal(vc_db_begin_litmus(db, &ri, &id, &e), 0);
  litmus_rows(db, id, "none", true, 0, 5);
  litmus_rows(db, id, "native", false, 0, 0);
  litmus_rows(db, id, "none", true, 64, 50);
  litmus_rows(db, id, "native", false, 64, 0);
  vc_progress_result co = {"co-resident", "pass", "", "", 16, 16, 16, 0, 0, 0, 0, 132, 132,
                           16, 2000000, 500000, 9000000};
  vc_progress_result over = {"over-occupancy", "detected", "the driver refused the grid",
                             "native-over=1", 2, 2, 0, 0, 2, 0, 0, 0, 0, 0, 1000, 900, 2000};
  assert_int_equal(vc_db_record_progress(db, id, &co, &e), 0);
  assert_int_equal(vc_db_record_progress(db, id, &over, &e), 0);
  assert_int_equal(vc_db_end_litmus(db, id, "pass", 1, &e), 0);
  vc_db_close(db);
  vc_run_data *r = load_run(path, 1);
  assert_int_equal(r->nlitmus, 16);
  assert_int_equal(r->nprogress, 2);
  vc_strbuf md, html;
  vc_sb_init(&md);
  vc_sb_init(&html);
  fx_report1(vc_report_markdown, r, &md);
  fx_report1(vc_report_html, r, &html);
  const char *m = vc_sb_str(&md), *h = vc_sb_str(&html);
  assert_non_null(strstr(m, "| sb | plain | none | 0 | 1000 | 0 | 5000.0 |"));
  assert_non_null(strstr(m, "| sb | plain | none | 64 | 1000 | 0 | 50000.0 |"));
  assert_non_null(strstr(m, "| co-resident | 16 of 16 | 16 | 0 | 0 | 0 | 0 | 132 | 16 |"));
  assert_non_null(strstr(m, "| over-occupancy | 2 of 2 | 0 | 0 | 2 | 0 | 0 | 0 | 0 |"));
  assert_non_null(strstr(m, "over-occupancy: the driver refused the grid"));
  assert_null(strstr(m, "<svg"));
  const char *chart = strstr(h, "Weak outcomes of the controls per million iterations");
  assert_non_null(chart);
  assert_non_null(strstr(chart, "sb/plain/none"));
  assert_non_null(strstr(chart, "stress groups 64"));
  assert_null(strstr(chart, "sb/plain/native")); /* not a control */
  vc_sb_free(&md);
  vc_sb_free(&html);
  vc_run_free(r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_sections_say_the_same, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_sections_name_their_cells, setup, fx_tmp_teardown),
      cmocka_unit_test(test_dialect_spelling),
      cmocka_unit_test_setup_teardown(test_litmus_section, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_optional_hooks, setup, fx_tmp_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
