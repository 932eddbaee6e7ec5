/* The reports: HTML, Markdown and JUnit from real results files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "fixture.h"
#include "harness/base/exitcodes.h"
#include "harness/cli/commands_results.h"
#include "harness/model/digest.h"
#include "results/report/fmt.h"
#include "results/report/report.h"
#include "results/report/typed.h"
#include "results/store/load.h"

#ifndef VC_JUNIT_XSD
#error "VC_JUNIT_XSD names the JUnit schema"
#endif

static char db_path[512];

/* statuses per mode: the expected counts below are computed from these */
static const fx_prog progs[] = {{"atomics_add", "ppp", 3, 0},
                                {"barrier_chain", "dpp", 8, 0},
                                {"crashy", "pcu", 2, 0},
                                {"loop_budget", "ptp", 50, 0},
                                {"racy", "iis", 1, 0},
                                {"wide", "pep", 20, 0}};
enum { NPROGS = sizeof progs / sizeof progs[0] };
static const fx_extra extras[NPROGS] = {[1] = {.err_text = "driver: lost a barrier\n"}};

static int setup(void **state) {
  fx_tmp_setup(state);
  fx_path(&fx_tmp, "run.db", db_path);
  fx_write_run(db_path, &(fx_run){.progs = progs, .nprogs = NPROGS, .repeats = 3, .extras = extras});
  return 0;
}

static vc_run_data *load(const char *path) {
  vc_error err = {0};
  vc_run_data *r;
  assert_int_equal(vc_run_load(path, VC_RUN_LAST_COMPLETE, &r, &err), 0);
  return r;
}

static vc_run_data *load_run(const char *path, int64_t id) {
  vc_error err = {0};
  vc_run_data *r;
  assert_int_equal(vc_run_load(path, id, &r, &err), 0);
  return r;
}

static uint32_t count_of(const char *text, const char *what) {
  uint32_t n = 0;
  for (const char *p = text; (p = strstr(p, what)); p += strlen(what)) n++;
  return n;
}

/* Occurrences of what in [from, to). */
static uint32_t count_between(const char *from, const char *to, const char *what) {
  uint32_t n = 0;
  for (const char *p = from; (p = strstr(p, what)) && p < to; p += strlen(what)) n++;
  return n;
}

static uint32_t cells_with(int mode, const char *letters) {
  uint32_t n = 0;
  for (int p = 0; p < NPROGS; p++) n += strchr(letters, progs[p].statuses[mode]) != NULL;
  return n;
}

static void assert_self_contained(const char *html) {
  static const char *const banned[] = {"<script", "<link",  "src=",    "url(",   "@import",
                                       "http:",   "https:", "<iframe", "<object"};
  for (size_t i = 0; i < sizeof banned / sizeof banned[0]; i++)
    if (strstr(html, banned[i])) fail_msg("the HTML report holds \"%s\"", banned[i]);
}

/* The text before the first <h2>: what the first screen shows. */
static char *first_screen(const char *html) {
  const char *end = strstr(html, "<h2>");
  assert_non_null(end);
  size_t n = (size_t)(end - html);
  char *s = malloc(n + 1);
  memcpy(s, html, n);
  s[n] = '\0';
  return s;
}

static void test_html(void **state) {
  (void)state;
  vc_run_data *r = load(db_path);
  vc_strbuf sb;
  vc_sb_init(&sb);
  fx_report1(vc_report_html, r, &sb);
  const char *html = vc_sb_str(&sb);
  char digest[65];
  vc_report_digest(r, digest);
  assert_non_null(strstr(html, digest));
  assert_non_null(strstr(html, r->info.corpus_digest));
  assert_non_null(strstr(html, r->info.harness_commit));
  assert_non_null(strstr(html, "denorm32=preserve rounding32=rte"));
  /* the verdict, the device and driver on one line, the counts: first */
  char *top = first_screen(html);
  assert_non_null(strstr(top, "<div class=\"word\">FAIL</div>"));
  assert_non_null(strstr(top, "llvmpipe (LLVM 15.0.6, 256 bits) \xc2\xb7 vulkan 1.3.230 \xc2\xb7 "
                              "driver llvmpipe Mesa 22.3.6"));
  uint32_t failing = 0;
  for (int m = 0; m < 3; m++) failing += cells_with(m, "dwecti");
  char want[128];
  snprintf(want, sizeof want, "<b>%u new failures</b>", failing);
  assert_non_null(strstr(top, want));
  free(top);
  assert_int_equal(count_of(html, "<svg"), 3);
  /* the matrix: one labelled cell per program and mode, each failing one a
     link to its section */
  assert_int_equal(count_of(html, "<td class=\"c "), 3 * NPROGS);
  uint32_t pass = cells_with(0, "p") + cells_with(1, "p") + cells_with(2, "p");
  assert_int_equal(count_of(html, "<td class=\"c s-pass\""), pass);
  assert_int_equal(count_of(html, "<td class=\"c s-new\""), failing);
  assert_int_equal(count_of(html, "<div class=\"failure\" id=\"f-0-"), failing);
  for (uint32_t s = 0; s < failing; s++) {
    char link[64], anchor[64];
    snprintf(link, sizeof link, "href=\"#f-0-%u\"", s);
    snprintf(anchor, sizeof anchor, "id=\"f-0-%u\"", s);
    assert_non_null(strstr(html, link));
    assert_non_null(strstr(html, anchor));
  }
  /* the new failures listed under the counts, each a link */
  assert_non_null(strstr(html, "<p>New failures (" ));
  assert_non_null(strstr(html, "<a href=\"#f-0-0\">barrier_chain native</a> (diverge)"));
  /* the legend says what the colours say */
  assert_non_null(strstr(html, "<span class=\"key s-new\">new failure: STATUS</span>"));
  /* repeats merged, the reproduction and emit commands, the captured stderr */
  assert_non_null(strstr(html, "<h4>3 of 3 repeats: diverge</h4>"));
  assert_non_null(strstr(html, "vyre-conform --backend vulkan --mode native --expectations none "
                               "--db repro.db corpus/basic/x.vyre"));
  assert_non_null(strstr(html, "vyre-conform emit --backend vulkan --mode native "
                               "corpus/basic/x.vyre"));
  assert_non_null(strstr(html, "<pre>driver: lost a barrier\n</pre>"));
  /* the divergence as typed values, the differing element marked */
  assert_non_null(strstr(html, "<tr class=\"bad\"><td>17 &#x2260;</td>"));
  assert_non_null(strstr(html, "<td>0xefbeadde</td>"));
  /* the program's file is not here: said so */
  assert_non_null(strstr(html, "Source not shown: corpus/basic/x.vyre does not exist here"));
  assert_self_contained(html);
  vc_sb_free(&sb);
  vc_run_free(r);
}

