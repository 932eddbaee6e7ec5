#include "harness/exec/verdict.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/plural.h"
#include "harness/base/exitcodes.h"
#include "harness/exec/compare_selfcheck.h"
#include "harness/exec/diverge.h"

/* ---- the status of one mode run ---- */

void vc_verdict_judge(const vc_program *p, uint32_t *const *expected, const vc_mode_out *mo,
                      uint32_t oracle_passes, uint32_t *const *flush_inputs, vc_result *r) {
  uint32_t nout = 0;
  for (uint32_t i = 0; i < p->nbuffers; i++) nout += p->buffers[i].access != VC_READ;
  r->divs = calloc(nout ? nout : 1, sizeof *r->divs);
  if (!r->divs) abort();
  uint64_t bad_elems = 0, nan_payloads = 0;
  uint32_t bad_bufs = 0;
  /* The same comparison loop the self-check proved on this program. */
  vc_buffer_diff *diffs = calloc(p->nbuffers ? p->nbuffers : 1, sizeof *diffs);
  if (!diffs) abort();
  vc_compare_outputs(p, expected, mo->outputs, vc_compare_buffer, true, diffs);
  for (uint32_t i = 0; i < p->nbuffers; i++) {
    if (p->buffers[i].access == VC_READ) continue;
    vc_buffer_diff *d = &diffs[i];
    if (d->mismatches && flush_inputs)
      vc_classify_flushed(p, flush_inputs, i, expected[i], mo->outputs[i], &d->div);
    if (d->mismatches || d->nan_payloads) r->divs[r->ndivs++] = d->div;
    bad_elems += d->mismatches;
    nan_payloads += d->nan_payloads;
    bad_bufs += d->mismatches != 0;
  }
  free(diffs);
  if (bad_bufs) {
    const vc_divergence *d = NULL;
    for (uint32_t i = 0; i < r->ndivs && !d; i++)
      if (r->divs[i].cls != VC_DIV_NAN_PAYLOAD) d = &r->divs[i];
    r->status = VC_ST_DIVERGE;
    snprintf(r->reason, sizeof r->reason,
             "%llu %s in %u %s; first: %s[%llu] (%s)", (unsigned long long)bad_elems,
             vc_plural(bad_elems, "element differs", "elements differ"), bad_bufs,
             vc_plural(bad_bufs, "buffer", "buffers"), d->buffer, (unsigned long long)d->first_index,
             vc_divclass_name(d->cls));
  } else if (mo->passes != oracle_passes) {
    r->status = VC_ST_DIVERGE;
    snprintf(r->reason, sizeof r->reason, "ran %u fixpoint passes, the oracle %u", mo->passes,
             oracle_passes);
  } else {
    r->status = VC_ST_PASS;
    if (nan_payloads)
      snprintf(r->reason, sizeof r->reason, "%llu NaN payload%s differ (allowed)",
               (unsigned long long)nan_payloads, nan_payloads == 1 ? "" : "s");
  }
}

void vc_verdict_traffic(const vc_split *s, vc_mode m, const vc_mode_out *mo, vc_result *r) {
  if (r->status != VC_ST_PASS) return;
  vc_traffic t = vc_plan_traffic(s, m, mo->passes);
  if (t.up == mo->bytes_up && t.down == mo->bytes_down && t.launches == mo->launches) return;
  r->status = VC_ST_ERROR;
  snprintf(r->reason, sizeof r->reason,
           "traffic differs from the split plan: %llu B up, %llu B down, %u %s; "
           "plan %llu, %llu, %u",
           (unsigned long long)mo->bytes_up, (unsigned long long)mo->bytes_down, mo->launches,
           vc_plural(mo->launches, "launch", "launches"),
           (unsigned long long)t.up, (unsigned long long)t.down, t.launches);
}

void vc_verdict_native_check(vc_mode m, const vc_mode_out *mo, vc_result *r) {
  /* A device-side wait that ended without its condition makes the whole run
     meaningless, whatever the bytes say: never a pass, never excused as a
     device limit either. */
  if (m != VC_MODE_NATIVE || !mo->native.untrustworthy) return;
  char was[48];
  snprintf(was, sizeof was, "%s", vc_status_name(r->status));
  r->status = VC_ST_UNTRUSTWORTHY;
  snprintf(r->reason, sizeof r->reason, "native run untrustworthy (bytes: %s): %s", was,
           mo->native.note[0] ? mo->native.note : "the device reported it");
}

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
