/* Reading one run of a results file back into memory, for compare, merge and
 * the reports. Everything a vc_run_data holds lives in its arena. */
#ifndef VC_RESULTS_LOAD_H
#define VC_RESULTS_LOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "harness/base/arena.h"
#include "results/store/record.h"

typedef struct vc_prog_data {
  vc_program_info info;
  vc_result *results; /* by mode (native, host-split, resident-split, others), then repeat */
  uint32_t nresults;
} vc_prog_data;

/* A run named by id and status. */
typedef struct vc_run_ref {
  int64_t id;
  const char *status;
} vc_run_ref;

typedef struct vc_run_data {
  vc_arena arena;
  const char *path;
  int64_t id;
  vc_run_info info;
  int64_t ended_ns;   /* 0 while running */
  const char *status; /* running, complete, interrupted, failed */
  bool has_device;
  vc_device_info device;
  const char *fingerprint;
  vc_prog_data *progs; /* sorted by name */
  uint32_t nprogs;
  /* The runs of the file after this one that did not complete (running,
     interrupted, failed), oldest first: compare and report warn of them. */
  vc_run_ref *unfinished_newer;
  uint32_t nunfinished_newer;
  /* The newest finished litmus run of the file on this run's backend and
     device (docs/litmus.md), for the report's grid-sync contract section;
     litmus_id 0 when there is none. Its rows are in the order recorded. */
  int64_t litmus_id;
  vc_litmus_run_info litmus_info;
  vc_litmus_result *litmus;
  uint32_t nlitmus;
  vc_progress_result *progress; /* its forward-progress checks, in the order recorded */
  uint32_t nprogress;
  /* The newest finished crossover map of the file on this run's backend
     and device (docs/performance.md), crossover_id 0 when there is none;
     its points in the order recorded (a point's modes together). */
  int64_t crossover_id;
  vc_crossover_map_info crossover_info;
  vc_crossover_point *crossover;
  uint32_t ncrossover;
  /* Every finding of fuzz campaigns the file holds, whatever their runs,
     oldest first. */
  vc_finding_rec *findings;
  uint32_t nfindings;
} vc_run_data;

#define VC_RUN_LAST_COMPLETE 0
#define VC_RUN_LATEST (-1) /* whatever its status */

/* Loads run run_id of the file at path, or the run VC_RUN_LAST_COMPLETE or
   VC_RUN_LATEST names.
   The file is checked like vc_db_open checks it, and never written: a file
   of an older schema version is read as it is (a column it lacks reads as
   0 or ""), and a file on a read-only volume leaves no -wal or -shm. */
int vc_run_load(const char *path, int64_t run_id, vc_run_data **out, vc_error *err);
/* spec is "FILE" or "FILE:RUN". */
int vc_run_load_spec(const char *spec, vc_run_data **out, vc_error *err);
void vc_run_free(vc_run_data *r);

/* Splits "FILE:RUN" (RUN all digits) into a path and a run id (0 if absent).
   path must hold strlen(spec)+1 bytes. */
void vc_run_spec_split(const char *spec, char *path, int64_t *run_id);

#endif
