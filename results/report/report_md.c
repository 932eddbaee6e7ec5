/* The Markdown summary, which is also the qualification record: device and
 * versions, per-mode counts and median times, the results digest, failures, flakes. */
#include <stdio.h>

#include "results/report/escape.h"
#include "results/report/fmt.h"
#include "results/report/modestats.h"
#include "results/report/report.h"
#include "harness/model/outcome.h"

static void row(vc_strbuf *sb, const char *key, const char *value) {
  vc_sb_printf(sb, "| %s | ", key);
  vc_esc_md(sb, value);
  vc_sb_puts(sb, " |\n");
}

static void identity(vc_strbuf *sb, const vc_run_data *r, const char *digest) {
  char text[600], started[VC_FMT_LEN], ended[VC_FMT_LEN];
  const vc_device_info *d = &r->device;
  vc_sb_puts(sb, "| | |\n| --- | --- |\n");
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
  row(sb, "Corpus", r->info.corpus_path);
  row(sb, "Corpus digest", r->info.corpus_digest);
  vc_fmt_utc(started, r->info.started_ns);
  vc_fmt_utc(ended, r->ended_ns);
  snprintf(text, sizeof text, "%lld, %s, %s to %s", (long long)r->id, r->status, started, ended);
  row(sb, "Run", text);
  row(sb, "Shard", r->info.shard[0] ? r->info.shard : "none");
  row(sb, "Results digest", digest);
}

static void per_mode(vc_strbuf *sb, const vc_run_data *r, const vc_mode_stats *ms,
                     uint32_t nmodes) {
  vc_sb_puts(sb, "\n## Results per mode\n\n| Mode | Programs |");
  for (int s = 0; s < VC_STATUS_COUNT; s++) vc_sb_printf(sb, " %s |", vc_status_name(s));
  vc_sb_puts(sb, " Median wall | Median device |\n| --- | ---: |");
  for (int s = 0; s < VC_STATUS_COUNT; s++) vc_sb_puts(sb, " ---: |");
  vc_sb_puts(sb, " ---: | ---: |\n");
  for (uint32_t m = 0; m < nmodes; m++) {
    char wall[VC_FMT_LEN], dev[VC_FMT_LEN];
    vc_mode_stats_medians(&ms[m], r->device.timestamps, wall, dev);
    vc_sb_puts(sb, "| ");
    vc_esc_md(sb, ms[m].mode);
    vc_sb_printf(sb, " | %u |", ms[m].programs);
    for (int s = 0; s < VC_STATUS_COUNT; s++) vc_sb_printf(sb, " %u |", ms[m].counts[s]);
    vc_sb_printf(sb, " %s | %s |\n", wall, dev);
  }
  vc_sb_puts(sb, "\nMedians are over the programs that ran to a verdict (pass or diverge), "
                 "each program counted by its median over repeats; - where none did.\n");
}

static void failures(vc_strbuf *sb, const vc_cells *c) {
  uint32_t n = 0;
  vc_sb_puts(sb, "\n## Failures\n\n");
  for (uint32_t i = 0; i < c->n; i++) {
    const vc_cell *cell = &c->items[i];
    if (!vc_status_is_failure(cell->status)) continue;
    vc_sb_puts(sb, "- `");
    vc_esc_md(sb, cell->prog->info.name);
    vc_sb_puts(sb, "` ");
    vc_esc_md(sb, cell->mode);
    vc_sb_printf(sb, ": %s", vc_status_name(cell->status));
    if (cell->nfailing < cell->n) vc_sb_printf(sb, " (%u of %u repeats)", cell->nfailing, cell->n);
    if (cell->reason[0]) {
      vc_sb_puts(sb, ": ");
      vc_esc_md(sb, cell->reason);
    }
    vc_sb_putc(sb, '\n');
    n++;
  }
  if (!n) vc_sb_puts(sb, "None.\n");
}

/* Results that failed and then passed on a rerun (--flake-reruns): they do
   not fail the run, but a device that flakes is worth knowing about. */
static void flakes(vc_strbuf *sb, const vc_cells *c) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < c->n; i++) {
    const vc_cell *cell = &c->items[i];
    for (uint32_t k = 0; k < cell->n; k++) {
      const vc_result *x = &cell->results[k];
      if (x->status != VC_ST_FLAKE) continue;
      if (!n++) vc_sb_puts(sb, "\n## Flakes\n\n");
      vc_sb_puts(sb, "- `");
      vc_esc_md(sb, cell->prog->info.name);
      vc_sb_puts(sb, "` ");
      vc_esc_md(sb, cell->mode);
      vc_sb_printf(sb, " #%u: ", x->repeat + 1);
      vc_esc_md(sb, x->attempt_log[0] ? x->attempt_log : x->reason);
      vc_sb_putc(sb, '\n');
    }
  }
}

int vc_report_markdown(const vc_run_data *r, vc_strbuf *out, vc_error *err) {
  vc_run_summary sum;
  int rc = vc_run_summary_build(r, &sum, err);
  if (rc) return rc;
  char digest[65];
  vc_report_digest(r, digest);
  vc_sb_puts(out, "# vyre-conform qualification record\n\n");
  vc_report_unfinished_md(r, out);
  identity(out, r, digest);
  per_mode(out, r, sum.modes, sum.cells.nmodes);
  failures(out, &sum.cells);
  flakes(out, &sum.cells);
  vc_run_summary_free(&sum);
  return 0;
}
