/* The sections of the qualification report that HTML and Markdown share
 * (sections.h): the words, the order and the limits live here only. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/plural.h"
#include "harness/model/attempt_log.h"
#include "harness/model/outcome.h"
#include "results/gate/judged_by.h"
#include "results/report/blocks.h"
#include "results/report/fmt.h"
#include "results/report/modestats.h"
#include "results/report/report.h"
#include "results/report/sections.h"
#include "results/report/source.h"
#include "results/report/typed.h"

enum {
  NEW_LISTED = 40,        /* new failures named in the counts */
  KNOWN_LISTED = 12,      /* cells named per expectation */
  UNSUPPORTED_LISTED = 8, /* cells named per reason */
};

/* ---- the first screen ---- */

static void verdict_line(const vc_markup *d, vc_strbuf *sb, const vc_qual *q, const vc_qrun *qr) {
  uint32_t cells = 0, pass = 0, uns = 0;
  for (uint32_t m = 0; m < qr->sum.cells.nmodes; m++) {
    cells += qr->modes[m].programs;
    pass += qr->modes[m].counts[VC_ST_PASS];
    uns += qr->modes[m].counts[VC_ST_UNSUPPORTED];
  }
  put(sb, d->verdict_line.open);
  if (q->nruns > 1) {
    bold(d, sb, vc_verdict_word(qr->verdict));
    vc_sb_puts(sb, " ");
  }
  d->esc(sb, qr->device_line);
  vc_sb_printf(sb, " &mdash; run %lld: %u %s (%u %s %s %u %s), %u pass, ",
               (long long)qr->run->id, cells, vc_plural(cells, "cell", "cells"), qr->run->nprogs,
               vc_plural(qr->run->nprogs, "program", "programs"), d->signs.times,
               qr->sum.cells.nmodes, vc_plural(qr->sum.cells.nmodes, "mode", "modes"), pass);
  put(sb, d->bold.open);
  vc_sb_printf(sb, "%u new failure%s", qr->nnew, qr->nnew == 1 ? "" : "s");
  put(sb, d->bold.close);
  vc_sb_printf(sb, ", %u known, %u unsupported", qr->nknown, uns);
  if (qr->nflakes) vc_sb_printf(sb, ", %u flake%s", qr->nflakes, qr->nflakes == 1 ? "" : "s");
  /* the counts do not say it */
  if (strcmp(qr->run->status, "complete") != 0 || qr->verdict == VC_VERDICT_NOT_RUN) {
    vc_sb_puts(sb, "; ");
    bold(d, sb, qr->why);
  }
  put(sb, d->verdict_line.close);
}

static void provenance(const vc_markup *d, vc_strbuf *sb, const vc_qual *q) {
  static const vc_col cols[] = {
      {"run", VC_COL_TEXT},          {"status", VC_COL_TEXT},
      {"harness", VC_COL_WRAP},      {"started", VC_COL_TEXT},
      {"expectations", VC_COL_WRAP}, {"non-default options", VC_COL_WRAP}};
  table t = table_open(d, sb, NULL, cols, 6);
  for (uint32_t i = 0; i < q->nruns; i++) {
    const vc_qrun *qr = &q->runs[i];
    const vc_run_data *r = qr->run;
    char started[VC_FMT_LEN];
    vc_fmt_utc(started, r->info.started_ns);
    row_open(&t, false);
    cell_open(&t);
    vc_sb_printf(sb, "%lld ", (long long)r->id);
    d->esc(sb, r->info.backend);
    cell_close(&t);
    cell_text(&t, r->status);
    cell_open(&t);
    d->esc(sb, r->info.harness_version);
    vc_sb_puts(sb, " ");
    d->esc(sb, r->info.harness_commit);
    cell_close(&t);
    cell_fmt(&t, "%s", started);
    cell_text(&t, qr->exps_text);
    cell_text(&t, qr->nondefault[0] ? qr->nondefault : "none");
    row_close(&t);
  }
  put(sb, d->table_close);
}

