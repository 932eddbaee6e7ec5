#include "results/gate/compare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/exitcodes.h"
#include "harness/model/verdict.h"
#include "harness/model/outcome.h"
#include "results/gate/judged_by.h"

static const char *const kind_names[VC_FINDING_KIND_COUNT] = {
#define VC_X(e, n, l) n,
    VC_FINDING_TABLE(VC_X)
#undef VC_X
};
static const char *const kind_labels[VC_FINDING_KIND_COUNT] = {
#define VC_X(e, n, l) l,
    VC_FINDING_TABLE(VC_X)
#undef VC_X
};

const char *vc_finding_kind_name(vc_finding_kind k) {
  return (unsigned)k < VC_FINDING_KIND_COUNT ? kind_names[k] : "unknown";
}

const char *vc_finding_kind_label(vc_finding_kind k) {
  return (unsigned)k < VC_FINDING_KIND_COUNT ? kind_labels[k] : "UNKNOWN";
}

void vc_compare_opts_default(vc_compare_opts *o) {
  memset(o, 0, sizeof *o);
  o->threshold_pct = VC_COMPARE_DEFAULT_THRESHOLD_PCT;
  o->min_delta_ns = VC_COMPARE_DEFAULT_MIN_DELTA_NS;
  o->timing = true;
  o->today = vc_today_utc();
}

typedef struct comparer {
  vc_comparison *c;
  vc_exp_config cfg;
  uint32_t *uses; /* per expectation entry */
  vc_error *err;
} comparer;

static int add(comparer *k, vc_finding_kind kind, bool gating, const vc_cell *b, const vc_cell *c,
               const vc_expectation *exp) {
  vc_comparison *cmp = k->c;
  if (cmp->n == cmp->cap) {
    uint32_t cap = cmp->cap ? cmp->cap * 2 : 64;
    vc_finding *items = realloc(cmp->items, cap * sizeof *items);
    if (!items) return vc_fail(k->err, VC_ERR_NOMEM, "compare: out of memory");
    cmp->items = items;
    cmp->cap = cap;
  }
  const vc_cell *any = c ? c : b;
  cmp->items[cmp->n++] = (vc_finding){kind, gating, any->prog->info.name, any->mode, b, c, exp};
  cmp->counts[kind]++;
  cmp->ngating += gating;
  return 0;
}

/* Slower only when the medians differ by more than the threshold, the
   minimum delta and the run-to-run spread of either side. Returns 1 for
   slower, -1 for faster, 0 for neither. */
static int timing_change(const vc_compare_opts *o, const vc_cell *b, const vc_cell *c) {
  uint64_t spread = b->wall_max - b->wall_min;
  if (c->wall_max - c->wall_min > spread) spread = c->wall_max - c->wall_min;
  double factor = 1.0 + o->threshold_pct / 100.0;
  uint64_t hi = b->wall_median, lo = c->wall_median;
  int sign = -1;
  if (c->wall_median > b->wall_median) hi = c->wall_median, lo = b->wall_median, sign = 1;
  uint64_t delta = hi - lo;
  if ((double)hi > (double)lo * factor && delta > o->min_delta_ns && delta > spread) return sign;
  return 0;
}

static int judge_pass(comparer *k, const vc_cell *b, const vc_cell *c, const vc_verdict *v) {
  /* A stale entry: reported, and with --strict-expectations it fails the
     gate so that it gets removed or narrowed. */
  if (v->excuse == VC_EXCUSE_IMPROVEMENT)
    return add(k, VC_F_IMPROVEMENT, k->c->opts->strict_expectations, b, c, v->by);
  if (!b) return add(k, VC_F_NEW_PROGRAM, false, NULL, c, NULL);
  if (vc_status_is_failure(b->status)) return add(k, VC_F_FIXED, false, b, c, v->by);
  if (b->status != VC_ST_PASS || !k->c->opts->timing) return 0;
  /* like with like: a kernel compiled on one side and read from the cache
     on the other says nothing about speed */
  if (vc_cell_cache(b) != vc_cell_cache(c)) {
    k->c->untimed_cache++;
    return 0;
  }
  int change = timing_change(k->c->opts, b, c);
  bool flake = v->excuse == VC_EXCUSE_FLAKE_PASS;
  if (change > 0) return add(k, VC_F_SLOWER, !flake, b, c, v->by);
  if (change < 0) return add(k, VC_F_FASTER, false, b, c, NULL);
  return 0;
}

