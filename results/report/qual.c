#include "results/report/qual.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "harness/model/verdict.h"
#include "results/gate/judged_by.h"
#include "results/gate/provenance.h"

const char *vc_verdict_word(vc_qual_verdict v) {
  static const char *const words[] = {
#define VC_X(e, w, c) w,
      VC_VERDICT_TABLE(VC_X)
#undef VC_X
  };
  return (unsigned)v < VC_VERDICT_COUNT ? words[v] : "?";
}

const char *vc_verdict_class(vc_qual_verdict v) {
  static const char *const classes[] = {
#define VC_X(e, w, c) c,
      VC_VERDICT_TABLE(VC_X)
#undef VC_X
  };
  return (unsigned)v < VC_VERDICT_COUNT ? classes[v] : "v-fail";
}

/* ---- the run's stored settings ---- */

bool vc_qual_option(const vc_run_data *r, const char *key, char *out, size_t n) {
  return vc_run_option(r, key, out, n);
}

/* ---- provenance ---- */

static void append(char *out, size_t n, const char *sep, const char *text) {
  size_t used = strlen(out);
  if (used + 1 < n) snprintf(out + used, n - used, "%s%s", used ? sep : "", text);
}

void vc_qual_strip_cache(char *s) {
  /* "cache=DIR" is where compiled kernels are kept (the run command adds
     it): no option of the device's behaviour */
  char *p = s;
  while ((p = strstr(p, "cache="))) {
    bool at_item = p == s || p[-1] == ',' || p[-1] == '=' || p[-1] == '"';
    if (!at_item) {
      p++;
      continue;
    }
    char *end = p + strcspn(p, ",\" ");
    if (*end == ',') end++;
    else if (p > s && p[-1] == ',') p--;
    memmove(p, end, strlen(end) + 1);
  }
}

/* The settings a plain qualification run would not have. */
static void nondefault(const vc_run_data *r, char *out, size_t n) {
  static const char *const plain[] = {"backend=", "path=", "expectations=", "repeat=1",
                                      "mode=native,host-split,resident-split", "device=0",
                                      "timeout=600", "oracle-order=forward", "mutant",
                                      "fault=", "flake-reruns=2", "device-jobs=1",
                                      /* planted: the report's red line names them */
                                      "inject-flip=", "inject-crash=", "inject-hang=",
                                      /* the results are the same whatever --jobs (tested) */
                                      "jobs="};
  out[0] = '\0';
  const char *p = r->info.options ? r->info.options : "";
  while (*p) {
    while (*p == ' ') p++;
    if (!*p) break;
    const char *end = p;
    bool quoted = false;
    for (; *end && (quoted || *end != ' '); end++) {
      if (*end == '\\' && quoted && end[1]) end++;
      else if (*end == '"') quoted = !quoted;
    }
    bool skip = false;
    for (size_t i = 0; i < sizeof plain / sizeof plain[0] && !skip; i++) {
      size_t len = strlen(plain[i]);
      bool prefix = plain[i][len - 1] == '=' || !strcmp(plain[i], "mutant");
      /* a prefix is a whole key: "jobs=" is not the end of "device-jobs=" */
      skip = prefix ? (size_t)(end - p) >= len && !strncmp(p, plain[i], len)
                    : (size_t)(end - p) == len && !strncmp(p, plain[i], len);
    }
    if (!skip) {
      char tok[512];
      snprintf(tok, sizeof tok, "%.*s", (int)(end - p), p);
      vc_qual_strip_cache(tok);
      if (strcmp(tok, "device-options=") != 0) append(out, n, " ", tok);
    }
    p = end;
  }
}

static void device_line(const vc_run_data *r, char *out, size_t n) {
  if (!r->has_device) {
    snprintf(out, n, "%s: no device recorded", r->info.backend);
    return;
  }
  const vc_device_info *d = &r->device;
  bool same = strcasecmp(d->api, r->info.backend) == 0;
  snprintf(out, n, "%s \xc2\xb7 %s %s \xc2\xb7 driver %s %s%s%s", d->device_name, d->api,
           d->api_version, d->driver_name, d->driver_version, same ? "" : " \xc2\xb7 backend ",
           same ? "" : r->info.backend);
}

