/* The HTML qualification report: one file, no scripts, no fonts or images
 * from anywhere else; charts are inline SVG. The first screen says the
 * verdict; then what changed, the counts, the known issues, the matrix and
 * a section for each failure. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/model/outcome.h"
#include "results/report/escape.h"
#include "results/report/fmt.h"
#include "results/report/modestats.h"
#include "results/report/qual.h"
#include "results/report/report.h"
#include "results/report/source.h"
#include "results/report/svg.h"
#include "results/report/typed.h"

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

static void kv(vc_strbuf *sb, const char *key, const char *value) {
  vc_sb_printf(sb, "<tr><th>%s</th><td>", key);
  vc_esc_markup(sb, value ? value : "");
  vc_sb_puts(sb, "</td></tr>\n");
}

static void kv_u64(vc_strbuf *sb, const char *key, uint64_t v) {
  char text[32];
  snprintf(text, sizeof text, "%" PRIu64, v);
  kv(sb, key, text);
}

static void kv_bytes(vc_strbuf *sb, const char *key, uint64_t v) {
  char text[VC_FMT_LEN];
  vc_fmt_bytes(text, v);
  kv(sb, key, text);
}

static const char *verdict_class(vc_qual_verdict v) {
  return v == VC_VERDICT_PASS ? "v-pass" : v == VC_VERDICT_KNOWN ? "v-known" : "v-fail";
}

/* ---- the first screen ---- */

static void title(vc_strbuf *sb, const vc_qual *q) {
  if (q->planted) vc_sb_puts(sb, "[PLANTED FAULTS: NOT A QUALIFICATION] ");
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
  vc_sb_puts(sb, "</h1>\n");
}

static void counts_line(vc_strbuf *sb, const vc_qrun *qr) {
  uint32_t cells = 0, pass = 0, uns = 0;
  for (uint32_t m = 0; m < qr->sum.cells.nmodes; m++) {
    cells += qr->modes[m].programs;
    pass += qr->modes[m].counts[VC_ST_PASS];
    uns += qr->modes[m].counts[VC_ST_UNSUPPORTED];
  }
  vc_sb_printf(sb,
               " &mdash; run %lld: %u cells (%u programs &times; %u modes), %u pass, <b>%u new "
               "failure%s</b>, %u known, %u unsupported",
               (long long)qr->run->id, cells, qr->run->nprogs, qr->sum.cells.nmodes, pass, qr->nnew,
               qr->nnew == 1 ? "" : "s", qr->nknown, uns);
  if (qr->nflakes) vc_sb_printf(sb, ", %u flake%s", qr->nflakes, qr->nflakes == 1 ? "" : "s");
}

static void verdict_box(vc_strbuf *sb, const vc_qual *q) {
  vc_sb_printf(sb, "<div class=\"verdict %s\" id=\"verdict\"><div class=\"word\">%s</div>\n",
               verdict_class(q->verdict), vc_verdict_word(q->verdict));
  for (uint32_t i = 0; i < q->nruns; i++) {
    const vc_qrun *qr = &q->runs[i];
    vc_sb_puts(sb, "<p>");
    if (q->nruns > 1) vc_sb_printf(sb, "<b>%s</b> ", vc_verdict_word(qr->verdict));
    vc_esc_markup(sb, qr->device_line);
    counts_line(sb, qr);
    if (strcmp(qr->run->status, "complete") != 0) { /* the counts do not say it */
      vc_sb_puts(sb, "; <b>");
      vc_esc_markup(sb, qr->why);
      vc_sb_puts(sb, "</b>");
    }
    vc_sb_puts(sb, "</p>\n");
  }
  vc_sb_puts(sb, "</div>\n");
}

