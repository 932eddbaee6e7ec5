/* The Markdown report, which is also the qualification record: the same
 * content as the HTML report in a form GitHub renders (its matrix lists
 * the programs that did not pass everywhere). */
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
#include "results/report/typed.h"

static void row(vc_strbuf *sb, const char *key, const char *value) {
  vc_sb_printf(sb, "| %s | ", key);
  vc_esc_md(sb, value ? value : "");
  vc_sb_puts(sb, " |\n");
}

/* Text in a fenced block cannot close it: the fence is longer than any run
   of backticks inside. */
static void fenced(vc_strbuf *sb, const char *lang, const char *text) {
  int longest = 0, run = 0;
  for (const char *p = text; *p; p++) {
    run = *p == '`' ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  int n = longest >= 3 ? longest + 1 : 3;
  for (int i = 0; i < n; i++) vc_sb_putc(sb, '`');
  vc_sb_printf(sb, "%s\n", lang);
  vc_strbuf clean;
  vc_sb_init(&clean);
  vc_esc_md_block(&clean, text);
  vc_sb_puts(sb, vc_sb_str(&clean));
  if (!clean.len || vc_sb_str(&clean)[clean.len - 1] != '\n') vc_sb_putc(sb, '\n');
  vc_sb_free(&clean);
  for (int i = 0; i < n; i++) vc_sb_putc(sb, '`');
  vc_sb_putc(sb, '\n');
}

static void scope_text(vc_strbuf *sb, const vc_expectation *x) {
  vc_sb_printf(sb, "%s %s", x->program, x->mode);
  const char *keys[] = {"status", "note", "buffer", "class", "backend", "device", "driver"};
  const char *vals[] = {x->status, x->note, x->buffer, x->cls, x->backend, x->device, x->driver};
  for (int i = 0; i < 7; i++)
    if (vals[i]) vc_sb_printf(sb, " %s=%s", keys[i], vals[i]);
  if (x->expires_text) vc_sb_printf(sb, " expires=%s", x->expires_text);
}

/* `code` in a table cell or a line: the scope text with | and ` made safe. */
static void code_span(vc_strbuf *sb, const char *text) {
  vc_sb_puts(sb, "`` ");
  vc_esc_md(sb, text);
  vc_sb_puts(sb, " ``");
}

/* ---- the first screen ---- */

static void verdict(vc_strbuf *sb, const vc_qual *q) {
  vc_sb_puts(sb, "# ");
  if (q->planted) vc_sb_puts(sb, "[PLANTED FAULTS: NOT A QUALIFICATION] ");
  vc_sb_printf(sb, "%s &mdash; vyre-conform qualification record\n\n", vc_verdict_word(q->verdict));
  for (uint32_t i = 0; i < q->nruns; i++) {
    const vc_qrun *qr = &q->runs[i];
    uint32_t cells = 0, pass = 0, uns = 0;
    for (uint32_t m = 0; m < qr->sum.cells.nmodes; m++) {
      cells += qr->modes[m].programs;
      pass += qr->modes[m].counts[VC_ST_PASS];
      uns += qr->modes[m].counts[VC_ST_UNSUPPORTED];
    }
    vc_sb_puts(sb, "- ");
    if (q->nruns > 1) vc_sb_printf(sb, "**%s** ", vc_verdict_word(qr->verdict));
    vc_esc_md(sb, qr->device_line);
    vc_sb_printf(sb, " &mdash; run %lld: %u cells (%u programs × %u modes), %u pass, **%u new "
                     "failure%s**, %u known, %u unsupported",
                 (long long)qr->run->id, cells, qr->run->nprogs, qr->sum.cells.nmodes, pass,
                 qr->nnew, qr->nnew == 1 ? "" : "s", qr->nknown, uns);
    if (qr->nflakes) vc_sb_printf(sb, ", %u flake%s", qr->nflakes, qr->nflakes == 1 ? "" : "s");
    if (strcmp(qr->run->status, "complete") != 0) { /* the counts do not say it */
      vc_sb_puts(sb, "; **");
      vc_esc_md(sb, qr->why);
      vc_sb_puts(sb, "**");
    }
    vc_sb_putc(sb, '\n');
  }
  vc_sb_putc(sb, '\n');
  for (uint32_t i = 0; i < q->nruns; i++)
    if (q->runs[i].injected[0]) {
      vc_sb_printf(sb, "> **Run %lld had faults planted on purpose:** ",
                   (long long)q->runs[i].run->id);
      vc_esc_md(sb, q->runs[i].injected);
      vc_sb_puts(sb, ". Its failures say nothing about the device.\n\n");
    }
  for (uint32_t i = 0; i < q->nruns; i++) vc_report_unfinished_md(q->runs[i].run, sb);
  vc_sb_puts(sb, "| run | status | harness | started | expectations | non-default options |\n"
                 "| --- | --- | --- | --- | --- | --- |\n");
  for (uint32_t i = 0; i < q->nruns; i++) {
    const vc_qrun *qr = &q->runs[i];
    const vc_run_data *r = qr->run;
    char started[VC_FMT_LEN];
    vc_fmt_utc(started, r->info.started_ns);
    vc_sb_printf(sb, "| %lld ", (long long)r->id);
    vc_esc_md(sb, r->info.backend);
    vc_sb_puts(sb, " | ");
    vc_esc_md(sb, r->status);
    vc_sb_puts(sb, " | ");
    vc_esc_md(sb, r->info.harness_version);
    vc_sb_puts(sb, " ");
    vc_esc_md(sb, r->info.harness_commit);
    vc_sb_printf(sb, " | %s | ", started);
    vc_esc_md(sb, qr->exps_text);
    vc_sb_puts(sb, " | ");
    vc_esc_md(sb, qr->nondefault[0] ? qr->nondefault : "none");
    vc_sb_puts(sb, " |\n");
  }
}

static void changes(vc_strbuf *sb, const vc_qual *q) {
  if (!q->has_cmp) return;
  const vc_comparison *c = &q->cmp;
  vc_sb_printf(sb, "\n## Changes against the baseline\n\nBaseline run %lld of ", (long long)c->base->id);
  vc_esc_md(sb, c->base->path);
  vc_sb_printf(sb, " against run %lld: %u new failure%s, %u fixed, %u missing, %u newly "
                   "unsupported, %u new program%s.\n",
               (long long)c->cand->id, c->counts[VC_F_NEW_FAILURE],
               c->counts[VC_F_NEW_FAILURE] == 1 ? "" : "s", c->counts[VC_F_FIXED],
               c->counts[VC_F_MISSING], c->counts[VC_F_NEWLY_UNSUPPORTED],
               c->counts[VC_F_NEW_PROGRAM], c->counts[VC_F_NEW_PROGRAM] == 1 ? "" : "s");
  static const vc_finding_kind shown[] = {VC_F_NEW_FAILURE, VC_F_NEWLY_UNSUPPORTED, VC_F_MISSING,
                                          VC_F_FIXED};
  for (size_t k = 0; k < sizeof shown / sizeof shown[0]; k++) {
    if (!c->counts[shown[k]]) continue;
    vc_sb_printf(sb, "\n### %s\n\n", vc_finding_kind_name(shown[k]));
    for (uint32_t i = 0; i < c->n; i++) {
      const vc_finding *f = &c->items[i];
      if (f->kind != shown[k]) continue;
      vc_sb_puts(sb, "- `");
      vc_esc_md(sb, f->program);
      vc_sb_puts(sb, "` ");
      vc_esc_md(sb, f->mode);
      if (f->cand) {
        vc_sb_printf(sb, ": %s", vc_status_name(f->cand->status));
        if (f->cand->reason && f->cand->reason[0]) {
          vc_sb_puts(sb, ": ");
          vc_esc_md(sb, f->cand->reason);
        }
      } else if (f->base) {
        vc_sb_printf(sb, ": was %s", vc_status_name(f->base->status));
      }
      vc_sb_putc(sb, '\n');
    }
  }
}

/* ---- counts ---- */

static void per_mode(vc_strbuf *sb, const vc_qrun *qr) {
  const vc_run_data *r = qr->run;
  vc_sb_printf(sb, "\n### Run %lld, ", (long long)r->id);
  vc_esc_md(sb, r->info.backend);
  vc_sb_puts(sb, "\n\n| Mode | Programs | pass | new failures | known failures |");
  for (int s = 0; s < VC_STATUS_COUNT; s++)
    if (s != VC_ST_PASS) vc_sb_printf(sb, " %s |", vc_status_name((vc_status)s));
  vc_sb_puts(sb, " Median wall | Median device |\n| --- | ---: | ---: | ---: | ---: |");
  for (int s = 0; s < VC_STATUS_COUNT; s++)
    if (s != VC_ST_PASS) vc_sb_puts(sb, " ---: |");
  vc_sb_puts(sb, " ---: | ---: |\n");
  for (uint32_t m = 0; m < qr->sum.cells.nmodes; m++) {
    const vc_qmode *qm = &qr->modes[m];
    char wall[VC_FMT_LEN], dev[VC_FMT_LEN];
    vc_mode_stats_medians(&qr->sum.modes[m], r->device.timestamps, wall, dev);
    vc_sb_puts(sb, "| ");
    vc_esc_md(sb, qr->sum.cells.modes[m]);
    vc_sb_printf(sb, " | %u | %u | %u | %u |", qm->programs, qm->counts[VC_ST_PASS],
                 qm->new_failures, qm->known_failures);
    for (int s = 0; s < VC_STATUS_COUNT; s++)
      if (s != VC_ST_PASS) vc_sb_printf(sb, " %u |", qm->counts[s]);
    vc_sb_printf(sb, " %s | %s |\n", wall, dev);
  }
  if (qr->nnew) {
    vc_sb_printf(sb, "\nNew failures (%u): ", qr->nnew);
    uint32_t shown = 0;
    for (uint32_t s = 0; s < qr->nsections && shown < 40; s++, shown++) {
      uint32_t i = qr->section_cell[s];
      if (qr->qcells[i].judged != VC_JUDGED_NEW) break;
      const vc_cell *c = &qr->sum.cells.items[i];
      vc_sb_puts(sb, shown ? ", `" : "`");
      vc_esc_md(sb, c->prog->info.name);
      vc_sb_puts(sb, "` ");
      vc_esc_md(sb, c->mode);
      vc_sb_printf(sb, " (%s)", vc_status_name(c->status));
    }
    if (qr->nnew > shown) vc_sb_printf(sb, " and %u more", qr->nnew - shown);
    vc_sb_putc(sb, '\n');
  }
  if (qr->nknown) {
    vc_sb_puts(sb, "\nKnown failures, excused by ");
    vc_esc_md(sb, qr->exps.file);
    vc_sb_puts(sb, ":\n\n");
    for (uint32_t e = 0; e < qr->exps.n; e++) {
      const vc_expectation *x = &qr->exps.items[e];
      uint32_t n = 0;
      for (uint32_t i = 0; i < qr->sum.cells.n; i++) n += qr->qcells[i].by == x;
      if (!n) continue;
      vc_strbuf scope;
      vc_sb_init(&scope);
      scope_text(&scope, x);
      vc_sb_puts(sb, "- **");
      vc_esc_md(sb, x->reason);
      vc_sb_printf(sb, "** (line %u; scope ", x->line);
      code_span(sb, vc_sb_str(&scope));
      vc_sb_printf(sb, "): %u cell%s\n", n, n == 1 ? "" : "s");
      vc_sb_free(&scope);
    }
  }
  const vc_cells *c = &qr->sum.cells;
  bool any = false;
  for (uint32_t i = 0; i < c->n; i++) {
    if (c->items[i].status != VC_ST_UNSUPPORTED) continue;
    bool seen = false;
    for (uint32_t j = 0; j < i && !seen; j++)
      seen = c->items[j].status == VC_ST_UNSUPPORTED &&
             !strcmp(c->items[j].reason, c->items[i].reason);
    if (seen) continue;
    if (!any) vc_sb_puts(sb, "\nUnsupported, by reason:\n\n");
    any = true;
    uint32_t n = 0;
    for (uint32_t j = i; j < c->n; j++)
      n += c->items[j].status == VC_ST_UNSUPPORTED &&
           !strcmp(c->items[j].reason, c->items[i].reason);
    vc_sb_puts(sb, "- ");
    vc_esc_md(sb, c->items[i].reason[0] ? c->items[i].reason : "(no reason given)");
    vc_sb_printf(sb, ": %u cell%s, e.g. `", n, n == 1 ? "" : "s");
    vc_esc_md(sb, c->items[i].prog->info.name);
    vc_sb_puts(sb, "` ");
    vc_esc_md(sb, c->items[i].mode);
    vc_sb_putc(sb, '\n');
  }
}

/* ---- flakes: failed unexpectedly, then passed on a rerun ---- */

static void flakes(vc_strbuf *sb, const vc_qual *q) {
  uint32_t total = 0;
  for (uint32_t i = 0; i < q->nruns; i++) total += q->runs[i].nflakes;
  if (!total) return;
  vc_sb_printf(sb, "\n## Flakes\n\n%u result%s failed, then passed on a rerun "
                   "(`--flake-reruns`): they do not fail the run.\n",
               total, total == 1 ? "" : "s");
  for (uint32_t i = 0; i < q->nruns; i++) {
    const vc_qrun *qr = &q->runs[i];
    if (!qr->nflakes) continue;
    vc_sb_printf(sb, "\n### Run %lld, ", (long long)qr->run->id);
    vc_esc_md(sb, qr->run->info.backend);
    vc_sb_puts(sb, "\n\n| program | mode | repeat | attempts | attempt log |\n"
                   "| --- | --- | ---: | ---: | --- |\n");
    for (uint32_t k = 0; k < qr->sum.cells.n; k++) {
      const vc_cell *c = &qr->sum.cells.items[k];
      for (uint32_t j = 0; j < c->n; j++) {
        const vc_result *x = &c->results[j];
        if (x->status != VC_ST_FLAKE) continue;
        vc_sb_puts(sb, "| `");
        vc_esc_md(sb, c->prog->info.name);
        vc_sb_puts(sb, "` | ");
        vc_esc_md(sb, c->mode);
        vc_sb_printf(sb, " | %u | %u | ", x->repeat, x->attempts);
        vc_esc_md(sb, x->attempt_log[0] ? x->attempt_log : x->reason);
        vc_sb_puts(sb, " |\n");
      }
    }
  }
}

/* ---- the matrix: the programs that did not pass everywhere ---- */

static void cell_text(vc_strbuf *sb, const vc_qrun *qr, const vc_cell *c) {
  if (!c) {
    vc_sb_puts(sb, " - |");
    return;
  }
  const vc_qcell *qc = &qr->qcells[vc_qual_cell_index(qr, c)];
  bool flaky = vc_qual_flaky(qc);
  vc_sb_printf(sb, " %s%s%s", qc->judged == VC_JUDGED_NEW ? "**NEW** " : "",
               qc->judged == VC_JUDGED_KNOWN ? "known: " : "",
               vc_status_name(flaky ? VC_ST_FLAKE : c->status));
  if (c->nfailing && c->nfailing < c->n) vc_sb_printf(sb, " %u/%u", c->nfailing, c->n);
  else if (flaky && qc->nflakes < c->n) vc_sb_printf(sb, " %u/%u", qc->nflakes, c->n);
  vc_sb_puts(sb, " |");
}

static int matrix(vc_strbuf *sb, const vc_qual *q, vc_error *err) {
  vc_qrow *rows;
  vc_qgroup *groups;
  uint32_t nrows, ngroups;
  int rc = vc_qual_rows(q, &rows, &nrows, &groups, &ngroups, err);
  if (rc) return rc;
  uint32_t listed = 0;
  vc_sb_puts(sb, "\n## Matrix\n\nThe programs that did not pass in every mode (a flake "
                 "is listed), by folder, failures first.\n\n| folder | program |");
  for (uint32_t r = 0; r < q->nruns; r++)
    for (uint32_t m = 0; m < q->runs[r].sum.cells.nmodes; m++) {
      vc_sb_puts(sb, " ");
      if (q->nruns > 1) {
        vc_esc_md(sb, q->runs[r].run->info.backend);
        vc_sb_puts(sb, " ");
      }
      vc_esc_md(sb, q->runs[r].sum.cells.modes[m]);
      vc_sb_puts(sb, " |");
    }
  vc_sb_puts(sb, "\n| --- | --- |");
  for (uint32_t r = 0; r < q->nruns; r++)
    for (uint32_t m = 0; m < q->runs[r].sum.cells.nmodes; m++) vc_sb_puts(sb, " --- |");
  vc_sb_putc(sb, '\n');
  for (uint32_t g = 0; g < ngroups; g++)
    for (uint32_t i = groups[g].first; i < groups[g].first + groups[g].n; i++) {
      bool all_pass = true;
      for (uint32_t r = 0; r < q->nruns && all_pass; r++) {
        const vc_qrun *qr = &q->runs[r];
        for (uint32_t m = 0; m < qr->sum.cells.nmodes && all_pass; m++) {
          const vc_cell *c = vc_cells_find(&qr->sum.cells, rows[i].name, qr->sum.cells.modes[m]);
          all_pass = c && c->status == VC_ST_PASS &&
                     !qr->qcells[vc_qual_cell_index(qr, c)].nflakes;
        }
      }
      if (all_pass) continue;
      listed++;
      vc_sb_puts(sb, "| ");
      vc_esc_md(sb, rows[i].folder);
      vc_sb_puts(sb, " | `");
      vc_esc_md(sb, rows[i].name);
      vc_sb_puts(sb, "` |");
      for (uint32_t r = 0; r < q->nruns; r++) {
        const vc_qrun *qr = &q->runs[r];
        for (uint32_t m = 0; m < qr->sum.cells.nmodes; m++)
          cell_text(sb, qr, vc_cells_find(&qr->sum.cells, rows[i].name, qr->sum.cells.modes[m]));
      }
      vc_sb_putc(sb, '\n');
    }
  vc_sb_printf(sb, "\n%u of %u programs are listed; the others pass in every mode of every "
                   "run.\n",
               listed, nrows);
  free(rows);
  free(groups);
  return 0;
}

/* ---- failures ---- */

static void values_table(vc_strbuf *sb, const vc_divergence *d) {
  vc_typed_elem el[VC_TYPED_MAX];
  uint32_t n = vc_typed_context(d, el);
  vc_sb_printf(sb, "\n| element | expected (%s) | actual | expected bits | actual bits |\n"
                   "| ---: | ---: | ---: | --- | --- |\n",
               d->type);
  for (uint32_t i = 0; i < n; i++) {
    const char *b = el[i].differs ? "**" : "";
    vc_sb_printf(sb, "| %s%" PRIu64 "%s%s | %s", b, el[i].index, el[i].differs ? " ≠" : "", b, b);
    vc_esc_md(sb, el[i].expected);
    vc_sb_printf(sb, "%s | %s", b, b);
    vc_esc_md(sb, el[i].actual);
    vc_sb_printf(sb, "%s | `%s` | `%s` |\n", b, el[i].expected_hex, el[i].actual_hex);
  }
  vc_sb_putc(sb, '\n');
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

static void repeats(vc_strbuf *sb, const vc_cell *c) {
  bool *done = calloc(c->n + 1, sizeof *done);
  if (!done) return;
  for (uint32_t i = 0; i < c->n; i++) {
    if (done[i]) continue;
    const vc_result *x = &c->results[i];
    uint32_t same = 0;
    for (uint32_t j = i; j < c->n; j++)
      if (!done[j] && same_outcome(x, &c->results[j])) done[j] = true, same++;
    vc_sb_printf(sb, "\n**%u of %u repeat%s: %s**", same, c->n, c->n == 1 ? "" : "s",
                 vc_status_name(x->status));
    if (x->reason[0]) {
      vc_sb_puts(sb, " &mdash; ");
      vc_esc_md(sb, x->reason);
    }
    vc_sb_putc(sb, '\n');
    for (uint32_t k = 0; k < x->ndivs; k++) {
      const vc_divergence *d = &x->divs[k];
      vc_sb_puts(sb, "\nBuffer `");
      vc_esc_md(sb, d->buffer);
      vc_sb_printf(sb, "` (%s): %" PRIu64 " element%s differ, first at %" PRIu64 "; class **%s**",
                   d->type, d->count, d->count == 1 ? "" : "s", d->first_index,
                   vc_divclass_name(d->cls));
      if (!strcmp(d->type, "f32"))
        vc_sb_printf(sb, ", largest distance %" PRIu64 " ulp", d->max_ulp);
      vc_sb_puts(sb, ".\n");
      values_table(sb, d);
    }
    if (x->captured_stderr[0]) {
      vc_sb_printf(sb, "\n<details><summary>standard error of the worker and driver (repeat %u)"
                       "</summary>\n\n",
                   x->repeat);
      fenced(sb, "text", x->captured_stderr);
      vc_sb_puts(sb, "\n</details>\n");
    }
  }
  free(done);
}

static void failure(vc_strbuf *sb, const vc_qrun *qr, const vc_cell *c, const vc_qcell *qc) {
  const vc_run_data *r = qr->run;
  const vc_prog_data *p = c->prog;
  bool known = qc->judged == VC_JUDGED_KNOWN;
  vc_sb_puts(sb, "\n### `");
  vc_esc_md(sb, p->info.name);
  vc_sb_puts(sb, "` ");
  vc_esc_md(sb, c->mode);
  vc_sb_puts(sb, " ");
  vc_esc_md(sb, r->info.backend);
  vc_sb_printf(sb, ": %s %s\n\n", known ? "known failure," : "NEW FAILURE,",
               vc_status_name(c->status));
  if (known && qc->by) {
    vc_strbuf scope;
    vc_sb_init(&scope);
    scope_text(&scope, qc->by);
    vc_sb_puts(sb, "Excused by ");
    vc_esc_md(sb, qr->exps.file);
    vc_sb_printf(sb, ":%u: **", qc->by->line);
    vc_esc_md(sb, qc->by->reason);
    vc_sb_puts(sb, "** (scope ");
    code_span(sb, vc_sb_str(&scope));
    vc_sb_puts(sb, ")\n\n");
    vc_sb_free(&scope);
  }
  vc_prog_source src;
  vc_prog_source_read(p, &src);
  vc_sb_puts(sb, "Path: `");
  vc_esc_md(sb, p->info.path);
  vc_sb_puts(sb, "`\n\n");
  if (src.doc[0]) {
    vc_esc_md(sb, src.doc);
    vc_sb_puts(sb, "\n\n");
  }
  if (src.text) {
    vc_sb_puts(sb, "<details><summary>source</summary>\n\n");
    fenced(sb, "lisp", src.text);
    vc_sb_puts(sb, "\n</details>\n\n");
  } else {
    vc_sb_puts(sb, "Source not shown: ");
    vc_esc_md(sb, src.note);
    vc_sb_puts(sb, ".\n\n");
  }
  vc_prog_source_free(&src);
  vc_strbuf cmd;
  vc_sb_init(&cmd);
  vc_repro_command(r, p, c->mode, &cmd);
  vc_sb_puts(sb, "Reproduce:\n\n");
  fenced(sb, "sh", vc_sb_str(&cmd));
  cmd.len = 0;
  vc_emit_command(r, p, c->mode, &cmd);
  vc_sb_puts(sb, "\nThe generated kernel (split modes: add `--segment K` for segment K):\n\n");
  fenced(sb, "sh", vc_sb_str(&cmd));
  vc_sb_free(&cmd);
  repeats(sb, c);
}

static void failures(vc_strbuf *sb, const vc_qual *q) {
  vc_sb_puts(sb, "\n## Failures\n");
  uint32_t shown = 0;
  for (uint32_t ri = 0; ri < q->nruns; ri++) {
    const vc_qrun *qr = &q->runs[ri];
    for (uint32_t s = 0; s < qr->nsections; s++, shown++) {
      uint32_t i = qr->section_cell[s];
      failure(sb, qr, &qr->sum.cells.items[i], &qr->qcells[i]);
    }
  }
  if (!shown) vc_sb_puts(sb, "\nNone.\n");
}

/* ---- the record of each run ---- */

static void identity(vc_strbuf *sb, const vc_run_data *r) {
  char text[600], started[VC_FMT_LEN], ended[VC_FMT_LEN], digest[65];
  vc_report_digest(r, digest);
  const vc_device_info *d = &r->device;
  vc_sb_printf(sb, "\n### Run %lld: ", (long long)r->id);
  vc_esc_md(sb, r->info.backend);
  vc_sb_puts(sb, "\n\n| | |\n| --- | --- |\n");
  if (r->has_device) {
    row(sb, "Device", d->device_name);
    snprintf(text, sizeof text, "0x%04x / 0x%04x", d->vendor_id, d->device_id);
    row(sb, "Vendor / device id", text);
    row(sb, "UUID", d->uuid[0] ? d->uuid : "(none given)");
    snprintf(text, sizeof text, "%s %s", d->api, d->api_version);
    row(sb, "API", text);
    snprintf(text, sizeof text, "%s %s", d->driver_name, d->driver_version);
    row(sb, "Driver", text);
    row(sb, "Float environment", d->float_env);
    row(sb, "Cooperative launch", d->cooperative ? "yes" : "no");
    row(sb, "Device timestamps", d->timestamps ? "yes" : "no");
    row(sb, "Fingerprint", r->fingerprint);
  } else {
    row(sb, "Device", "not recorded");
  }
  snprintf(text, sizeof text, "%s (commit %s)", r->info.harness_version, r->info.harness_commit);
  row(sb, "Harness", text);
  row(sb, "Backend", r->info.backend);
  row(sb, "Modes", r->info.modes);
  row(sb, "Command line", r->info.command_line);
  row(sb, "Options", r->info.options);
  row(sb, "Corpus", r->info.corpus_path);
  row(sb, "Corpus digest", r->info.corpus_digest);
  vc_fmt_utc(started, r->info.started_ns);
  vc_fmt_utc(ended, r->ended_ns);
  snprintf(text, sizeof text, "%lld, %s, %s to %s", (long long)r->id, r->status, started, ended);
  row(sb, "Run", text);
  row(sb, "Shard", r->info.shard[0] ? r->info.shard : "none");
  row(sb, "Results digest", digest);
}

int vc_report_markdown(const vc_qual *q, vc_strbuf *out, vc_error *err) {
  verdict(out, q);
  changes(out, q);
  vc_sb_puts(out, "\n## Counts per mode\n");
  for (uint32_t i = 0; i < q->nruns; i++) per_mode(out, &q->runs[i]);
  vc_sb_puts(out, "\nMedians are over the programs that ran to a verdict (pass or diverge), "
                  "each program counted by its median over repeats; - where none did.\n");
  flakes(out, q);
  int rc = matrix(out, q, err);
  if (rc) return rc;
  failures(out, q);
  vc_sb_puts(out, "\n## Runs and devices\n");
  for (uint32_t i = 0; i < q->nruns; i++) identity(out, q->runs[i].run);
  return 0;
}