/* One cell's verdict: the same decision the run made for each result
   (harness/model/verdict.c), over the cell's repeats. */
static vc_verdict cell_verdict(const comparer *k, const vc_cell *x, bool present) {
  const vc_compare_opts *o = k->c->opts;
  if (!present)
    return vc_verdict_of_repeats(o->exps, &k->cfg, o->today, x->prog->info.name, x->mode,
                                 VC_ST_SKIP, NULL, 0);
  return vc_verdict_of_repeats(o->exps, &k->cfg, o->today, x->prog->info.name, x->mode, x->status,
                               x->results, x->n);
}

/* A cell that was checked: it passed or failed (skip and unsupported were not). */
static bool ran(const vc_cell *c) {
  return c && c->status != VC_ST_SKIP && c->status != VC_ST_UNSUPPORTED;
}

static int judge(comparer *k, const vc_cell *b, const vc_cell *c) {
  vc_verdict v = cell_verdict(k, c ? c : b, c != NULL);
  if (v.by) k->uses[v.by - k->c->opts->exps->items]++;
  if (v.excuse == VC_EXCUSE_SKIPPED) return add(k, VC_F_SKIPPED, false, b, c, v.by);
  /* Coverage lost is a failure: only a skip entry allows it. */
  if (!c) return add(k, VC_F_MISSING, true, b, NULL, NULL);
  k->c->cand_ran += ran(c);
  /* a flake that no flake entry lists fails as a failing status does */
  if (vc_status_is_failure(c->status) || v.fails) {
    if (!v.fails) return add(k, VC_F_EXPECTED, false, b, c, v.by);
    /* A failure the baseline had unexcused was accepted with it; one behind
       an excused baseline failure is outside that excuse, hence new. */
    if (b && cell_verdict(k, b, true).fails)
      return add(k, VC_F_STILL_FAILING, false, b, c, NULL);
    return add(k, VC_F_NEW_FAILURE, true, b, c, NULL);
  }
  if (c->status == VC_ST_PASS || c->status == VC_ST_FLAKE) return judge_pass(k, b, c, &v);
  if (c->status == VC_ST_UNSUPPORTED && ran(b))
    return add(k, VC_F_NEWLY_UNSUPPORTED, true, b, c, NULL);
  /* a mode the candidate did not run after a failed step, or that an entry
     of the run's own file skipped, hides whatever it would have found */
  if (c->status == VC_ST_SKIP && ran(b)) return add(k, VC_F_NEWLY_SKIPPED, true, b, c, NULL);
  return 0;
}

/* Both cell lists are in (program, mode) order: walk them together. */
static int walk(comparer *k) {
  const vc_cells *bs = &k->c->base_cells, *cs = &k->c->cand_cells;
  uint32_t i = 0, j = 0;
  int rc = 0;
  while (!rc && (i < bs->n || j < cs->n)) {
    const vc_cell *b = i < bs->n ? &bs->items[i] : NULL, *c = j < cs->n ? &cs->items[j] : NULL;
    int d = !b ? 1 : !c ? -1 : strcmp(b->prog->info.name, c->prog->info.name);
    if (d == 0) d = vc_mode_cmp(b->mode, c->mode);
    if (d < 0)
      c = NULL, i++;
    else if (d > 0)
      b = NULL, j++;
    else
      i++, j++;
    rc = judge(k, b, c);
  }
  return rc;
}

static void warn(vc_comparison *c, const char *what, const char *b, const char *a) {
  if (strcmp(b, a) == 0 || c->nwarnings == 5) return;
  snprintf(c->warnings[c->nwarnings++], sizeof c->warnings[0],
           "%s differ: baseline %s, candidate %s", what, b[0] ? b : "(none)", a[0] ? a : "(none)");
}

static bool has(const char *s) { return s && s[0]; }