static void provenance(vc_strbuf *sb, const vc_qual *q) {
  for (uint32_t i = 0; i < q->nruns; i++)
    if (q->runs[i].injected[0]) {
      vc_sb_printf(sb, "<p class=\"planted\">Run %lld had faults planted on purpose: ",
                   (long long)q->runs[i].run->id);
      vc_esc_markup(sb, q->runs[i].injected);
      vc_sb_puts(sb, ". Its failures say nothing about the device.</p>\n");
    }
  vc_sb_puts(sb, "<table><tr><th>run</th><th>status</th><th>harness</th><th>started</th>"
                 "<th>expectations</th><th>non-default options</th></tr>\n");
  for (uint32_t i = 0; i < q->nruns; i++) {
    const vc_qrun *qr = &q->runs[i];
    const vc_run_data *r = qr->run;
    char started[VC_FMT_LEN];
    vc_fmt_utc(started, r->info.started_ns);
    vc_sb_printf(sb, "<tr><td>%lld ", (long long)r->id);
    vc_esc_markup(sb, r->info.backend);
    vc_sb_puts(sb, "</td><td>");
    vc_esc_markup(sb, r->status);
    vc_sb_puts(sb, "</td><td class=\"w\">");
    vc_esc_markup(sb, r->info.harness_version);
    vc_sb_puts(sb, " ");
    vc_esc_markup(sb, r->info.harness_commit);
    vc_sb_printf(sb, "</td><td>%s</td><td class=\"w\">", started);
    vc_esc_markup(sb, qr->exps_text);
    vc_sb_puts(sb, "</td><td class=\"w\">");
    vc_esc_markup(sb, qr->nondefault[0] ? qr->nondefault : "none");
    vc_sb_puts(sb, "</td></tr>\n");
  }
  vc_sb_puts(sb, "</table>\n");
}

/* ---- what changed against the baseline ---- */

static void changes(vc_strbuf *sb, const vc_qual *q) {
  if (!q->has_cmp) return;
  const vc_comparison *c = &q->cmp;
  vc_sb_printf(sb, "<h2>Changes against the baseline</h2>\n<p>Baseline run %lld of ",
               (long long)c->base->id);
  vc_esc_markup(sb, c->base->path);
  vc_sb_printf(sb, " against run %lld: %u new failure%s, %u fixed, %u missing, %u newly "
                   "unsupported, %u new program%s.</p>\n",
               (long long)c->cand->id, c->counts[VC_F_NEW_FAILURE],
               c->counts[VC_F_NEW_FAILURE] == 1 ? "" : "s", c->counts[VC_F_FIXED],
               c->counts[VC_F_MISSING], c->counts[VC_F_NEWLY_UNSUPPORTED],
               c->counts[VC_F_NEW_PROGRAM], c->counts[VC_F_NEW_PROGRAM] == 1 ? "" : "s");
  static const vc_finding_kind shown[] = {VC_F_NEW_FAILURE, VC_F_NEWLY_UNSUPPORTED, VC_F_MISSING,
                                          VC_F_FIXED};
  for (size_t k = 0; k < sizeof shown / sizeof shown[0]; k++) {
    if (!c->counts[shown[k]]) continue;
    vc_sb_printf(sb, "<h3>%s</h3>\n<ul>\n", vc_finding_kind_name(shown[k]));
    for (uint32_t i = 0; i < c->n; i++) {
      const vc_finding *f = &c->items[i];
      if (f->kind != shown[k]) continue;
      vc_sb_puts(sb, "<li>");
      vc_esc_markup(sb, f->program);
      vc_sb_puts(sb, " ");
      vc_esc_markup(sb, f->mode);
      if (f->cand) {
        vc_sb_printf(sb, ": %s", vc_status_name(f->cand->status));
        if (f->cand->reason && f->cand->reason[0]) {
          vc_sb_puts(sb, " &mdash; ");
          vc_esc_markup(sb, f->cand->reason);
        }
      } else if (f->base) {
        vc_sb_printf(sb, ": was %s", vc_status_name(f->base->status));
      }
      vc_sb_puts(sb, "</li>\n");
    }
    vc_sb_puts(sb, "</ul>\n");
  }
}

/* ---- counts per mode ---- */

