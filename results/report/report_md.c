/* The Markdown report, which is also the qualification record: the same
 * content as the HTML report in a form GitHub renders (its matrix lists
 * the programs that did not pass everywhere). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/model/outcome.h"
#include "results/report/escape.h"
#include "results/report/fmt.h"
#include "results/report/qual.h"
#include "results/report/report.h"
#include "results/report/sections.h"

static void row(vc_strbuf *sb, const char *key, const char *value) {
  vc_sb_printf(sb, "| %s | ", key);
  vc_esc_md(sb, value ? value : "");
  vc_sb_puts(sb, " |\n");
}

/* ---- the matrix: the programs that did not pass everywhere ---- */

/* Did program `name` pass in every mode of every run, without a flake? */
static bool passed_everywhere(const vc_qual *q, const char *name) {
  for (uint32_t r = 0; r < q->nruns; r++) {
    const vc_qrun *qr = &q->runs[r];
    for (uint32_t m = 0; m < qr->sum.cells.nmodes; m++) {
      const vc_cell *c = vc_cells_find(&qr->sum.cells, name, qr->sum.cells.modes[m]);
      if (!c || c->status != VC_ST_PASS || qr->qcells[vc_qual_cell_index(qr, c)].nflakes)
        return false;
    }
  }
  return true;
}

/* The table's row of a program that did not pass everywhere. */
static void list_row(vc_strbuf *sb, const vc_qual *q, const vc_qrow *row, uint32_t *listed) {
  if (passed_everywhere(q, row->name)) return;
  (*listed)++;
  vc_sb_puts(sb, "| ");
  vc_esc_md(sb, row->folder);
  vc_sb_puts(sb, " | `");
  vc_esc_md(sb, row->name);
  vc_sb_puts(sb, "` |");
  for (uint32_t r = 0; r < q->nruns; r++) {
    const vc_qrun *qr = &q->runs[r];
    for (uint32_t m = 0; m < qr->sum.cells.nmodes; m++) {
      vc_sb_puts(sb, " ");
      vc_matrix_label(&vc_markup_md, qr,
                      vc_cells_find(&qr->sum.cells, row->name, qr->sum.cells.modes[m]), sb);
      vc_sb_puts(sb, " |");
    }
  }
  vc_sb_putc(sb, '\n');
}

static int matrix(vc_strbuf *sb, const vc_qual *q, vc_error *err) {
  vc_qmatrix mx;
  int rc = vc_qual_matrix(q, &mx, err);
  if (rc) return rc;
  uint32_t listed = 0;
  vc_sb_puts(sb, "\n## Matrix\n\nThe programs that did not pass in every mode (a flake "
                 "is listed), by folder, failures first.\n\n| folder | program |");
  for (uint32_t r = 0; r < q->nruns; r++)
    for (uint32_t m = 0; m < q->runs[r].sum.cells.nmodes; m++) {
      vc_sb_puts(sb, " ");
      vc_matrix_column(&vc_markup_md, q, r, m, sb);
      vc_sb_puts(sb, " |");
    }
  vc_sb_puts(sb, "\n| --- | --- |");
  for (uint32_t r = 0; r < q->nruns; r++)
    for (uint32_t m = 0; m < q->runs[r].sum.cells.nmodes; m++) vc_sb_puts(sb, " --- |");
  vc_sb_putc(sb, '\n');
  for (uint32_t g = 0; g < mx.ngroups; g++)
    for (uint32_t i = mx.groups[g].first; i < mx.groups[g].first + mx.groups[g].n; i++)
      list_row(sb, q, &mx.rows[i], &listed);
  vc_sb_printf(sb, "\n%u of %u programs are listed; the others pass in every mode of every "
                   "run.\n",
               listed, mx.nrows);
  vc_qual_matrix_free(&mx);
  return 0;
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
  const vc_markup *d = &vc_markup_md;
  vc_section_first_screen(d, q, out);
  vc_section_changes(d, q, out);
  vc_section_counts(d, q, out);
  vc_section_flakes(d, q, out);
  int rc = matrix(out, q, err);
  if (rc) return rc;
  vc_section_failures(d, q, out);
  vc_sb_puts(out, "\n## Runs and devices\n");
  for (uint32_t i = 0; i < q->nruns; i++) identity(out, q->runs[i].run);
  return 0;
}