/* ---- expectations ---- */

/* By the one rule of every command (results/gate/judged_by.h). */
static int load_expectations(vc_qrun *qr, const vc_report_opts *o, vc_error *err) {
  vc_judged_by j;
  int rc = vc_judged_by_load(qr->run, o ? o->expectations : NULL, "report", &j, err);
  if (rc) return rc;
  qr->exps = j.exps; /* the run owns the entries from here on */
  qr->has_exps = j.loaded;
  snprintf(qr->exps_text, sizeof qr->exps_text, "%s", j.text);
  return 0;
}

/* The run's day, YYYYMMDD: entries are judged as on the day it ran, so a
   report written later says what the run said. */
static int run_day(const vc_run_data *r) {
  if (r->info.started_ns <= 0) return vc_today_utc();
  time_t t = (time_t)(r->info.started_ns / 1000000000);
  struct tm tm;
  gmtime_r(&t, &tm);
  return (tm.tm_year + 1900) * 10000 + (tm.tm_mon + 1) * 100 + tm.tm_mday;
}

static void judge(vc_qrun *qr) {
  const vc_run_data *r = qr->run;
  vc_exp_config cfg = {r->info.backend, r->device.device_name, r->device.driver_name,
                       r->device.driver_version};
  int today = run_day(r);
  const vc_cells *c = &qr->sum.cells;
  for (uint32_t i = 0; i < c->n; i++) {
    const vc_cell *cell = &c->items[i];
    vc_qcell *q = &qr->qcells[i];
    q->section = -1;
    uint32_t m = 0;
    while (m < c->nmodes && strcmp(c->modes[m], cell->mode)) m++;
    vc_qmode *qm = &qr->modes[m];
    qm->programs++;
    qm->counts[cell->status]++;
    const vc_expectations *exps = qr->has_exps ? &qr->exps : NULL;
    bool unlisted = false;
    for (uint32_t k = 0; k < cell->n; k++) {
      const vc_result *x = &cell->results[k];
      if (x->status != VC_ST_FLAKE) continue;
      q->nflakes++;
      const vc_expectation *by =
          vc_expectations_cover_flake(exps, &cfg, today, cell->prog->info.name, x);
      if (!q->flakes_by) q->flakes_by = by;
      unlisted |= !by;
    }
    if (unlisted) q->flakes_by = NULL;
    qr->nflakes += q->nflakes;
    qr->ncovered += cell->status == VC_ST_PASS || cell->status == VC_ST_FLAKE;
    if (!vc_status_is_failure(cell->status) && !q->nflakes) continue;
    vc_verdict v = vc_verdict_of_repeats(exps, &cfg, today, cell->prog->info.name, cell->mode,
                                         cell->status, cell->results, cell->n);
    /* a flake fails as a failure does, unless flake entries list it */
    if (!vc_status_is_failure(cell->status) && !v.fails) continue;
    if (v.fails) {
      q->judged = VC_JUDGED_NEW;
      qm->new_failures++;
      qr->nnew++;
    } else {
      q->judged = VC_JUDGED_KNOWN;
      q->by = v.by;
      qm->known_failures++;
      qr->nknown++;
      qr->ncovered++;
    }
  }
  /* Sections: new failures first, then known ones, each in cell order. */
  for (int pass = 0; pass < 2; pass++)
    for (uint32_t i = 0; i < c->n; i++)
      if (qr->qcells[i].judged == (pass ? VC_JUDGED_KNOWN : VC_JUDGED_NEW)) {
        qr->section_cell[qr->nsections] = i;
        qr->qcells[i].section = (int32_t)qr->nsections++;
      }
}

/* Entries for the run's device past their date on the day it ran: the
   run exited 6 for them (harness/base/exitcodes.h), so the report fails. */
