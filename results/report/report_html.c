/* The HTML qualification report: one file, no scripts, no fonts or images
 * from anywhere else; charts are inline SVG. The first screen says the
 * verdict; then what changed, the counts, the known issues, the matrix and
 * a section for each failure. The sections it shares with the Markdown are
 * sections.c's; its own are the page with its style, the matrix in groups
 * that fold, and the charts. */
#include <stdlib.h>

#include "harness/base/plural.h"
#include "harness/model/outcome.h"
#include "results/report/escape.h"
#include "results/report/qual.h"
#include "results/report/report.h"
#include "results/report/sections.h"
#include "results/report/svg.h"

static const char style[] =
    "body{font-family:sans-serif;margin:16px 24px;color:#222;background:#fff;max-width:1232px}"
    "h1{font-size:20px;margin:0 0 8px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ccc}"
    "h3{font-size:14px;margin:18px 0 4px}"
    "table{border-collapse:collapse;margin:6px 0 14px;max-width:100%}"
    "th,td{border:1px solid #bbb;padding:2px 7px;text-align:left;font-size:13px;"
    "vertical-align:top;overflow-wrap:break-word}th{background:#eef1f5}"
    "td.n{text-align:right}td.w,table.kv td{overflow-wrap:anywhere}"
    "table.counts th{font-size:12px}table.counts th:first-child{white-space:nowrap}"
    ".verdict{border:3px solid;border-radius:6px;padding:8px 14px;margin:0 0 10px}"
    ".verdict .word{font-size:30px;font-weight:bold;letter-spacing:1px}"
    ".verdict p{margin:3px 0;font-size:14px}"
    ".v-pass{border-color:#2e7d32;background:#e8f5e9}.v-pass .word{color:#1b5e20}"
    ".v-known{border-color:#b26a00;background:#fff4e0}.v-known .word{color:#8a4b00}"
    ".v-fail{border-color:#c62828;background:#fdecea}.v-fail .word{color:#b71c1c}"
    ".v-notrun{border-color:#455a64;background:#eceff1}.v-notrun .word{color:#263238}"
    "p.planted{background:#b71c1c;color:#fff;padding:6px 10px;font-weight:bold}"
    "td.c{white-space:nowrap;font-size:12px;padding:1px 5px}"
    "td.c a{color:inherit}"
    ".s-pass{background:#c8e6c9}.s-new{background:#e53935;color:#fff;font-weight:bold}"
    ".s-known{background:#ffcc80}.s-unsupported{background:#d6d6d6}.s-skip{background:#f2f2f2}"
    ".s-flake{background:#e1bee7}.s-other{background:#b3e5fc}.s-none{background:#fff;color:#999}"
    "span.key{display:inline-block;padding:1px 6px;margin:0 6px 4px 0;border:1px solid #bbb;"
    "font-size:12px}"
    "details.group{margin:4px 0}details.group>summary{cursor:pointer;font-size:14px;padding:2px}"
    "table.vals td{font-family:monospace}table.vals tr.bad td{background:#ffe0e0;font-weight:bold}"
    "pre{background:#f5f5f5;padding:6px;white-space:pre-wrap;overflow-wrap:anywhere;"
    "font-size:12px;margin:4px 0}"
    "code{font-size:12px;overflow-wrap:anywhere}"
    ".cmd{background:#f5f5f5;padding:3px 6px;display:block;font-family:monospace;font-size:12px;"
    "overflow-wrap:anywhere}"
    "div.failure{border-left:4px solid #e53935;padding-left:10px;margin:14px 0}"
    "div.failure.known{border-left-color:#ffa726}"
    ".digest{font-family:monospace}svg.chart{display:block;margin:12px 0;max-width:100%}"
    "p.warning{background:#fff3cd;border:1px solid #e0b252;padding:6px 10px}";

/* ---- the first screen ---- */

static void title(vc_strbuf *sb, const vc_qual *q) {
  vc_sb_puts(sb, vc_qual_title_prefix(q));
  vc_sb_printf(sb, "%s: ", vc_verdict_word(q->verdict));
  for (uint32_t i = 0; i < q->nruns; i++) {
    const vc_run_data *r = q->runs[i].run;
    if (i) vc_sb_puts(sb, ", ");
    vc_esc_markup(sb, r->info.backend);
    vc_sb_puts(sb, " on ");
    vc_esc_markup(sb, r->has_device ? r->device.device_name : "an unrecorded device");
  }
}