static void summary_table(vc_strbuf *sb, const vc_qrun *qr) {
  const vc_run_data *r = qr->run;
  vc_sb_printf(sb, "<h3>Run %lld, ", (long long)r->id);
  vc_esc_markup(sb, r->info.backend);
  vc_sb_puts(sb, "</h3>\n<table class=\"counts\"><tr><th>mode</th><th>programs</th><th>pass</th>"
                 "<th>new failures</th><th>known failures</th>");
  for (int s = 0; s < VC_STATUS_COUNT; s++)
    if (s != VC_ST_PASS) vc_sb_printf(sb, "<th>%s</th>", vc_status_name((vc_status)s));
  vc_sb_puts(sb, "<th>median wall</th><th>median device</th></tr>\n");
  for (uint32_t m = 0; m < qr->sum.cells.nmodes; m++) {
    const vc_qmode *qm = &qr->modes[m];
    char wall[VC_FMT_LEN], dev[VC_FMT_LEN];
    vc_mode_stats_medians(&qr->sum.modes[m], r->device.timestamps, wall, dev);
    vc_sb_puts(sb, "<tr><th>");
    vc_esc_markup(sb, qr->sum.cells.modes[m]);
    vc_sb_printf(sb, "</th><td class=\"n\">%u</td><td class=\"n\">%u</td><td class=\"n\">%u</td>"
                     "<td class=\"n\">%u</td>",
                 qm->programs, qm->counts[VC_ST_PASS], qm->new_failures, qm->known_failures);
    for (int s = 0; s < VC_STATUS_COUNT; s++)
      if (s != VC_ST_PASS) vc_sb_printf(sb, "<td class=\"n\">%u</td>", qm->counts[s]);
    vc_sb_printf(sb, "<td>%s</td><td>%s</td></tr>\n", wall, dev);
  }
  vc_sb_puts(sb, "</table>\n");
}

static void scope_text(vc_strbuf *sb, const vc_expectation *x) {
  vc_esc_markup(sb, x->program);
  vc_sb_puts(sb, " ");
  vc_esc_markup(sb, x->mode);
  const char *keys[] = {"status", "note", "buffer", "class", "backend", "device", "driver"};
  const char *vals[] = {x->status, x->note, x->buffer, x->cls, x->backend, x->device, x->driver};
  for (int i = 0; i < 7; i++)
    if (vals[i]) {
      vc_sb_printf(sb, " %s=", keys[i]);
      vc_esc_markup(sb, vals[i]);
    }
  if (x->expires_text) {
    vc_sb_puts(sb, " expires=");
    vc_esc_markup(sb, x->expires_text);
  }
}

/* Each entry that excused something, with its reason, scope and the cells. */
static void known_list(vc_strbuf *sb, const vc_qrun *qr, uint32_t ri) {
  if (!qr->nknown) return;
  vc_sb_puts(sb, "<p>Known failures, excused by ");
  vc_esc_markup(sb, qr->exps.file);
  vc_sb_puts(sb, ":</p>\n<ul>\n");
  for (uint32_t e = 0; e < qr->exps.n; e++) {
    const vc_expectation *x = &qr->exps.items[e];
    uint32_t n = 0;
    for (uint32_t i = 0; i < qr->sum.cells.n; i++) n += qr->qcells[i].by == x;
    if (!n) continue;
    vc_sb_puts(sb, "<li><b>");
    vc_esc_markup(sb, x->reason);
    vc_sb_printf(sb, "</b> (line %u; scope <code>", x->line);
    scope_text(sb, x);
    vc_sb_printf(sb, "</code>): %u cell%s: ", n, n == 1 ? "" : "s");
    uint32_t shown = 0;
    for (uint32_t i = 0; i < qr->sum.cells.n && shown < 12; i++) {
      if (qr->qcells[i].by != x) continue;
      const vc_cell *c = &qr->sum.cells.items[i];
      vc_sb_printf(sb, "%s<a href=\"#f-%u-%d\">", shown ? ", " : "", ri, qr->qcells[i].section);
      vc_esc_markup(sb, c->prog->info.name);
      vc_sb_puts(sb, " ");
      vc_esc_markup(sb, c->mode);
      vc_sb_puts(sb, "</a>");
      shown++;
    }
    if (n > shown) vc_sb_printf(sb, " and %u more", n - shown);
    vc_sb_puts(sb, "</li>\n");
  }
  vc_sb_puts(sb, "</ul>\n");
}