static uint32_t expired_entries(const vc_qrun *qr) {
  if (!qr->has_exps) return 0;
  const vc_run_data *r = qr->run;
  vc_exp_config cfg = {r->info.backend, r->device.device_name, r->device.driver_name,
                       r->device.driver_version};
  uint32_t n = 0;
  for (uint32_t i = 0; i < qr->exps.n; i++)
    n += vc_expectation_applies(&qr->exps.items[i], &cfg) &&
         vc_expectation_expired(&qr->exps.items[i], run_day(r));
  return n;
}

static void decide(vc_qrun *qr) {
  const vc_run_data *r = qr->run;
  uint32_t expired = expired_entries(qr);
  if (expired && !qr->nnew) {
    qr->verdict = VC_VERDICT_FAIL;
    snprintf(qr->why, sizeof qr->why, "%u expectation%s expired", expired,
             expired == 1 ? "" : "s");
    return;
  }
  if (qr->nnew) {
    qr->verdict = VC_VERDICT_FAIL;
    snprintf(qr->why, sizeof qr->why, "%u new failure%s", qr->nnew, qr->nnew == 1 ? "" : "s");
  } else if (strcmp(r->status, "complete") != 0) {
    qr->verdict = VC_VERDICT_FAIL;
    snprintf(qr->why, sizeof qr->why, "the run is %s: not every program ran", r->status);
  } else if (!qr->ncovered) {
    /* everything skipped or unsupported: nothing was checked */
    uint32_t skip = 0, uns = 0;
    for (uint32_t m = 0; m < qr->sum.cells.nmodes; m++) {
      skip += qr->modes[m].counts[VC_ST_SKIP];
      uns += qr->modes[m].counts[VC_ST_UNSUPPORTED];
    }
    qr->verdict = VC_VERDICT_NOT_RUN;
    snprintf(qr->why, sizeof qr->why,
             "nothing was checked: no cell passed or failed as expected (%u skip, %u unsupported)",
             skip, uns);
  } else if (qr->nknown) {
    qr->verdict = VC_VERDICT_KNOWN;
    snprintf(qr->why, sizeof qr->why, "no new failure; %u known failure%s", qr->nknown,
             qr->nknown == 1 ? "" : "s");
  } else {
    qr->verdict = VC_VERDICT_PASS;
    snprintf(qr->why, sizeof qr->why, "no failure");
  }
  if (qr->nnew && strcmp(r->status, "complete") != 0) {
    size_t u = strlen(qr->why);
    snprintf(qr->why + u, sizeof qr->why - u, "; the run is %s", r->status);
  }
  if (qr->nnew && expired) {
    size_t u = strlen(qr->why);
    snprintf(qr->why + u, sizeof qr->why - u, "; %u expectation%s expired", expired,
             expired == 1 ? "" : "s");
  }
}

static int build_run(vc_qrun *qr, const vc_run_data *r, const vc_report_opts *o, vc_error *err) {
  memset(qr, 0, sizeof *qr);
  qr->run = r;
  int rc = vc_run_summary_build(r, &qr->sum, err);
  if (rc) return rc;
  qr->qcells = calloc(qr->sum.cells.n + 1, sizeof *qr->qcells);
  qr->modes = calloc(qr->sum.cells.nmodes + 1, sizeof *qr->modes);
  qr->section_cell = calloc(qr->sum.cells.n + 1, sizeof *qr->section_cell);
  if (!qr->qcells || !qr->modes || !qr->section_cell) return vc_fail(err, VC_ERR_NOMEM, "report: out of memory");
  rc = load_expectations(qr, o, err);
  if (rc) return rc;
  judge(qr);
  decide(qr);
  vc_run_planted(r, qr->injected, sizeof qr->injected);
  nondefault(r, qr->nondefault, sizeof qr->nondefault);
  device_line(r, qr->device_line, sizeof qr->device_line);
  return 0;
}