static void test_hostile_text_is_escaped(void **state) {
  (void)state;
  char path[512];
  fx_path(&fx_tmp, "hostile.db", path);
  const fx_prog one[] = {{"hostile", "epp", 1, 0}};
  const fx_extra ex[] = {{.err_text = "bad <script>alert(1)</script> & \"q\" \xff\xfe bytes \x01 end"}};
  fx_write_run(path, &(fx_run){.progs = one, .nprogs = 1, .extras = ex});
  vc_run_data *r = load(path);
  vc_strbuf sb;
  vc_sb_init(&sb);
  fx_report1(vc_report_html, r, &sb);
  assert_null(strstr(vc_sb_str(&sb), "<script>"));
  assert_non_null(strstr(vc_sb_str(&sb),
                         "bad &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;q&quot; ?? bytes ? end"));
  vc_sb_free(&sb);
  vc_sb_init(&sb);
  fx_report1(vc_report_junit, r, &sb);
  assert_null(strstr(vc_sb_str(&sb), "<script>"));
  xmlDocPtr doc = xmlReadMemory(vc_sb_str(&sb), (int)sb.len, "junit.xml", NULL, XML_PARSE_NONET);
  assert_non_null(doc);
  xmlFreeDoc(doc);
  vc_sb_free(&sb);
  vc_run_free(r);
}

/* Typed values: by the buffer's element type, with the bits beside. */
static void test_typed_values(void **state) {
  (void)state;
  vc_divergence d = {.type = "u32", .context_start = 4,
                     .expected_hex = "09000000 0a000000", .actual_hex = "09000000 00000000"};
  vc_typed_elem e[VC_TYPED_MAX];
  assert_int_equal(vc_typed_context(&d, e), 2);
  assert_string_equal(e[0].expected, "9");
  assert_string_equal(e[0].expected_hex, "0x00000009");
  assert_false(e[0].differs);
  assert_int_equal(e[1].index, 5);
  assert_string_equal(e[1].expected, "10");
  assert_true(e[1].differs);
  vc_divergence z = {.type = "f32", .expected_hex = "00000080 01000000 0000c07f 0000803f",
                     .actual_hex = "00000000 00000000 0000807f 0000c03f"};
  assert_int_equal(vc_typed_context(&z, e), 4);
  assert_string_equal(e[0].expected, "-0");
  assert_string_equal(e[0].actual, "+0");
  assert_string_equal(e[1].expected, "1.40129846e-45 (denormal)");
  assert_string_equal(e[2].expected, "NaN");
  assert_string_equal(e[2].actual, "+inf");
  assert_string_equal(e[3].expected, "1");
  assert_string_equal(e[3].actual, "1.5");
  vc_divergence s = {.type = "i32", .expected_hex = "ffffffff", .actual_hex = "00000080"};
  assert_int_equal(vc_typed_context(&s, e), 1);
  assert_string_equal(e[0].expected, "-1");
  assert_string_equal(e[0].actual, "-2147483648");
  /* a 64-bit element is two words, low word first */
  vc_divergence w = {.type = "u64", .expected_hex = "01000000 01000000 ffffffff ffffffff",
                     .actual_hex = "01000000 00000000 ffffffff ffffffff"};
  assert_int_equal(vc_typed_context(&w, e), 2);
  assert_string_equal(e[0].expected, "4294967297");
  assert_string_equal(e[0].expected_hex, "0x0000000100000001");
  assert_string_equal(e[0].actual, "1");
  assert_true(e[0].differs);
  assert_string_equal(e[1].expected, "18446744073709551615");
  assert_false(e[1].differs);
  vc_divergence i = {.type = "i64", .expected_hex = "ffffffff ffffffff", .actual_hex = ""};
  assert_int_equal(vc_typed_context(&i, e), 1);
  assert_string_equal(e[0].expected, "-1");
  assert_false(e[0].has_actual);
}

static void test_markdown(void **state) {
  (void)state;
  vc_run_data *r = load(db_path);
  vc_strbuf sb;
  vc_sb_init(&sb);
  fx_report1(vc_report_markdown, r, &sb);
  const char *md = vc_sb_str(&sb);
  assert_non_null(strstr(md, "# FAIL &mdash; vyre-conform qualification record\n"));
  /* per mode: programs, pass, new, known, then every status but pass, in
     VC_STATUS_TABLE's order (a status the fixture cannot make counts 0) */
  static const char *const letters[] = {"pass", "p", "diverge", "d", "untrustworthy", "w",
                                        "error", "e", "crash", "c", "timeout", "t",
                                        "unsupported", "u", "skip", "s", "invalid", "i"};
  for (int m = 0; m < 3; m++) {
    char row[256];
    int n = snprintf(row, sizeof row, "| %s | %d | %u | %u | 0 |", fx_modes[m], NPROGS,
                     cells_with(m, "p"), cells_with(m, "dwecti"));
    for (int s = 0; s < VC_STATUS_COUNT; s++) {
      if (s == VC_ST_PASS) continue;
      uint32_t k = 0;
      for (size_t l = 0; l < sizeof letters / sizeof letters[0]; l += 2)
        if (!strcmp(letters[l], vc_status_name((vc_status)s))) k = cells_with(m, letters[l + 1]);
      n += snprintf(row + n, sizeof row - (size_t)n, " %u |", k);
    }
    if (!strstr(md, row)) fail_msg("the Markdown lacks the row \"%s\":\n%s", row, md);
  }
  char digest[65], line[128];
  vc_report_digest(r, digest);
  snprintf(line, sizeof line, "| results digest (SHA-256) | %s |", digest);
  assert_non_null(strstr(md, line));
  assert_non_null(strstr(md, "| driver | llvmpipe |\n| driver version | Mesa 22.3.6 |"));
  /* the matrix lists what did not pass everywhere; atomics_add passed */
  assert_non_null(strstr(md, "| basic | `barrier_chain` | **NEW** diverge | pass | pass |"));
  assert_null(strstr(md, "`atomics_add` |"));
  assert_non_null(strstr(md, "5 of 6 programs are listed"));
  /* a failure's section, as in the HTML */
  assert_non_null(strstr(md, "### `barrier_chain` native vulkan: NEW FAILURE, diverge"));
  assert_non_null(strstr(md, "**3 of 3 repeats: diverge** &mdash; diverge in native: planted"));
  assert_non_null(strstr(md, "| **17 ≠** | **"));
  assert_non_null(strstr(md, "```sh\nvyre-conform --backend vulkan --mode native --expectations "
                             "none --db repro.db corpus/basic/x.vyre\n```"));
  vc_sb_free(&sb);
  vc_run_free(r);
}