/* The new failures, each a link to its section. */
static void new_list(vc_strbuf *sb, const vc_qrun *qr, uint32_t ri) {
  if (!qr->nnew) return;
  vc_sb_printf(sb, "<p>New failures (%u): ", qr->nnew);
  uint32_t shown = 0;
  for (uint32_t s = 0; s < qr->nsections && shown < 40; s++) {
    uint32_t i = qr->section_cell[s];
    if (qr->qcells[i].judged != VC_JUDGED_NEW) break;
    const vc_cell *c = &qr->sum.cells.items[i];
    vc_sb_printf(sb, "%s<a href=\"#f-%u-%u\">", shown ? ", " : "", ri, s);
    vc_esc_markup(sb, c->prog->info.name);
    vc_sb_puts(sb, " ");
    vc_esc_markup(sb, c->mode);
    vc_sb_printf(sb, "</a> (%s)", vc_status_name(c->status));
    shown++;
  }
  if (qr->nnew > shown) vc_sb_printf(sb, " and %u more", qr->nnew - shown);
  vc_sb_puts(sb, "</p>\n");
}

/* Unsupported cells by reason. */
static void unsupported_list(vc_strbuf *sb, const vc_qrun *qr) {
  const vc_cells *c = &qr->sum.cells;
  bool any = false;
  for (uint32_t i = 0; i < c->n; i++) {
    if (c->items[i].status != VC_ST_UNSUPPORTED) continue;
    bool seen = false;
    for (uint32_t j = 0; j < i && !seen; j++)
      seen = c->items[j].status == VC_ST_UNSUPPORTED &&
             !strcmp(c->items[j].reason, c->items[i].reason);
    if (seen) continue;
    if (!any) vc_sb_puts(sb, "<p>Unsupported, by reason:</p>\n<ul>\n");
    any = true;
    uint32_t n = 0;
    vc_strbuf names;
    vc_sb_init(&names);
    for (uint32_t j = i; j < c->n; j++) {
      if (c->items[j].status != VC_ST_UNSUPPORTED || strcmp(c->items[j].reason, c->items[i].reason))
        continue;
      if (n < 8) {
        vc_sb_puts(&names, n ? ", " : "");
        vc_esc_markup(&names, c->items[j].prog->info.name);
        vc_sb_puts(&names, " ");
        vc_esc_markup(&names, c->items[j].mode);
      }
      n++;
    }
    vc_sb_puts(sb, "<li>");
    vc_esc_markup(sb, c->items[i].reason[0] ? c->items[i].reason : "(no reason given)");
    vc_sb_printf(sb, ": %u cell%s (%s%s)</li>\n", n, n == 1 ? "" : "s", vc_sb_str(&names),
                 n > 8 ? ", ..." : "");
    vc_sb_free(&names);
  }
  if (any) vc_sb_puts(sb, "</ul>\n");
}

/* ---- flakes: failed unexpectedly, then passed on a rerun ---- */

/* Every result with status flake, one row each, with the outcome of every
   attempt: a flake does not fail the run, but a driver engineer wants to
   see it. */
static void flakes(vc_strbuf *sb, const vc_qual *q) {
  uint32_t total = 0;
  for (uint32_t i = 0; i < q->nruns; i++) total += q->runs[i].nflakes;
  if (!total) return;
  vc_sb_printf(sb, "<h2>Flakes</h2>\n<p>%u result%s failed, then passed on a rerun "
                   "(<code>--flake-reruns</code>): they do not fail the run.</p>\n",
               total, total == 1 ? "" : "s");
  for (uint32_t i = 0; i < q->nruns; i++) {
    const vc_qrun *qr = &q->runs[i];
    if (!qr->nflakes) continue;
    vc_sb_printf(sb, "<h3>Run %lld, ", (long long)qr->run->id);
    vc_esc_markup(sb, qr->run->info.backend);
    vc_sb_puts(sb, "</h3>\n<table class=\"flakes\"><tr><th>program</th><th>mode</th>"
                   "<th>repeat</th><th>attempts</th><th>attempt log</th></tr>\n");
    for (uint32_t k = 0; k < qr->sum.cells.n; k++) {
      const vc_cell *c = &qr->sum.cells.items[k];
      for (uint32_t j = 0; j < c->n; j++) {
        const vc_result *x = &c->results[j];
        if (x->status != VC_ST_FLAKE) continue;
        vc_sb_puts(sb, "<tr><td>");
        vc_esc_markup(sb, c->prog->info.name);
        vc_sb_puts(sb, "</td><td>");
        vc_esc_markup(sb, c->mode);
        vc_sb_printf(sb, "</td><td class=\"n\">%u</td><td class=\"n\">%u</td><td class=\"w\">",
                     x->repeat, x->attempts);
        vc_esc_markup(sb, x->attempt_log[0] ? x->attempt_log : x->reason);
        vc_sb_puts(sb, "</td></tr>\n");
      }
    }
    vc_sb_puts(sb, "</table>\n");
  }
}