int vc_qual_build(const vc_run_data *const *runs, uint32_t nruns, const vc_report_opts *opts,
                  vc_qual *q, vc_error *err) {
  memset(q, 0, sizeof *q);
  q->opts = opts;
  q->runs = calloc(nruns + 1, sizeof *q->runs);
  if (!q->runs) return vc_fail(err, VC_ERR_NOMEM, "report: out of memory");
  int rc = 0;
  for (uint32_t i = 0; i < nruns && !rc; i++) {
    rc = build_run(&q->runs[i], runs[i], opts, err);
    q->nruns = i + 1;
    if (!rc && q->runs[i].verdict > q->verdict) q->verdict = q->runs[i].verdict;
    if (!rc && q->runs[i].injected[0]) q->planted = true;
  }
  if (!rc && opts && opts->baseline) {
    /* The run of the baseline's backend, else the first. */
    for (uint32_t i = 0; i < q->nruns; i++)
      if (!strcmp(q->runs[i].run->info.backend, opts->baseline->info.backend)) {
        q->cmp_run = i;
        break;
      }
    vc_compare_opts co;
    vc_compare_opts_default(&co);
    co.timing = false; /* a qualification says what passes; speed is compare's */
    co.exps = q->runs[q->cmp_run].has_exps ? &q->runs[q->cmp_run].exps : NULL;
    co.today = run_day(q->runs[q->cmp_run].run);
    q->cmp_opts = co; /* the comparison points into its options */
    rc = vc_compare_runs(opts->baseline, q->runs[q->cmp_run].run, &q->cmp_opts, &q->cmp, err);
    q->has_cmp = rc == 0;
  }
  if (rc) vc_qual_free(q);
  return rc;
}

const char *vc_qual_title_prefix(const vc_qual *q) {
  bool nfs = q->opts && q->opts->not_for_submission;
  if (nfs && q->planted) return "[NOT FOR SUBMISSION] [PLANTED FAULTS: NOT A QUALIFICATION] ";
  if (nfs) return "[NOT FOR SUBMISSION] ";
  return q->planted ? "[PLANTED FAULTS: NOT A QUALIFICATION] " : "";
}

void vc_qual_free(vc_qual *q) {
  for (uint32_t i = 0; i < q->nruns; i++) {
    vc_qrun *qr = &q->runs[i];
    vc_run_summary_free(&qr->sum);
    free(qr->qcells);
    free(qr->modes);
    free(qr->section_cell);
    if (qr->has_exps) vc_expectations_free(&qr->exps);
  }
  free(q->runs);
  if (q->has_cmp) vc_comparison_free(&q->cmp);
  memset(q, 0, sizeof *q);
}

/* ---- the matrix's rows ---- */

void vc_qual_folder(const vc_run_data *r, const vc_program_info *p, char *out, size_t n) {
  const char *path = p->path ? p->path : "";
  const char *base = r->info.corpus_path ? r->info.corpus_path : "";
  /* the first of the run's paths (corpus_path lists them space-separated) */
  size_t blen = strcspn(base, " ");
  while (blen > 1 && base[blen - 1] == '/') blen--;
  const char *rel = path;
  if (blen && !strncmp(path, base, blen) && path[blen] == '/') {
    rel = path + blen + 1;
  } else {
    /* another spelling of the corpus path: take the part after "corpus/" */
    const char *c = strstr(path, "/corpus/");
    if (c) rel = c + 8;
    else if (!strncmp(path, "corpus/", 7)) rel = path + 7;
  }
  const char *slash = strrchr(rel, '/');
  if (!slash || slash == rel)
    snprintf(out, n, ".");
  else
    snprintf(out, n, "%.*s", (int)(slash - rel), rel);
}

static int row_cmp_name(const void *a, const void *b) {
  const vc_qrow *x = a, *y = b;
  int d = strcmp(x->name, y->name);
  return d ? d : (x->ri > y->ri) - (x->ri < y->ri);
}