static void head(vc_strbuf *sb, const vc_qual *q) {
  vc_sb_puts(sb, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                 "<meta name=\"viewport\" content=\"width=device-width\">\n<title>");
  title(sb, q);
  vc_sb_printf(sb, " (vyre-conform)</title>\n<style>%s</style></head><body>\n", style);
  vc_sb_puts(sb, "<h1>vyre-conform qualification report");
  if (q->planted) vc_sb_puts(sb, " &mdash; planted faults, not a qualification");
  if (q->opts && q->opts->not_for_submission) vc_sb_puts(sb, " &mdash; NOT FOR SUBMISSION");
  vc_sb_puts(sb, "</h1>\n");
}

/* ---- the matrix ---- */

static void legend(vc_strbuf *sb) {
  vc_sb_puts(sb, "<p><span class=\"key s-new\">new failure: STATUS</span>"
                 "<span class=\"key s-known\">known: STATUS</span>"
                 "<span class=\"key s-pass\">pass</span>"
                 "<span class=\"key s-flake\">flake (passed on a rerun)</span>"
                 "<span class=\"key s-unsupported\">unsupported</span>"
                 "<span class=\"key s-skip\">skip</span>"
                 "<span class=\"key s-other\">another status</span>"
                 "<span class=\"key s-none\">&mdash; not in this run</span>"
                 " A failing cell links to its section; &ldquo;2/3&rdquo; says how many "
                 "repeats failed (or, for a flake, flaked).</p>\n");
}

static void matrix_cell(vc_strbuf *sb, const vc_qrun *qr, uint32_t ri, const vc_cell *c) {
  if (!c) {
    vc_sb_puts(sb, "<td class=\"c s-none\">&mdash;</td>");
    return;
  }
  const vc_qcell *qc = &qr->qcells[vc_qual_cell_index(qr, c)];
  const char *cls = qc->judged == VC_JUDGED_NEW     ? "s-new"
                    : qc->judged == VC_JUDGED_KNOWN ? "s-known"
                    : vc_qual_flaky(qc)             ? "s-flake"
                    : c->status == VC_ST_PASS       ? "s-pass"
                    : c->status == VC_ST_UNSUPPORTED ? "s-unsupported"
                    : c->status == VC_ST_SKIP        ? "s-skip"
                                                     : "s-other";
  vc_sb_printf(sb, "<td class=\"c %s\" title=\"", cls);
  vc_esc_markup(sb, c->reason);
  vc_sb_puts(sb, "\">");
  if (qc->section >= 0) vc_sb_printf(sb, "<a href=\"#f-%u-%d\">", ri, qc->section);
  vc_matrix_label(&vc_markup_html, qr, c, sb);
  if (qc->section >= 0) vc_sb_puts(sb, "</a>");
  vc_sb_puts(sb, "</td>");
}

static int matrix(vc_strbuf *sb, const vc_qual *q, vc_error *err) {
  vc_qmatrix mx;
  int rc = vc_qual_matrix(q, &mx, err);
  if (rc) return rc;
  vc_sb_printf(sb, "<h2>Matrix</h2>\n<p>%u %s in %u %s; folders with failures "
                   "first, open.</p>\n",
               mx.nrows, vc_plural(mx.nrows, "program", "programs"), mx.ngroups,
               vc_plural(mx.ngroups, "folder", "folders"));
  legend(sb);
  /* the header row, repeated in every group */
  vc_strbuf hdr;
  vc_sb_init(&hdr);
  vc_sb_puts(&hdr, "<tr><th>program</th>");
  for (uint32_t r = 0; r < q->nruns; r++)
    for (uint32_t m = 0; m < q->runs[r].sum.cells.nmodes; m++) {
      vc_sb_puts(&hdr, "<th>");
      vc_matrix_column(&vc_markup_html, q, r, m, &hdr);
      vc_sb_puts(&hdr, "</th>");
    }
  vc_sb_puts(&hdr, "</tr>\n");
  for (uint32_t g = 0; g < mx.ngroups; g++) {
    const vc_qgroup *gr = &mx.groups[g];
    vc_sb_printf(sb, "<details class=\"group\"%s><summary><b>", gr->severity >= 2 ? " open" : "");
    vc_esc_markup(sb, gr->folder);
    vc_sb_printf(sb, "</b>: %u program%s", gr->n, gr->n == 1 ? "" : "s");
    if (gr->nnew) vc_sb_printf(sb, ", %u new failure%s", gr->nnew, gr->nnew == 1 ? "" : "s");
    if (gr->nknown) vc_sb_printf(sb, ", %u known", gr->nknown);
    if (gr->nunsupported) vc_sb_printf(sb, ", %u unsupported", gr->nunsupported);
    vc_sb_puts(sb, "</summary>\n<table class=\"matrix\">");
    vc_sb_puts(sb, vc_sb_str(&hdr));
    for (uint32_t i = gr->first; i < gr->first + gr->n; i++) {
      vc_sb_puts(sb, "<tr><th>");
      vc_esc_markup(sb, mx.rows[i].name);
      vc_sb_puts(sb, "</th>");
      for (uint32_t r = 0; r < q->nruns; r++) {
        const vc_qrun *qr = &q->runs[r];
        for (uint32_t m = 0; m < qr->sum.cells.nmodes; m++)
          matrix_cell(sb, qr, r,
                      vc_cells_find(&qr->sum.cells, mx.rows[i].name, qr->sum.cells.modes[m]));
      }
      vc_sb_puts(sb, "</tr>\n");
    }
    vc_sb_puts(sb, "</table></details>\n");
  }
  vc_sb_free(&hdr);
  vc_qual_matrix_free(&mx);
  return 0;
}