/* "| MODE | 2 | PASS | 0 | 0 |" then per status but pass its count (the
   unsupported ones u), then TAIL. */
static void counts_row(char *out, size_t n, const char *mode, uint32_t pass, uint32_t u,
                       const char *tail) {
  int k = snprintf(out, n, "| %s | 2 | %u | 0 | 0 |", mode, pass);
  for (int s = 0; s < VC_STATUS_COUNT; s++)
    if (s != VC_ST_PASS)
      k += snprintf(out + k, n - (size_t)k, " %u |", s == VC_ST_UNSUPPORTED ? u : 0);
  snprintf(out + k, n - (size_t)k, "%s", tail);
}

/* A mode where nothing ran to a verdict has no medians, not zero ones. */
static void test_markdown_without_verdicts(void **state) {
  (void)state;
  char path[512];
  fx_path(&fx_tmp, "unsupported.db", path);
  const fx_prog unsupported[] = {{"a", "upp", 4, 0},
                                 {"b", "upp", 6, 0}};
  fx_write_run(path, &(fx_run){.progs = unsupported, .nprogs = 2});
  vc_run_data *r = load(path);
  vc_strbuf sb;
  vc_sb_init(&sb);
  fx_report1(vc_report_markdown, r, &sb);
  const char *md = vc_sb_str(&sb);
  assert_non_null(strstr(md, "# PASS &mdash;"));
  char row[256];
  counts_row(row, sizeof row, "native", 0, 2, " - | - |");
  assert_non_null(strstr(md, row));
  counts_row(row, sizeof row, "host-split", 2, 0, " 5 ms | 2.5 ms |");
  assert_non_null(strstr(md, row));
  /* unsupported, with the reason */
  assert_non_null(strstr(md, "- unsupported in native: planted by the test: 2 cells"));
  vc_sb_free(&sb);
  r->device.timestamps = false; /* host timing only: no device medians */
  vc_sb_init(&sb);
  fx_report1(vc_report_markdown, r, &sb);
  counts_row(row, sizeof row, "host-split", 2, 0, " 5 ms | - |");
  assert_non_null(strstr(vc_sb_str(&sb), row));
  vc_sb_free(&sb);
  vc_run_free(r);
}

static uint32_t attr_u32(xmlNodePtr n, const char *name) {
  xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
  if (!v) fail_msg("no attribute %s", name);
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
    if (c->type == XML_ELEMENT_NODE && !strcmp((const char *)c->name, "testcase"))
      k += children_named(c, what);
  return k;
}

/* xmllint validates the file against the Jenkins xUnit plugin's schema; a
   missing xmllint fails the test (ci/install-deps.sh installs it). */
static void assert_valid_junit(const char *xml, size_t len, const char *name) {
  char path[512], log[512], cmd[1600];
  fx_path(&fx_tmp, name, path);
  fx_path(&fx_tmp, "xmllint.log", log);
  fx_write_file(path, xml, len);
  snprintf(cmd, sizeof cmd, "xmllint --noout --nonet --schema '%s' '%s' >'%s' 2>&1", VC_JUNIT_XSD,
           path, log);
  int rc = system(cmd);
  if (rc != 0) {
    char *text = fx_read_file(log);
    fail_msg("xmllint --schema %s rejects %s (status %d):\n%s", VC_JUNIT_XSD, path, rc, text);
  }
}

static void test_junit_parses_with_matching_counts(void **state) {
  (void)state;
  vc_run_data *r = load(db_path);
  vc_strbuf sb;
  vc_sb_init(&sb);
  fx_report1(vc_report_junit, r, &sb);
  assert_valid_junit(vc_sb_str(&sb), sb.len, "junit.xml");
  xmlDocPtr doc = xmlReadMemory(vc_sb_str(&sb), (int)sb.len, "junit.xml", NULL, XML_PARSE_NONET);
  assert_non_null(doc);
  xmlNodePtr root = xmlDocGetRootElement(doc);
  assert_string_equal((const char *)root->name, "testsuites");
  assert_int_equal(children_named(root, "testsuite"), 3);
  uint32_t tests = 0, failures = 0, errors = 0, m = 0;
  for (xmlNodePtr s = root->children; s; s = s->next) {
    if (s->type != XML_ELEMENT_NODE) continue;
    xmlChar *name = xmlGetProp(s, (const xmlChar *)"name");
    char want[64];
    snprintf(want, sizeof want, "vulkan.%s", fx_modes[m]);
    assert_string_equal((const char *)name, want);
    xmlFree(name);
    xmlChar *host = xmlGetProp(s, (const xmlChar *)"hostname");
    assert_string_equal((const char *)host, "ci-runner-1");
    xmlFree(host);
    xmlChar *stamp = xmlGetProp(s, (const xmlChar *)"timestamp");
    assert_string_equal((const char *)stamp, "2025-11-29T19:47:03");
    xmlFree(stamp);
    assert_int_equal(children_named(s, "properties"), 1);
    assert_int_equal(attr_u32(s, "tests"), NPROGS);
    assert_int_equal(children_named(s, "testcase"), NPROGS);
    assert_int_equal(attr_u32(s, "failures"), cases_with(s, "failure"));
    assert_int_equal(attr_u32(s, "errors"), cases_with(s, "error"));
    assert_int_equal(attr_u32(s, "skipped"), cases_with(s, "skipped"));
    assert_int_equal(cases_with(s, "failure"), cells_with((int)m, "dwi"));
    assert_int_equal(cases_with(s, "error"), cells_with((int)m, "ect"));
    assert_int_equal(cases_with(s, "skipped"), cells_with((int)m, "us"));
    tests += attr_u32(s, "tests");
    failures += attr_u32(s, "failures");
    errors += attr_u32(s, "errors");
    m++;
  }
  assert_int_equal(attr_u32(root, "tests"), tests);
  assert_int_equal(attr_u32(root, "failures"), failures);
  assert_int_equal(attr_u32(root, "errors"), errors);
  const char *xml = vc_sb_str(&sb);
  assert_non_null(strstr(xml, "<property name=\"device\" value=\"llvmpipe (LLVM 15.0.6, 256 bits)\"/>"));
  assert_non_null(strstr(xml, "<property name=\"driver\" value=\"llvmpipe Mesa 22.3.6\"/>"));
  assert_non_null(strstr(xml, "<property name=\"harness\" value=\"0.1.0 (commit 0123456789ab)\"/>"));
  assert_non_null(strstr(xml, "<system-err>driver: lost a barrier\n</system-err>"));
  xmlFreeDoc(doc);
  vc_sb_free(&sb);
  vc_run_free(r);
}

