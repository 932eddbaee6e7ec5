/* JUnit XML: a testsuite per mode, a testcase per program. diverge,
 * untrustworthy and invalid are failures, error/crash/timeout are errors, unsupported and skip
 * are skipped, pass and flake (passed on a rerun) pass; a program's time is its median wall
 * time over repeats. */
#include <stdio.h>
#include <string.h>

#include "results/report/escape.h"
#include "results/report/report.h"
#include "harness/model/outcome.h"

typedef struct suite_counts {
  uint32_t tests, failures, errors, skipped;
  double seconds;
} suite_counts;

static const char *element(vc_status s) {
  if (s == VC_ST_DIVERGE || s == VC_ST_UNTRUSTWORTHY || s == VC_ST_INVALID) return "failure";
  if (s == VC_ST_ERROR || s == VC_ST_CRASH || s == VC_ST_TIMEOUT) return "error";
  if (s == VC_ST_UNSUPPORTED || s == VC_ST_SKIP) return "skipped";
  return NULL;
}

static void count(suite_counts *sc, const vc_cell *c) {
  const char *e = element(c->status);
  sc->tests++;
  sc->seconds += (double)c->wall_median / 1e9;
  if (!e) return;
  if (e[0] == 'f')
    sc->failures++;
  else if (e[0] == 'e')
    sc->errors++;
  else
    sc->skipped++;
}

static void testcase(vc_strbuf *sb, const vc_run_data *r, const vc_cell *c) {
  vc_sb_puts(sb, "    <testcase classname=\"");
  vc_esc_markup(sb, "vyre-conform.");
  vc_esc_markup(sb, r->info.backend);
  vc_sb_putc(sb, '.');
  vc_esc_markup(sb, c->mode);
  vc_sb_puts(sb, "\" name=\"");
  vc_esc_markup(sb, c->prog->info.name);
  vc_sb_printf(sb, "\" time=\"%.6f\"", (double)c->wall_median / 1e9);
  const char *e = element(c->status);
  if (!e) {
    vc_sb_puts(sb, "/>\n");
    return;
  }
  vc_sb_printf(sb, ">\n      <%s type=\"%s\" message=\"", e, vc_status_name(c->status));
  vc_esc_markup(sb, c->reason);
  vc_sb_puts(sb, "\">");
  for (uint32_t i = 0; i < c->n; i++) {
    const vc_result *x = &c->results[i];
    vc_sb_printf(sb, "repeat %u: %s", x->repeat, vc_status_name(x->status));
    if (x->reason[0]) {
      vc_sb_puts(sb, ": ");
      vc_esc_markup(sb, x->reason);
    }
    vc_sb_putc(sb, '\n');
    for (uint32_t k = 0; k < x->ndivs; k++) {
      vc_sb_puts(sb, "  buffer ");
      vc_esc_markup(sb, x->divs[k].buffer);
      vc_sb_printf(sb, " element %llu (%llu mismatching, ",
                   (unsigned long long)x->divs[k].first_index,
                   (unsigned long long)x->divs[k].count);
      vc_esc_markup(sb, vc_divclass_name(x->divs[k].cls));
      vc_sb_puts(sb, "): expected ");
      vc_esc_markup(sb, x->divs[k].expected_hex);
      vc_sb_puts(sb, ", actual ");
      vc_esc_markup(sb, x->divs[k].actual_hex);
      vc_sb_putc(sb, '\n');
    }
  }
  vc_sb_printf(sb, "</%s>\n    </testcase>\n", e);
}

static void suite(vc_strbuf *sb, const vc_run_data *r, const vc_cells *c, const char *mode,
                  suite_counts *total) {
  suite_counts sc = {0};
  for (uint32_t i = 0; i < c->n; i++)
    if (strcmp(c->items[i].mode, mode) == 0) count(&sc, &c->items[i]);
  vc_sb_puts(sb, "  <testsuite name=\"");
  vc_esc_markup(sb, mode);
  vc_sb_printf(sb, "\" tests=\"%u\" failures=\"%u\" errors=\"%u\" skipped=\"%u\" time=\"%.6f\">\n",
               sc.tests, sc.failures, sc.errors, sc.skipped, sc.seconds);
  for (uint32_t i = 0; i < c->n; i++)
    if (strcmp(c->items[i].mode, mode) == 0) testcase(sb, r, &c->items[i]);
  vc_sb_puts(sb, "  </testsuite>\n");
  total->tests += sc.tests;
  total->failures += sc.failures;
  total->errors += sc.errors;
  total->skipped += sc.skipped;
  total->seconds += sc.seconds;
}

int vc_report_junit(const vc_run_data *r, vc_strbuf *out, vc_error *err) {
  vc_cells cells;
  int rc = vc_cells_build(r, &cells, err);
  if (rc) return rc;
  vc_strbuf body;
  vc_sb_init(&body);
  suite_counts total = {0};
  for (uint32_t m = 0; m < cells.nmodes; m++) suite(&body, r, &cells, cells.modes[m], &total);
  vc_sb_puts(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"vyre-conform ");
  vc_esc_markup(out, r->info.backend);
  vc_sb_printf(out, "\" tests=\"%u\" failures=\"%u\" errors=\"%u\" skipped=\"%u\" time=\"%.6f\">\n",
               total.tests, total.failures, total.errors, total.skipped, total.seconds);
  vc_sb_puts(out, vc_sb_str(&body));
  vc_sb_puts(out, "</testsuites>\n");
  vc_sb_free(&body);
  vc_cells_free(&cells);
  return 0;
}
