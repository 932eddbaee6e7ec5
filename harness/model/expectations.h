/* Expectations: the reviewed list of known failures, flakes and skips that a
 * gate accepts (format in docs/gating.md). One entry a line:
 *
 *   fail  atomics_*  native  backend=vulkan driver=*22.3.6* expires=2027-03-01 reason="..."
 */
#ifndef VC_RESULTS_EXPECTATIONS_H
#define VC_RESULTS_EXPECTATIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "harness/base/arena.h"
#include "harness/base/error.h"

typedef enum vc_exp_kind {
  VC_EXP_FAIL = 0, /* known failure: diverge, error, crash or timeout is accepted */
  VC_EXP_FLAKE,    /* passes or fails from run to run; timing is not judged either */
  VC_EXP_SKIP      /* not judged at all */
} vc_exp_kind;

typedef struct vc_expectation {
  vc_exp_kind kind;
  const char *program, *mode;            /* globs (fnmatch) */
  const char *backend, *device, *driver; /* globs, NULL: any */
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
/* The first entry that is not expired, applies to cfg and matches program
   and mode; NULL if none. */
const vc_expectation *vc_expectations_match(const vc_expectations *e, const vc_exp_config *cfg,
                                            int today, const char *program, const char *mode);
const char *vc_exp_kind_name(vc_exp_kind k);
/* Today in UTC as YYYYMMDD. */
int vc_today_utc(void);

#endif
