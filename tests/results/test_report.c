/* The reports: HTML, Markdown and JUnit from a real results file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "fixture.h"
#include "harness/cli/commands_results.h"
#include "harness/base/exitcodes.h"
#include "results/report/fmt.h"
#include "results/store/load.h"
#include "results/report/report.h"

static char db_path[512];

/* statuses per mode: the expected counts below are computed from these */
static const fx_prog progs[] = {{"atomics_add", "ppp", 3, 0}, {"barrier_chain", "dpp", 8, 0},
                                {"crashy", "pcu", 2, 0},      {"loop_budget", "ptp", 50, 0},
                                {"racy", "iis", 1, 0},        {"wide", "pep", 20, 0}};
enum { NPROGS = sizeof progs / sizeof progs[0] };

/* One more program whose reason holds markup, a control byte and invalid UTF-8. */
static void record_hostile(const char *path) {
  vc_error err = {0};
  int64_t run;
  vc_db *db = fx_begin(path, &run);
  vc_result res[3];
  uint32_t n = fx_results(&(fx_prog){"hostile", "epp", 1, 0}, 1, res);
  snprintf(res[0].reason, sizeof res[0].reason,
           "bad <script>alert(1)</script> & \"q\" \xff\xfe bytes \x01 end");
  vc_program_info pi = {.name = "hostile"};
  assert_int_equal(vc_db_record_program(db, run, &pi, res, n, &err), 0);
  assert_int_equal(vc_db_end_run(db, run, "complete", &err), 0);
  vc_db_close(db);
}

static int setup(void **state) {
  fx_tmp_setup(state);
  fx_path(&fx_tmp, "run.db", db_path);
  fx_write_run(db_path, &(fx_run){.progs = progs, .nprogs = NPROGS, .repeats = 3});
  return 0;
}

static vc_run_data *load(const char *path) {
  vc_error err = {0};
  vc_run_data *r;
  assert_int_equal(vc_run_load(path, VC_RUN_LAST_COMPLETE, &r, &err), 0);
  return r;
}

static uint32_t count_of(const char *text, const char *what) {
  uint32_t n = 0;
  for (const char *p = text; (p = strstr(p, what)); p += strlen(what)) n++;
  return n;
}