static void summaries(vc_strbuf *sb, const vc_qual *q) {
  vc_sb_puts(sb, "<h2>Counts per mode</h2>\n<p>A program in a mode is one cell, over its "
                 "repeats. New and known failures split the failing statuses (");
  bool first = true;
  for (int s = 0; s < VC_STATUS_COUNT; s++)
    if (vc_status_is_failure((vc_status)s)) {
      vc_sb_printf(sb, "%s%s", first ? "" : ", ", vc_status_name((vc_status)s));
      first = false;
    }
  vc_sb_puts(sb, ") by whether an expectation covers every part of them.</p>\n");
  for (uint32_t i = 0; i < q->nruns; i++) {
    summary_table(sb, &q->runs[i]);
    new_list(sb, &q->runs[i], i);
    known_list(sb, &q->runs[i], i);
    unsupported_list(sb, &q->runs[i]);
  }
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
  const char *name = vc_status_name(c->status);
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
  if (vc_qual_flaky(qc)) name = vc_status_name(VC_ST_FLAKE);
  vc_sb_printf(sb, "%s%s", qc->judged == VC_JUDGED_KNOWN ? "known: " : "", name);
  if (c->nfailing && c->nfailing < c->n) vc_sb_printf(sb, " %u/%u", c->nfailing, c->n);
  else if (vc_qual_flaky(qc) && qc->nflakes < c->n) vc_sb_printf(sb, " %u/%u", qc->nflakes, c->n);
  if (qc->section >= 0) vc_sb_puts(sb, "</a>");
  vc_sb_puts(sb, "</td>");
}

static int matrix(vc_strbuf *sb, const vc_qual *q, vc_error *err) {
  vc_qrow *rows;
  vc_qgroup *groups;
  uint32_t nrows, ngroups;
  int rc = vc_qual_rows(q, &rows, &nrows, &groups, &ngroups, err);
  if (rc) return rc;
  vc_sb_printf(sb, "<h2>Matrix</h2>\n<p>%u programs in %u folders; folders with failures "
                   "first, open.</p>\n",
               nrows, ngroups);
  legend(sb);
  /* the header row, repeated in every group */
  vc_strbuf hdr;
  vc_sb_init(&hdr);
  vc_sb_puts(&hdr, "<tr><th>program</th>");
  for (uint32_t r = 0; r < q->nruns; r++)
    for (uint32_t m = 0; m < q->runs[r].sum.cells.nmodes; m++) {
      vc_sb_puts(&hdr, "<th>");
      if (q->nruns > 1) {
        vc_esc_markup(&hdr, q->runs[r].run->info.backend);
        vc_sb_puts(&hdr, "<br>");
      }
      vc_esc_markup(&hdr, q->runs[r].sum.cells.modes[m]);
      vc_sb_puts(&hdr, "</th>");
    }
  vc_sb_puts(&hdr, "</tr>\n");
  for (uint32_t g = 0; g < ngroups; g++) {
    const vc_qgroup *gr = &groups[g];
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
      vc_esc_markup(sb, rows[i].name);
      vc_sb_puts(sb, "</th>");
      for (uint32_t r = 0; r < q->nruns; r++) {
        const vc_qrun *qr = &q->runs[r];
        for (uint32_t m = 0; m < qr->sum.cells.nmodes; m++)
          matrix_cell(sb, qr, r, vc_cells_find(&qr->sum.cells, rows[i].name, qr->sum.cells.modes[m]));
      }
      vc_sb_puts(sb, "</tr>\n");
    }
    vc_sb_puts(sb, "</table></details>\n");
  }
  vc_sb_free(&hdr);
  free(rows);
  free(groups);
  return 0;
}