void vc_section_first_screen(const vc_markup *d, const vc_qual *q, vc_strbuf *sb) {
  d->verdict_open(sb, q);
  for (uint32_t i = 0; i < q->nruns; i++) verdict_line(d, sb, q, &q->runs[i]);
  put(sb, d->verdict_close);
  for (uint32_t i = 0; i < q->nruns; i++) {
    const vc_run_data *r = q->runs[i].run;
    if (!r->nunfinished_newer) continue;
    vc_strbuf text;
    vc_sb_init(&text);
    vc_report_unfinished_text(r, &text);
    d->alert_open(sb, "warning");
    bold(d, sb, "Warning:");
    vc_sb_puts(sb, " ");
    d->esc(sb, vc_sb_str(&text));
    vc_sb_puts(sb, d->alert_close);
    vc_sb_free(&text);
  }
  for (uint32_t i = 0; i < q->nruns; i++)
    if (q->runs[i].injected[0]) {
      d->alert_open(sb, "planted");
      put(sb, d->bold.open);
      vc_sb_printf(sb, "Run %lld had faults planted on purpose:", (long long)q->runs[i].run->id);
      put(sb, d->bold.close);
      vc_sb_puts(sb, " ");
      d->esc(sb, q->runs[i].injected);
      vc_sb_puts(sb, ". Its failures say nothing about the device.");
      vc_sb_puts(sb, d->alert_close);
    }
  for (uint32_t i = 0; i < q->nruns; i++) {
    char mixed[256];
    if (!vc_run_option(q->runs[i].run, "mixed", mixed, sizeof mixed)) continue;
    d->alert_open(sb, "warning");
    bold(d, sb, "Mixed shards:");
    vc_sb_printf(sb, " run %lld merges shards that differ in ", (long long)q->runs[i].run->id);
    d->esc(sb, mixed);
    vc_sb_puts(sb, " (merge --allow-mixed).");
    vc_sb_puts(sb, d->alert_close);
  }
  provenance(d, sb, q);
}

/* ---- what changed against the baseline ---- */

void vc_section_changes(const vc_markup *d, const vc_qual *q, vc_strbuf *sb) {
  if (!q->has_cmp) return;
  const vc_comparison *c = &q->cmp;
  heading(d, sb, 2, "Changes against the baseline");
  put(sb, d->para.open);
  vc_sb_printf(sb, "Baseline run %lld of ", (long long)c->base->id);
  d->esc(sb, c->base->path);
  vc_sb_printf(sb,
               " against run %lld: %u new failure%s, %u fixed, %u missing, %u newly "
               "unsupported, %u newly skipped, %u new program%s.",
               (long long)c->cand->id, c->counts[VC_F_NEW_FAILURE],
               c->counts[VC_F_NEW_FAILURE] == 1 ? "" : "s", c->counts[VC_F_FIXED],
               c->counts[VC_F_MISSING], c->counts[VC_F_NEWLY_UNSUPPORTED],
               c->counts[VC_F_NEWLY_SKIPPED], c->counts[VC_F_NEW_PROGRAM],
               c->counts[VC_F_NEW_PROGRAM] == 1 ? "" : "s");
  put(sb, d->para.close);
  static const vc_finding_kind shown[] = {VC_F_NEW_FAILURE, VC_F_NEWLY_UNSUPPORTED,
                                          VC_F_NEWLY_SKIPPED, VC_F_MISSING, VC_F_FIXED};
  for (size_t k = 0; k < sizeof shown / sizeof shown[0]; k++) {
    if (!c->counts[shown[k]]) continue;
    heading(d, sb, 3, vc_finding_kind_name(shown[k]));
    put(sb, d->list.open);
    for (uint32_t i = 0; i < c->n; i++) {
      const vc_finding *f = &c->items[i];
      if (f->kind != shown[k]) continue;
      put(sb, d->item.open);
      cell_name(d, sb, f->program, f->mode);
      if (f->cand) {
        vc_sb_printf(sb, ": %s", vc_status_name(f->cand->status));
        if (f->cand->reason && f->cand->reason[0]) {
          vc_sb_puts(sb, " &mdash; ");
          d->esc(sb, f->cand->reason);
        }
      } else if (f->base) {
        vc_sb_printf(sb, ": was %s", vc_status_name(f->base->status));
      }
      put(sb, d->item.close);
    }
    put(sb, d->list.close);
  }
}

/* ---- counts per mode ---- */