static uint32_t cells_with(int mode, const char *letters) {
  uint32_t n = 0;
  for (int p = 0; p < NPROGS; p++) n += strchr(letters, progs[p].statuses[mode]) != NULL;
  return n;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The median wall time of a mode over the programs that passed or diverged. */
static uint64_t median_ran_ns(int mode) {
  double v[NPROGS];
  int n = 0;
  for (int p = 0; p < NPROGS; p++)
    if (strchr("pd", progs[p].statuses[mode])) v[n++] = progs[p].wall_ms;
  qsort(v, (size_t)n, sizeof v[0], cmp_double);
  double ms = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  return (uint64_t)(ms * 1e6);
}

static void assert_self_contained(const char *html) {
  static const char *const banned[] = {"<script", "<link",  "src=",    "url(",   "@import",
                                       "http:",   "https:", "<iframe", "<object"};
  for (size_t i = 0; i < sizeof banned / sizeof banned[0]; i++)
    if (strstr(html, banned[i])) fail_msg("the HTML report holds \"%s\"", banned[i]);
}

static void test_html(void **state) {
  (void)state;
  vc_run_data *r = load(db_path);
  vc_strbuf sb;
  vc_sb_init(&sb);
  vc_error err = {0};
  assert_int_equal(vc_report_html(r, &sb, &err), 0);
  const char *html = vc_sb_str(&sb);
  char digest[65];
  vc_report_digest(r, digest);
  assert_non_null(strstr(html, digest));
  assert_non_null(strstr(html, r->info.corpus_digest));
  assert_non_null(strstr(html, r->info.harness_commit));
  assert_non_null(strstr(html, "llvmpipe (LLVM 15.0.6, 256 bits)"));
  assert_non_null(strstr(html, "denorm32=preserve rounding32=rte"));
  assert_int_equal(count_of(html, "<svg"), 3);
  assert_int_equal(count_of(html, "</svg>"), 3);
  /* the pass matrix: one cell per program and mode, coloured by status */
  uint32_t pass = cells_with(0, "p") + cells_with(1, "p") + cells_with(2, "p");
  assert_int_equal(count_of(html, "<td class=\"pass\""), pass);
  assert_int_equal(count_of(html, "<td class=\"diverge\""),
                   cells_with(0, "d") + cells_with(1, "d") + cells_with(2, "d"));
  /* a divergence with its hex context: the differing element is marked */
  assert_non_null(strstr(html, "<td class=\"bad\">deadbeef</td>"));
  assert_non_null(strstr(html, "<th>15</th><th>16</th><th>17</th>"));
  assert_self_contained(html);
  vc_sb_free(&sb);
  vc_run_free(r);
}

static void test_hostile_text_is_escaped(void **state) {
  (void)state;
  char path[512];
  fx_path(&fx_tmp, "hostile.db", path);
  record_hostile(path);
  vc_run_data *r = load(path);
  vc_strbuf sb;
  vc_sb_init(&sb);
  vc_error err = {0};
  assert_int_equal(vc_report_html(r, &sb, &err), 0);
  assert_self_contained(vc_sb_str(&sb));
  assert_non_null(
      strstr(vc_sb_str(&sb),
             "bad &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;q&quot; ?? bytes ? end"));
  vc_sb_free(&sb);
  vc_sb_init(&sb);
  assert_int_equal(vc_report_junit(r, &sb, &err), 0);
  xmlDocPtr doc = xmlReadMemory(vc_sb_str(&sb), (int)sb.len, "junit.xml", NULL, XML_PARSE_NONET);
  assert_non_null(doc);
  xmlFreeDoc(doc);
  vc_sb_free(&sb);
  vc_run_free(r);
}

static void test_markdown(void **state) {
  (void)state;
  vc_run_data *r = load(db_path);
  vc_strbuf sb;
  vc_sb_init(&sb);
  vc_error err = {0};
  assert_int_equal(vc_report_markdown(r, &sb, &err), 0);
  const char *md = vc_sb_str(&sb);
  static const char letters[] = "pdwectusi"; /* in vc_status order */
  for (int m = 0; m < 3; m++) {
    char row[256];
    int n = snprintf(row, sizeof row, "| %s | %d |", fx_modes[m], NPROGS);
    for (int s = 0; s < VC_STATUS_COUNT; s++) {
      char one[2] = {letters[s], 0};
      n += snprintf(row + n, sizeof row - (size_t)n, " %u |", cells_with(m, one));
    }
    if (!strstr(md, row)) fail_msg("the Markdown lacks the row \"%s\":\n%s", row, md);
  }
  char digest[65], line[128];
  vc_report_digest(r, digest);
  snprintf(line, sizeof line, "| Results digest | %s |", digest);
  assert_non_null(strstr(md, line));
  assert_non_null(strstr(md, "| Driver | llvmpipe Mesa 22.3.6 |"));
  assert_non_null(
      strstr(md, "- `barrier_chain` native: diverge: diverge in native: planted by the test"));
  for (int m = 0; m < 3; m++) {
    char want[128], wall[VC_FMT_LEN], dev[VC_FMT_LEN];
    uint64_t median = median_ran_ns(m);
    vc_fmt_ns(wall, median);
    vc_fmt_ns(dev, median / 2); /* the fixture's device time is half the wall time */
    snprintf(want, sizeof want, " %u | 0 | %s | %s |\n", cells_with(m, "i"), wall,
             dev); /* invalid, then flake: the last counts */
    if (!strstr(md, want)) fail_msg("mode %s: no \"%s\" in\n%s", fx_modes[m], want, md);
  }
  vc_sb_free(&sb);
  vc_run_free(r);
}

/* A flake (failed, then passed on a rerun) is counted in its own column,
   listed under Flakes with its attempts, not among the failures, passes in
   JUnit, and has its heading and colour in the HTML report. */
static void test_flakes_are_listed_and_pass(void **state) {
  (void)state;
  char path[512];
  fx_path(&fx_tmp, "flake.db", path);
  const fx_prog flaky[] = {{"a", "fpp", 4, 0}, {"b", "ppp", 6, 0}};
  fx_write_run(path, &(fx_run){.progs = flaky, .nprogs = 2});
  vc_run_data *r = load(path);
  vc_strbuf sb;
  vc_sb_init(&sb);
  vc_error err = {0};
  assert_int_equal(vc_report_markdown(r, &sb, &err), 0);
  const char *md = vc_sb_str(&sb);
  assert_non_null(strstr(md, "| native | 2 | 1 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 1 |"));
  assert_non_null(strstr(md, "## Failures\n\nNone.\n"));
  assert_non_null(strstr(md, "## Flakes\n\n- `a` native #1: "));
  vc_sb_free(&sb);
  vc_sb_init(&sb);
  assert_int_equal(vc_report_junit(r, &sb, &err), 0);
  assert_null(strstr(vc_sb_str(&sb), "<failure"));
  assert_null(strstr(vc_sb_str(&sb), "<error"));
  vc_sb_free(&sb);
  vc_sb_init(&sb);
  assert_int_equal(vc_report_html(r, &sb, &err), 0);
  assert_non_null(strstr(vc_sb_str(&sb), "<h3>a &mdash; native, repeat 0: flake</h3>"));
  assert_non_null(strstr(vc_sb_str(&sb), "td.flake{"));
  vc_sb_free(&sb);
  vc_run_free(r);
}

/* A mode where nothing ran to a verdict has no medians, not zero ones. */
static void test_markdown_without_verdicts(void **state) {
  (void)state;
  char path[512];
  fx_path(&fx_tmp, "unsupported.db", path);
  const fx_prog unsupported[] = {{"a", "upp", 4, 0}, {"b", "upp", 6, 0}};
  fx_write_run(path, &(fx_run){.progs = unsupported, .nprogs = 2});
  vc_run_data *r = load(path);
  vc_strbuf sb;
  vc_sb_init(&sb);
  vc_error err = {0};
  assert_int_equal(vc_report_markdown(r, &sb, &err), 0);
  assert_non_null(strstr(vc_sb_str(&sb), "| native | 2 | 0 | 0 | 0 | 0 | 0 | 0 | 2 | 0 | 0 | 0 | - | - |"));
  assert_non_null(
      strstr(vc_sb_str(&sb), "| host-split | 2 | 2 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 5 ms | 2.5 ms |"));
  vc_sb_free(&sb);
  r->device.timestamps = false; /* host timing only: no device medians */
  vc_sb_init(&sb);
  assert_int_equal(vc_report_markdown(r, &sb, &err), 0);
  assert_non_null(
      strstr(vc_sb_str(&sb), "| host-split | 2 | 2 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 5 ms | - |"));
  vc_sb_free(&sb);
  vc_run_free(r);
}

static uint32_t attr_u32(xmlNodePtr n, const char *name) {
  xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
  assert_non_null(v);
  uint32_t x = (uint32_t)strtoul((const char *)v, NULL, 10);
  xmlFree(v);
  return x;
}

static uint32_t children_named(xmlNodePtr n, const char *name) {
  uint32_t k = 0;
  for (xmlNodePtr c = n->children; c; c = c->next)
    if (c->type == XML_ELEMENT_NODE && !strcmp((const char *)c->name, name)) k++;
  return k;
}

/* Counts the testcases of a suite that hold a child element named what. */
static uint32_t cases_with(xmlNodePtr suite, const char *what) {
  uint32_t k = 0;
  for (xmlNodePtr c = suite->children; c; c = c->next)
    if (c->type == XML_ELEMENT_NODE) k += children_named(c, what);
  return k;
}

static void test_junit_parses_with_matching_counts(void **state) {
  (void)state;
  vc_run_data *r = load(db_path);
  vc_strbuf sb;
  vc_sb_init(&sb);
  vc_error err = {0};
  assert_int_equal(vc_report_junit(r, &sb, &err), 0);
  xmlDocPtr doc = xmlReadMemory(vc_sb_str(&sb), (int)sb.len, "junit.xml", NULL, XML_PARSE_NONET);
  assert_non_null(doc);
  xmlNodePtr root = xmlDocGetRootElement(doc);
  assert_string_equal((const char *)root->name, "testsuites");
  assert_int_equal(children_named(root, "testsuite"), 3);
  uint32_t tests = 0, failures = 0, errors = 0, skipped = 0, m = 0;
  for (xmlNodePtr s = root->children; s; s = s->next) {
    if (s->type != XML_ELEMENT_NODE) continue;
    xmlChar *name = xmlGetProp(s, (const xmlChar *)"name");
    assert_string_equal((const char *)name, fx_modes[m]);
    xmlFree(name);
    assert_int_equal(attr_u32(s, "tests"), NPROGS);
    assert_int_equal(children_named(s, "testcase"), NPROGS);
    assert_int_equal(attr_u32(s, "failures"), cases_with(s, "failure"));
    assert_int_equal(attr_u32(s, "errors"), cases_with(s, "error"));
    assert_int_equal(attr_u32(s, "skipped"), cases_with(s, "skipped"));
    assert_int_equal(cases_with(s, "failure"), cells_with((int)m, "di"));
    assert_int_equal(cases_with(s, "error"), cells_with((int)m, "ect"));
    assert_int_equal(cases_with(s, "skipped"), cells_with((int)m, "us"));
    tests += attr_u32(s, "tests");
    failures += attr_u32(s, "failures");
    errors += attr_u32(s, "errors");
    skipped += attr_u32(s, "skipped");
    m++;
  }
  assert_int_equal(attr_u32(root, "tests"), tests);
  assert_int_equal(attr_u32(root, "failures"), failures);
  assert_int_equal(attr_u32(root, "errors"), errors);
  assert_int_equal(attr_u32(root, "skipped"), skipped);
  xmlFreeDoc(doc);
  vc_sb_free(&sb);
  vc_run_free(r);
}

/* The digest covers outcomes, not timings nor the order rows were written in. */
static void test_digest(void **state) {
  (void)state;
  char a_path[512], b_path[512], c_path[512];
  fx_path(&fx_tmp, "a.db", a_path);
  fx_path(&fx_tmp, "b.db", b_path);
  fx_path(&fx_tmp, "c.db", c_path);
  const fx_prog fwd[] = {{"x", "ppp", 1, 0}, {"y", "pdp", 2, 0}};
  const fx_prog rev[] = {{"y", "pdp", 9, 1}, {"x", "ppp", 7, 1}};
  const fx_prog changed[] = {{"x", "ppp", 1, 0}, {"y", "ppp", 2, 0}};
  fx_write_run(a_path, &(fx_run){.progs = fwd, .nprogs = 2, .repeats = 2});
  fx_write_run(b_path, &(fx_run){.progs = rev, .nprogs = 2, .repeats = 2});
  fx_write_run(c_path, &(fx_run){.progs = changed, .nprogs = 2, .repeats = 2});
  char da[65], db[65], dc[65];
  vc_run_data *r = load(a_path);
  vc_report_digest(r, da);
  vc_run_free(r);
  r = load(b_path);
  vc_report_digest(r, db);
  vc_run_free(r);
  r = load(c_path);
  vc_report_digest(r, dc);
  vc_run_free(r);
  assert_string_equal(da, db);
  assert_string_not_equal(da, dc);
  assert_int_equal(strlen(da), 64);
}

static void test_command(void **state) {
  (void)state;
  char html[512], md[512], junit[512];
  fx_path(&fx_tmp, "r.html", html);
  fx_path(&fx_tmp, "r.md", md);
  fx_path(&fx_tmp, "r.xml", junit);
  char *out;
  const char *all[] = {"report", db_path, "--html", html, "--md", md, "--junit=", junit};
  assert_int_equal(fx_capture(vc_cmd_report, 8, all, &out), VC_EXIT_USAGE);
  free(out);
  const char *all2[] = {"report", db_path, "--html", html, "--md", md, "--junit", junit};
  assert_int_equal(fx_capture(vc_cmd_report, 8, all2, &out), VC_EXIT_OK);
  free(out);
  char *text = fx_read_file(html);
  assert_non_null(strstr(text, "</html>"));
  free(text);
  text = fx_read_file(md);
  assert_non_null(strstr(text, "# vyre-conform qualification record"));
  free(text);
  text = fx_read_file(junit);
  assert_non_null(strstr(text, "<testsuites"));
  free(text);
  const char *to_stdout[] = {"report", db_path, "--run", "1"};
  assert_int_equal(fx_capture(vc_cmd_report, 4, to_stdout, &out), VC_EXIT_OK);
  assert_non_null(strstr(out, "## Results per mode"));
  free(out);
  const char *no_run[] = {"report", db_path, "--run", "7"};
  assert_int_equal(fx_capture(vc_cmd_report, 4, no_run, &out), VC_EXIT_DB);
  free(out);
  const char *unwritable[] = {"report", db_path, "--md", "/nonexistent-dir/x.md"};
  assert_int_equal(fx_capture(vc_cmd_report, 4, unwritable, &out), VC_EXIT_INPUT);
  free(out);
}

/* Newer runs than the one reported that did not complete are named on
   standard error and in the HTML and Markdown reports. */
static void test_warns_of_newer_unfinished_runs(void **state) {
  (void)state;
  char path[512], html[512], md[512];
  fx_path(&fx_tmp, "unfinished.db", path);
  fx_path(&fx_tmp, "u.html", html);
  fx_path(&fx_tmp, "u.md", md);
  static const fx_prog one[] = {{"a", "ppp", 0, 0}};
  assert_int_equal(fx_write_run(path, &(fx_run){.progs = one, .nprogs = 1}), 1);
  char *out, *errors;
  const char *plain[] = {"report", path, "--html", html, "--md", md};
  assert_int_equal(fx_capture_err(vc_cmd_report, 6, plain, &out, &errors), VC_EXIT_OK);
  assert_null(strstr(errors, "warning"));
  free(out);
  free(errors);
  char *text = fx_read_file(html);
  assert_null(strstr(text, "Warning"));
  free(text);

  assert_int_equal(
      fx_write_run(path, &(fx_run){.progs = one, .nprogs = 1, .end_status = "interrupted"}), 2);
  assert_int_equal(fx_write_run(path, &(fx_run){.progs = one, .nprogs = 1, .end_status = ""}), 3);
  assert_int_equal(fx_capture_err(vc_cmd_report, 6, plain, &out, &errors), VC_EXIT_OK);
  print_message("%s", errors);
  char want[700];
  snprintf(want, sizeof want,
           "vyre-conform report: warning: %s holds runs newer than run 1 that did not complete: "
           "run 2 (interrupted), run 3 (running)\n",
           path);
  assert_string_equal(errors, want);
  free(out);
  free(errors);
  text = fx_read_file(html);
  assert_non_null(strstr(text, "<p class=\"warning\"><strong>Warning:</strong> "));
  assert_non_null(strstr(text, "run 2 (interrupted), run 3 (running)</p>"));
  free(text);
  text = fx_read_file(md);
  assert_non_null(strstr(text, "> **Warning:** "));
  assert_non_null(strstr(text, "run 2 (interrupted), run 3 (running)\n"));
  free(text);
  /* to standard output, the Markdown carries it too */
  const char *to_stdout[] = {"report", path};
  assert_int_equal(fx_capture_err(vc_cmd_report, 2, to_stdout, &out, &errors), VC_EXIT_OK);
  assert_non_null(strstr(out, "> **Warning:** "));
  assert_non_null(strstr(errors, "run 3 (running)"));
  free(out);
  free(errors);
  /* the newest run chosen by name: nothing newer, no warning */
  const char *newest[] = {"report", path, "--run", "3"};
  assert_int_equal(fx_capture_err(vc_cmd_report, 4, newest, &out, &errors), VC_EXIT_OK);
  assert_null(strstr(errors, "warning"));
  assert_null(strstr(out, "Warning"));
  free(out);
  free(errors);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_html, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_hostile_text_is_escaped, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_markdown, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_markdown_without_verdicts, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_flakes_are_listed_and_pass, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_junit_parses_with_matching_counts, setup,
                                      fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_digest, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_command, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_warns_of_newer_unfinished_runs, setup, fx_tmp_teardown),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  xmlCleanupParser();
  return rc;
}
