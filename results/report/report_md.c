/* The Markdown report, which is also the qualification record: the same
 * content as the HTML report in a form GitHub renders. Its sections are
 * sections.c's; what is its own is the matrix, which lists the programs
 * that did not pass everywhere. */
#include "harness/model/outcome.h"
#include "results/report/escape.h"
#include "results/report/qual.h"
#include "results/report/report.h"
#include "results/report/sections.h"
#include "harness/base/plural.h"

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
  vc_sb_printf(sb, "\n%u of %u %s %s listed; the others pass in every mode of every "
                   "run.\n",
               listed, mx.nrows, vc_plural(mx.nrows, "program", "programs"),
               vc_plural(listed, "is", "are"));
  vc_qual_matrix_free(&mx);
  return 0;
}

int vc_report_markdown(const vc_qual *q, vc_strbuf *out, vc_error *err) {
  const vc_markup *d = &vc_markup_md;
  vc_section_first_screen(d, q, out);
  vc_section_changes(d, q, out);
  vc_section_counts(d, q, out);
  vc_section_flakes(d, q, out);
  vc_section_litmus(d, q, out);
  vc_section_crossover(d, q, out);
  int rc = matrix(out, q, err);
  if (rc) return rc;
  vc_section_failures(d, q, out);
  vc_sb_puts(out, "\n## Runs and devices\n");
  for (uint32_t i = 0; i < q->nruns; i++) {
    const vc_run_data *r = q->runs[i].run;
    vc_sb_printf(out, "\n### Run %lld: ", (long long)r->id);
    vc_esc_md(out, r->info.backend);
    vc_sb_putc(out, '\n');
    vc_section_run_record(&vc_markup_md, r, out);
  }
  return 0;
}