static void counts_table(const vc_markup *d, vc_strbuf *sb, const vc_qrun *qr) {
  const vc_run_data *r = qr->run;
  run_heading(d, sb, 3, r);
  vc_col cols[5 + VC_STATUS_COUNT + 2] = {{"mode", VC_COL_HEAD},
                                          {"programs", VC_COL_NUM},
                                          {"pass", VC_COL_NUM},
                                          {"new failures", VC_COL_NUM},
                                          {"known failures", VC_COL_NUM}};
  int ncols = 5;
  for (int s = 0; s < VC_STATUS_COUNT; s++)
    if (s != VC_ST_PASS) cols[ncols++] = (vc_col){vc_status_name((vc_status)s), VC_COL_NUM};
  cols[ncols++] = (vc_col){"median wall", VC_COL_NUM};
  cols[ncols++] = (vc_col){"median device", VC_COL_NUM};
  table t = table_open(d, sb, "counts", cols, ncols);
  for (uint32_t m = 0; m < qr->sum.cells.nmodes; m++) {
    const vc_qmode *qm = &qr->modes[m];
    char wall[VC_FMT_LEN], dev[VC_FMT_LEN];
    vc_mode_stats_medians(&qr->sum.modes[m], r->device.timestamps, wall, dev);
    row_open(&t, false);
    cell_text(&t, qr->sum.cells.modes[m]);
    cell_fmt(&t, "%u", qm->programs);
    cell_fmt(&t, "%u", qm->counts[VC_ST_PASS]);
    cell_fmt(&t, "%u", qm->new_failures);
    cell_fmt(&t, "%u", qm->known_failures);
    for (int s = 0; s < VC_STATUS_COUNT; s++)
      if (s != VC_ST_PASS) cell_fmt(&t, "%u", qm->counts[s]);
    cell_fmt(&t, "%s", wall);
    cell_fmt(&t, "%s", dev);
    row_close(&t);
  }
  put(sb, d->table_close);
}

/* The new failures, each leading to its section. */
static void new_list(const vc_markup *d, vc_strbuf *sb, const vc_qrun *qr, uint32_t ri) {
  if (!qr->nnew) return;
  put(sb, d->para.open);
  vc_sb_printf(sb, "New failures (%u): ", qr->nnew);
  uint32_t shown = 0;
  for (uint32_t s = 0; s < qr->nsections && shown < NEW_LISTED; s++) {
    uint32_t i = qr->section_cell[s];
    if (qr->qcells[i].judged != VC_JUDGED_NEW) break;
    const vc_cell *c = &qr->sum.cells.items[i];
    vc_sb_puts(sb, shown ? ", " : "");
    link_open(d, sb, ri, (int)s);
    cell_name(d, sb, c->prog->info.name, c->mode);
    link_close(d, sb);
    vc_sb_printf(sb, " (%s)", vc_status_name(c->status));
    shown++;
  }
  if (qr->nnew > shown) vc_sb_printf(sb, " and %u more", qr->nnew - shown);
  put(sb, d->para.close);
}

/* An expectation's scope as its file wrote it. */
static void scope_text(vc_strbuf *sb, const vc_expectation *x) {
  vc_sb_printf(sb, "%s %s", x->program, x->mode);
  const char *keys[] = {"status", "note", "buffer", "class", "backend", "device", "driver"};
  const char *vals[] = {x->status, x->note, x->buffer, x->cls, x->backend, x->device, x->driver};
  for (int i = 0; i < 7; i++)
    if (vals[i]) vc_sb_printf(sb, " %s=%s", keys[i], vals[i]);
  if (x->expires_text) vc_sb_printf(sb, " expires=%s", x->expires_text);
}

static void scope_code(const vc_markup *d, vc_strbuf *sb, const vc_expectation *x) {
  vc_strbuf scope;
  vc_sb_init(&scope);
  scope_text(&scope, x);
  d->code(sb, vc_sb_str(&scope));
  vc_sb_free(&scope);
}

