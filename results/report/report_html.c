/* The HTML qualification report: one file, no scripts, no fonts or images
 * from anywhere else; charts are inline SVG. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/report/escape.h"
#include "results/report/fmt.h"
#include "results/report/modestats.h"
#include "results/report/report.h"
#include "harness/model/outcome.h"
#include "results/report/svg.h"

static const char style[] =
    "body{font-family:sans-serif;margin:24px;color:#222;background:#fff}"
    "h1{font-size:22px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ccc}"
    "h3{font-size:14px;margin-bottom:4px}"
    "table{border-collapse:collapse;margin:8px 0 16px}"
    "th,td{border:1px solid #bbb;padding:3px 8px;text-align:left;font-size:13px;"
    "vertical-align:top}th{background:#eef1f5}"
    "td.pass{background:#b9e4c1}td.diverge{background:#f6b3b3}"
    "td.untrustworthy{background:#d7a6e0}"
    "td.error,td.crash,td.timeout{background:#e57373;color:#fff}"
    "td.invalid{background:#ffd699}td.unsupported{background:#d6d6d6}td.skip{background:#f2f2f2}"
    "td.flake{background:#e6ee9c}"
    "table.hex td{font-family:monospace}table.hex td.bad{background:#f6b3b3;font-weight:bold}"
    "pre{background:#f5f5f5;padding:6px;white-space:pre-wrap}.digest{font-family:monospace}"
    "svg.chart{display:block;margin:12px 0}"
    "p.warning{background:#fff3cd;border:1px solid #e0b252;padding:6px 10px}";

static void kv(vc_strbuf *sb, const char *key, const char *value) {
  vc_sb_printf(sb, "<tr><th>%s</th><td>", key);
  vc_esc_markup(sb, value);
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

static void head(vc_strbuf *sb, const vc_run_data *r) {
  vc_sb_puts(sb, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>");
  vc_sb_printf(sb, "vyre-conform report: run %lld, ", (long long)r->id);
  vc_esc_markup(sb, r->info.backend);
  vc_sb_printf(sb, "</title>\n<style>%s</style></head><body>\n", style);
  vc_sb_puts(sb, "<h1>vyre-conform qualification report</h1>\n<p>");
  vc_esc_markup(sb, r->info.backend);
  vc_sb_puts(sb, " on ");
  vc_esc_markup(sb, r->has_device ? r->device.device_name : "an unrecorded device");
  vc_sb_printf(sb, ", run %lld, ", (long long)r->id);
  vc_esc_markup(sb, r->status);
  vc_sb_puts(sb, "</p>\n");
}

static void run_table(vc_strbuf *sb, const vc_run_data *r, const char *digest) {
  char started[VC_FMT_LEN], ended[VC_FMT_LEN], took[VC_FMT_LEN];
  vc_fmt_utc(started, r->info.started_ns);
  vc_fmt_utc(ended, r->ended_ns);
  vc_fmt_ns(took,
            r->ended_ns > r->info.started_ns ? (uint64_t)(r->ended_ns - r->info.started_ns) : 0);
  vc_sb_puts(sb, "<h2>Run</h2>\n<table>\n");
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
  kv(sb, "results digest (SHA-256)", digest);
  vc_sb_puts(sb, "</table>\n");
}

static void device_table(vc_strbuf *sb, const vc_run_data *r) {
  vc_sb_puts(sb, "<h2>Device</h2>\n");
  if (!r->has_device) {
    vc_sb_puts(sb, "<p>No device was recorded for this run.</p>\n");
    return;
  }
  const vc_device_info *d = &r->device;
  char text[128];
  vc_sb_puts(sb, "<table>\n");
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
    vc_sb_puts(sb, "<h3>Further properties</h3><pre>");
    vc_esc_markup(sb, d->extra);
    vc_sb_puts(sb, "</pre>\n");
  }
}

static void summary_table(vc_strbuf *sb, const vc_run_data *r, const vc_mode_stats *ms,
                          uint32_t nmodes) {
  vc_sb_puts(sb, "<h2>Summary per mode</h2>\n<table><tr><th>mode</th><th>programs</th>");
  for (int s = 0; s < VC_STATUS_COUNT; s++) vc_sb_printf(sb, "<th>%s</th>", vc_status_name(s));
  vc_sb_puts(sb, "<th>median wall</th><th>median device</th></tr>\n");
  for (uint32_t m = 0; m < nmodes; m++) {
    char wall[VC_FMT_LEN], dev[VC_FMT_LEN];
    vc_mode_stats_medians(&ms[m], r->device.timestamps, wall, dev);
    vc_sb_puts(sb, "<tr><th>");
    vc_esc_markup(sb, ms[m].mode);
    vc_sb_printf(sb, "</th><td>%u</td>", ms[m].programs);
    for (int s = 0; s < VC_STATUS_COUNT; s++) vc_sb_printf(sb, "<td>%u</td>", ms[m].counts[s]);
    vc_sb_printf(sb, "<td>%s</td><td>%s</td></tr>\n", wall, dev);
  }
  vc_sb_puts(sb, "</table>\n");
}

/* ---- charts ---- */

