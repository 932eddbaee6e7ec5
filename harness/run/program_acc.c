#include "harness/base/file.h"
#include "harness/run/program_acc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/strbuf.h"
#include "harness/exec/conform.h"
#include "harness/model/verdict.h"
#include "harness/model/attempt_log.h"

static void free_results(vc_program_acc *a) {
  for (uint32_t i = 0; i < a->n; i++) {
    free(a->res[i].divs);
    free(a->res[i].attempt_divs);
    free(a->res[i].segs);
  }
  a->n = 0;
}

void vc_acc_reset(vc_program_acc *a, const vc_corpus_file *f) {
  free_results(a);
  a->cur_mode = -1;
  a->cur_repeat = 0;
  a->attempt = 0;
  memset(a->step_ns, 0, sizeof a->step_ns);
  a->flight_ns = 0;
  snprintf(a->phase, sizeof a->phase, "%s", vc_phase_name(VC_PHASE_SETUP));
  memset(&a->info, 0, sizeof a->info);
  vc_corpus_program_name(f, a->name, sizeof a->name);
  snprintf(a->path, sizeof a->path, "%s", f->path);
  memcpy(a->digest, f->digest, sizeof a->digest);
  a->tags[0] = '\0';
  a->info.name = a->name;
  a->info.path = a->path;
  a->info.source_digest = a->digest;
  a->info.tags = a->tags;
  free(a->source);
  a->source = vc_file_read_all(f->path); /* NULL, recorded as "": unreadable now */
  a->info.source = a->source;
}

void vc_acc_put_times(vc_program_acc *a) {
  a->info.setup_ns = a->step_ns[VC_PHASE_SETUP];
  a->info.reference_ns = a->step_ns[VC_PHASE_REFERENCE];
  a->info.oracle_ns = a->step_ns[VC_PHASE_ORACLE];
  a->info.flight_ns = a->flight_ns;
}

void vc_acc_free(vc_program_acc *a) {
  free_results(a);
  free(a->source);
  free(a->res);
  free(a->modes);
  memset(a, 0, sizeof *a);
}

vc_result *vc_acc_add(vc_program_acc *a) {
  if (a->n == a->cap) {
    a->cap = a->cap ? a->cap * 2 : 8;
    a->res = realloc(a->res, a->cap * sizeof *a->res);
    a->modes = realloc(a->modes, a->cap * sizeof *a->modes);
    if (!a->res || !a->modes) abort();
    /* mode names live in a->modes: re-point after the move */
    for (uint32_t i = 0; i < a->n; i++) a->res[i].mode = a->modes[i];
  }
  vc_result *r = &a->res[a->n++];
  memset(r, 0, sizeof *r);
  r->mode = a->modes[a->n - 1];
  r->attempts = a->attempt + 1;
  return r;
}

/* Only the results of the attempt in flight count: a flake rerun runs a
   mode again. */
bool vc_acc_has(const vc_program_acc *a, const char *mode, uint32_t repeat) {
  for (uint32_t i = 0; i < a->n; i++)
    if (strcmp(a->res[i].mode, mode) == 0 && a->res[i].repeat == repeat &&
        a->res[i].attempts == a->attempt + 1)
      return true;
  return false;
}

bool vc_acc_has_mode(const vc_program_acc *a, const char *mode) {
  for (uint32_t i = 0; i < a->n; i++)
    if (strcmp(a->res[i].mode, mode) == 0 && a->res[i].attempts == a->attempt + 1) return true;
  return false;
}

/* A new result of mode (or step) `mode`, its status for the caller (a
   verdict) to set. */
vc_result *vc_acc_new(vc_program_acc *a, const char *mode, uint32_t repeat) {
  vc_result *res = vc_acc_add(a);
  snprintf(a->modes[a->n - 1], sizeof a->modes[0], "%s", mode);
  res->repeat = repeat;
  return res;
}

/* After a worker died, was killed, failed or retired with a stuck device:
   the step in flight gets `st` (unless it has its result). A step before the
   modes is recorded under its own name and the modes, which need it, are
   not run. A mode in flight costs that mode (its later repeats are not run);
   the modes without a result yet are put in rerun, for a fresh worker.
   verdict.c decides every status. Returns the number put in rerun. */