/* Each entry that excused something, with its reason, scope and the cells. */
static void known_list(const vc_markup *d, vc_strbuf *sb, const vc_qrun *qr, uint32_t ri) {
  if (!qr->nknown) return;
  put(sb, d->para.open);
  vc_sb_puts(sb, "Known failures, excused by ");
  d->esc(sb, qr->exps.file);
  vc_sb_puts(sb, ":");
  put(sb, d->para.close);
  put(sb, d->list.open);
  for (uint32_t e = 0; e < qr->exps.n; e++) {
    const vc_expectation *x = &qr->exps.items[e];
    uint32_t n = 0;
    for (uint32_t i = 0; i < qr->sum.cells.n; i++) n += qr->qcells[i].by == x;
    if (!n) continue;
    put(sb, d->item.open);
    bold(d, sb, x->reason);
    vc_sb_printf(sb, " (line %u; scope ", x->line);
    scope_code(d, sb, x);
    vc_sb_printf(sb, "): %u cell%s: ", n, n == 1 ? "" : "s");
    uint32_t shown = 0;
    for (uint32_t i = 0; i < qr->sum.cells.n && shown < KNOWN_LISTED; i++) {
      if (qr->qcells[i].by != x) continue;
      const vc_cell *c = &qr->sum.cells.items[i];
      vc_sb_puts(sb, shown ? ", " : "");
      link_open(d, sb, ri, qr->qcells[i].section);
      cell_name(d, sb, c->prog->info.name, c->mode);
      link_close(d, sb);
      shown++;
    }
    if (n > shown) vc_sb_printf(sb, " and %u more", n - shown);
    put(sb, d->item.close);
  }
  put(sb, d->list.close);
}

/* Unsupported cells by reason, in the order each reason first appears. */
static void unsupported_list(const vc_markup *d, vc_strbuf *sb, const vc_qrun *qr) {
  const vc_cells *c = &qr->sum.cells;
  bool any = false;
  for (uint32_t i = 0; i < c->n; i++) {
    if (c->items[i].status != VC_ST_UNSUPPORTED) continue;
    bool seen = false;
    for (uint32_t j = 0; j < i && !seen; j++)
      seen = c->items[j].status == VC_ST_UNSUPPORTED &&
             !strcmp(c->items[j].reason, c->items[i].reason);
    if (seen) continue;
    if (!any) {
      para(d, sb, "Unsupported, by reason:");
      put(sb, d->list.open);
    }
    any = true;
    uint32_t n = 0;
    vc_strbuf names;
    vc_sb_init(&names);
    for (uint32_t j = i; j < c->n; j++) {
      if (c->items[j].status != VC_ST_UNSUPPORTED || strcmp(c->items[j].reason, c->items[i].reason))
        continue;
      if (n < UNSUPPORTED_LISTED) {
        vc_sb_puts(&names, n ? ", " : "");
        cell_name(d, &names, c->items[j].prog->info.name, c->items[j].mode);
      }
      n++;
    }
    put(sb, d->item.open);
    d->esc(sb, c->items[i].reason[0] ? c->items[i].reason : "(no reason given)");
    vc_sb_printf(sb, ": %u cell%s (%s%s)", n, n == 1 ? "" : "s", vc_sb_str(&names),
                 n > UNSUPPORTED_LISTED ? ", ..." : "");
    put(sb, d->item.close);
    vc_sb_free(&names);
  }
  if (any) put(sb, d->list.close);
}

void vc_section_counts(const vc_markup *d, const vc_qual *q, vc_strbuf *sb) {
  heading(d, sb, 2, "Counts per mode");
  put(sb, d->para.open);
  vc_sb_puts(sb, "A program in a mode is one cell, over its repeats. New and known failures "
                 "split the failing statuses (");
  bool first = true;
  for (int s = 0; s < VC_STATUS_COUNT; s++)
    if (vc_status_is_failure((vc_status)s)) {
      vc_sb_printf(sb, "%s%s", first ? "" : ", ", vc_status_name((vc_status)s));
      first = false;
    }
  vc_sb_puts(sb, ") by whether an expectation covers every part of them.");
  put(sb, d->para.close);
  for (uint32_t i = 0; i < q->nruns; i++) {
    counts_table(d, sb, &q->runs[i]);
    new_list(d, sb, &q->runs[i], i);
    known_list(d, sb, &q->runs[i], i);
    unsupported_list(d, sb, &q->runs[i]);
  }
  para(d, sb,
       "Medians are over the programs that ran to a verdict (pass or diverge), each "
       "program counted by its median over repeats; - where none did.");
}

/* ---- the matrix's shared parts ---- */

void vc_matrix_column(const vc_markup *d, const vc_qual *q, uint32_t r, uint32_t m, vc_strbuf *sb) {
  if (q->nruns > 1) {
    d->esc(sb, q->runs[r].run->info.backend);
    vc_sb_puts(sb, d->signs.br);
  }
  d->esc(sb, q->runs[r].sum.cells.modes[m]);
}

