/* JUnit XML (the Jenkins xUnit plugin's junit-10.xsd): a testsuite per run
 * and mode, a testcase per program. A new failure is a <failure>
 * (diverge, untrustworthy, invalid) or an <error> (error, crash, timeout);
 * a known failure, an unsupported cell and a skip are <skipped> with the
 * reason, so a CI system counts what the gate counts; a flake passes, its
 * attempts in <system-out>; a run in which nothing ran (verdict NOT RUN)
 * gets a testsuite BACKEND.coverage whose one testcase is an <error>, so
 * that CI does not show it green. --junit-limit N
 * writes the first N new failures in full and the rest by their message
 * only; --junit-link TEMPLATE adds "See URL" to each, as deqp-runner's
 * junit --limit and --template do. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "harness/model/outcome.h"
#include "results/report/escape.h"
#include "results/report/qual.h"
#include "results/report/report.h"

typedef struct suite_counts {
  uint32_t tests, failures, errors, skipped;
  double seconds;
} suite_counts;

typedef struct junit_state {
  const vc_qual *q;
  uint32_t written; /* new failures written in full */
} junit_state;

static const char *element(vc_status s, vc_judged j) {
  if (j == VC_JUDGED_KNOWN) return "skipped";
  if (j == VC_JUDGED_NEW && !vc_status_is_failure(s)) return "failure"; /* an unlisted flake */
  if (s == VC_ST_DIVERGE || s == VC_ST_UNTRUSTWORTHY || s == VC_ST_INVALID) return "failure";
  if (s == VC_ST_ERROR || s == VC_ST_CRASH || s == VC_ST_TIMEOUT) return "error";
  if (vc_status_is_failure(s)) return "failure"; /* a failing status added later */
  if (s == VC_ST_UNSUPPORTED || s == VC_ST_SKIP) return "skipped";
  return NULL; /* pass, and any other status that does not fail: it ran */
}

