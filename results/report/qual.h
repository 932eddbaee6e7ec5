/* The qualification view of one or more runs, which every report is written
 * from: each cell judged against the expectations (a new failure, or a known
 * one and the entry that excuses it), per-mode counts by status, the
 * verdict, where each run came from (injected faults, a mutant build,
 * options, the expectations file) and, with a baseline, what changed. */
#ifndef VC_RESULTS_QUAL_H
#define VC_RESULTS_QUAL_H

#include <stdbool.h>
#include <stdint.h>

#include "harness/model/expectations.h"
#include "results/gate/compare.h"
#include "results/report/modestats.h"

/* X(ENUM, word, HTML class): the verdict, worst last. NOT RUN: no cell
   passed or failed as expected (everything skipped or unsupported), which
   is no pass however clean. */
#define VC_VERDICT_TABLE(X)                     \
  X(PASS, "PASS", "v-pass")                     \
  X(KNOWN, "PASS WITH KNOWN ISSUES", "v-known") \
  X(NOT_RUN, "NOT RUN", "v-notrun")             \
  X(FAIL, "FAIL", "v-fail")

typedef enum vc_qual_verdict {
#define VC_X(e, w, c) VC_VERDICT_##e,
  VC_VERDICT_TABLE(VC_X)
#undef VC_X
  VC_VERDICT_COUNT
} vc_qual_verdict;

const char *vc_verdict_word(vc_qual_verdict v);
const char *vc_verdict_class(vc_qual_verdict v); /* the HTML report's class */

typedef struct vc_report_opts {
  /* NULL: each run's own recorded file (its expectations= setting); "none":
     no expectations; else a file for every run. */
  const char *expectations;
  const vc_run_data *baseline; /* NULL: none */
  uint32_t junit_limit;        /* failing testcases written in full; 0: all */
  const char *junit_link;      /* "See ...{{testcase}}..." or NULL */
  bool not_for_submission;     /* a package of a dirty tree: every headline says so */
} vc_report_opts;

typedef enum vc_judged {
  VC_JUDGED_OK = 0, /* not a failing status */
  VC_JUDGED_NEW,    /* fails, and no expectation covers all of it */
  VC_JUDGED_KNOWN   /* fails within the scope of expectation entries */
} vc_judged;

typedef struct vc_qcell {
  vc_judged judged;
  const vc_expectation *by; /* known: the entry covering its first part */
  const vc_expectation *flakes_by; /* its flakes all listed: the entry listing the first */
  int32_t section;          /* failing: its section's number, else -1 */
  uint32_t nflakes;         /* repeats that failed, then passed on a rerun (status flake) */
} vc_qcell;

typedef struct vc_qmode {
  uint32_t programs;
  uint32_t counts[VC_STATUS_COUNT]; /* cells by status (VC_STATUS_TABLE) */
  uint32_t new_failures, known_failures;
} vc_qmode;

enum { VC_QUAL_TEXT = 1024 };

typedef struct vc_qrun {
  const vc_run_data *run;
  vc_run_summary sum;
  vc_qcell *qcells;        /* one per sum.cells.items[i] */
  vc_qmode *modes;         /* one per sum.cells.modes[m] */
  vc_expectations exps;
  bool has_exps;
  char exps_text[VC_QUAL_TEXT];     /* "ci/expectations/vulkan.txt (12 entries)", "none", ... */
  char injected[VC_QUAL_TEXT];      /* "" or what was planted: "--inject-flip ..., mutant=..." */
  char nondefault[VC_QUAL_TEXT];    /* options that differ from a plain run's, or "" */
  char device_line[VC_QUAL_TEXT];   /* "NVIDIA H200 · Vulkan 1.4.312 · driver NVIDIA 580..." */
  uint32_t nnew, nknown;   /* failing cells */
  uint32_t ncovered;       /* cells that passed (a flake too) or failed as expected */
  uint32_t nflakes;        /* results (repeats) with status flake, in every cell */
  uint32_t nsections;
  uint32_t *section_cell;  /* section s is the cell sum.cells.items[section_cell[s]] */
  vc_qual_verdict verdict;
  char why[VC_QUAL_TEXT];  /* one line: what decided the verdict */
} vc_qrun;

typedef struct vc_qual {
  vc_qrun *runs;
  uint32_t nruns;
  vc_qual_verdict verdict;  /* the worst of the runs' */
  bool planted;             /* some run had injected faults or a mutant build */
  const vc_report_opts *opts;
  bool has_cmp;             /* opts->baseline given */
  uint32_t cmp_run;         /* the run compared with the baseline */
  vc_compare_opts cmp_opts;
  vc_comparison cmp;
} vc_qual;

/* runs[0..nruns) and opts are kept and pointed into until vc_qual_free. */
int vc_qual_build(const vc_run_data *const *runs, uint32_t nruns, const vc_report_opts *opts,
                  vc_qual *q, vc_error *err);
void vc_qual_free(vc_qual *q);
/* What every report's title starts with: "[NOT FOR SUBMISSION] " where
   opts->not_for_submission, "[PLANTED FAULTS: NOT A QUALIFICATION] " where
   q->planted, else "". */
const char *vc_qual_title_prefix(const vc_qual *q);

/* The corpus folder of a program ("semantics"), relative to the run's
   corpus path; "." for a program at its top. */
void vc_qual_folder(const vc_run_data *r, const vc_program_info *p, char *out, size_t n);
/* The value of one key of the run's stored settings (runs.options,
   harness/run/runopts.h), unquoted; false when absent. */
bool vc_qual_option(const vc_run_data *r, const char *key, char *out, size_t n);
/* Removes the kernel cache's "cache=DIR" item from a device-options text,
   in place: where kernels are kept changes no result. */
void vc_qual_strip_cache(char *s);
/* A cell that did not fail but had a repeat that flaked, every flake listed
   by a flake entry: the matrix says flake, not pass. An unlisted flake is a
   new failure. */
static inline bool vc_qual_flaky(const vc_qcell *qc) {
  return qc->judged == VC_JUDGED_OK && qc->nflakes > 0;
}
/* The cell's index in its run's summary. */
static inline uint32_t vc_qual_cell_index(const vc_qrun *qr, const vc_cell *c) {
  return (uint32_t)(c - qr->sum.cells.items);
}

/* One row of the matrix: a program of any of the runs, by folder. */
typedef struct vc_qrow {
  const char *name;
  const vc_prog_data *prog; /* from the first run that has it */
  const vc_run_data *run;   /* that run */
  uint32_t ri;              /* its index */
  char folder[128];
  int severity;             /* 3 new failure, 2 known, 1 unsupported, 0 else */
} vc_qrow;

typedef struct vc_qgroup {
  const char *folder;
  uint32_t first, n; /* rows[first .. first+n) */
  int severity;
  uint32_t nnew, nknown, nunsupported;
} vc_qgroup;

/* The matrix's rows grouped by folder: groups with failures first, and
   inside a group the failing programs first, then by name. */
typedef struct vc_qmatrix {
  vc_qrow *rows;
  uint32_t nrows;
  vc_qgroup *groups;
  uint32_t ngroups;
} vc_qmatrix;

int vc_qual_matrix(const vc_qual *q, vc_qmatrix *out, vc_error *err);
void vc_qual_matrix_free(vc_qmatrix *m);

#endif