/* An expectations file that excuses barrier_chain's divergence: the run
   passes with known issues; JUnit says <skipped> with the reason. */
static void test_known_issues(void **state) {
  (void)state;
  char path[512], exp[512];
  fx_path(&fx_tmp, "known.db", path);
  fx_path(&fx_tmp, "known.txt", exp);
  const char text[] =
      "fail barrier_chain native buffer=out class=integer reason=\"the driver's barrier bug\"\n"
      "fail other_prog * reason=\"unused\"\n";
  fx_write_file(exp, text, strlen(text));
  const fx_prog p[] = {{"atomics_add", "ppp", 3, 0},
                       {"barrier_chain", "dpp", 8, 0},
                       {"wide", "puu", 8, 0}};
  fx_write_run(path, &(fx_run){.progs = p, .nprogs = 3, .repeats = 2});
  vc_run_data *r = load(path);
  const vc_run_data *runs[] = {r};
  vc_strbuf sb;
  vc_sb_init(&sb);
  fx_report(vc_report_html, runs, 1, exp, NULL, &sb);
  const char *html = vc_sb_str(&sb);
  char *top = first_screen(html);
  assert_non_null(strstr(top, "<div class=\"word\">PASS WITH KNOWN ISSUES</div>"));
  assert_non_null(strstr(top, "<b>0 new failures</b>, 1 known, 2 unsupported"));
  free(top);
  assert_non_null(strstr(html, "<li><b>the driver&#39;s barrier bug</b> (line 1; scope <code>"
                               "barrier_chain native buffer=out class=integer</code>): 1 cell"));
  assert_non_null(strstr(html, "<td class=\"c s-known\""));
  assert_non_null(strstr(html, "known failure, diverge</h3>"));
  assert_non_null(strstr(html, "<li>unsupported in host-split: planted by the test: 1 cell (wide host-split)"));
  vc_sb_free(&sb);
  vc_sb_init(&sb);
  fx_report(vc_report_junit, runs, 1, exp, NULL, &sb);
  assert_valid_junit(vc_sb_str(&sb), sb.len, "known.xml");
  const char *xml = vc_sb_str(&sb);
  assert_null(strstr(xml, "<failure"));
  assert_non_null(strstr(xml, "<skipped type=\"diverge\" message=\"known failure ("));
  assert_non_null(strstr(xml, ":1): the driver&#39;s barrier bug; diverge in native"));
  assert_non_null(strstr(xml, "<skipped type=\"unsupported\" message=\"unsupported: unsupported "
                              "in host-split: planted by the test\"/>"));
  vc_sb_free(&sb);
  vc_sb_init(&sb);
  fx_report(vc_report_markdown, runs, 1, exp, NULL, &sb);
  assert_non_null(strstr(vc_sb_str(&sb), "# PASS WITH KNOWN ISSUES &mdash;"));
  assert_non_null(strstr(vc_sb_str(&sb), "- **the driver's barrier bug** (line 1; scope "));
  vc_sb_free(&sb);
  vc_run_free(r);
}

/* Flakes (failed, then passed on a rerun) have their own section after the
   known issues, each result with its attempt log and the flake entry that
   lists it; the matrix says flake, the Markdown matrix lists them, JUnit
   passes them with the log in <system-out>, and what the failed attempt got
   is shown (the element, expected and actual). */
static void test_flakes(void **state) {
  (void)state;
  char path[512], exp[512];
  fx_path(&fx_tmp, "flakes.db", path);
  fx_path(&fx_tmp, "flakes.txt", exp);
  const char text[] = "fail barrier_chain native reason=\"the driver's barrier bug\"\n"
                      "flake shaky * buffer=out reason=\"a shaky test\"\n";
  fx_write_file(exp, text, strlen(text));
  const fx_prog p[] = {{"atomics_add", "ppp", 3, 0},
                       {"barrier_chain", "dpp", 8, 0},
                       {"shaky", "fpf", 8, 0}};
  fx_write_run(path, &(fx_run){.progs = p, .nprogs = 3});
  vc_run_data *r = load(path);
  const vc_run_data *runs[] = {r};
  vc_strbuf sb;
  vc_sb_init(&sb);
  fx_report(vc_report_html, runs, 1, exp, NULL, &sb);
  const char *html = vc_sb_str(&sb);
  char *top = first_screen(html);
  assert_non_null(strstr(top, "<div class=\"word\">PASS WITH KNOWN ISSUES</div>"));
  assert_non_null(strstr(top, "1 known, 0 unsupported, 2 flakes"));
  free(top);
  const char *known = strstr(html, "Known failures, excused by");
  const char *section = strstr(html, "<h2>Flakes</h2>");
  const char *matrix = strstr(html, "<h2>Matrix</h2>");
  assert_non_null(known);
  assert_non_null(section);
  assert_true(known < section && section < matrix);
  /* a flake entry lists flakes; it excused no failure */
  assert_int_equal(count_between(known, section, "a shaky test"), 0);
  assert_non_null(strstr(section, "<tr><td>shaky</td><td>native</td><td class=\"n\">0</td>"
                                  "<td class=\"n\">2</td><td class=\"w\">known flake, "));
  assert_non_null(strstr(section, "flakes.txt:2: a shaky test</td><td class=\"w\">1 diverge: "
                                  "out differs in native; 2 pass</td></tr>"));
  assert_non_null(strstr(section, "<tr><td>shaky</td><td>resident-split</td>"));
  assert_int_equal(count_between(section, matrix, "<tr><td>shaky</td>"), 2);
  /* the failed attempt's values: element 17, expected 17, got a8f61780 */
  assert_non_null(strstr(section, "shaky native repeat 0, attempt 1 of 2: diverge"));
  assert_true(strstr(section, "a8f61780") && strstr(section, "a8f61780") < matrix);
  assert_int_equal(count_of(html, "<td class=\"c s-flake\""), 2);
  assert_int_equal(count_of(matrix, ">flake</td>"), 2);
  vc_sb_free(&sb);

  vc_sb_init(&sb);
  fx_report(vc_report_markdown, runs, 1, exp, NULL, &sb);
  const char *md = vc_sb_str(&sb);
  known = strstr(md, "Known failures, excused by");
  section = strstr(md, "\n## Flakes\n");
  matrix = strstr(md, "\n## Matrix\n");
  assert_non_null(known);
  assert_non_null(section);
  assert_true(known < section && section < matrix);
  assert_non_null(strstr(section, "| `shaky` | native | 0 | 2 | known flake, "));
  assert_non_null(strstr(section, "**shaky native repeat 0, attempt 1 of 2: diverge**"));
  assert_non_null(strstr(section, "| **17 \xe2\x89\xa0** | **17** | **2834700160** | "
                                  "`0x00000011` | `0xa8f61780` |"));
  assert_non_null(strstr(matrix, "| `shaky` | flake | pass | flake |"));
  vc_sb_free(&sb);

  vc_sb_init(&sb);
  fx_report(vc_report_junit, runs, 1, exp, NULL, &sb);
  assert_valid_junit(vc_sb_str(&sb), sb.len, "flakes.xml");
  const char *xml = vc_sb_str(&sb);
  assert_null(strstr(xml, "<failure"));
  assert_non_null(strstr(xml, "name=\"shaky\" time=\"0.008000\">\n      <system-out>repeat 0: "
                              "flake after 2 attempts: 1 diverge: out differs in native; 2 pass\n"
                              "</system-out>\n    </testcase>"));
  assert_int_equal(count_of(xml, "<system-out>"), 2);
  vc_sb_free(&sb);
  vc_run_free(r);
}

