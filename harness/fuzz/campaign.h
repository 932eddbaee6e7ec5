/* harness/fuzz: fuzz campaigns: programs drawn, run, their failures and differentials filed. */
/* A fuzz campaign: programs generated (or drawn from files), each with a
 * transformed twin, written into DIR/programs and run in batches exactly as
 * `run` runs them, each batch a run of the results database; every failure
 * and differential is filed as a finding (findings.h), reduced, written
 * into DIR/findings with the command that reproduces it, and summarised
 * (printed, and DIR/summary.txt). */
#ifndef VC_FUZZ_CAMPAIGN_H
#define VC_FUZZ_CAMPAIGN_H

#include <stdbool.h>
#include <stdint.h>

#include "harness/base/error.h"
#include "harness/gen/gen.h"
#include "harness/reduce/reduce.h"
#include "harness/run/runner.h"

typedef struct vc_fuzz_opts {
  const char *dir;      /* --out DIR */
  const char *db;       /* the results database, run.db_path too */
  const char *backend;  /* run.backend */
  vc_runner_opts run;   /* each batch's run; its paths are the batch's folder */
  uint64_t seed;
  uint32_t count;       /* programs (and twins) in one run, without time_s */
  uint32_t time_s;      /* else: runs of batch programs until this has passed */
  uint32_t batch;
  const char *const *from; /* --from: draw programs from these paths; NULL: generate */
  uint32_t nfrom;
  vc_gen_opts gen;       /* generating */
  const char *transform; /* a transformation's name, "random", or NULL: no twin */
  bool reduce;           /* reduce each failure (else filed as it is) */
  uint32_t reduce_timeout_s; /* seconds per candidate of a reduction */
} vc_fuzz_opts;

/* Runs the campaign. Returns its exit status (docs/usage.md, fuzz): 0 no
   finding, 1 findings, else an error, printed; but a usage error of the
   options (--from offers no program) is VC_EXIT_USAGE with e's code
   VC_ERR_USAGE, unprinted, for the command to report (a run's own usage
   error is printed by the run and leaves e as it was). */
int vc_fuzz_campaign(const vc_fuzz_opts *o, vc_error *e);

#endif