static int row_cmp_group(const void *a, const void *b) {
  const vc_qrow *x = a, *y = b;
  int d = strcmp(x->folder, y->folder);
  if (d) return d;
  if (x->severity != y->severity) return y->severity - x->severity;
  return strcmp(x->name, y->name);
}

static int group_cmp(const void *a, const void *b) {
  const vc_qgroup *x = a, *y = b;
  if (x->severity != y->severity) return y->severity - x->severity;
  return strcmp(x->folder, y->folder);
}

static int row_severity(const vc_qual *q, const char *name, uint32_t *nnew, uint32_t *nknown,
                        uint32_t *nuns) {
  int sev = 0;
  for (uint32_t r = 0; r < q->nruns; r++) {
    const vc_qrun *qr = &q->runs[r];
    for (uint32_t m = 0; m < qr->sum.cells.nmodes; m++) {
      const vc_cell *c = vc_cells_find(&qr->sum.cells, name, qr->sum.cells.modes[m]);
      if (!c) continue;
      const vc_qcell *qc = &qr->qcells[vc_qual_cell_index(qr, c)];
      int s = qc->judged == VC_JUDGED_NEW ? 3 : qc->judged == VC_JUDGED_KNOWN ? 2
              : c->status == VC_ST_UNSUPPORTED ? 1 : 0;
      *nnew += s == 3;
      *nknown += s == 2;
      *nuns += s == 1;
      if (s > sev) sev = s;
    }
  }
  return sev;
}

int vc_qual_matrix(const vc_qual *q, vc_qmatrix *out, vc_error *err) {
  uint32_t total = 0;
  for (uint32_t r = 0; r < q->nruns; r++) total += q->runs[r].run->nprogs;
  vc_qrow *rows = calloc(total + 1, sizeof *rows);
  if (!rows) return vc_fail(err, VC_ERR_NOMEM, "report: out of memory");
  uint32_t n = 0;
  for (uint32_t r = 0; r < q->nruns; r++) {
    const vc_run_data *rd = q->runs[r].run;
    for (uint32_t p = 0; p < rd->nprogs; p++) {
      rows[n].name = rd->progs[p].info.name;
      rows[n].prog = &rd->progs[p];
      rows[n].run = rd;
      rows[n].ri = r;
      n++;
    }
  }
  /* one row per name, from the first run that has it */
  qsort(rows, n, sizeof *rows, row_cmp_name);
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (k && !strcmp(rows[k - 1].name, rows[i].name)) continue;
    rows[k++] = rows[i];
  }
  n = k;
  uint32_t nnew = 0, nknown = 0, nuns = 0;
  for (uint32_t i = 0; i < n; i++) {
    vc_qual_folder(rows[i].run, &rows[i].prog->info, rows[i].folder, sizeof rows[i].folder);
    rows[i].severity = row_severity(q, rows[i].name, &nnew, &nknown, &nuns);
  }
  qsort(rows, n, sizeof *rows, row_cmp_group);
  vc_qgroup *groups = calloc(n + 1, sizeof *groups);
  if (!groups) {
    free(rows);
    return vc_fail(err, VC_ERR_NOMEM, "report: out of memory");
  }
  uint32_t ng = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (!ng || strcmp(groups[ng - 1].folder, rows[i].folder)) {
      groups[ng].folder = rows[i].folder;
      groups[ng].first = i;
      ng++;
    }
    vc_qgroup *g = &groups[ng - 1];
    g->n++;
    if (rows[i].severity > g->severity) g->severity = rows[i].severity;
    uint32_t a = 0, b = 0, c = 0;
    row_severity(q, rows[i].name, &a, &b, &c);
    g->nnew += a;
    g->nknown += b;
    g->nunsupported += c;
  }
  qsort(groups, ng, sizeof *groups, group_cmp);
  *out = (vc_qmatrix){rows, n, groups, ng};
  return 0;
}

void vc_qual_matrix_free(vc_qmatrix *m) {
  free(m->rows);
  free(m->groups);
  *m = (vc_qmatrix){0};
}
