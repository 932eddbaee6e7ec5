/* What a run prints while it goes and at its end: on a terminal a status
 * line rewritten in place (elapsed time, ETA, programs passed, failed and
 * running, and those in flight) plus a line for each result that did not
 * pass; otherwise one plain line per program as it is recorded, and a line
 * at least every 10 s naming the programs in flight and for how long. The
 * summary is a table of statuses per mode (and per step before the modes,
 * when one failed) and the flakes. It only displays: the verdicts
 * (harness/model/verdict.h) decide, and the run's exit status comes from
 * them. */
#ifndef VC_PROGRESS_H
#define VC_PROGRESS_H

#include <stdint.h>

#include "backends/backend.h"
#include "harness/base/strbuf.h"
#include "harness/exec/conform.h"
#include "harness/exec/modes.h"
#include "harness/model/verdict.h"
#include "results/store/record.h"

/* A program in a worker: slot k of vc_progress.flight. */
typedef struct vc_in_flight {
  bool busy;
  uint32_t pos;
  char name[256];
  char step[40];     /* the mode or step it is in */
  uint64_t start_ns;
} vc_in_flight;

typedef struct vc_progress {
  int tty;
  const char *backend;
  const char *db_path;
  int64_t run_id;
  uint32_t total, done;
  uint32_t passed, failed; /* programs: failed has a result that fails the run */
  uint64_t start_ns;
  uint64_t last_beat_ns;   /* plain: the last "running" line */
  uint64_t last_draw_ns;   /* tty: the last status line */
  /* one row per mode, then one per step before the modes (vc_phase);
     excused failures aside */
  uint32_t counts[VC_MODE_COUNT + VC_PHASE_COUNT][VC_STATUS_COUNT];
  uint32_t nondeterministic;
  /* flakes (failed, then passed on a rerun): those flake entries list, and
     those they do not, which fail the run; each "program mode, ..." */
  uint32_t known_flakes, flakes;
  vc_strbuf known_flake_list, flake_list;
  vc_in_flight *flight;
  uint32_t nflight;
} vc_progress;

/* slots: how many programs may be in flight at once. */
void vc_progress_init(vc_progress *p, int tty, const char *backend, const char *db_path,
                      int64_t run_id, uint32_t total, uint32_t slots);
void vc_progress_device(vc_progress *p, const vc_device_info *info, const char *fingerprint);
/* Program number pos (0-based, of total) is in flight in slot. */
void vc_progress_start(vc_progress *p, uint32_t slot, uint32_t pos, const char *name);
/* It is in mode or step `step` (repeat: 0-based, shown from the second). */
void vc_progress_mode(vc_progress *p, uint32_t slot, const char *step, uint32_t repeat);
void vc_progress_stop(vc_progress *p, uint32_t slot);
/* Called while the run waits: redraws the status line, or prints the plain
   heartbeat when 10 s have passed since the last. */
void vc_progress_tick(vc_progress *p);
/* Program pos was recorded; v[i]: the verdict on r[i]. */
void vc_progress_results(vc_progress *p, uint32_t pos, const char *name, const vc_result *r,
                         const vc_verdict *v, uint32_t n);
/* Prints the table and the run's verdict counts; expectations names the
   file the excused failures are listed in. */
void vc_progress_summary(vc_progress *p, const vc_run_verdict *rv, const char *expectations);
void vc_progress_free(vc_progress *p);

#endif