void vc_matrix_label(const vc_markup *d, const vc_qrun *qr, const vc_cell *c, vc_strbuf *sb) {
  if (!c) {
    vc_sb_puts(sb, "-");
    return;
  }
  const vc_qcell *qc = &qr->qcells[vc_qual_cell_index(qr, c)];
  bool flaky = qc->nflakes && !c->nfailing;
  if (qc->judged == VC_JUDGED_NEW) put(sb, d->new_mark);
  if (qc->judged == VC_JUDGED_KNOWN) vc_sb_puts(sb, "known: ");
  vc_sb_puts(sb, vc_status_name(flaky ? VC_ST_FLAKE : c->status));
  if (c->nfailing && c->nfailing < c->n)
    vc_sb_printf(sb, " %u/%u", c->nfailing, c->n);
  else if (flaky && qc->nflakes < c->n)
    vc_sb_printf(sb, " %u/%u", qc->nflakes, c->n);
}

/* ---- one failure ---- */

/* The elements around the first difference, typed, with their bits. */
static void values_table(const vc_markup *d, vc_strbuf *sb, const vc_divergence *dv) {
  vc_typed_elem el[VC_TYPED_MAX];
  uint32_t n = vc_typed_context(dv, el);
  vc_strbuf expected;
  vc_sb_init(&expected);
  vc_sb_puts(&expected, "expected (");
  d->esc(&expected, dv->type);
  vc_sb_puts(&expected, ")");
  const vc_col cols[] = {{"element", VC_COL_TEXT},
                         {vc_sb_str(&expected), VC_COL_TEXT},
                         {"actual", VC_COL_TEXT},
                         {"expected bits", VC_COL_CODE},
                         {"actual bits", VC_COL_CODE}};
  table t = table_open(d, sb, "vals", cols, 5);
  for (uint32_t i = 0; i < n; i++) {
    row_open(&t, el[i].differs);
    cell_fmt(&t, "%" PRIu64 "%s%s", el[i].index, el[i].differs ? " " : "",
             el[i].differs ? d->signs.ne : "");
    cell_text(&t, el[i].expected);
    cell_text(&t, el[i].actual);
    cell_fmt(&t, "%s", el[i].expected_hex);
    cell_fmt(&t, "%s", el[i].actual_hex);
    row_close(&t);
  }
  put(sb, d->table_close);
  vc_sb_free(&expected);
}

static void divergence(const vc_markup *d, vc_strbuf *sb, const vc_divergence *dv) {
  put(sb, d->para.open);
  vc_sb_puts(sb, "Buffer ");
  bold(d, sb, dv->buffer);
  vc_sb_puts(sb, " (");
  d->esc(sb, dv->type);
  vc_sb_printf(sb, "): %" PRIu64 " %s, first at %" PRIu64 "; class ", dv->count,
               vc_plural(dv->count, "element differs", "elements differ"), dv->first_index);
  bold(d, sb, vc_divclass_name(dv->cls));
  if (!strcmp(dv->type, "f32")) vc_sb_printf(sb, ", largest distance %" PRIu64 " ulp", dv->max_ulp);
  vc_sb_puts(sb, ".");
  put(sb, d->para.close);
  values_table(d, sb, dv);
}

static bool same_divs(const vc_divergence *a, const vc_divergence *b, uint32_t n) {
  for (uint32_t k = 0; k < n; k++) {
    const vc_divergence *x = &a[k], *y = &b[k];
    if (strcmp(x->buffer, y->buffer) || x->first_index != y->first_index || x->count != y->count ||
        x->cls != y->cls || strcmp(x->expected_hex, y->expected_hex) ||
        strcmp(x->actual_hex, y->actual_hex) || x->attempt != y->attempt)
      return false;
  }
  return true;
}

static bool same_outcome(const vc_result *a, const vc_result *b) {
  return a->status == b->status && !strcmp(a->reason, b->reason) && a->ndivs == b->ndivs &&
         same_divs(a->divs, b->divs, a->ndivs) && !strcmp(a->attempt_log, b->attempt_log) &&
         a->nattempt_divs == b->nattempt_divs &&
         same_divs(a->attempt_divs, b->attempt_divs, a->nattempt_divs);
}

/* ---- flakes: failed, then passed on a rerun ---- */

/* What each failed attempt of flake x got: its status and reason from the
   attempt log, then the first differing elements of each buffer it had
   wrong (attempt_divs). */