/* ---- one failure ---- */

static void values_table(vc_strbuf *sb, const vc_divergence *d) {
  vc_typed_elem el[VC_TYPED_MAX];
  uint32_t n = vc_typed_context(d, el);
  vc_sb_puts(sb, "<table class=\"vals\"><tr><th>element</th><th>expected (");
  vc_esc_markup(sb, d->type);
  vc_sb_puts(sb, ")</th><th>actual</th><th>expected bits</th><th>actual bits</th></tr>\n");
  for (uint32_t i = 0; i < n; i++) {
    vc_sb_printf(sb, "<tr%s><td>%" PRIu64 "%s</td><td>", el[i].differs ? " class=\"bad\"" : "",
                 el[i].index, el[i].differs ? " &#x2260;" : "");
    vc_esc_markup(sb, el[i].expected);
    vc_sb_puts(sb, "</td><td>");
    vc_esc_markup(sb, el[i].actual);
    vc_sb_printf(sb, "</td><td>%s</td><td>%s</td></tr>\n", el[i].expected_hex, el[i].actual_hex);
  }
  vc_sb_puts(sb, "</table>\n");
}

static void divergence(vc_strbuf *sb, const vc_divergence *d) {
  vc_sb_puts(sb, "<p>Buffer <b>");
  vc_esc_markup(sb, d->buffer);
  vc_sb_puts(sb, "</b> (");
  vc_esc_markup(sb, d->type);
  vc_sb_printf(sb, "): %" PRIu64 " element%s differ, first at %" PRIu64 "; class <b>",
               d->count, d->count == 1 ? "" : "s", d->first_index);
  vc_esc_markup(sb, vc_divclass_name(d->cls));
  vc_sb_puts(sb, "</b>");
  if (!strcmp(d->type, "f32")) vc_sb_printf(sb, ", largest distance %" PRIu64 " ulp", d->max_ulp);
  vc_sb_puts(sb, ".</p>\n");
  values_table(sb, d);
}

static bool same_outcome(const vc_result *a, const vc_result *b) {
  if (a->status != b->status || strcmp(a->reason, b->reason) || a->ndivs != b->ndivs) return false;
  for (uint32_t k = 0; k < a->ndivs; k++) {
    const vc_divergence *x = &a->divs[k], *y = &b->divs[k];
    if (strcmp(x->buffer, y->buffer) || x->first_index != y->first_index || x->count != y->count ||
        x->cls != y->cls || strcmp(x->expected_hex, y->expected_hex) ||
        strcmp(x->actual_hex, y->actual_hex))
      return false;
  }
  return true;
}

/* The repeats of a cell, identical ones merged: "3 of 3 repeats". */
static void repeats(vc_strbuf *sb, const vc_cell *c) {
  bool *done = calloc(c->n + 1, sizeof *done);
  if (!done) return;
  for (uint32_t i = 0; i < c->n; i++) {
    if (done[i]) continue;
    const vc_result *x = &c->results[i];
    uint32_t same = 0;
    for (uint32_t j = i; j < c->n; j++)
      if (!done[j] && same_outcome(x, &c->results[j])) done[j] = true, same++;
    vc_sb_printf(sb, "<h4>%u of %u repeat%s: %s</h4>\n", same, c->n, c->n == 1 ? "" : "s",
                 vc_status_name(x->status));
    if (x->reason[0]) {
      vc_sb_puts(sb, "<p>");
      vc_esc_markup(sb, x->reason);
      vc_sb_puts(sb, "</p>\n");
    }
    for (uint32_t k = 0; k < x->ndivs; k++) divergence(sb, &x->divs[k]);
    if (x->captured_stderr[0]) {
      vc_sb_printf(sb, "<details><summary>standard error of the worker and driver (repeat %u)"
                       "</summary><pre>",
                   x->repeat);
      vc_esc_markup(sb, x->captured_stderr);
      vc_sb_puts(sb, "</pre></details>\n");
    }
  }
  free(done);
}

