/* The state of one run that the runner's parts share: the workers and
 * their jobs (slots), the programs (items), the device tokens, the
 * expectations, the database and the verdict. */
#ifndef VC_RUN_STATE_H
#define VC_RUN_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "backends/backend.h"
#include "harness/base/strbuf.h"
#include "harness/model/expectations.h"
#include "harness/model/verdict.h"
#include "harness/run/capture.h"
#include "harness/run/program_acc.h"
#include "harness/run/progress.h"
#include "harness/run/runlock.h"
#include "harness/run/runner.h"
#include "results/store/record.h"

typedef struct worker {
  pid_t pid;
  int to, from; /* pipe ends: jobs to the worker, messages from it */
  vc_capture_file cap; /* its fd 2 */
  /* what a killed worker wrote since its last result (stop_worker) */
  char last_words[sizeof ((vc_result *)0)->captured_stderr];
} worker;

/* A program this run does: its results until it is recorded. */
typedef enum item_state {
  IT_NEW,      /* not started */
  IT_QUEUED,   /* modes in pending wait for a worker (a fresh one after a cut or a rerun) */
  IT_RUNNING,  /* a job of it is in a worker */
  IT_FINISHED, /* every result in, waiting for the programs before it to be recorded */
  IT_RECORDED
} item_state;

typedef struct item {
  uint32_t idx, pos; /* its index in the corpus; its place among the programs this run does */
  item_state state;
  vc_mode pending[VC_MODE_COUNT];
  uint32_t npending;
  vc_program_acc *a; /* from its start until it is recorded */
} item;

/* A worker and the job it runs. */
typedef struct slot {
  worker w;
  bool ready;          /* its worker has opened the device (VC_MSG_DEVICE); none gets a job before */
  uint64_t open_deadline; /* while not ready: when opening counts as hung */
  item *it;            /* the program in flight; NULL: idle */
  vc_mode modes[VC_MODE_COUNT];
  uint32_t nmodes;
  uint64_t start_ns;   /* the job's start */
  uint64_t waited_ns;  /* of it, waiting for device tokens */
  uint64_t deadline;   /* 0: no timeout */
  uint64_t wait_since; /* waiting for a device token since (ns); 0: not waiting */
  bool holds;          /* holds a device token */
  /* the times recorded with the results (docs/database.md) */
  int step;            /* the step before the modes in flight (vc_phase); -1: none */
  uint64_t step_since; /* its start */
  uint64_t mode_since; /* the mode in flight's start; 0: none */
  uint64_t grant_ns;   /* the token held since */
  uint64_t mode_wait_ns, mode_phase_ns; /* of the mode in flight, so far */
} slot;

/* The device tokens: how many workers may be in a device phase at once
   (--device-jobs), and --device-lock, held while one is out. */
typedef struct vc_tokens {
  uint32_t out;   /* tokens held, at most o->device_jobs */
  int lock_fd;    /* --device-lock: held (flock) while a token is out; -1: none */
  bool lock_held;
  bool lock_busy; /* the last try found it held by another process */
} vc_tokens;

/* What the selection was before --shard cut it (runs.selection_digest). */
typedef struct vc_selection {
  char digest[65];
  uint32_t programs;
  vc_strbuf list; /* "DIGEST NAME\n" by name (runs.selection_list) */
} vc_selection;

/* One run: what prepare.c selected and loaded, the workers supervise.c
   keeps, the tokens tokens.c hands out, what record.c writes and judges. */
typedef struct run_state {
  const vc_runner_opts *o;
  const vc_corpus *c; /* the parsed selection the workers inherit */
  vc_db *db;
  int64_t run_id;
  slot *slots;
  uint32_t nslots;
  vc_tokens tokens;    /* tokens.c's */
  vc_runlock runlock;  /* the run's own lock, held for the process's life (runlock.h) */
  bool have_device;
  vc_device_info device;
  char fingerprint[256];
  vc_expectations *expect; /* NULL with --expectations none or no default */
  const char *expect_file; /* where they were read from */
  char expect_path[4300];
  char expect_says[9300];  /* the run's first line: which file judges it, or why none */
  vc_run_verdict verdict;
  bool resumed;            /* --resume: the device is recorded already */
  char resumed_device[256];
  int today;
  vc_progress prog;
  uint32_t *order; /* the items' start order (vc_schedule_order); NULL: as they come */
  vc_selection selection; /* before --shard */
  char plugin_id[65];     /* the plugin's digest, as the first worker ready said */
} run_state;

#endif