static void failed_attempts(const vc_markup *d, vc_strbuf *sb, const char *who,
                            const vc_result *x) {
  vc_attempt_entry *at = malloc(VC_EXP_MAX_ATTEMPTS * sizeof *at);
  if (!at) return;
  uint32_t n = vc_attempt_log_parse(x->attempt_log, at, VC_EXP_MAX_ATTEMPTS);
  for (uint32_t i = 0; i < n; i++) {
    if (!vc_status_is_failure(at[i].status)) continue;
    char title[400];
    snprintf(title, sizeof title, "%s%sattempt %u of %u: %s", who, who[0] ? ", " : "",
             at[i].attempt, x->attempts, vc_status_name(at[i].status));
    d->lead(sb, title, at[i].reason);
    for (uint32_t k = 0; k < x->nattempt_divs; k++)
      if (x->attempt_divs[k].attempt == at[i].attempt) divergence(d, sb, &x->attempt_divs[k]);
  }
  free(at);
}

/* Every result with status flake, one row each, with the outcome of every
   attempt and whether a flake entry lists it (an unlisted flake is a new
   failure), then what each failed attempt got. */
void vc_section_flakes(const vc_markup *d, const vc_qual *q, vc_strbuf *sb) {
  uint32_t total = 0;
  for (uint32_t i = 0; i < q->nruns; i++) total += q->runs[i].nflakes;
  if (!total) return;
  heading(d, sb, 2, "Flakes");
  put(sb, d->para.open);
  vc_sb_printf(sb, "%u result%s failed, then passed on a rerun (", total, total == 1 ? "" : "s");
  d->code(sb, "--flake-reruns");
  vc_sb_puts(sb, "). A flake is a failure unless a flake entry of the expectations lists it "
                 "(docs/gating.md); a listed one is a known flake. What each failed attempt "
                 "got is under Failures for the others, and below for known flakes.");
  put(sb, d->para.close);
  static const vc_col cols[] = {{"program", VC_COL_TEXT},  {"mode", VC_COL_TEXT},
                                {"repeat", VC_COL_NUM},    {"attempts", VC_COL_NUM},
                                {"listed", VC_COL_WRAP},   {"attempt log", VC_COL_WRAP}};
  for (uint32_t i = 0; i < q->nruns; i++) {
    const vc_qrun *qr = &q->runs[i];
    if (!qr->nflakes) continue;
    run_heading(d, sb, 3, qr->run);
    table t = table_open(d, sb, "flakes", cols, 6);
    for (uint32_t k = 0; k < qr->sum.cells.n; k++) {
      const vc_cell *c = &qr->sum.cells.items[k];
      const vc_qcell *qc = &qr->qcells[k];
      for (uint32_t j = 0; j < c->n; j++) {
        const vc_result *x = &c->results[j];
        if (x->status != VC_ST_FLAKE) continue;
        row_open(&t, !qc->flakes_by);
        cell_open(&t);
        name_of(d, sb, c->prog->info.name);
        cell_close(&t);
        cell_text(&t, c->mode);
        cell_fmt(&t, "%u", x->repeat);
        cell_fmt(&t, "%u", x->attempts);
        if (!qc->flakes_by)
          cell_text(&t, "no: a new failure");
        else
          cell_fmt(&t, "known flake, %s:%u: %s", qr->exps.file, qc->flakes_by->line,
                   qc->flakes_by->reason);
        cell_text(&t, x->attempt_log[0] ? x->attempt_log : x->reason);
        row_close(&t);
      }
    }
    put(sb, d->table_close);
    for (uint32_t k = 0; k < qr->sum.cells.n; k++) {
      const vc_cell *c = &qr->sum.cells.items[k];
      if (qr->qcells[k].section >= 0) continue; /* shown under Failures */
      for (uint32_t j = 0; j < c->n; j++) {
        const vc_result *x = &c->results[j];
        if (x->status != VC_ST_FLAKE) continue;
        char who[360];
        snprintf(who, sizeof who, "%s %s repeat %u", c->prog->info.name, c->mode, x->repeat);
        failed_attempts(d, sb, who, x);
      }
    }
  }
}

