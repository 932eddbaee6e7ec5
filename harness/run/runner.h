/* harness/run: the run command (runner, worker process, wire, progress). */
/* The run command: every program of a corpus on one backend device, each in
 * every selected mode, recorded in the results database.
 *
 * The runner parses each selected file once, before it forks a worker
 * process that opens the device and runs the programs it is sent (it
 * inherits the parsed programs); the runner records and reports. The
 * selection and the device are checked before a run is written: a usage
 * error leaves the database as it was. A worker that dies (a driver crash)
 * costs the step in flight, recorded as `crash` with its signal; one that
 * exceeds --timeout is killed and recorded as `timeout`. A step before the
 * device modes (setup, reference, oracle) is recorded under its own name;
 * a device mode under the mode's, and the program's remaining modes run in
 * a fresh worker. SIGINT, SIGTERM and SIGHUP end the run after the finished
 * programs are written, marked `interrupted`.
 *
 * Up to --jobs workers run at once, each one program at a time; the device
 * phase of a mode (upload to download, its kernels compiled before) needs
 * one of --device-jobs tokens, which the runner grants over the pipes, so
 * a worker that dies holding one gives it back; with --device-lock FILE the
 * runner also holds an flock on FILE while any token is out, so that runs
 * of one machine (on different backends, say) never share the device
 * phase. A job goes only to a worker that has opened its device. Programs are recorded in
 * corpus order whatever the number of jobs. A device-mode result that fails
 * unexpectedly is rerun (its mode, in a fresh worker) up to --flake-reruns
 * times; one that then passes is recorded `flake`. */
#ifndef VC_RUNNER_H
#define VC_RUNNER_H

#include <stdint.h>

#include "harness/exec/conform.h"
#include "harness/lang/corpus.h"

typedef struct vc_runner_opts {
  const char *backend;
  uint32_t device;
  const char *device_options;   /* plugin options "k=v,..." */
  vc_conform_opts conform;
  const char *const *paths;
  uint32_t npaths;
  const char *const *filters;   /* globs on name or relative path; none: all */
  uint32_t nfilters;
  /* where each filter comes from ("--filter", a caselist's "FILE:LINE"),
     to name one that matches no program; NULL: all "--filter" */
  const char *const *filter_origins;
  const char *const *exclude_tags;
  uint32_t nexclude_tags;
  uint32_t shard_k, shard_n;    /* n == 0: not sharded */
  const char *shard_costs;      /* --shard-costs DB[:RUN]|CSV (shard_costs.h); NULL: estimates */
  uint32_t shard_plan;          /* --shard-plan N: print the plan for N shards, run nothing; 0: run */
  const char *db_path;
  uint32_t timeout_s;           /* per program */
  int64_t resume_run;           /* 0: a new run */
  int progress;                 /* 1: interactive terminal lines, 0: plain lines */
  const char *expectations;     /* known failures, flakes and skips (docs/gating.md), or NULL */
  const char *command_line;
  /* Fault injection, for testing the harness itself: the worker crashes
     (SIGSEGV) or hangs on programs whose name matches the glob, in the step
     named after an `@` (setup, reference, oracle or a mode; setup when
     none is named). */
  const char *inject_crash;
  const char *inject_hang;
  uint32_t flip_attempts;       /* --inject-flip ...@N: only on the first N attempts; 0: all */
  uint32_t jobs;                /* worker processes at once (>= 1) */
  uint32_t device_jobs;         /* programs in their device phase at once (>= 1) */
  uint32_t flake_reruns;        /* reruns of a result that fails unexpectedly */
  const char *device_lock;      /* --device-lock FILE: flock'ed while a device token is out; NULL: none */
  uint32_t db_timeout_s;        /* --db-timeout: the longest wait for the results file's lock
                                   (not recorded: it changes no result) */
} vc_runner_opts;

/* Returns a process exit status (harness/base/exitcodes.h). */
int vc_run_corpus(const vc_runner_opts *o);

/* The worker side (worker.c): serves jobs from in_fd, writes to out_fd,
   returns the process's exit status. c: the parsed selection, as the runner
   held it when it forked the worker; cap: the file its fd 2 goes to, made
   by the runner (harness/run/capture.h). */
struct vc_capture_file;
int vc_worker_main(int in_fd, int out_fd, const vc_runner_opts *o, const vc_corpus *c,
                   const struct vc_capture_file *cap);
/* lifeline.c: called first in a new worker (runner: the runner's pid). It
   leads a process group of its own (the terminal's SIGINT is the runner's
   to handle; the runner kills the whole group) and gets SIGKILL when the
   runner dies, however it dies (kill -9 included). */
void vc_worker_tie_to_runner(int runner);
/* Sends sig to the worker's process group (the worker and what it
   started), else to the worker alone. */
void vc_worker_kill(int pid, int sig);

#endif