static void failure(vc_strbuf *sb, const vc_qrun *qr, uint32_t ri, const vc_cell *c,
                    const vc_qcell *qc) {
  const vc_run_data *r = qr->run;
  const vc_prog_data *p = c->prog;
  bool known = qc->judged == VC_JUDGED_KNOWN;
  vc_sb_printf(sb, "<div class=\"failure%s\" id=\"f-%u-%d\">\n<h3>", known ? " known" : "", ri,
               qc->section);
  vc_esc_markup(sb, p->info.name);
  vc_sb_puts(sb, " &mdash; ");
  vc_esc_markup(sb, c->mode);
  vc_sb_puts(sb, " &mdash; ");
  vc_esc_markup(sb, r->info.backend);
  vc_sb_printf(sb, ": %s %s</h3>\n", known ? "known failure," : "NEW FAILURE,",
               vc_status_name(c->status));
  if (known && qc->by) {
    vc_sb_puts(sb, "<p>Excused by ");
    vc_esc_markup(sb, qr->exps.file);
    vc_sb_printf(sb, ":%u: <b>", qc->by->line);
    vc_esc_markup(sb, qc->by->reason);
    vc_sb_puts(sb, "</b> (scope <code>");
    scope_text(sb, qc->by);
    vc_sb_puts(sb, "</code>)</p>\n");
  }
  vc_prog_source src;
  vc_prog_source_read(p, &src);
  vc_sb_puts(sb, "<p>Path: <code>");
  vc_esc_markup(sb, p->info.path);
  vc_sb_puts(sb, "</code></p>\n");
  if (src.doc[0]) {
    vc_sb_puts(sb, "<p>");
    vc_esc_markup(sb, src.doc);
    vc_sb_puts(sb, "</p>\n");
  }
  if (src.text) {
    vc_sb_puts(sb, "<details><summary>source</summary><pre>");
    vc_esc_markup(sb, src.text);
    vc_sb_puts(sb, "</pre></details>\n");
  } else {
    vc_sb_puts(sb, "<p>Source not shown: ");
    vc_esc_markup(sb, src.note);
    vc_sb_puts(sb, ".</p>\n");
  }
  vc_prog_source_free(&src);
  vc_strbuf cmd;
  vc_sb_init(&cmd);
  vc_repro_command(r, p, c->mode, &cmd);
  vc_sb_puts(sb, "<p>Reproduce:</p><code class=\"cmd\">");
  vc_esc_markup(sb, vc_sb_str(&cmd));
  vc_sb_puts(sb, "</code>\n<p>The generated kernel (split modes: add <code>--segment K</code> for "
                 "segment K):</p><code class=\"cmd\">");
  cmd.len = 0;
  vc_emit_command(r, p, c->mode, &cmd);
  vc_esc_markup(sb, vc_sb_str(&cmd));
  vc_sb_puts(sb, "</code>\n");
  vc_sb_free(&cmd);
  repeats(sb, c);
  vc_sb_puts(sb, "</div>\n");
}

static void failures(vc_strbuf *sb, const vc_qual *q) {
  vc_sb_puts(sb, "<h2>Failures</h2>\n");
  uint32_t shown = 0;
  for (uint32_t ri = 0; ri < q->nruns; ri++) {
    const vc_qrun *qr = &q->runs[ri];
    for (uint32_t s = 0; s < qr->nsections; s++, shown++) {
      uint32_t i = qr->section_cell[s];
      failure(sb, qr, ri, &qr->sum.cells.items[i], &qr->qcells[i]);
    }
  }
  if (!shown) vc_sb_puts(sb, "<p>None: every result that ran matched the oracle.</p>\n");
}

/* ---- the details: run, device, charts ---- */