/* The repeats of a cell, identical ones merged: "3 of 3 repeats". */
static void repeats(const vc_markup *d, vc_strbuf *sb, const vc_cell *c) {
  bool *done = calloc(c->n + 1, sizeof *done);
  if (!done) return;
  for (uint32_t i = 0; i < c->n; i++) {
    if (done[i]) continue;
    const vc_result *x = &c->results[i];
    uint32_t same = 0;
    for (uint32_t j = i; j < c->n; j++)
      if (!done[j] && same_outcome(x, &c->results[j])) done[j] = true, same++;
    char title[128];
    snprintf(title, sizeof title, "%u of %u repeat%s: %s", same, c->n, c->n == 1 ? "" : "s",
             vc_status_name(x->status));
    d->lead(sb, title, x->reason);
    for (uint32_t k = 0; k < x->ndivs; k++) divergence(d, sb, &x->divs[k]);
    if (x->status == VC_ST_FLAKE) failed_attempts(d, sb, "", x);
    if (x->captured_stderr[0]) {
      char summary[128];
      snprintf(summary, sizeof summary, "standard error of the worker and driver (repeat %u)",
               x->repeat);
      d->collapsed(sb, summary, "text", x->captured_stderr);
    }
  }
  free(done);
}

static void failure(const vc_markup *d, vc_strbuf *sb, const vc_qrun *qr, const vc_cell *c,
                    const vc_qcell *qc) {
  const vc_run_data *r = qr->run;
  const vc_prog_data *p = c->prog;
  bool known = qc->judged == VC_JUDGED_KNOWN;
  d->heading_open(sb, 3);
  name_of(d, sb, p->info.name);
  vc_sb_puts(sb, d->title_sep);
  d->esc(sb, c->mode);
  vc_sb_puts(sb, d->title_sep);
  d->esc(sb, r->info.backend);
  vc_sb_printf(sb, ": %s %s", known ? "known failure," : "NEW FAILURE,", vc_status_name(c->status));
  d->heading_close(sb, 3);
  if (known && qc->by) {
    put(sb, d->para.open);
    vc_sb_puts(sb, "Excused by ");
    d->esc(sb, qr->exps.file);
    vc_sb_printf(sb, ":%u: ", qc->by->line);
    bold(d, sb, qc->by->reason);
    vc_sb_puts(sb, " (scope ");
    scope_code(d, sb, qc->by);
    vc_sb_puts(sb, ")");
    put(sb, d->para.close);
  }
  vc_prog_source src;
  vc_prog_source_read(p, &src);
  put(sb, d->para.open);
  vc_sb_puts(sb, "Path: ");
  d->code(sb, p->info.path);
  put(sb, d->para.close);
  if (src.doc[0]) para(d, sb, src.doc);
  if (src.text) {
    d->collapsed(sb, "source", "lisp", src.text);
  } else {
    put(sb, d->para.open);
    vc_sb_puts(sb, "Source not shown: ");
    d->esc(sb, src.note);
    vc_sb_puts(sb, ".");
    put(sb, d->para.close);
  }
  vc_prog_source_free(&src);
  vc_strbuf cmd, intro;
  vc_sb_init(&cmd);
  vc_sb_init(&intro);
  vc_repro_command(r, p, c->mode, &cmd);
  d->command(sb, "Reproduce:", vc_sb_str(&cmd));
  cmd.len = 0;
  vc_emit_command(r, p, c->mode, &cmd);
  vc_sb_puts(&intro, "The generated kernel (split modes: add ");
  d->code(&intro, "--segment K");
  vc_sb_puts(&intro, " for segment K):");
  d->command(sb, vc_sb_str(&intro), vc_sb_str(&cmd));
  vc_sb_free(&intro);
  vc_sb_free(&cmd);
  repeats(d, sb, c);
}

void vc_section_failures(const vc_markup *d, const vc_qual *q, vc_strbuf *sb) {
  heading(d, sb, 2, "Failures");
  uint32_t shown = 0;
  for (uint32_t ri = 0; ri < q->nruns; ri++) {
    const vc_qrun *qr = &q->runs[ri];
    for (uint32_t s = 0; s < qr->nsections; s++, shown++) {
      uint32_t i = qr->section_cell[s];
      const vc_qcell *qc = &qr->qcells[i];
      if (d->failure_open) d->failure_open(sb, ri, qc->section, qc->judged == VC_JUDGED_KNOWN);
      failure(d, sb, qr, &qr->sum.cells.items[i], qc);
      put(sb, d->failure_close);
    }
  }
  if (!shown) para(d, sb, "None: every result that ran matched the oracle.");
}

/* ---- the record of each run ---- */

static void kv(table *t, const char *key, const char *value) {
  row_open(t, false);
  cell_text(t, key);
  cell_text(t, value ? value : "");
  row_close(t);
}

