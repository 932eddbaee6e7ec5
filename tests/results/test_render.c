/* The HTML report, rendered by headless Chromium, is a page and not a blank. */
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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_blank_page_is_blank, fx_tmp_setup, fx_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_report_renders, fx_tmp_setup, fx_tmp_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