/* A flake is a failure unless a flake entry lists it: without one (or with
   one whose scope misses the failed attempt's divergence, or that expired)
   the report's verdict is FAIL, the cells are new failures whose section
   shows the failed attempt's values, and JUnit fails them. A fail entry
   lists no flake. */
static void test_unlisted_flakes_fail(void **state) {
  (void)state;
  char path[512], exp[512];
  fx_path(&fx_tmp, "unlisted.db", path);
  fx_path(&fx_tmp, "unlisted.txt", exp);
  const fx_prog p[] = {{"atomics_add", "ppp", 3, 0}, {"shaky", "fpp", 8, 0}};
  fx_write_run(path, &(fx_run){.progs = p, .nprogs = 2});
  vc_run_data *r = load(path);
  const vc_run_data *runs[] = {r};
  const char *files[] = {"flake shaky native buffer=other reason=\"another buffer\"\n",
                         "flake shaky native backend=no-such reason=\"another backend\"\n",
                         "flake shaky native expires=2020-01-01 reason=\"expired\"\n",
                         "fail shaky native reason=\"a known failure\"\n", NULL};
  for (int i = 0; i < 5; i++) {
    if (files[i]) fx_write_file(exp, files[i], strlen(files[i]));
    vc_strbuf sb;
    vc_sb_init(&sb);
    fx_report(vc_report_markdown, runs, 1, files[i] ? exp : "none", NULL, &sb);
    const char *md = vc_sb_str(&sb);
    assert_non_null(strstr(md, "# FAIL &mdash;"));
    assert_non_null(strstr(md, "1 new failure"));
    const char *failures = strstr(md, "\n## Failures\n");
    assert_non_null(failures);
    assert_non_null(strstr(failures, "### `shaky` native "));
    assert_non_null(strstr(failures, "**attempt 1 of 2: diverge**"));
    assert_non_null(strstr(failures, "`0xa8f61780`"));
    assert_non_null(strstr(md, "| **`shaky`** | **native** | **0** | **2** | **no: a new failure** |"));
    vc_sb_free(&sb);
    vc_sb_init(&sb);
    fx_report(vc_report_junit, runs, 1, files[i] ? exp : "none", NULL, &sb);
    assert_valid_junit(vc_sb_str(&sb), sb.len, "unlisted.xml");
    assert_int_equal(count_of(vc_sb_str(&sb), "<failure"), 1);
    vc_sb_free(&sb);
  }
  vc_run_free(r);
}

/* --inject-* on the command line or a mutant build: the title says so. */
static void test_planted_faults_in_title(void **state) {
  (void)state;
  char path[512];
  fx_path(&fx_tmp, "planted.db", path);
  const fx_prog p[] = {{"a", "dpp", 3, 0}};
  fx_write_run(path, &(fx_run){.progs = p, .nprogs = 1,
                               .command_line = "vyre-conform --backend vulkan --inject-flip "
                                               "native:out:3 corpus/",
                               .options = "repeat=1 device-options=cache=/home/ci/.cache/vc,barrier=inline "
                                          "mutant=skip-last flake-reruns=2 jobs=16 device-jobs=1"});
  vc_run_data *r = load(path);
  vc_strbuf sb;
  vc_sb_init(&sb);
  fx_report1(vc_report_html, r, &sb);
  const char *html = vc_sb_str(&sb);
  assert_non_null(strstr(html, "<title>[PLANTED FAULTS: NOT A QUALIFICATION] FAIL: "));
  assert_non_null(strstr(html, "faults were planted") || strstr(html, "had faults planted"));
  assert_non_null(strstr(html, "--inject-flip native:out:3, mutant=skip-last"));
  /* the kernel cache's place is no option of the device's; the number of
     jobs changes no result; flake-reruns=2 and device-jobs=1 are defaults */
  assert_non_null(strstr(html, "<td class=\"w\">device-options=barrier=inline</td>"));
  vc_sb_free(&sb);
  vc_sb_init(&sb);
  fx_report1(vc_report_markdown, r, &sb);
  assert_non_null(strstr(vc_sb_str(&sb), "# [PLANTED FAULTS: NOT A QUALIFICATION] FAIL"));
  vc_sb_free(&sb);
  vc_run_free(r);
  /* other values than the defaults are named */
  fx_path(&fx_tmp, "nondefault.db", path);
  fx_write_run(path, &(fx_run){.progs = p, .nprogs = 1,
                               .options = "repeat=1 flake-reruns=0 jobs=2 device-jobs=2"});
  r = load(path);
  vc_sb_init(&sb);
  fx_report1(vc_report_html, r, &sb);
  assert_non_null(strstr(vc_sb_str(&sb), "<td class=\"w\">flake-reruns=0 device-jobs=2</td>"));
  vc_sb_free(&sb);
  vc_run_free(r);
  /* a plain run says nothing of the kind */
  r = load(db_path);
  vc_sb_init(&sb);
  fx_report1(vc_report_html, r, &sb);
  assert_null(strstr(vc_sb_str(&sb), "PLANTED"));
  vc_sb_free(&sb);
  vc_run_free(r);
}