static int charts(vc_strbuf *sb, const vc_run_data *r, const vc_cells *c, const vc_mode_stats *ms,
                  vc_error *err) {
  uint32_t nm = c->nmodes;
  uint64_t *v = calloc(2 * nm + (size_t)r->nprogs * nm + 1, sizeof *v);
  if (!v) return vc_fail(err, VC_ERR_NOMEM, "writing the HTML report: out of memory");
  const char **programs = calloc(r->nprogs + 1, sizeof *programs);
  if (!programs) {
    free(v);
    return vc_fail(err, VC_ERR_NOMEM, "writing the HTML report: out of memory");
  }
  vc_sb_puts(sb, "<h2>Charts</h2>\n");
  static const char *const times[] = {"wall (sum of medians)", "device (sum of medians)"};
  static const char *const traffic[] = {"host to device", "device to host"};
  for (uint32_t m = 0; m < nm; m++) v[2 * m] = ms[m].wall_total, v[2 * m + 1] = ms[m].device_total;
  vc_svg_bars(sb, &(vc_chart){"Time per mode", VC_UNIT_NS, c->modes, nm, times, 2, v});
  for (uint32_t m = 0; m < nm; m++) v[2 * m] = ms[m].bytes_up, v[2 * m + 1] = ms[m].bytes_down;
  vc_svg_bars(sb, &(vc_chart){"Bytes moved per mode", VC_UNIT_BYTES, c->modes, nm, traffic, 2, v});
  for (uint32_t p = 0; p < r->nprogs; p++) {
    programs[p] = r->progs[p].info.name;
    for (uint32_t m = 0; m < nm; m++) {
      const vc_cell *cell = vc_cells_find(c, programs[p], c->modes[m]);
      v[p * nm + m] = cell ? cell->launches : 0;
    }
  }
  vc_svg_bars(
      sb, &(vc_chart){"Launches per program", VC_UNIT_COUNT, programs, r->nprogs, c->modes, nm, v});
  free(programs);
  free(v);
  return 0;
}

/* ---- the pass matrix ---- */

static void matrix_cell(vc_strbuf *sb, const vc_cell *cell) {
  if (!cell) {
    vc_sb_puts(sb, "<td>-</td>");
    return;
  }
  const char *name = vc_status_name(cell->status);
  vc_sb_printf(sb, "<td class=\"%s\" title=\"", name);
  vc_esc_markup(sb, cell->reason);
  vc_sb_printf(sb, "\">%s", name);
  if (cell->nfailing && cell->nfailing < cell->n)
    vc_sb_printf(sb, " %u/%u", cell->nfailing, cell->n);
  vc_sb_puts(sb, "</td>");
}

static void matrix(vc_strbuf *sb, const vc_run_data *r, const vc_cells *c) {
  vc_sb_puts(sb, "<h2>Pass matrix</h2>\n<table><tr><th>program</th>");
  for (uint32_t m = 0; m < c->nmodes; m++) {
    vc_sb_puts(sb, "<th>");
    vc_esc_markup(sb, c->modes[m]);
    vc_sb_puts(sb, "</th>");
  }
  vc_sb_puts(sb, "</tr>\n");
  for (uint32_t p = 0; p < r->nprogs; p++) {
    vc_sb_puts(sb, "<tr><th>");
    vc_esc_markup(sb, r->progs[p].info.name);
    vc_sb_puts(sb, "</th>");
    for (uint32_t m = 0; m < c->nmodes; m++)
      matrix_cell(sb, vc_cells_find(c, r->progs[p].info.name, c->modes[m]));
    vc_sb_puts(sb, "</tr>\n");
  }
  vc_sb_puts(sb, "</table>\n");
}

/* ---- divergences and other failures ---- */

enum { MAX_ELEMS = 32, ELEM_LEN = 24 };

/* The hex context as elements: white space separates them; one long run of
   digits is cut into 8-digit (4-byte) elements. */
static uint32_t split_hex(const char *hex, char out[MAX_ELEMS][ELEM_LEN]) {
  uint32_t n = 0;
  const char *p = hex;
  while (*p && n < MAX_ELEMS) {
    while (isspace((unsigned char)*p)) p++;
    size_t len = 0;
    while (p[len] && !isspace((unsigned char)p[len])) len++;
    if (!len) break;
    size_t step = len > 8 && len % 8 == 0 ? 8 : len;
    for (size_t off = 0; off < len && n < MAX_ELEMS; off += step)
      snprintf(out[n++], ELEM_LEN, "%.*s", (int)(step < ELEM_LEN ? step : ELEM_LEN - 1), p + off);
    p += len;
  }
  return n;
}