uint32_t vc_acc_after_failure(vc_program_acc *a, const vc_mode *modes, uint32_t nmodes,
                              uint32_t repeat, vc_status st, const char *reason, vc_mode *rerun) {
  uint32_t nrerun = 0;
  if (a->cur_mode < 0) {
    vc_verdict_worker_stopped(st, reason, true, vc_acc_new(a, a->phase, 0));
    for (uint32_t m = 0; m < nmodes; m++)
      for (uint32_t r = 0; r < repeat; r++)
        if (!vc_acc_has(a, vc_mode_name(modes[m]), r))
          vc_verdict_after_step(a->phase, st, vc_acc_new(a, vc_mode_name(modes[m]), r));
    return 0;
  }
  const char *cur = vc_mode_name((vc_mode)a->cur_mode);
  if (!vc_acc_has(a, cur, a->cur_repeat))
    vc_verdict_worker_stopped(st, reason, true, vc_acc_new(a, cur, a->cur_repeat));
  for (uint32_t r = a->cur_repeat + 1; r < repeat; r++)
    if (!vc_acc_has(a, cur, r)) vc_verdict_after_repeat(a->cur_repeat, st, vc_acc_new(a, cur, r));
  for (uint32_t m = 0; m < nmodes; m++)
    if ((int)modes[m] != a->cur_mode && !vc_acc_has_mode(a, vc_mode_name(modes[m])))
      rerun[nrerun++] = modes[m];
  return nrerun;
}

/* The divergences of a failed attempt that a later one supersedes move to
   the final row's attempt_divs, marked with their attempt: a flake's report
   shows what each failed attempt got, and flake entries' buffer= and class=
   are judged on them. */
static void keep_attempt_divs(vc_result *fin, vc_result *x) {
  if (!x->ndivs) return;
  vc_divergence *d = realloc(fin->attempt_divs, (fin->nattempt_divs + x->ndivs) * sizeof *d);
  if (!d) abort();
  for (uint32_t k = 0; k < x->ndivs; k++) {
    d[fin->nattempt_divs + k] = x->divs[k];
    d[fin->nattempt_divs + k].attempt = x->attempts;
  }
  fin->attempt_divs = d;
  fin->nattempt_divs += x->ndivs;
}

/* After flake reruns: one row per mode and repeat, in the first attempt's
   place, the latest attempt's, with every attempt's outcome in its
   attempt_log and the failed attempts' divergences in its attempt_divs; a
   row that failed and then passed is `flake` (whether that fails the run is
   verdict.c's to say). */
void vc_acc_collapse_attempts(vc_program_acc *a) {
  if (a->attempt == 0) return;
  bool *drop = calloc(a->n ? a->n : 1, sizeof *drop);
  if (!drop) abort();
  for (uint32_t i = 0; i < a->n; i++) {
    if (drop[i]) continue;
    uint32_t last = i, group = 1;
    bool failed = false;
    char first_failure[200] = "";
    vc_result *r0 = &a->res[i];
    /* later attempts' rows come later: the group is in attempt order */
    for (uint32_t j = i + 1; j < a->n; j++)
      if (!drop[j] && a->res[j].repeat == r0->repeat && strcmp(a->res[j].mode, r0->mode) == 0)
        last = j, group++;
    if (group == 1) continue;
    vc_result *fin = &a->res[last];
    char log[sizeof fin->attempt_log] = "";
    size_t u = 0;
    for (uint32_t j = i; j < a->n; j++) {
      vc_result *x = &a->res[j];
      if (drop[j] || x->repeat != r0->repeat || strcmp(x->mode, r0->mode) != 0) continue;
      vc_attempt_log_append(log, sizeof log, &u, x->attempts, x->status, x->reason);
      if (j == last) continue;
      drop[j] = true;
      if (vc_status_is_failure(x->status)) keep_attempt_divs(fin, x);
      if (vc_status_is_failure(x->status) && !failed) {
        failed = true;
        snprintf(first_failure, sizeof first_failure, "%s: %.150s", vc_status_name(x->status),
                 x->reason);
      }
    }
    memcpy(fin->attempt_log, log, sizeof fin->attempt_log);
    if (failed && !vc_status_is_failure(fin->status)) {
      fin->status = VC_ST_FLAKE;
      snprintf(fin->reason, sizeof fin->reason, "passed on attempt %u; attempt 1: %s",
               fin->attempts, first_failure);
    }
    /* the final row takes the first attempt's place; the old one is dropped */
    vc_result t = a->res[i];
    a->res[i] = a->res[last];
    a->res[last] = t;
    drop[i] = false;
    drop[last] = true;
  }
  uint32_t n = 0;
  for (uint32_t i = 0; i < a->n; i++) {
    if (drop[i]) {
      free(a->res[i].divs);
      free(a->res[i].attempt_divs);
      free(a->res[i].segs);
      continue;
    }
    a->res[n] = a->res[i];
    memcpy(a->modes[n], a->modes[i], sizeof a->modes[0]);
    a->res[n].mode = a->modes[n];
    n++;
  }
  a->n = n;
  free(drop);
}

/* Results of one mode whose output changed between repeats are flagged. */
void vc_acc_mark_nondeterministic(vc_program_acc *a) {
  for (uint32_t i = 0; i < a->n; i++)
    for (uint32_t j = i + 1; j < a->n; j++)
      if (strcmp(a->res[i].mode, a->res[j].mode) == 0 && a->res[i].output_digest[0] &&
          a->res[j].output_digest[0] &&
          strcmp(a->res[i].output_digest, a->res[j].output_digest) != 0)
        a->res[i].nondeterministic = a->res[j].nondeterministic = true;
}