static void run_table(vc_strbuf *sb, const vc_run_data *r) {
  char started[VC_FMT_LEN], ended[VC_FMT_LEN], took[VC_FMT_LEN], digest[65];
  vc_report_digest(r, digest);
  vc_fmt_utc(started, r->info.started_ns);
  vc_fmt_utc(ended, r->ended_ns);
  vc_fmt_ns(took,
            r->ended_ns > r->info.started_ns ? (uint64_t)(r->ended_ns - r->info.started_ns) : 0);
  vc_sb_puts(sb, "<table class=\"kv\">\n");
  kv(sb, "status", r->status);
  kv(sb, "started", started);
  kv(sb, "ended", ended);
  kv(sb, "duration", took);
  kv(sb, "harness version", r->info.harness_version);
  kv(sb, "harness commit", r->info.harness_commit);
  kv(sb, "command line", r->info.command_line);
  kv(sb, "host", r->info.host);
  kv(sb, "corpus", r->info.corpus_path);
  kv(sb, "corpus digest", r->info.corpus_digest);
  kv(sb, "shard", r->info.shard[0] ? r->info.shard : "none (the whole corpus)");
  kv(sb, "backend", r->info.backend);
  kv(sb, "modes", r->info.modes);
  kv(sb, "options", r->info.options);
  kv(sb, "selection", r->info.selection);
  kv(sb, "results digest (SHA-256)", digest);
  vc_sb_puts(sb, "</table>\n");
}

static void device_table(vc_strbuf *sb, const vc_run_data *r) {
  if (!r->has_device) {
    vc_sb_puts(sb, "<p>No device was recorded for this run.</p>\n");
    return;
  }
  const vc_device_info *d = &r->device;
  char text[128];
  vc_sb_puts(sb, "<table class=\"kv\">\n");
  kv(sb, "name", d->device_name);
  kv(sb, "API", d->api);
  kv(sb, "API version", d->api_version);
  kv(sb, "driver", d->driver_name);
  kv(sb, "driver version", d->driver_version);
  snprintf(text, sizeof text, "0x%04x / 0x%04x", d->vendor_id, d->device_id);
  kv(sb, "vendor / device id", text);
  kv(sb, "UUID", d->uuid[0] ? d->uuid : "(none given)");
  kv_u64(sb, "compute units", d->compute_units);
  kv_u64(sb, "max workgroup invocations", d->max_workgroup_invocations);
  snprintf(text, sizeof text, "%u x %u x %u", d->max_workgroup_size[0], d->max_workgroup_size[1],
           d->max_workgroup_size[2]);
  kv(sb, "max workgroup size", text);
  snprintf(text, sizeof text, "%u x %u x %u", d->max_grid[0], d->max_grid[1], d->max_grid[2]);
  kv(sb, "max grid", text);
  kv_bytes(sb, "max shared memory", d->max_shared_bytes);
  kv_bytes(sb, "max buffer", d->max_buffer_bytes);
  kv_bytes(sb, "global memory", d->global_mem_bytes);
  kv(sb, "device timestamps", d->timestamps ? "yes" : "no (host timing only)");
  kv(sb, "cooperative launch", d->cooperative ? "yes" : "no");
  kv(sb, "float environment", d->float_env);
  kv(sb, "behavioural fingerprint", r->fingerprint);
  vc_sb_puts(sb, "</table>\n");
  if (d->extra[0]) {
    vc_sb_puts(sb, "<details><summary>further properties</summary><pre>");
    vc_esc_markup(sb, d->extra);
    vc_sb_puts(sb, "</pre></details>\n");
  }
}

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
    vc_sb_printf(sb, "<p>Launches per program: not drawn for %u programs (the results "
                     "database and <code>vyre-conform export</code> hold them).</p>\n",
                 r->nprogs);
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
    run_table(sb, r);
    device_table(sb, r);
    rc = charts(sb, &q->runs[i], err);
  }
  return rc;
}

int vc_report_html(const vc_qual *q, vc_strbuf *out, vc_error *err) {
  head(out, q);
  verdict_box(out, q);
  for (uint32_t i = 0; i < q->nruns; i++) vc_report_unfinished_html(q->runs[i].run, out);
  provenance(out, q);
  changes(out, q);
  summaries(out, q);
  flakes(out, q);
  int rc = matrix(out, q, err);
  if (!rc) failures(out, q);
  if (!rc) rc = details(out, q, err);
  if (!rc) vc_sb_puts(out, "<p>Written by vyre-conform report.</p>\n</body></html>\n");
  return rc;
}