static void kv_u64(table *t, const char *key, uint64_t v) {
  char text[32];
  snprintf(text, sizeof text, "%" PRIu64, v);
  kv(t, key, text);
}

static void kv_bytes(table *t, const char *key, uint64_t v) {
  char text[VC_FMT_LEN];
  vc_fmt_bytes(text, v);
  kv(t, key, text);
}

/* A table of keys and values has no heading row. */
static const vc_col kv_cols[] = {{NULL, VC_COL_HEAD}, {NULL, VC_COL_TEXT}};

static void run_table(const vc_markup *d, vc_strbuf *sb, const vc_run_data *r) {
  char started[VC_FMT_LEN], ended[VC_FMT_LEN], took[VC_FMT_LEN], digest[65];
  vc_report_digest(r, digest);
  vc_fmt_utc(started, r->info.started_ns);
  vc_fmt_utc(ended, r->ended_ns);
  vc_fmt_ns(took,
            r->ended_ns > r->info.started_ns ? (uint64_t)(r->ended_ns - r->info.started_ns) : 0);
  table t = table_open(d, sb, "kv", kv_cols, 2);
  kv(&t, "status", r->status);
  kv(&t, "started", started);
  kv(&t, "ended", ended);
  kv(&t, "duration", took);
  kv(&t, "harness version", r->info.harness_version);
  kv(&t, "harness commit", r->info.harness_commit);
  kv(&t, "build (SHA-256 of the binary)", r->info.build_id[0] ? r->info.build_id : "unrecorded");
  kv(&t, "plugin (SHA-256)", r->info.plugin_id[0] ? r->info.plugin_id : "unrecorded");
  kv(&t, "command line", r->info.command_line);
  kv(&t, "host", r->info.host);
  kv(&t, "corpus", r->info.corpus_path);
  kv(&t, "corpus digest", r->info.corpus_digest);
  kv(&t, "shard", r->info.shard[0] ? r->info.shard : "none (the whole corpus)");
  kv(&t, "backend", r->info.backend);
  kv(&t, "modes", r->info.modes);
  kv(&t, "options", r->info.options);
  kv(&t, "selection", r->info.selection);
  kv(&t, "results digest (SHA-256)", digest);
  put(sb, d->table_close);
}

static void device_table(const vc_markup *d, vc_strbuf *sb, const vc_run_data *r) {
  if (!r->has_device) {
    para(d, sb, "No device was recorded for this run.");
    return;
  }
  const vc_device_info *dv = &r->device;
  char text[128];
  table t = table_open(d, sb, "kv", kv_cols, 2);
  kv(&t, "name", dv->device_name);
  kv(&t, "API", dv->api);
  kv(&t, "API version", dv->api_version);
  kv(&t, "driver", dv->driver_name);
  kv(&t, "driver version", dv->driver_version);
  snprintf(text, sizeof text, "0x%04x / 0x%04x", dv->vendor_id, dv->device_id);
  kv(&t, "vendor / device id", text);
  kv(&t, "UUID", dv->uuid[0] ? dv->uuid : "(none given)");
  kv_u64(&t, "compute units", dv->compute_units);
  kv_u64(&t, "max workgroup invocations", dv->max_workgroup_invocations);
  snprintf(text, sizeof text, "%u x %u x %u", dv->max_workgroup_size[0], dv->max_workgroup_size[1],
           dv->max_workgroup_size[2]);
  kv(&t, "max workgroup size", text);
  snprintf(text, sizeof text, "%u x %u x %u", dv->max_grid[0], dv->max_grid[1], dv->max_grid[2]);
  kv(&t, "max grid", text);
  kv_bytes(&t, "max shared memory", dv->max_shared_bytes);
  kv_bytes(&t, "max buffer", dv->max_buffer_bytes);
  kv_bytes(&t, "global memory", dv->global_mem_bytes);
  kv(&t, "device timestamps", dv->timestamps ? "yes" : "no (host timing only)");
  kv(&t, "cooperative launch", dv->cooperative ? "yes" : "no");
  kv(&t, "float environment", dv->float_env);
  kv(&t, "behavioural fingerprint", r->fingerprint);
  put(sb, d->table_close);
  if (dv->extra[0]) d->collapsed(sb, "further properties", "text", dv->extra);
}

void vc_section_run_record(const vc_markup *d, const vc_run_data *r, vc_strbuf *sb) {
  run_table(d, sb, r);
  device_table(d, sb, r);
}
