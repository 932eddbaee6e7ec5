/* The HTML report in headless Chromium: a page and not a blank; and what a
 * person sees at 1280x800: the verdict word in the first viewport, one
 * cell per program and mode in the matrix, no horizontal overflow at
 * 1280 px (every folder opened too), no console errors and nothing loaded
 * from anywhere. The checks run in a copy of the page with a script put
 * first in its <head> (the report itself has none); Chromium's
 * --dump-dom prints what the script found. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "png_colours.h"
#include "results/store/load.h"
#include "results/report/report.h"

static const char *chromium(void) {
  const char *c = getenv("VC_CHROMIUM");
  return c && c[0] ? c : "/usr/bin/chromium";
}

/* A page counts as rendered when it has many colours and a fair share of
   its pixels differ from the background. A blank page has one colour. */
static bool looks_rendered(const png_stats *s) {
  return s->colours >= 32 && s->off_background >= 0.05;
}

static void render(const char *html, png_stats *stats) {
  if (access(chromium(), X_OK) != 0)
    fail_msg(
        "%s is not installed (ci/install-deps.sh installs chromium; VC_CHROMIUM names another)",
        chromium());
  char png[512], profile[512], log[512], cmd[3000];
  fx_path(&fx_tmp, "page.png", png);
  fx_path(&fx_tmp, "profile", profile);
  fx_path(&fx_tmp, "chromium.log", log);
  unlink(png);
  snprintf(cmd, sizeof cmd,
           "timeout 180 '%s' --headless --no-sandbox --disable-gpu --disable-background-networking"
           " --disable-component-update --disable-sync --no-first-run --user-data-dir='%s'"
           " --screenshot='%s' --window-size=1200,2000 'file://%s' >'%s' 2>&1",
           chromium(), profile, png, html, log);
  int rc = system(cmd);
  char why[256];
  if (png_colour_stats(png, stats, why) != 0)
    fail_msg("chromium exited with %d and left no readable screenshot (%s); see %s", rc, why, log);
  print_message("%s: %ux%u, %u colours, %.1f%% off the background\n", html, stats->width,
                stats->height, stats->colours, 100.0 * stats->off_background);
}

/* The check itself must be able to fail: a blank page is not rendered. */
static void test_blank_page_is_blank(void **state) {
  (void)state;
  char html[512];
  fx_path(&fx_tmp, "blank.html", html);
  const char blank[] =
      "<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head><body></body></html>\n";
  fx_write_file(html, blank, strlen(blank));
  png_stats s;
  render(html, &s);
  assert_int_equal(s.width, 1200);
  assert_int_equal(s.height, 2000);
  assert_false(looks_rendered(&s));
}

static void test_report_renders(void **state) {
  (void)state;
  char db[512], html[512];
  fx_path(&fx_tmp, "run.db", db);
  fx_path(&fx_tmp, "report.html", html);
  const fx_prog progs[] = {{"atomics_add", "ppp", 3, 0},
                           {"barrier_chain", "dpp", 8, 0},
                           {"crashy", "pcu", 2, 0},
                           {"loop_budget", "ptp", 50, 0}};
  fx_write_run(db, &(fx_run){.progs = progs, .nprogs = 4, .repeats = 3});
  vc_error err = {0};
  vc_run_data *r;
  assert_int_equal(vc_run_load(db, VC_RUN_LAST_COMPLETE, &r, &err), 0);
  vc_strbuf sb;
  vc_sb_init(&sb);
  assert_int_equal(fx_report1(vc_report_html, r, &sb), 0);
  fx_write_file(html, vc_sb_str(&sb), sb.len);
  vc_sb_free(&sb);
  vc_run_free(r);
  png_stats s;
  render(html, &s);
  assert_true(looks_rendered(&s));
}

/* What the check script measured. */
typedef struct page_check {
  double word_top, word_bottom;
  int inner_w, inner_h, cells, scroll_w, scroll_w_open, resources, errors;
  char word[64];
} page_check;

static const char check_script[] =
    "<script>window.vcErrors=[];"
    "addEventListener('error',function(e){vcErrors.push(String(e.message))});"
    "(function(){var o=console.error;console.error=function(){"
    "vcErrors.push(Array.prototype.join.call(arguments,' '));o.apply(console,arguments)}})();"
    "addEventListener('load',function(){"
    "var w=document.querySelector('#verdict .word'),r=w?w.getBoundingClientRect():{top:-1,bottom:-1};"
    "var res={top:r.top,bottom:r.bottom,word:w?w.textContent:'',iw:innerWidth,ih:innerHeight,"
    "cells:document.querySelectorAll('td.c').length,"
    "sw:document.documentElement.scrollWidth,"
    "res:performance.getEntriesByType('resource').length+"
    "document.querySelectorAll('[src],link[href],object,iframe,embed').length};"
    "document.querySelectorAll('details').forEach(function(d){d.open=true});"
    "res.swo=document.documentElement.scrollWidth;res.err=vcErrors.length;"
    "var p=document.createElement('pre');p.textContent='VCCHE'+'CK '+"
    "[res.top,res.bottom,res.iw,res.ih,res.cells,res.sw,res.swo,res.res,res.err].join(' ')+"
    "' '+res.word.replace(/ /g,'_')+' VCEND';document.body.appendChild(p);});</script>";