static void hex_table(vc_strbuf *sb, const vc_divergence *d) {
  char exp[MAX_ELEMS][ELEM_LEN], act[MAX_ELEMS][ELEM_LEN];
  uint32_t ne = split_hex(d->expected_hex, exp), na = split_hex(d->actual_hex, act);
  uint32_t n = ne > na ? ne : na;
  vc_sb_puts(sb, "<table class=\"hex\"><tr><th>element</th>");
  for (uint32_t i = 0; i < n; i++) vc_sb_printf(sb, "<th>%" PRIu64 "</th>", d->context_start + i);
  const char *rows[2] = {"expected", "actual"};
  for (int row = 0; row < 2; row++) {
    vc_sb_printf(sb, "</tr>\n<tr><th>%s</th>", rows[row]);
    for (uint32_t i = 0; i < n; i++) {
      const char *e = i < ne ? exp[i] : "", *a = i < na ? act[i] : "";
      vc_sb_printf(sb, "<td%s>", strcmp(e, a) ? " class=\"bad\"" : "");
      vc_esc_markup(sb, row ? a : e);
      vc_sb_puts(sb, "</td>");
    }
  }
  vc_sb_puts(sb, "</tr></table>\n");
}

static void divergence(vc_strbuf *sb, const vc_divergence *d) {
  vc_sb_puts(sb, "<table><tr><th>buffer</th><th>type</th><th>first element</th>"
                 "<th>mismatching elements</th><th>class</th><th>max ulp</th></tr><tr><td>");
  vc_esc_markup(sb, d->buffer);
  vc_sb_puts(sb, "</td><td>");
  vc_esc_markup(sb, d->type);
  vc_sb_printf(sb, "</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>", d->first_index, d->count);
  vc_esc_markup(sb, vc_divclass_name(d->cls));
  vc_sb_printf(sb, "</td><td>%" PRIu64 "</td></tr></table>\n", d->max_ulp);
  hex_table(sb, d);
}

static void result_heading(vc_strbuf *sb, const vc_prog_data *p, const vc_result *x) {
  vc_sb_puts(sb, "<h3>");
  vc_esc_markup(sb, p->info.name);
  vc_sb_puts(sb, " &mdash; ");
  vc_esc_markup(sb, x->mode);
  vc_sb_printf(sb, ", repeat %u: %s</h3>\n", x->repeat, vc_status_name(x->status));
  if (x->reason[0]) {
    vc_sb_puts(sb, "<p>");
    vc_esc_markup(sb, x->reason);
    vc_sb_puts(sb, "</p>\n");
  }
  if (x->attempt_log[0]) {
    vc_sb_puts(sb, "<p>attempts: ");
    vc_esc_markup(sb, x->attempt_log);
    vc_sb_puts(sb, "</p>\n");
  }
}

static void failures(vc_strbuf *sb, const vc_run_data *r) {
  uint32_t shown = 0;
  vc_sb_puts(sb, "<h2>Divergences, failures and flakes</h2>\n");
  for (uint32_t p = 0; p < r->nprogs; p++)
    for (uint32_t i = 0; i < r->progs[p].nresults; i++) {
      const vc_result *x = &r->progs[p].results[i];
      if (!vc_status_is_failure(x->status) && !x->ndivs && x->status != VC_ST_FLAKE) continue;
      result_heading(sb, &r->progs[p], x);
      for (uint32_t k = 0; k < x->ndivs; k++) divergence(sb, &x->divs[k]);
      shown++;
    }
  if (!shown) vc_sb_puts(sb, "<p>None: every result that ran matched the oracle.</p>\n");
}

int vc_report_html(const vc_run_data *r, vc_strbuf *out, vc_error *err) {
  vc_run_summary sum;
  int rc = vc_run_summary_build(r, &sum, err);
  if (rc) return rc;
  char digest[65];
  vc_report_digest(r, digest);
  head(out, r);
  vc_report_unfinished_html(r, out);
  run_table(out, r, digest);
  device_table(out, r);
  summary_table(out, r, sum.modes, sum.cells.nmodes);
  rc = charts(out, r, &sum.cells, sum.modes, err);
  if (!rc) {
    matrix(out, r, &sum.cells);
    failures(out, r);
    vc_sb_puts(out, "<p>Written by vyre-conform report.</p>\n</body></html>\n");
  }
  vc_run_summary_free(&sum);
  return rc;
}