/* ---- the details: run, device, charts ---- */

enum { MAX_LAUNCH_CHART = 300 }; /* programs; beyond, a bar each is no chart */

static int charts(vc_strbuf *sb, const vc_qrun *qr, vc_error *err) {
  const vc_run_data *r = qr->run;
  const vc_cells *c = &qr->sum.cells;
  const vc_mode_stats *ms = qr->sum.modes;
  uint32_t nm = c->nmodes;
  uint64_t *v = calloc(2 * nm + (size_t)r->nprogs * nm + 1, sizeof *v);
  const char **programs = calloc(r->nprogs + 1, sizeof *programs);
  if (!v || !programs) {
    free(v);
    free(programs);
    return vc_fail(err, VC_ERR_NOMEM, "writing the HTML report: out of memory");
  }
  static const char *const times[] = {"wall (sum of medians)", "device (sum of medians)"};
  static const char *const traffic[] = {"host to device", "device to host"};
  for (uint32_t m = 0; m < nm; m++) v[2 * m] = ms[m].wall_total, v[2 * m + 1] = ms[m].device_total;
  vc_svg_bars(sb, &(vc_chart){"Time per mode", VC_UNIT_NS, c->modes, nm, times, 2, v});
  for (uint32_t m = 0; m < nm; m++) v[2 * m] = ms[m].bytes_up, v[2 * m + 1] = ms[m].bytes_down;
  vc_svg_bars(sb, &(vc_chart){"Bytes moved per mode", VC_UNIT_BYTES, c->modes, nm, traffic, 2, v});
  if (r->nprogs <= MAX_LAUNCH_CHART) {
    for (uint32_t p = 0; p < r->nprogs; p++) {
      programs[p] = r->progs[p].info.name;
      for (uint32_t m = 0; m < nm; m++) {
        const vc_cell *cell = vc_cells_find(c, programs[p], c->modes[m]);
        v[p * nm + m] = cell ? cell->launches : 0;
      }
    }
    vc_svg_bars(sb, &(vc_chart){"Launches per program", VC_UNIT_COUNT, programs, r->nprogs,
                                c->modes, nm, v});
  } else {
    vc_sb_printf(sb, "<p>Launches per program: not drawn for %u %s (the results "
                     "database and <code>vyre-conform export</code> hold them).</p>\n",
                 r->nprogs, vc_plural(r->nprogs, "program", "programs"));
  }
  free(programs);
  free(v);
  return 0;
}

static int details(vc_strbuf *sb, const vc_qual *q, vc_error *err) {
  int rc = 0;
  for (uint32_t i = 0; i < q->nruns && !rc; i++) {
    const vc_run_data *r = q->runs[i].run;
    vc_sb_printf(sb, "<h2>Run %lld, ", (long long)r->id);
    vc_esc_markup(sb, r->info.backend);
    vc_sb_puts(sb, ": run, device and charts</h2>\n");
    vc_section_run_record(&vc_markup_html, r, sb);
    rc = charts(sb, &q->runs[i], err);
  }
  return rc;
}

int vc_report_html(const vc_qual *q, vc_strbuf *out, vc_error *err) {
  const vc_markup *d = &vc_markup_html;
  head(out, q);
  vc_section_first_screen(d, q, out);
  vc_section_changes(d, q, out);
  vc_section_counts(d, q, out);
  vc_section_flakes(d, q, out);
  vc_section_litmus(d, q, out);
  vc_section_crossover(d, q, out);
  int rc = matrix(out, q, err);
  if (!rc) vc_section_failures(d, q, out);
  if (!rc) rc = details(out, q, err);
  if (!rc) vc_sb_puts(out, "<p>Written by vyre-conform report.</p>\n</body></html>\n");
  return rc;
}
