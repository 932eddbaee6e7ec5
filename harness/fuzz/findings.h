/* The findings of fuzz campaigns: every failing mode of a program reduced
 * and filed under its signature (backend, status, divergence class and the
 * reduced program's shape), deduplicated within a campaign and across the
 * campaigns that share a results file (its findings table). */
#ifndef VC_FUZZ_FINDINGS_H
#define VC_FUZZ_FINDINGS_H

#include <stdbool.h>
#include <stdint.h>

#include "harness/base/error.h"
#include "harness/reduce/reduce.h"
#include "results/store/load.h"

typedef struct vc_fz_finding {
  char key[256];        /* backend status class shape */
  char sig[512];        /* the first failure, as the reducer states it, and a note */
  char file[4096];      /* the reduced program */
  char first[256];      /* the first program that showed it */
  char last_prog[256];  /* the last program counted under it */
  char mode[32];        /* the mode it was reduced in */
  char command[4608];   /* the one line that reproduces it */
  char modes[64];       /* every mode it failed in */
  char *source;         /* the reduced program's text (owned) */
  uint32_t count;       /* programs, every campaign of the file */
  uint32_t here;        /* of them, this campaign's */
  int64_t first_run, last_run;
  bool dirty;           /* to be written */
} vc_fz_finding;

typedef struct vc_fz_seen {
  char key[600];
  uint32_t finding;
} vc_fz_seen;

typedef struct vc_fz_findings {
  const char *dir, *backend, *db;
  int busy_ms;
  bool reduce;
  vc_reduce_opts red;   /* the device's; the mode is set per reduction */
  vc_fz_finding *f;
  uint32_t n, cap;
  /* a program that failed before, failing the same way again (fuzzing with
     replacement draws programs again): counted without a second reduction */
  vc_fz_seen *seen;
  uint32_t nseen, seencap;
  uint32_t failures;    /* failing programs */
  uint32_t reductions;
  int64_t run_id;       /* the run being filed */
  uint64_t reduce_ns;
  bool loaded;          /* the file's earlier findings are in f */
} vc_fz_findings;

/* The findings rd's file holds from earlier campaigns, once. */
void vc_fz_load(vc_fz_findings *z, const vc_run_data *rd);
/* Files every failing mode of p (of run run_id), each reduced in its mode:
   a cause that shows in one mode only is filed whatever the others show,
   and one that shows in several reduces to one shape, one finding. */
void vc_fz_file_program(vc_fz_findings *z, const vc_prog_data *p, int64_t run_id);
/* Files the differentials of rd (harness/fuzz/differential.h): a program
   whose split mode's bytes differ from its native mode's, or a twin whose
   bytes differ from its original's, where both passed. */
void vc_fz_file_differentials(vc_fz_findings *z, const vc_run_data *rd);
/* Writes the findings filed or seen again since the last save. */
int vc_fz_save(vc_fz_findings *z, vc_error *err);
void vc_fz_free(vc_fz_findings *z);

#endif
