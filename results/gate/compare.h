/* results/gate: whether a run passes against a baseline (cells, compare, merge). */
/* compare: what changed between a baseline run and a candidate run, per
 * program and mode, and whether the gate passes (docs/gating.md). */
#ifndef VC_RESULTS_COMPARE_H
#define VC_RESULTS_COMPARE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "results/gate/cells.h"
#include "harness/model/expectations.h"
#include "results/store/load.h"

typedef enum vc_finding_kind {
  VC_F_NEW_FAILURE = 0,   /* fails now, did not fail in the baseline: gates */
  VC_F_NEWLY_UNSUPPORTED, /* ran in the baseline, unsupported now: gates */
  VC_F_SLOWER,            /* timing regression beyond threshold and spread: gates */
  VC_F_FIXED,             /* failed in the baseline, passes now */
  VC_F_IMPROVEMENT,       /* passes although an expectation says fail: gates with strict */
  VC_F_EXPECTED,          /* fails, as an expectation says */
  VC_F_STILL_FAILING,     /* failed in the baseline too */
  VC_F_FASTER,            /* faster beyond threshold and spread */
  VC_F_MISSING,           /* in the baseline, not in the candidate: gates unless skipped */
  VC_F_NEW_PROGRAM,       /* in the candidate, not in the baseline */
  VC_F_SKIPPED,           /* a skip expectation covers it */
  VC_FINDING_KIND_COUNT
} vc_finding_kind;

typedef struct vc_finding {
  vc_finding_kind kind;
  bool gating;                /* counts against the gate */
  const char *program, *mode; /* point into the runs compared */
  const vc_cell *base, *cand; /* NULL where the side has no result */
  const vc_expectation *exp;  /* the entry that covered it, or NULL */
} vc_finding;

typedef struct vc_compare_opts {
  double threshold_pct;        /* a slower median must exceed the baseline's by this much */
  uint64_t min_delta_ns;       /* and by at least this many nanoseconds */
  bool timing;                 /* judge timing at all (not on shared machines) */
  const vc_expectations *exps; /* may be NULL */
  const char *exps_text;       /* which expectations judge, as printed (judged_by.h), or NULL */
  bool strict_expectations;    /* an improvement (a stale fail entry) fails the gate */
  int today;                   /* YYYYMMDD, for expiry */
} vc_compare_opts;

#define VC_COMPARE_DEFAULT_THRESHOLD_PCT 20.0
#define VC_COMPARE_DEFAULT_MIN_DELTA_NS 1000000u /* 1 ms */

typedef struct vc_comparison {
  const vc_run_data *base, *cand;
  const vc_compare_opts *opts;
  vc_cells base_cells, cand_cells;
  vc_finding *items;
  uint32_t n, cap;
  uint32_t counts[VC_FINDING_KIND_COUNT];
  uint32_t ngating;
  const vc_expectation **expired; /* entries past their date */
  uint32_t nexpired;
  const vc_expectation **unused; /* entries for this configuration that matched nothing */
  uint32_t nunused;
  char warnings[4][300]; /* different corpus, backend, device, run status */
  uint32_t nwarnings;
  int exit_code; /* VC_EXIT_OK, VC_EXIT_FAIL or VC_EXIT_EXPIRED */
} vc_comparison;

void vc_compare_opts_default(vc_compare_opts *o);
/* The comparison points into base, cand and opts: keep them until it is freed. */
int vc_compare_runs(const vc_run_data *base, const vc_run_data *cand, const vc_compare_opts *opts,
                    vc_comparison *out, vc_error *err);
void vc_comparison_free(vc_comparison *c);
const char *vc_finding_kind_name(vc_finding_kind k); /* "new-failure", ... */

/* compare_print.c */
void vc_comparison_print_text(const vc_comparison *c, FILE *out);
void vc_comparison_print_json(const vc_comparison *c, FILE *out);

#endif
