/* Expectations: the reviewed list of known failures, flakes and skips that a
 * gate accepts (format in docs/gating.md); its flake entries are the list
 * of known flakes (deqp-runner's --flakes file), without which a result
 * that failed and then passed on a rerun fails the run. One entry a line:
 *
 *   fail  atomics_*  native  backend=vulkan driver=*22.3.6* expires=2027-03-01 reason="..."
 *   fail  f32_signed_zero  *  buffer=add_a_zero class=f32-signed-zero backend=vulkan reason="..."
 *
 * Matching lives here; what a match means for a result's status is decided in
 * verdict.c. */
#ifndef VC_RESULTS_EXPECTATIONS_H
#define VC_RESULTS_EXPECTATIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "harness/base/arena.h"
#include "harness/base/error.h"
#include "harness/model/outcome.h"

typedef enum vc_exp_kind {
  VC_EXP_FAIL = 0, /* known failure: diverge, error, crash or timeout is accepted */
  VC_EXP_FLAKE,    /* passes or fails from run to run, or fails and passes on a rerun;
                      timing is not judged either */
  VC_EXP_SKIP      /* not judged at all */
} vc_exp_kind;

typedef struct vc_expectation {
  vc_exp_kind kind;
  const char *program, *mode;            /* globs (fnmatch) */
  const char *backend, *device, *driver; /* globs, NULL: any */
  /* The scope below the program (NULL: any). status= names the result's
     status, note= its reason; buffer= and class= each divergence's buffer
     and class: an entry with either covers only a result whose every
     divergence is in scope. */
  const char *status, *note, *buffer, *cls;
  int expires;                           /* YYYYMMDD, the last day it applies; 0: never */
  const char *expires_text;              /* as written, or NULL */
  const char *reason;
  uint32_t line;
} vc_expectation;

typedef struct vc_expectations {
  vc_arena arena;
  const char *file;
  vc_expectation *items;
  uint32_t n;
} vc_expectations;

/* The configuration a result came from; the entries' backend=, device= and
   driver= are matched against it. */
typedef struct vc_exp_config {
  const char *backend;
  const char *device_name;
  const char *driver_name;
  const char *driver_version;
} vc_exp_config;

/* Parse errors are "file:line:col: message" (VC_ERR_PARSE). */
int vc_expectations_load(const char *path, vc_expectations *out, vc_error *err);
int vc_expectations_parse(const char *file, const char *text, vc_expectations *out, vc_error *err);
void vc_expectations_free(vc_expectations *e);

bool vc_expectation_applies(const vc_expectation *x, const vc_exp_config *cfg);
bool vc_expectation_expired(const vc_expectation *x, int today);
/* x is not expired, applies to cfg and matches program and mode. */
bool vc_expectation_matches(const vc_expectation *x, const vc_exp_config *cfg, int today,
                            const char *program, const char *mode);
/* The first entry that is not expired, applies to cfg and matches program
   and mode (its scope below the mode not looked at); NULL if none. */
const vc_expectation *vc_expectations_match(const vc_expectations *e, const vc_exp_config *cfg,
                                            int today, const char *program, const char *mode);
/* The same, of one kind only. */
const vc_expectation *vc_expectations_match_kind(const vc_expectations *e, const vc_exp_config *cfg,
                                                 int today, const char *program, const char *mode,
                                                 vc_exp_kind kind);
/* The fail or flake entry that covers failing result r of program: every
   divergence of r (the allowed NaN payloads aside) lies in the scope of a
   matching entry, or r has none and an entry without buffer= and class=
   matches it. The entry returned is the one covering the first divergence;
   NULL when some part of r is outside every entry's scope. */
const vc_expectation *vc_expectations_cover(const vc_expectations *e, const vc_exp_config *cfg,
                                            int today, const char *program, const vc_result *r);
/* The same with entries of one kind only. */
const vc_expectation *vc_expectations_cover_kind(const vc_expectations *e,
                                                 const vc_exp_config *cfg, int today,
                                                 const char *program, const vc_result *r,
                                                 vc_exp_kind kind);
/* The flake entry that lists flake result r (status flake: failed, then
   passed on a rerun): every failed attempt (its status and reason from the
   attempt log, its divergences from attempt_divs) lies in the scope of
   matching flake entries, as vc_expectations_cover judges a result. The
   entry returned covers the first failed attempt; NULL when some attempt is
   outside every flake entry, or r is not a flake. Only flake entries list
   flakes: a fail entry says a program fails, not that it may pass. */
const vc_expectation *vc_expectations_cover_flake(const vc_expectations *e,
                                                  const vc_exp_config *cfg, int today,
                                                  const char *program, const vc_result *r);
/* The attempts of one result that vc_expectations_cover_flake reads. */
#define VC_EXP_MAX_ATTEMPTS 128
const char *vc_exp_kind_name(vc_exp_kind k);
/* Today in UTC as YYYYMMDD. */
int vc_today_utc(void);

#endif