static void add_warnings(vc_comparison *c) {
  /* A merged run keeps shard 0's corpus digest; the selection digest covers
     the whole of an unsharded or merged run. */
  const vc_run_info *bi = &c->base->info, *ci = &c->cand->info;
  if (has(bi->selection_digest) && has(ci->selection_digest) && !has(bi->shard) && !has(ci->shard))
    warn(c, "selection digests", bi->selection_digest, ci->selection_digest);
  else
    warn(c, "corpus digests", bi->corpus_digest, ci->corpus_digest);
  warn(c, "backends", c->base->info.backend, c->cand->info.backend);
  warn(c, "devices", c->base->device.device_name, c->cand->device.device_name);
  /* The file each run was judged and skipped by. A baseline written before
     runs kept their options says nothing either way; a failures file
     (export --failures) takes the candidate's. */
  if (c->base->info.options) {
    char be[512], ce[512];
    vc_run_option(c->base, "expectations", be, sizeof be);
    vc_run_option(c->cand, "expectations", ce, sizeof ce);
    uint32_t before = c->nwarnings;
    warn(c, "the runs' expectations files", be, ce);
    c->exps_differ = c->nwarnings > before;
  }
  if (strcmp(c->cand->status, "complete") != 0 && c->nwarnings < 5)
    snprintf(c->warnings[c->nwarnings++], sizeof c->warnings[0],
             "candidate run %lld is %s, not complete", (long long)c->cand->id, c->cand->status);
}

/* Expired entries, and entries for this configuration that nothing used. */
static int review_entries(comparer *k) {
  vc_comparison *c = k->c;
  const vc_expectations *e = c->opts->exps;
  if (!e || !e->n) return 0;
  c->expired = calloc(e->n, sizeof *c->expired);
  c->unused = calloc(e->n, sizeof *c->unused);
  if (!c->expired || !c->unused) return vc_fail(k->err, VC_ERR_NOMEM, "compare: out of memory");
  for (uint32_t i = 0; i < e->n; i++) {
    const vc_expectation *x = &e->items[i];
    if (vc_expectation_expired(x, c->opts->today))
      c->expired[c->nexpired++] = x;
    else if (!k->uses[i] && vc_expectation_applies(x, &k->cfg))
      c->unused[c->nunused++] = x;
  }
  return 0;
}

int vc_compare_runs(const vc_run_data *base, const vc_run_data *cand, const vc_compare_opts *opts,
                    vc_comparison *out, vc_error *err) {
  memset(out, 0, sizeof *out);
  out->base = base;
  out->cand = cand;
  out->opts = opts;
  comparer k = {.c = out, .err = err};
  k.cfg = (vc_exp_config){cand->info.backend, cand->device.device_name, cand->device.driver_name,
                          cand->device.driver_version};
  uint32_t nexp = opts->exps ? opts->exps->n : 0;
  k.uses = calloc(nexp ? nexp : 1, sizeof *k.uses);
  int rc = k.uses ? 0 : vc_fail(err, VC_ERR_NOMEM, "compare: out of memory");
  if (!rc) rc = vc_cells_build(base, &out->base_cells, err);
  if (!rc) rc = vc_cells_build(cand, &out->cand_cells, err);
  if (!rc) rc = walk(&k);
  if (!rc) rc = review_entries(&k);
  free(k.uses);
  if (rc) {
    vc_comparison_free(out);
    return rc;
  }
  add_warnings(out);
  vc_run_planted(base, out->planted[0], sizeof out->planted[0]);
  vc_run_planted(cand, out->planted[1], sizeof out->planted[1]);
  out->cache[0] = vc_cells_cache(&out->base_cells);
  out->cache[1] = vc_cells_cache(&out->cand_cells);
  /* Planted faults make the comparison no gate at all, whatever it found;
     a candidate that checked nothing cannot pass it. */
  int st = vc_exit_worst(out->nexpired ? VC_EXIT_EXPIRED : VC_EXIT_OK,
                         out->ngating ? VC_EXIT_FAIL : VC_EXIT_OK);
  if (!out->cand_ran) st = vc_exit_worst(st, VC_EXIT_NOT_RUN);
  if (out->planted[0][0] || out->planted[1][0]) st = vc_exit_worst(st, VC_EXIT_PLANTED);
  out->exit_code = st;
  return 0;
}

const char *vc_comparison_gate_word(const vc_comparison *c) {
  switch (c->exit_code) {
  case VC_EXIT_OK: return "PASS";
  case VC_EXIT_NOT_RUN: return "NOT RUN";
  case VC_EXIT_PLANTED: return "REFUSED";
  default: return "FAIL";
  }
}

void vc_comparison_free(vc_comparison *c) {
  vc_cells_free(&c->base_cells);
  vc_cells_free(&c->cand_cells);
  free(c->items);
  free(c->expired);
  free(c->unused);
  memset(c, 0, sizeof *c);
}
