/* The verdict rules (verdict.h): statuses, excuses, the run's exit status. */
#include "harness/model/verdict.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/exitcodes.h"

/* ---- the status of one mode run ---- */

vc_status vc_verdict_of_error(const vc_error *e) {
  switch (e->code) {
  case VC_ERR_UNSUPPORTED:
  case VC_ERR_LIMIT:
    return VC_ST_UNSUPPORTED;
  case VC_ERR_TIMEOUT:
    return VC_ST_TIMEOUT;
  default:
    return VC_ST_ERROR;
  }
}

void vc_verdict_error(const vc_error *e, vc_result *r) {
  r->status = vc_verdict_of_error(e);
  snprintf(r->reason, sizeof r->reason, "%s", e->msg);
}

void vc_verdict_worker_stopped(vc_status st, const char *reason, bool in_flight, vc_result *r) {
  if (in_flight) {
    r->status = st;
    snprintf(r->reason, sizeof r->reason, "%s", reason);
  } else {
    r->status = VC_ST_SKIP;
    snprintf(r->reason, sizeof r->reason, "not run: the worker stopped earlier (%s)",
             vc_status_name(st));
  }
}

void vc_verdict_step_error(const char *reason, vc_result *r) {
  r->status = VC_ST_ERROR;
  snprintf(r->reason, sizeof r->reason, "%s", reason);
}

void vc_verdict_after_step(const char *step, vc_status st, vc_result *r) {
  r->status = VC_ST_SKIP;
  snprintf(r->reason, sizeof r->reason, "not run: the %s step ended in %s", step,
           vc_status_name(st));
}

void vc_verdict_after_repeat(uint32_t failed, vc_status st, vc_result *r) {
  r->status = VC_ST_SKIP;
  snprintf(r->reason, sizeof r->reason, "not run: repeat %u of this mode ended in %s",
           failed + 1, vc_status_name(st));
}

void vc_verdict_skipped(const vc_expectations *e, const vc_expectation *x, vc_result *r) {
  r->status = VC_ST_SKIP;
  snprintf(r->reason, sizeof r->reason, "not run: skip expectation %s:%u: %s",
           e && e->file ? e->file : "?", x->line, x->reason ? x->reason : "");
}

/* ---- expectations ---- */

/* A fail entry that names a condition (status=, note=) rather than a program
   says nothing about a pass: only an entry about the program itself makes
   its pass an improvement. */
static const vc_expectation *pass_entry(const vc_expectations *e, const vc_exp_config *cfg,
                                        int today, const char *program, const char *mode,
                                        vc_exp_kind kind) {
  for (uint32_t i = 0; e && i < e->n; i++) {
    const vc_expectation *x = &e->items[i];
    if (x->kind == kind && !x->status && !x->note &&
        vc_expectation_matches(x, cfg, today, program, mode))
      return x;
  }
  return NULL;
}

static vc_verdict passing(const vc_expectations *e, const vc_exp_config *cfg, int today,
                          const char *program, const char *mode, vc_status st) {
  vc_verdict v = {st, false, VC_EXCUSE_NONE, NULL};
  if (st != VC_ST_PASS) return v;
  if ((v.by = pass_entry(e, cfg, today, program, mode, VC_EXP_FAIL)))
    v.excuse = VC_EXCUSE_IMPROVEMENT;
  else if ((v.by = pass_entry(e, cfg, today, program, mode, VC_EXP_FLAKE)))
    v.excuse = VC_EXCUSE_FLAKE_PASS;
  return v;
}

/* A flake is a failure unless flake entries list every failed attempt:
   then it is a known flake (excused as a flake entry's pass is). */
static vc_verdict flake(const vc_expectations *e, const vc_exp_config *cfg, int today,
                        const char *program, const vc_result *r) {
  vc_verdict v = {r->status, false, VC_EXCUSE_FLAKE_PASS, NULL};
  v.by = vc_expectations_cover_flake(e, cfg, today, program, r);
  if (!v.by) v.excuse = VC_EXCUSE_NONE, v.fails = true;
  return v;
}

