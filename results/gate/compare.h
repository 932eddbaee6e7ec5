/* results/gate: whether a run passes against a baseline (cells, compare, merge). */
/* compare: what changed between a baseline run and a candidate run, per
 * program and mode, and whether the gate passes (docs/gating.md). */
#ifndef VC_RESULTS_COMPARE_H
#define VC_RESULTS_COMPARE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "results/gate/cells.h"
#include "results/gate/provenance.h"
#include "harness/model/expectations.h"
#include "results/store/load.h"

/* X(ENUM, name, LABEL): every finding, the gating ones first (the text
   lists them in this order); the name is --json's, the label the text's. */
#define VC_FINDING_TABLE(X)                                                                  \
  /* fails now, did not fail in the baseline: gates */                                       \
  X(NEW_FAILURE, "new-failure", "NEW FAILURE")                                               \
  /* ran in the baseline, unsupported now: gates */                                          \
  X(NEWLY_UNSUPPORTED, "newly-unsupported", "NEWLY UNSUPPORTED")                             \
  /* ran in the baseline, skipped now (a step before it failed, an entry of the run's): gates */ \
  X(NEWLY_SKIPPED, "newly-skipped", "NEWLY SKIPPED")                                         \
  /* timing regression beyond threshold and spread: gates */                                 \
  X(SLOWER, "slower", "SLOWER")                                                              \
  /* failed in the baseline, passes now */                                                   \
  X(FIXED, "fixed", "FIXED")                                                                 \
  /* passes although an expectation says fail: gates with strict */                          \
  X(IMPROVEMENT, "improvement", "IMPROVEMENT")                                               \
  /* fails, as an expectation says */                                                        \
  X(EXPECTED, "expected-failure", "EXPECTED FAILURE")                                        \
  /* failed in the baseline too */                                                           \
  X(STILL_FAILING, "still-failing", "STILL FAILING")                                         \
  /* faster beyond threshold and spread */                                                   \
  X(FASTER, "faster", "FASTER")                                                              \
  /* in the baseline, not in the candidate: gates unless skipped */                          \
  X(MISSING, "missing", "MISSING")                                                           \
  /* in the candidate, not in the baseline */                                                \
  X(NEW_PROGRAM, "new-program", "NEW PROGRAM")                                               \
  /* a skip expectation covers it */                                                         \
  X(SKIPPED, "skipped", "SKIPPED")

typedef enum vc_finding_kind {
#define VC_X(e, n, l) VC_F_##e,
  VC_FINDING_TABLE(VC_X)
#undef VC_X
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
  char warnings[5][300]; /* different corpus, backend, device, expectations, run status */
  uint32_t nwarnings;
  /* What each side (0 baseline, 1 candidate) had planted: injected flips,
     crashes or hangs, a mutant build, a driver fault (results/gate/
     provenance.h); "" for none. Either side planted: no gate (exit 10). */
  char planted[2][VC_PLANTED_TEXT];
  /* The expectations file each side's run recorded, when they differ: the
     runs skipped different cells (said in the verdict, not a failure). */
  bool exps_differ;
  /* Candidate cells that ran: passed, flaked or failed (excused or not).
     None, and nothing else fails: NOT RUN (exit 9). */
  uint32_t cand_ran;
  /* Each side's kernel cache over its passing cells; timing is compared
     only between cells whose kernels came from the cache alike. */
  vc_cache_state cache[2];
  uint32_t untimed_cache; /* passing cells not timed for that */
  int exit_code; /* VC_EXIT_OK, _FAIL, _EXPIRED, _NOT_RUN or _PLANTED */
} vc_comparison;

void vc_compare_opts_default(vc_compare_opts *o);
/* The comparison points into base, cand and opts: keep them until it is freed. */
int vc_compare_runs(const vc_run_data *base, const vc_run_data *cand, const vc_compare_opts *opts,
                    vc_comparison *out, vc_error *err);
void vc_comparison_free(vc_comparison *c);
const char *vc_finding_kind_name(vc_finding_kind k);  /* "new-failure", ... */
const char *vc_finding_kind_label(vc_finding_kind k); /* "NEW FAILURE", ... */
/* The gate's word for the comparison: PASS, FAIL, NOT RUN or REFUSED. */
const char *vc_comparison_gate_word(const vc_comparison *c);

/* compare_print.c */
void vc_comparison_print_text(const vc_comparison *c, FILE *out);
void vc_comparison_print_json(const vc_comparison *c, FILE *out);

#endif