/* Three runs of three backends in one file: one report, side by side. */
static void test_three_backends(void **state) {
  (void)state;
  char path[512];
  fx_path(&fx_tmp, "three.db", path);
  const fx_prog p[] = {{"a", "ppp", 3, 0}, {"b", "ppp", 3, 0}};
  const fx_prog q[] = {{"a", "ppp", 3, 0}, {"b", "upp", 3, 0}};
  const fx_prog w[] = {{"a", "pdp", 3, 0}, {"c", "ppp", 3, 0}};
  const fx_extra ab[] = {{.path = "corpus/semantics/a.vyre"}, {.path = "corpus/atomics/b.vyre"}};
  const fx_extra ac[] = {{.path = "corpus/semantics/a.vyre"}, {.path = "corpus/semantics/c.vyre"}};
  fx_write_run(path, &(fx_run){.progs = p, .nprogs = 2, .backend = "cuda", .extras = ab});
  fx_write_run(path, &(fx_run){.progs = q, .nprogs = 2, .backend = "opencl", .extras = ab});
  fx_write_run(path, &(fx_run){.progs = w, .nprogs = 2, .backend = "vulkan", .extras = ac});
  char html[512], md[512], xml[512];
  fx_path(&fx_tmp, "q.html", html);
  fx_path(&fx_tmp, "q.md", md);
  fx_path(&fx_tmp, "q.xml", xml);
  char *out;
  const char *argv[] = {"report", path, "--run", "1,2,3", "--expectations", "none",
                        "--html", html, "--md", md, "--junit", xml};
  assert_int_equal(fx_capture(vc_cmd_report, 12, argv, &out), VC_EXIT_OK);
  free(out);
  char *text = fx_read_file(html);
  /* 3 programs (a, b, c) x 3 backends x 3 modes */
  assert_int_equal(count_of(text, "<td class=\"c "), 27);
  assert_int_equal(count_of(text, "<td class=\"c s-none\""), 9); /* c, b where absent */
  assert_non_null(strstr(text, "<th>cuda<br>native</th>"));
  assert_non_null(strstr(text, "<th>vulkan<br>resident-split</th>"));
  char *top = first_screen(text);
  assert_non_null(strstr(top, "<div class=\"word\">FAIL</div>"));
  assert_non_null(strstr(top, "<p><b>PASS</b> llvmpipe"));
  assert_non_null(strstr(top, "\xc2\xb7 backend cuda &mdash; run 1"));
  assert_non_null(strstr(top, "\xc2\xb7 backend opencl &mdash; run 2"));
  assert_non_null(strstr(top, "driver llvmpipe Mesa 22.3.6 &mdash; run 3"));
  free(top);
  /* folders, failures first: semantics (vulkan's divergence) before atomics */
  const char *sem = strstr(text, "<summary><b>semantics</b>");
  const char *ato = strstr(text, "<summary><b>atomics</b>");
  assert_non_null(sem);
  assert_non_null(ato);
  assert_true(sem < ato);
  assert_non_null(strstr(text, "<details class=\"group\" open><summary><b>semantics</b>: 2 programs, "
                               "1 new failure"));
  assert_non_null(strstr(text, "<details class=\"group\"><summary><b>atomics</b>: 1 program, "
                               "1 unsupported"));
  free(text);
  text = fx_read_file(xml);
  assert_valid_junit(text, strlen(text), "three-valid.xml");
  assert_int_equal(count_of(text, "<testsuite "), 9);
  assert_non_null(strstr(text, "<testsuites name=\"vyre-conform cuda,opencl,vulkan: FAIL\""));
  free(text);
  text = fx_read_file(md);
  assert_non_null(strstr(text, "| semantics | `a` | pass | pass | pass | pass | pass | pass | pass | "
                               "**NEW** diverge | pass |"));
  free(text);
}

/* --baseline: what changed, new failures, fixes and what went missing. */
static void test_baseline_changes(void **state) {
  (void)state;
  char base[512], cand[512];
  fx_path(&fx_tmp, "base.db", base);
  fx_path(&fx_tmp, "cand.db", cand);
  const fx_prog b[] = {{"fixed_one", "dpp", 3, 0},
                       {"broke_one", "ppp", 3, 0},
                       {"gone_one", "ppp", 3, 0}};
  const fx_prog c[] = {{"fixed_one", "ppp", 3, 0},
                       {"broke_one", "pdp", 3, 0}};
  fx_write_run(base, &(fx_run){.progs = b, .nprogs = 3});
  fx_write_run(cand, &(fx_run){.progs = c, .nprogs = 2});
  char *out;
  const char *argv[] = {"report", cand, "--baseline", base, "--expectations", "none"};
  assert_int_equal(fx_capture(vc_cmd_report, 6, argv, &out), VC_EXIT_OK);
  assert_non_null(strstr(out, "## Changes against the baseline"));
  assert_non_null(strstr(out, "1 new failure, 1 fixed, 3 missing"));
  assert_non_null(strstr(out, "### new-failure\n\n- `broke_one` host-split: diverge"));
  assert_non_null(strstr(out, "### fixed\n\n- `fixed_one` native: pass"));
  assert_non_null(strstr(out, "- `gone_one` native: was pass"));
  free(out);
  const char *bad[] = {"report", cand, "--baseline", "/nonexistent/base.db"};
  assert_int_equal(fx_capture(vc_cmd_report, 4, bad, &out), VC_EXIT_DB);
  free(out);
}

/* A failure's source and doc, read from its path when the digest matches. */
static void test_source_from_path(void **state) {
  (void)state;
  char path[512], src[512], digest[65];
  fx_path(&fx_tmp, "src.db", path);
  fx_path(&fx_tmp, "prog.vyre", src);
  const char text[] = "(program p (doc \"Adds \\\"one\\\" to <x>.\") (workgroup 1) (grid 1))\n";
  fx_write_file(src, text, strlen(text));
  vc_digest_file(src, digest);
  const fx_prog p[] = {{"p", "dpp", 3, 0}, {"q", "dpp", 3, 0}};
  const fx_extra ex[] = {{.path = src, .source_digest = digest},
                         {.path = src, .source_digest = "0000"}};
  fx_write_run(path, &(fx_run){.progs = p, .nprogs = 2, .extras = ex});
  vc_run_data *r = load(path);
  vc_strbuf sb;
  vc_sb_init(&sb);
  fx_report1(vc_report_html, r, &sb);
  const char *html = vc_sb_str(&sb);
  assert_non_null(strstr(html, "<p>Adds &quot;one&quot; to &lt;x&gt;.</p>"));
  assert_non_null(strstr(html, "<details><summary>source</summary><pre>(program p (doc"));
  assert_non_null(strstr(html, "has changed since the run"));
  vc_sb_free(&sb);
  vc_run_free(r);
}