vc_verdict vc_verdict_of(const vc_expectations *e, const vc_exp_config *cfg, int today,
                         const char *program, const vc_result *r) {
  vc_verdict v = {r->status, false, VC_EXCUSE_NONE, NULL};
  const vc_expectation *first = vc_expectations_match(e, cfg, today, program, r->mode);
  if (first && first->kind == VC_EXP_SKIP) {
    v.excuse = VC_EXCUSE_SKIPPED;
    v.by = first;
    v.fails = false;
    return v;
  }
  if (r->status == VC_ST_FLAKE) return flake(e, cfg, today, program, r);
  if (!vc_status_is_failure(r->status)) return passing(e, cfg, today, program, r->mode, r->status);
  v.by = vc_expectations_cover(e, cfg, today, program, r);
  v.excuse = v.by ? VC_EXCUSE_EXPECTED : VC_EXCUSE_NONE;
  v.fails = !v.by;
  return v;
}

vc_verdict vc_verdict_of_repeats(const vc_expectations *e, const vc_exp_config *cfg, int today,
                                 const char *program, const char *mode, vc_status status,
                                 const vc_result *r, uint32_t n) {
  vc_verdict v = {status, false, VC_EXCUSE_NONE, NULL};
  const vc_expectation *first = vc_expectations_match(e, cfg, today, program, mode);
  if (first && first->kind == VC_EXP_SKIP) {
    v.excuse = VC_EXCUSE_SKIPPED;
    v.by = first;
    return v;
  }
  const vc_expectation *listed = NULL; /* the entry listing the first flake */
  for (uint32_t i = 0; i < n; i++) {
    if (r[i].status != VC_ST_FLAKE) continue;
    vc_verdict f = flake(e, cfg, today, program, &r[i]);
    if (f.fails) {
      v.fails = true;
      return v;
    }
    if (!listed) listed = f.by;
  }
  if (!vc_status_is_failure(status)) {
    v = passing(e, cfg, today, program, mode, status);
    if (listed && v.excuse == VC_EXCUSE_NONE) v.excuse = VC_EXCUSE_FLAKE_PASS, v.by = listed;
    return v;
  }
  for (uint32_t i = 0; i < n; i++) {
    if (!vc_status_is_failure(r[i].status)) continue;
    const vc_expectation *x = vc_expectations_cover(e, cfg, today, program, &r[i]);
    if (!x) {
      v.by = NULL;
      v.fails = true;
      v.excuse = VC_EXCUSE_NONE;
      return v;
    }
    if (!v.by) v.by = x;
  }
  v.excuse = v.by ? VC_EXCUSE_EXPECTED : VC_EXCUSE_NONE;
  v.fails = !v.by;
  return v;
}

bool vc_verdict_rerun(const vc_expectations *e, const vc_exp_config *cfg, int today,
                      const char *program, const vc_result *r) {
  if (vc_mode_from_name(r->mode) < 0 || r->status == VC_ST_INVALID) return false;
  vc_verdict v = vc_verdict_of(e, cfg, today, program, r);
  if (v.fails) return true;
  /* excused by flake entries: a rerun tells a known flake from a failure */
  return v.excuse == VC_EXCUSE_EXPECTED &&
         !vc_expectations_cover_kind(e, cfg, today, program, r, VC_EXP_FAIL);
}

/* ---- the run's exit status ---- */

void vc_run_verdict_add(vc_run_verdict *rv, const vc_verdict *v) {
  if (v->fails && v->status == VC_ST_INVALID)
    rv->invalid++;
  else if (v->fails)
    rv->failures++;
  rv->excused += v->excuse == VC_EXCUSE_EXPECTED;
  rv->improvements += v->excuse == VC_EXCUSE_IMPROVEMENT;
  rv->skipped += v->excuse == VC_EXCUSE_SKIPPED && v->status == VC_ST_SKIP;
  rv->covered += (!v->fails && (v->status == VC_ST_PASS || v->status == VC_ST_FLAKE)) ||
                 v->excuse == VC_EXCUSE_EXPECTED;
}

bool vc_run_verdict_not_run(const vc_run_verdict *rv) {
  return !rv->covered && !rv->failures && !rv->invalid && !rv->earlier;
}

int vc_run_verdict_exit(const vc_run_verdict *rv) {
  int st = rv->failures ? VC_EXIT_FAIL : VC_EXIT_OK;
  /* a run in which nothing was checked is no pass */
  if (vc_run_verdict_not_run(rv)) st = VC_EXIT_NOT_RUN;
  if (rv->invalid) st = vc_exit_worst(st, VC_EXIT_INPUT);
  if (rv->expired) st = vc_exit_worst(st, VC_EXIT_EXPIRED);
  return st;
}