static void check_page(const char *html, page_check *out) {
  if (access(chromium(), X_OK) != 0)
    fail_msg(
        "%s is not installed (ci/install-deps.sh installs chromium; VC_CHROMIUM names another)",
        chromium());
  char page[512], dom[512], profile[512], cmd[3000];
  fx_path(&fx_tmp, "checked.html", page);
  fx_path(&fx_tmp, "dom.txt", dom);
  fx_path(&fx_tmp, "profile-check", profile);
  char *text = fx_read_file(html);
  const char *at = strstr(text, "<head>");
  assert_non_null(at);
  size_t pre = (size_t)(at - text) + 6;
  FILE *f = fopen(page, "wb");
  assert_non_null(f);
  fwrite(text, 1, pre, f);
  fputs(check_script, f);
  fputs(text + pre, f);
  fclose(f);
  free(text);
  snprintf(cmd, sizeof cmd,
           "timeout 180 '%s' --headless --no-sandbox --disable-gpu --hide-scrollbars"
           " --disable-background-networking --disable-component-update --disable-sync"
           " --no-first-run --user-data-dir='%s' --window-size=1280,800"
           " --virtual-time-budget=10000 --dump-dom 'file://%s' >'%s' 2>/dev/null",
           chromium(), profile, page, dom);
  int rc = system(cmd);
  char *got = fx_read_file(dom);
  const char *m = strstr(got, "VCCHECK ");
  if (!m) fail_msg("chromium exited with %d and printed no check result for %s", rc, html);
  memset(out, 0, sizeof *out);
  int n = sscanf(m + 8, "%lf %lf %d %d %d %d %d %d %d %63s", &out->word_top, &out->word_bottom,
                 &out->inner_w, &out->inner_h, &out->cells, &out->scroll_w, &out->scroll_w_open,
                 &out->resources, &out->errors, out->word);
  if (n != 10) fail_msg("unreadable check result: %.200s", m);
  for (char *c = out->word; *c; c++)
    if (*c == '_') *c = ' ';
  free(got);
  print_message("%s: \"%s\" at %.0f-%.0f px of %dx%d, %d cells, %d/%d px wide, %d loads, %d "
                "errors\n",
                html, out->word, out->word_top, out->word_bottom, out->inner_w, out->inner_h,
                out->cells, out->scroll_w, out->scroll_w_open, out->resources, out->errors);
}

static void write_report(const char *db, const char *html, const fx_run *run) {
  fx_write_run(db, run);
  vc_error err = {0};
  vc_run_data *r;
  assert_int_equal(vc_run_load(db, VC_RUN_LAST_COMPLETE, &r, &err), 0);
  vc_strbuf sb;
  vc_sb_init(&sb);
  assert_int_equal(fx_report1(vc_report_html, r, &sb), 0);
  fx_write_file(html, vc_sb_str(&sb), sb.len);
  vc_sb_free(&sb);
  vc_run_free(r);
}

static void test_first_screen_in_chromium(void **state) {
  (void)state;
  char db[512], html[512];
  fx_path(&fx_tmp, "run.db", db);
  fx_path(&fx_tmp, "report.html", html);
  /* long names and reasons: what would push a page wider than the screen */
  enum { N = 60 };
  static char names[N][96];
  fx_prog progs[N];
  fx_extra ex[N];
  static char paths[N][160];
  for (int i = 0; i < N; i++) {
    snprintf(names[i], sizeof names[i], "a_rather_long_program_name_without_spaces_%02d_of_sixty", i);
    snprintf(paths[i], sizeof paths[i],
             "corpus/folder_%d/a/deep/path/with/many/parts/that/goes/on/and/on/%s.vyre", i % 4,
             names[i]);
    progs[i] = (fx_prog){names[i], i % 7 == 0 ? "dpu" : i % 11 == 0 ? "pwp" : "ppp", 3, 0};
    ex[i] = (fx_extra){.path = paths[i], .err_text = "driver: a long line of standard error "
                                                     "without_any_break_in_it_at_all_xxxxxxxxxxxx"
                                                     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                                                     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"};
  }
  write_report(db, html, &(fx_run){.progs = progs, .nprogs = N, .repeats = 3, .extras = ex});
  page_check c;
  check_page(html, &c);
  /* a window of 1280x800: the viewport is 1280 wide, and no taller (the
     new headless mode keeps room for a window's frame) */
  assert_int_equal(c.inner_w, 1280);
  assert_true(c.inner_h > 400 && c.inner_h <= 800);
  assert_string_equal(c.word, "FAIL");
  assert_true(c.word_top >= 0 && c.word_bottom <= c.inner_h);
  assert_int_equal(c.cells, 3 * N);
  assert_true(c.scroll_w <= 1280);
  assert_true(c.scroll_w_open <= 1280);
  assert_int_equal(c.resources, 0);
  assert_int_equal(c.errors, 0);
}

/* The checks can fail: a page wider than the screen, a console error, the
   verdict below the fold and a load are each seen. */
static void test_checks_see_bad_pages(void **state) {
  (void)state;
  char html[512], css[512];
  fx_path(&fx_tmp, "bad.html", html);
  fx_path(&fx_tmp, "bad.css", css);
  fx_write_file(css, "p{}", 3);
  const char bad[] =
      "<!DOCTYPE html><html><head><meta charset=\"utf-8\">"
      "<link rel=\"stylesheet\" href=\"bad.css\"></head><body>"
      "<div style=\"width:3000px;height:900px\">wide</div>"
      "<div id=\"verdict\"><div class=\"word\">PASS</div></div>"
      "<script>console.error('broken')</script></body></html>\n";
  fx_write_file(html, bad, strlen(bad));
  page_check c;
  check_page(html, &c);
  assert_true(c.scroll_w > 1280);
  assert_true(c.word_top > c.inner_h);
  assert_int_equal(c.errors, 1);
  assert_true(c.resources >= 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_blank_page_is_blank, fx_tmp_setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_report_renders, fx_tmp_setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_first_screen_in_chromium, fx_tmp_setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_checks_see_bad_pages, fx_tmp_setup, fx_tmp_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