/* --junit-limit and --junit-link, as deqp-runner's junit has them. */
static void test_junit_limit_and_link(void **state) {
  (void)state;
  vc_run_data *r = load(db_path);
  const vc_run_data *runs[] = {r};
  vc_report_opts o = {.junit_limit = 2, .junit_link = "See https://ci.example/{{backend}}/{{testcase}}-{{mode}}.html"};
  vc_strbuf sb;
  vc_sb_init(&sb);
  fx_report(vc_report_junit, runs, 1, NULL, &o, &sb);
  const char *xml = vc_sb_str(&sb);
  assert_valid_junit(xml, sb.len, "limit.xml");
  uint32_t failing = 0;
  for (int m = 0; m < 3; m++) failing += cells_with(m, "dwecti");
  assert_int_equal(count_of(xml, "(details left out: --junit-limit 2;"), failing - 2);
  assert_int_equal(count_of(xml, "repeat 0: "), 2 + 0); /* only two in full */
  assert_non_null(strstr(xml, "See https://ci.example/vulkan/barrier_chain-native.html\n"));
  assert_int_equal(count_of(xml, "See https://ci.example/"), failing);
  vc_sb_free(&sb);
  vc_run_free(r);
  char *out;
  const char *bad[] = {"report", db_path, "--junit-limit", "many"};
  assert_int_equal(fx_capture(vc_cmd_report, 4, bad, &out), VC_EXIT_USAGE);
  free(out);
}

