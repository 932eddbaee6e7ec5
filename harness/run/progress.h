/* What a run prints while it goes and at its end: on a terminal a status
 * line rewritten in place plus a line for each result that did not pass;
 * otherwise one plain line per program. The summary is a table of statuses
 * per mode (and per step before the modes, when one failed). It only
 * displays: the verdicts (harness/exec/verdict.h) decide, and the run's exit
 * status comes from them. */
#ifndef VC_PROGRESS_H
#define VC_PROGRESS_H

#include <stdint.h>

#include "backends/backend.h"
#include "harness/exec/conform.h"
#include "harness/exec/modes.h"
#include "harness/exec/verdict.h"
#include "results/store/record.h"

typedef struct vc_progress {
  int tty;
  const char *backend;
  const char *db_path;
  int64_t run_id;
  uint32_t total, done;
  uint64_t start_ns;
  /* one row per mode, then one per step before the modes (vc_phase);
     excused failures aside */
  uint32_t counts[VC_MODE_COUNT + VC_PHASE_COUNT][VC_STATUS_COUNT];
  uint32_t nondeterministic;
  char current[256];
} vc_progress;

void vc_progress_init(vc_progress *p, int tty, const char *backend, const char *db_path,
                      int64_t run_id, uint32_t total);
void vc_progress_device(vc_progress *p, const vc_device_info *info, const char *fingerprint);
void vc_progress_program(vc_progress *p, uint32_t index, uint32_t total, const char *name);
void vc_progress_mode(vc_progress *p, const char *mode, uint32_t repeat);
/* v[i]: the verdict on r[i]. */
void vc_progress_results(vc_progress *p, const char *name, const vc_result *r, const vc_verdict *v,
                         uint32_t n);
/* Prints the table and the run's verdict counts; expectations names the
   file the excused failures are listed in. */
void vc_progress_summary(vc_progress *p, const vc_run_verdict *rv, const char *expectations);
void vc_progress_free(vc_progress *p);

#endif
