/* The verdict rules: every status of one result that needs no device's
 * output, what an expectation makes of a status, and the run's exit status.
 *
 * A mode run that failed gets its status from the error that ended it; the
 * step or mode whose worker died gets crash, timeout or error here, and a
 * mode left without the step before it, or after a failed repeat of itself,
 * skip; a skip expectation records skip without running. (The statuses
 * read from a mode run's output are harness/exec/judge.h's.) Expectations
 * then say whether a failing status is excused; the run's exit status and
 * compare's findings are computed from these verdicts, never from what was
 * printed. Pure rules over the model: the run and the offline gate and
 * reports share them. */
#ifndef VC_VERDICT_H
#define VC_VERDICT_H

#include <stdbool.h>
#include <stdint.h>

#include "harness/base/error.h"
#include "harness/model/expectations.h"
#include "harness/model/outcome.h"

/* ---- the status of one mode run ---- */

/* A mode run that failed with e: unsupported for what the device cannot
   run (VC_ERR_UNSUPPORTED, VC_ERR_LIMIT), timeout, else error. */
vc_status vc_verdict_of_error(const vc_error *e);
void vc_verdict_error(const vc_error *e, vc_result *r);
/* A worker that died (st crash or timeout, or error for a fatal message):
   the mode in flight gets st and the reason; a mode after it is skip, not
   run. */
void vc_verdict_worker_stopped(vc_status st, const char *reason, bool in_flight, vc_result *r);
/* A step before the device modes (setup, reference, oracle; its row is
   recorded under the step's name) that failed with reason: error. A worker
   that died in one is vc_verdict_worker_stopped's. */
void vc_verdict_step_error(const char *reason, vc_result *r);
/* A mode whose step before it (setup, reference, oracle) ended in st has
   nothing to be judged against: skip, not run. */
void vc_verdict_after_step(const char *step, vc_status st, vc_result *r);
/* A later repeat of a mode whose repeat `failed` (0-based) ended in st
   (crash, timeout, error): skip, not run; the program's other modes run in
   a fresh worker. */
void vc_verdict_after_repeat(uint32_t failed, vc_status st, vc_result *r);
/* A skip expectation: recorded skip with the entry's place and reason; the
   program is never sent to a worker. */
void vc_verdict_skipped(const vc_expectations *e, const vc_expectation *x, vc_result *r);

/* ---- expectations ---- */

typedef enum vc_excuse {
  VC_EXCUSE_NONE = 0,     /* no entry speaks for it */
  VC_EXCUSE_EXPECTED,     /* fails, and fail or flake entries cover every part of it */
  VC_EXCUSE_FLAKE_PASS,   /* passes, or is a flake (failed, then passed on a rerun) that
                             flake entries list; a flake entry says it may fail */
  VC_EXCUSE_IMPROVEMENT,  /* passes although a fail entry says it fails */
  VC_EXCUSE_SKIPPED       /* a skip entry covers it */
} vc_excuse;

typedef struct vc_verdict {
  vc_status status;
  bool fails;                /* fails the run: a failing status nothing excuses */
  vc_excuse excuse;
  const vc_expectation *by;  /* the entry behind the excuse, or NULL */
} vc_verdict;

/* Applies the expectations (may be NULL) to result r of program under cfg.
   A flake fails unless flake entries list it (vc_expectations_cover_flake). */
vc_verdict vc_verdict_of(const vc_expectations *e, const vc_exp_config *cfg, int today,
                         const char *program, const vc_result *r);
/* The same for the n repeats of one program × mode (a compare cell), whose
   summary status is `status`: it fails unless every failing repeat is
   covered and every flake repeat listed. */
vc_verdict vc_verdict_of_repeats(const vc_expectations *e, const vc_exp_config *cfg, int today,
                                 const char *program, const char *mode, vc_status status,
                                 const vc_result *r, uint32_t n);

/* Whether a flake rerun may tell more of device result r (a mode, not a
   step before the modes, not an invalid program: neither changes on a
   rerun): it fails the run, or only flake entries excuse it (a rerun that
   passes makes it a known flake). */
bool vc_verdict_rerun(const vc_expectations *e, const vc_exp_config *cfg, int today,
                      const char *program, const vc_result *r);

/* ---- the run's exit status ---- */

typedef struct vc_run_verdict {
  uint32_t failures;      /* results that fail the run, invalid programs aside */
  uint32_t invalid;       /* invalid results nothing excuses */
  uint32_t excused;       /* failing results an expectation excuses */
  uint32_t improvements;  /* results expected to fail that passed */
  uint32_t skipped;       /* results a skip entry kept from running */
  uint32_t expired;       /* entries for this device past their date */
  /* results that give coverage: passed (a flake too), or failed as an
     expectation says; skip and unsupported give none */
  uint32_t covered;
  uint32_t earlier;       /* programs a resumed run had finished before: not judged here */
} vc_run_verdict;

void vc_run_verdict_add(vc_run_verdict *rv, const vc_verdict *v);
/* Whether the run checked nothing: no result covered anything (everything
   skipped or unsupported, or no result at all), none failed, and no
   earlier part of a resumed run is unaccounted for. */
bool vc_run_verdict_not_run(const vc_run_verdict *rv);
/* The first that applies in the one precedence (vc_exit_worst): VC_EXIT_INPUT
   for invalid programs, VC_EXIT_EXPIRED for expired entries, VC_EXIT_FAIL
   for any failure, VC_EXIT_NOT_RUN when nothing ran (vc_run_verdict_not_run),
   else VC_EXIT_OK. */
int vc_run_verdict_exit(const vc_run_verdict *rv);

#endif