/* 10,000 programs in 20 folders: grouped, collapsible, of a sane size. */
static void test_ten_thousand_programs(void **state) {
  (void)state;
  enum { N = 10000, FOLDERS = 20 };
  char path[512];
  fx_path(&fx_tmp, "big.db", path);
  fx_prog *p = calloc(N, sizeof *p);
  fx_extra *ex = calloc(N, sizeof *ex);
  static char names[N][16], paths[N][48];
  for (int i = 0; i < N; i++) {
    snprintf(names[i], sizeof names[i], "prog_%05d", i);
    snprintf(paths[i], sizeof paths[i], "corpus/folder_%02d/prog_%05d.vyre", i % FOLDERS, i);
    p[i] = (fx_prog){names[i], i % 997 == 0 ? "dpp" : i % 101 == 0 ? "puu" : "ppp", 1, 0};
    ex[i].path = paths[i];
  }
  fx_write_run(path, &(fx_run){.progs = p, .nprogs = N, .extras = ex});
  free(p);
  free(ex);
  vc_run_data *r = load(path);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  vc_strbuf sb;
  vc_sb_init(&sb);
  fx_report1(vc_report_html, r, &sb);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  const char *html = vc_sb_str(&sb);
  print_message("10,000 programs: %zu bytes of HTML in %.2f s\n", sb.len, s);
  assert_int_equal(count_of(html, "<td class=\"c "), 3 * N);
  assert_int_equal(count_of(html, "<details class=\"group\""), FOLDERS);
  /* the folders with a divergence (i % 997 == 0: 0, 997, ... 9970) are
     open; 997 is odd against 20 folders, so they land in several */
  uint32_t open = count_of(html, "<details class=\"group\" open>");
  assert_true(open >= 1 && open < FOLDERS);
  /* size sanity: no more than 400 bytes a program, the cells included */
  assert_true(sb.len < (size_t)N * 400);
  /* the launch chart would be a bar per program: left out */
  assert_non_null(strstr(html, "Launches per program: not drawn for 10000 programs"));
  assert_true(s < 60.0); /* sanity, not speed: quadratic work would take minutes */
  vc_sb_free(&sb);
  vc_run_free(r);
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
  assert_non_null(strstr(text, "vyre-conform qualification record"));
  free(text);
  text = fx_read_file(junit);
  assert_non_null(strstr(text, "<testsuites"));
  free(text);
  const char *to_stdout[] = {"report", db_path, "--run", "1"};
  assert_int_equal(fx_capture(vc_cmd_report, 4, to_stdout, &out), VC_EXIT_OK);
  assert_non_null(strstr(out, "## Counts per mode"));
  free(out);
  const char *no_run[] = {"report", db_path, "--run", "7"};
  assert_int_equal(fx_capture(vc_cmd_report, 4, no_run, &out), VC_EXIT_DB);
  free(out);
  const char *bad_list[] = {"report", db_path, "--run", "1,x"};
  assert_int_equal(fx_capture(vc_cmd_report, 4, bad_list, &out), VC_EXIT_USAGE);
  free(out);
  const char *no_exp[] = {"report", db_path, "--expectations", "/nonexistent/e.txt"};
  assert_int_equal(fx_capture(vc_cmd_report, 4, no_exp, &out), VC_EXIT_INPUT);
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
  assert_non_null(strstr(text, "<div class=\"word\">PASS</div>"));
  free(text);

  assert_int_equal(
      fx_write_run(path, &(fx_run){.progs = one, .nprogs = 1, .end_status = "interrupted"}), 2);
  assert_int_equal(fx_write_run(path, &(fx_run){.progs = one, .nprogs = 1, .end_status = ""}), 3);
  assert_int_equal(fx_capture_err(vc_cmd_report, 6, plain, &out, &errors), VC_EXIT_OK);
  char want[700];
  snprintf(want, sizeof want,
           "vyre-conform report: warning: %s holds runs newer than run 1 that did not complete: "
           "run 2 (interrupted), run 3 (running)\n",
           path);
  assert_string_equal(errors, want);
  free(out);
  free(errors);
  text = fx_read_file(html);
  assert_non_null(strstr(text, "<p class=\"warning\"><b>Warning:</b> "));
  assert_non_null(strstr(text, "run 2 (interrupted), run 3 (running)</p>"));
  free(text);
  text = fx_read_file(md);
  assert_non_null(strstr(text, "> **Warning:** "));
  assert_non_null(strstr(text, "run 2 (interrupted), run 3 (running)\n"));
  free(text);
  /* an interrupted run is no pass, however its results look */
  const char *second[] = {"report", path, "--run", "2"};
  assert_int_equal(fx_capture_err(vc_cmd_report, 4, second, &out, &errors), VC_EXIT_OK);
  assert_non_null(strstr(out, "# FAIL &mdash;"));
  assert_non_null(strstr(out, "the run is interrupted: not every program ran"));
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

/* The digest covers outcomes, not timings nor the order rows were written in. */
static void test_digest(void **state) {
  (void)state;
  char a_path[512], b_path[512], c_path[512];
  fx_path(&fx_tmp, "a.db", a_path);
  fx_path(&fx_tmp, "b.db", b_path);
  fx_path(&fx_tmp, "c.db", c_path);
  const fx_prog fwd[] = {{"x", "ppp", 1, 0}, {"y", "pdp", 2, 0}};
  const fx_prog rev[] = {{"y", "pdp", 9, 1}, {"x", "ppp", 7, 1}};
  const fx_prog changed[] = {{"x", "ppp", 1, 0},
                             {"y", "ppp", 2, 0}};
  fx_write_run(a_path, &(fx_run){.progs = fwd, .nprogs = 2, .repeats = 2});
  fx_write_run(b_path, &(fx_run){.progs = rev, .nprogs = 2, .repeats = 2});
  fx_write_run(c_path, &(fx_run){.progs = changed, .nprogs = 2, .repeats = 2});
  char da[65], db[65], dc[65];
  vc_run_data *r = load(a_path);
  vc_report_digest(r, da);
  vc_run_free(r);
  r = load_run(b_path, 1);
  vc_report_digest(r, db);
  vc_run_free(r);
  r = load(c_path);
  vc_report_digest(r, dc);
  vc_run_free(r);
  assert_string_equal(da, db);
  assert_string_not_equal(da, dc);
  assert_int_equal(strlen(da), 64);
}

/* A run in which nothing was checked (every cell skipped or unsupported) is
   NOT RUN in every report, not PASS: the HTML's verdict and why, the
   Markdown's title, and JUnit an <error> testcase, so that CI shows it
   red; with several runs it is the verdict unless one failed. A run with
   one passing cell, or one known failure, is coverage. */
static void test_nothing_ran(void **state) {
  (void)state;
  char path[512], exp[512];
  fx_path(&fx_tmp, "none.db", path);
  fx_path(&fx_tmp, "none.txt", exp);
  const fx_prog none[] = {{"atomics_add", "sss", 3, 0}, {"wide", "uus", 8, 0}};
  fx_write_run(path, &(fx_run){.progs = none, .nprogs = 2});
  vc_run_data *r = load(path);
  vc_strbuf sb;
  vc_sb_init(&sb);
  fx_report1(vc_report_html, r, &sb);
  char *top = first_screen(vc_sb_str(&sb));
  assert_non_null(strstr(top, "<div class=\"verdict v-notrun\" id=\"verdict\"><div "
                              "class=\"word\">NOT RUN</div>"));
  assert_non_null(strstr(top, "nothing was checked: no cell passed or failed as expected "
                              "(4 skip, 2 unsupported)"));
  free(top);
  assert_non_null(strstr(vc_sb_str(&sb), "<title>NOT RUN: "));
  vc_sb_free(&sb);
  vc_sb_init(&sb);
  fx_report1(vc_report_markdown, r, &sb);
  assert_non_null(strstr(vc_sb_str(&sb), "# NOT RUN &mdash;"));
  vc_sb_free(&sb);
  vc_sb_init(&sb);
  fx_report1(vc_report_junit, r, &sb);
  assert_valid_junit(vc_sb_str(&sb), sb.len, "none.xml");
  const char *xml = vc_sb_str(&sb);
  assert_non_null(strstr(xml, "<testsuites name=\"vyre-conform vulkan: NOT RUN\" tests=\"7\" "
                              "failures=\"0\" errors=\"1\""));
  assert_non_null(strstr(xml, "<testsuite name=\"vulkan.coverage\" tests=\"1\" failures=\"0\" "
                              "errors=\"1\" skipped=\"0\""));
  assert_non_null(strstr(xml, "<error type=\"not-run\" message=\"NOT RUN: nothing was checked"));
  vc_sb_free(&sb);
  /* beside a run that passed, still NOT RUN; beside one that failed, FAIL */
  vc_run_data *ok = load(db_path);
  const vc_run_data *two[] = {r, ok};
  vc_qual q;
  vc_error err = {0};
  assert_int_equal(vc_qual_build(two, 2, NULL, &q, &err), 0);
  assert_int_equal(q.runs[0].verdict, VC_VERDICT_NOT_RUN);
  assert_int_equal(q.verdict, VC_VERDICT_FAIL); /* db_path's run has new failures */
  vc_qual_free(&q);
  vc_run_free(ok);
  vc_run_free(r);
  /* one pass is coverage; so is a known failure alone */
  const fx_prog one[] = {{"atomics_add", "sps", 3, 0}, {"wide", "uus", 8, 0}};
  fx_write_run(path, &(fx_run){.progs = one, .nprogs = 2});
  r = load(path);
  assert_int_equal(vc_qual_build((const vc_run_data *const *)&r, 1, NULL, &q, &err), 0);
  assert_int_equal(q.verdict, VC_VERDICT_PASS);
  vc_qual_free(&q);
  vc_run_free(r);
  const fx_prog known[] = {{"atomics_add", "sds", 3, 0}};
  fx_write_run(path, &(fx_run){.progs = known, .nprogs = 1});
  fx_write_file(exp, "fail atomics_add * reason=known\n", 32);
  r = load(path);
  vc_report_opts o = {.expectations = exp};
  assert_int_equal(vc_qual_build((const vc_run_data *const *)&r, 1, &o, &q, &err), 0);
  assert_int_equal(q.verdict, VC_VERDICT_KNOWN);
  vc_qual_free(&q);
  vc_run_free(r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_html, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_hostile_text_is_escaped, setup, fx_tmp_teardown),
      cmocka_unit_test(test_typed_values),
      cmocka_unit_test_setup_teardown(test_markdown, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_markdown_without_verdicts, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_junit_parses_with_matching_counts, setup,
                                      fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_known_issues, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_flakes, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_unlisted_flakes_fail, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_planted_faults_in_title, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_three_backends, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_baseline_changes, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_source_from_path, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_junit_limit_and_link, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_ten_thousand_programs, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_digest, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_command, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_warns_of_newer_unfinished_runs, setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_nothing_ran, setup, fx_tmp_teardown),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  xmlCleanupParser();
  return rc;
}