static void count(suite_counts *sc, const vc_cell *c, const vc_qcell *qc) {
  const char *e = element(c->status, qc->judged);
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

/* TEMPLATE with {{testcase}}, {{mode}}, {{backend}} and {{run}} replaced. */
static void link_line(vc_strbuf *sb, const char *tpl, const vc_run_data *r, const vc_cell *c) {
  char run[24];
  snprintf(run, sizeof run, "%lld", (long long)r->id);
  const char *keys[] = {"{{testcase}}", "{{mode}}", "{{backend}}", "{{run}}"};
  const char *vals[] = {c->prog->info.name, c->mode, r->info.backend, run};
  vc_strbuf out;
  vc_sb_init(&out);
  for (const char *p = tpl; *p;) {
    int k = 0;
    while (k < 4 && strncmp(p, keys[k], strlen(keys[k]))) k++;
    if (k < 4) {
      vc_sb_puts(&out, vals[k]);
      p += strlen(keys[k]);
    } else {
      vc_sb_putc(&out, *p++);
    }
  }
  vc_esc_markup(sb, vc_sb_str(&out));
  vc_sb_free(&out);
}

static void details(vc_strbuf *sb, const vc_cell *c) {
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
}

static void testcase(vc_strbuf *sb, junit_state *st, const vc_qrun *qr, const vc_cell *c) {
  const vc_run_data *r = qr->run;
  const vc_qcell *qc = &qr->qcells[vc_qual_cell_index(qr, c)];
  const vc_report_opts *o = st->q->opts;
  vc_sb_puts(sb, "    <testcase classname=\"vyre-conform.");
  vc_esc_markup(sb, r->info.backend);
  vc_sb_putc(sb, '.');
  vc_esc_markup(sb, c->mode);
  vc_sb_puts(sb, "\" name=\"");
  vc_esc_markup(sb, c->prog->info.name);
  vc_sb_printf(sb, "\" time=\"%.6f\"", (double)c->wall_median / 1e9);
  const char *e = element(c->status, qc->judged);
  if (!e && qc->nflakes) {
    /* passed in the end: a passing testcase that says how it got there */
    vc_sb_puts(sb, ">\n      <system-out>");
    for (uint32_t i = 0; i < c->n; i++) {
      const vc_result *x = &c->results[i];
      if (x->status != VC_ST_FLAKE) continue;
      vc_sb_printf(sb, "repeat %u: flake after %u attempts: ", x->repeat, x->attempts);
      vc_esc_markup(sb, x->attempt_log[0] ? x->attempt_log : x->reason);
      vc_sb_putc(sb, '\n');
    }
    vc_sb_puts(sb, "</system-out>\n    </testcase>\n");
    return;
  }
  if (!e) {
    vc_sb_puts(sb, "/>\n");
    return;
  }
  vc_sb_printf(sb, ">\n      <%s type=\"%s\" message=\"", e, vc_status_name(c->status));
  if (qc->judged == VC_JUDGED_KNOWN) {
    vc_sb_printf(sb, "known failure (%s", qr->exps.file);
    if (qc->by) {
      vc_sb_printf(sb, ":%u): ", qc->by->line);
      vc_esc_markup(sb, qc->by->reason);
    } else {
      vc_sb_puts(sb, ")");
    }
    vc_sb_puts(sb, "; ");
  } else if (!strcmp(e, "skipped")) {
    vc_sb_printf(sb, "%s: ", vc_status_name(c->status));
  }
  vc_esc_markup(sb, c->reason);
  vc_sb_puts(sb, "\"");
  bool full = qc->judged != VC_JUDGED_NEW || !o || !o->junit_limit || st->written < o->junit_limit;
  if (qc->judged == VC_JUDGED_NEW && full) st->written++;
  if (!strcmp(e, "skipped") && qc->judged != VC_JUDGED_KNOWN) {
    vc_sb_puts(sb, "/>\n    </testcase>\n");
    return;
  }
  vc_sb_puts(sb, ">");
  if (o && o->junit_link && qc->judged == VC_JUDGED_NEW) {
    link_line(sb, o->junit_link, r, c);
    vc_sb_putc(sb, '\n');
  }
  if (full)
    details(sb, c);
  else
    vc_sb_printf(sb, "(details left out: --junit-limit %u; the HTML report has them)\n",
                 o->junit_limit);
  vc_sb_printf(sb, "</%s>\n", e);
  const vc_result *first = NULL;
  for (uint32_t i = 0; i < c->n && !first; i++)
    if (vc_status_is_failure(c->results[i].status)) first = &c->results[i];
  if (full && first && first->captured_stderr[0]) {
    vc_sb_puts(sb, "      <system-err>");
    vc_esc_markup(sb, first->captured_stderr);
    vc_sb_puts(sb, "</system-err>\n");
  }
  vc_sb_puts(sb, "    </testcase>\n");
}

static void property(vc_strbuf *sb, const char *name, const char *value) {
  vc_sb_printf(sb, "      <property name=\"%s\" value=\"", name);
  vc_esc_markup(sb, value ? value : "");
  vc_sb_puts(sb, "\"/>\n");
}

static void properties(vc_strbuf *sb, const vc_qrun *qr) {
  const vc_run_data *r = qr->run;
  char text[600];
  vc_sb_puts(sb, "    <properties>\n");
  property(sb, "verdict", vc_verdict_word(qr->verdict));
  property(sb, "device", r->has_device ? r->device.device_name : "not recorded");
  snprintf(text, sizeof text, "%s %s", r->device.driver_name, r->device.driver_version);
  property(sb, "driver", r->has_device ? text : "not recorded");
  snprintf(text, sizeof text, "%s %s", r->device.api, r->device.api_version);
  property(sb, "api", r->has_device ? text : "not recorded");
  property(sb, "fingerprint", r->fingerprint);
  snprintf(text, sizeof text, "%s (commit %s)", r->info.harness_version, r->info.harness_commit);
  property(sb, "harness", text);
  property(sb, "backend", r->info.backend);
  snprintf(text, sizeof text, "%lld", (long long)r->id);
  property(sb, "run", text);
  property(sb, "run status", r->status);
  property(sb, "expectations", qr->exps_text);
  property(sb, "options", r->info.options);
  property(sb, "command line", r->info.command_line);
  property(sb, "planted faults", qr->injected[0] ? qr->injected : "none");
  vc_sb_puts(sb, "    </properties>\n");
}

static void suite_open(vc_strbuf *sb, const vc_qrun *qr, const char *name,
                       const suite_counts *sc) {
  const vc_run_data *r = qr->run;
  char stamp[32] = "";
  time_t t = (time_t)(r->info.started_ns / 1000000000);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
  vc_sb_puts(sb, "  <testsuite name=\"");
  vc_esc_markup(sb, r->info.backend);
  vc_sb_putc(sb, '.');
  vc_esc_markup(sb, name);
  vc_sb_printf(sb, "\" tests=\"%u\" failures=\"%u\" errors=\"%u\" skipped=\"%u\" time=\"%.6f\" "
                   "timestamp=\"%s\" hostname=\"",
               sc->tests, sc->failures, sc->errors, sc->skipped, sc->seconds, stamp);
  vc_esc_markup(sb, r->info.host);
  vc_sb_printf(sb, "\" id=\"%lld\" package=\"vyre-conform.", (long long)r->id);
  vc_esc_markup(sb, r->info.backend);
  vc_sb_puts(sb, "\">\n");
  properties(sb, qr);
}

static void add_counts(suite_counts *total, const suite_counts *sc) {
  total->tests += sc->tests;
  total->failures += sc->failures;
  total->errors += sc->errors;
  total->skipped += sc->skipped;
  total->seconds += sc->seconds;
}

static void suite(vc_strbuf *sb, junit_state *st, const vc_qrun *qr, const char *mode,
                  suite_counts *total) {
  const vc_cells *c = &qr->sum.cells;
  suite_counts sc = {0};
  for (uint32_t i = 0; i < c->n; i++)
    if (strcmp(c->items[i].mode, mode) == 0) count(&sc, &c->items[i], &qr->qcells[i]);
  suite_open(sb, qr, mode, &sc);
  for (uint32_t i = 0; i < c->n; i++)
    if (strcmp(c->items[i].mode, mode) == 0) testcase(sb, st, qr, &c->items[i]);
  vc_sb_puts(sb, "  </testsuite>\n");
  add_counts(total, &sc);
}

/* A run that checked nothing has only skipped testcases, which CI systems
   show green: one testcase with an <error> says that nothing ran. */
static void not_run_suite(vc_strbuf *sb, const vc_qrun *qr, suite_counts *total) {
  suite_counts sc = {1, 0, 1, 0, 0.0};
  suite_open(sb, qr, "coverage", &sc);
  vc_sb_puts(sb, "    <testcase classname=\"vyre-conform.");
  vc_esc_markup(sb, qr->run->info.backend);
  vc_sb_puts(sb, ".coverage\" name=\"nothing-ran\" time=\"0.000000\">\n"
                 "      <error type=\"not-run\" message=\"NOT RUN: ");
  vc_esc_markup(sb, qr->why);
  vc_sb_puts(sb, "\">no program was checked in any mode: every cell was skipped or "
                 "unsupported</error>\n    </testcase>\n  </testsuite>\n");
  add_counts(total, &sc);
}

int vc_report_junit(const vc_qual *q, vc_strbuf *out, vc_error *err) {
  (void)err;
  vc_strbuf body;
  vc_sb_init(&body);
  suite_counts total = {0};
  junit_state st = {q, 0};
  for (uint32_t r = 0; r < q->nruns; r++)
    for (uint32_t m = 0; m < q->runs[r].sum.cells.nmodes; m++)
      suite(&body, &st, &q->runs[r], q->runs[r].sum.cells.modes[m], &total);
  for (uint32_t r = 0; r < q->nruns; r++)
    if (q->runs[r].verdict == VC_VERDICT_NOT_RUN) not_run_suite(&body, &q->runs[r], &total);
  vc_sb_puts(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"");
  vc_sb_puts(out, vc_qual_title_prefix(q));
  vc_sb_puts(out, "vyre-conform");
  for (uint32_t r = 0; r < q->nruns; r++) {
    vc_sb_putc(out, r ? ',' : ' ');
    vc_esc_markup(out, q->runs[r].run->info.backend);
  }
  vc_sb_printf(out, ": %s\" tests=\"%u\" failures=\"%u\" errors=\"%u\" time=\"%.6f\">\n",
               vc_verdict_word(q->verdict), total.tests, total.failures, total.errors,
               total.seconds);
  vc_sb_puts(out, vc_sb_str(&body));
  vc_sb_puts(out, "</testsuites>\n");
  vc_sb_free(&body);
  return 0;
}
