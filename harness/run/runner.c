#include "harness/run/runner.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness/base/clock.h"
#include "harness/lang/corpus.h"
#include "harness/base/exitcodes.h"
#include "harness/base/plural.h"
#include "harness/base/version.h"
#include "harness/run/capture.h"
#include "harness/run/program_acc.h"
#include "harness/run/progress.h"
#include "harness/run/runlock.h"
#include "harness/run/runenv.h"
#include "harness/run/runopts.h"
#include "harness/run/schedule.h"
#include "harness/run/shard_plan.h"
#include "harness/base/strbuf.h"
#include "harness/run/wire.h"
#include "harness/model/digest.h"
#include "harness/model/expectations.h"
#include "harness/run/default_exps.h"
#include "harness/model/verdict.h"

static volatile sig_atomic_t g_interrupted;

static void on_signal(int sig) {
  g_interrupted = sig;
}

static void install_handlers(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal; /* no SA_RESTART: poll() returns EINTR */
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL); /* a closed terminal or ssh session: as SIGTERM */
  signal(SIGPIPE, SIG_IGN);
  /* a file-size limit (ulimit -f): write() fails with EFBIG, and the
     database's error names the file, instead of a silent death */
  signal(SIGXFSZ, SIG_IGN);
}

typedef struct worker {
  pid_t pid;
  int to, from; /* pipe ends: jobs to the worker, messages from it */
  vc_capture_file cap; /* its fd 2 */
  /* what a killed worker wrote since its last result (stop_worker) */
  char last_words[sizeof ((vc_result *)0)->captured_stderr];
} worker;

/* close_fds: the runner's ends of the other workers' pipes, which the child
   closes: a worker must see end of file when the runner goes away, not be
   kept waiting by a sibling's copy of the runner's end. */
static int start_worker(const vc_runner_opts *o, const vc_corpus *c, worker *w,
                        const int *close_fds, uint32_t nclose, vc_error *err) {
  int down[2], up[2];
  if (pipe(down) || pipe(up)) return vc_fail(err, VC_ERR_IO, "pipe: %s", strerror(errno));
  /* made here, so that the runner can read what a worker that died wrote */
  vc_capture_file_open(&w->cap);
  w->last_words[0] = '\0';
  fflush(NULL);
  pid_t runner = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    vc_capture_file_close(&w->cap);
    return vc_fail(err, VC_ERR_IO, "fork: %s", strerror(errno));
  }
  if (pid == 0) {
    vc_worker_tie_to_runner(runner);
    close(down[1]);
    close(up[0]);
    for (uint32_t i = 0; i < nclose; i++) close(close_fds[i]);
    if (w->cap.read_fd >= 0) close(w->cap.read_fd);
    _exit(vc_worker_main(down[0], up[1], o, c, &w->cap));
  }
  setpgid(pid, pid); /* as the worker does: whichever runs first */
  close(down[0]);
  close(up[1]);
  if (w->cap.fd >= 0) close(w->cap.fd); /* the worker's; the runner reads through read_fd */
  w->cap.fd = -1;
  w->pid = pid;
  w->to = down[1];
  w->from = up[0];
  return 0;
}

/* Ends the worker: `how` 0 asks it to quit, a signal number kills it (and
   keeps in last_words what it wrote since its last result). Returns its
   wait status. */
static int stop_worker(worker *w, int how) {
  if (w->pid <= 0) return 0;
  if (how)
    vc_worker_kill(w->pid, how);
  else
    vc_msg_send(w->to, VC_MSG_QUIT, NULL);
  close(w->to);
  close(w->from);
  int st = 0;
  while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR) {
  }
  w->pid = 0;
  if (how) vc_capture_file_rest(&w->cap, w->last_words, sizeof w->last_words);
  vc_capture_file_close(&w->cap);
  return st;
}

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

/* What the selection was before --shard cut it (runs.selection_digest). */
typedef struct vc_selection {
  char digest[65];
  uint32_t programs;
  vc_strbuf list; /* "DIGEST NAME\n" by name (runs.selection_list) */
} vc_selection;

typedef struct run_state {
  const vc_runner_opts *o;
  const vc_corpus *c; /* the parsed selection the workers inherit */
  vc_db *db;
  int64_t run_id;
  slot *slots;
  uint32_t nslots;
  uint32_t tokens_out; /* device tokens held, at most o->device_jobs */
  int lock_fd;         /* --device-lock: held (flock) while a token is out; -1: none */
  vc_runlock runlock;  /* the run's own lock, held for the process's life (runlock.h) */
  bool lock_held;
  bool lock_busy;      /* the last try found it held by another process */
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
  int exit_code;
  uint32_t *order; /* the items' start order (vc_schedule_order); NULL: as they come */
  vc_selection selection; /* before --shard */
  char plugin_id[65];     /* the plugin's digest, as the first worker ready said */
} run_state;

/* Ends a slot's worker (how: 0 asks it to quit, a signal kills it) and takes
   back its device token: the token lives in the runner, so a worker that
   dies holding it loses it with its process. Returns the wait status. */
static void token_back(run_state *s, slot *sl);

static int slot_stop(run_state *s, slot *sl, int how) {
  token_back(s, sl);
  sl->wait_since = 0;
  sl->ready = false;
  return stop_worker(&sl->w, how);
}

/* Kills every worker; the lock goes with them (a run that ends early). */
static void kill_all(run_state *s) {
  for (uint32_t k = 0; k < s->nslots; k++) slot_stop(s, &s->slots[k], SIGKILL);
  if (s->lock_fd >= 0) close(s->lock_fd);
  s->lock_fd = -1;
  s->lock_held = false;
}

static int db_fail(run_state *s, const vc_error *e) {
  fprintf(stderr, "vyre-conform: %s\n", e->msg);
  kill_all(s);
  return VC_EXIT_DB;
}

/* Starts the slot's worker, which opens the device and then says so
   (VC_MSG_DEVICE): it gets no job before, so that the first worker ready
   takes the costliest program, not one still opening its device (a second
   on some drivers, more when several open at once). Returns 0, or an exit
   status. */
static int spawn_worker(run_state *s, slot *sl) {
  vc_error e;
  vc_error_clear(&e);
  int *fds = malloc((3 * s->nslots + 2) * sizeof *fds);
  if (!fds) abort();
  uint32_t nfds = 0;
  for (uint32_t k = 0; k < s->nslots; k++)
    if (&s->slots[k] != sl && s->slots[k].w.pid > 0) {
      fds[nfds++] = s->slots[k].w.to;
      fds[nfds++] = s->slots[k].w.from;
      if (s->slots[k].w.cap.read_fd >= 0) fds[nfds++] = s->slots[k].w.cap.read_fd;
    }
  /* the lock is the runner's: a worker left behind must not keep it */
  if (s->lock_fd >= 0) fds[nfds++] = s->lock_fd;
  if (vc_runlock_fd(&s->runlock) >= 0) fds[nfds++] = vc_runlock_fd(&s->runlock);
  int started = start_worker(s->o, s->c, &sl->w, fds, nfds, &e);
  free(fds);
  if (started) {
    fprintf(stderr, "vyre-conform: %s\n", e.msg);
    return VC_EXIT_FAIL;
  }
  sl->ready = false;
  /* Opening a device can take a while (driver start, and opens of several
     workers queue in some drivers); a hang here is a broken driver. Not
     less than the default timeout: a short --timeout is for programs. */
  uint32_t t = s->o->timeout_s ? s->o->timeout_s : 600;
  if (t < VC_RUN_DEFAULT_TIMEOUT_S) t = VC_RUN_DEFAULT_TIMEOUT_S;
  sl->open_deadline = vc_now_ns() + (uint64_t)t * 1000000000u;
  return 0;
}

/* What a starting worker said (rc: vc_msg_recv's, or -2 when it hung):
   the device opened, or it failed to open it. Returns 0, or an exit status
   that ends the run. */
static int open_answer(run_state *s, slot *sl, int rc, int type, vc_wbuf *msg) {
  int status = 0;
  if (rc == 0 && type == VC_MSG_DEVICE) {
    vc_device_info info;
    vc_get_bytes(msg, &info, sizeof info);
    const char *fingerprint = vc_get_str(msg);
    const char *plugin_id = vc_get_str(msg);
    /* Recorded by the caller once the run's row exists (record_device). */
    if (!s->have_device) {
      s->have_device = true;
      s->device = info;
      snprintf(s->fingerprint, sizeof s->fingerprint, "%s", fingerprint);
      snprintf(s->plugin_id, sizeof s->plugin_id, "%s", plugin_id);
    }
    sl->ready = true;
  } else if (rc == 0 && type == VC_MSG_FATAL) {
    vc_errcode code = (vc_errcode)vc_get_u64(msg);
    fprintf(stderr, "vyre-conform: backend %s, device %u: %s\n", s->o->backend, s->o->device,
            vc_get_str(msg));
    slot_stop(s, sl, SIGKILL);
    /* Options the plugin refuses are the user's mistake, not a missing device. */
    status = code == VC_ERR_USAGE ? VC_EXIT_USAGE
             : code == VC_ERR_NO_DRIVER || code == VC_ERR_NO_DEVICE || code == VC_ERR_ABI
                 ? VC_EXIT_NO_BACKEND
                 : VC_EXIT_FAIL;
  } else {
    int st = slot_stop(s, sl, SIGKILL);
    fprintf(stderr, "vyre-conform: backend %s: the worker process %s while opening device %u\n",
            s->o->backend,
            rc == -2          ? "hung"
            : WIFSIGNALED(st) ? strsignal(WTERMSIG(st))
                              : "exited",
            s->o->device);
    status = VC_EXIT_NO_BACKEND;
  }
  return status;
}

/* The device of a new run is recorded (and printed) once its row exists; a
   resumed run must be on the device it started on. */
static int record_device(run_state *s) {
  vc_progress_device(&s->prog, &s->device, s->fingerprint);
  if (s->resumed && s->resumed_device[0]) {
    if (strcmp(s->resumed_device, s->device.device_name) == 0) return 0;
    fprintf(stderr, "vyre-conform: run %lld ran on %s, this device is %s\n", (long long)s->run_id,
            s->resumed_device, s->device.device_name);
    kill_all(s);
    return VC_EXIT_USAGE;
  }
  vc_error e;
  vc_error_clear(&e);
  if (vc_db_record_device(s->db, s->run_id, &s->device, s->fingerprint, &e)) return db_fail(s, &e);
  return 0;
}

static void crash_reason(int st, const vc_program_acc *a, char *out, size_t n) {
  const char *mode = a->cur_mode >= 0 ? vc_mode_name((vc_mode)a->cur_mode) : a->phase;
  if (WIFSIGNALED(st))
    snprintf(out, n, "worker killed by signal %d (%s) during %s", WTERMSIG(st),
             strsignal(WTERMSIG(st)), mode);
  else
    snprintf(out, n, "worker exited with status %d during %s", WEXITSTATUS(st), mode);
}

static vc_exp_config device_config(const run_state *s) {
  return (vc_exp_config){s->o->backend, s->device.device_name, s->device.driver_name,
                         s->device.driver_version};
}

/* Skip expectations keep a program (or some of its modes) from running at
   all: a program that hangs would otherwise cost the whole timeout. The
   skipped modes are recorded here; the others are put in modes, in the
   selected order, for the worker to run. Returns their number. */
static uint32_t apply_skips(run_state *s, const vc_corpus_file *f, vc_program_acc *a,
                            vc_mode *modes) {
  const vc_conform_opts *co = &s->o->conform;
  uint32_t n = 0;
  if (!s->expect) {
    memcpy(modes, co->modes, co->nmodes * sizeof *modes);
    return co->nmodes;
  }
  /* Entries name the declared program (parsed once, before the run; a file
     that does not parse keeps its file name, as the worker records it). A
     program never sent to a worker is recorded with its identity from here. */
  if (f->program) {
    vc_program_info_of(f->program, 0, a->digest, a->tags, sizeof a->tags, &a->info);
    a->info.name = a->name;
    a->info.path = a->path;
    a->info.source = a->source;
  }
  vc_exp_config cfg = device_config(s);
  for (uint32_t m = 0; m < co->nmodes; m++) {
    const char *mode = vc_mode_name(co->modes[m]);
    const vc_expectation *x = vc_expectations_match(s->expect, &cfg, s->today, a->name, mode);
    if (!x || x->kind != VC_EXP_SKIP) {
      modes[n++] = co->modes[m];
      continue;
    }
    for (uint32_t r = 0; r < co->repeat; r++)
      vc_verdict_skipped(s->expect, x, vc_acc_new(a, mode, r));
  }
  return n;
}

/* Records the program, then judges each result against the expectations and
   shows it: the run's exit status is the sum of these verdicts. */
static int record_and_judge(run_state *s, item *it) {
  vc_program_acc *a = it->a;
  vc_error e;
  vc_error_clear(&e);
  vc_acc_put_times(a);
  if (vc_db_record_program(s->db, s->run_id, &a->info, a->res, a->n, &e)) return db_fail(s, &e);
  vc_verdict *v = malloc((a->n ? a->n : 1) * sizeof *v);
  if (!v) abort();
  vc_exp_config cfg = device_config(s);
  for (uint32_t i = 0; i < a->n; i++) {
    v[i] = vc_verdict_of(s->expect, &cfg, s->today, a->name, &a->res[i]);
    vc_run_verdict_add(&s->verdict, &v[i]);
  }
  vc_progress_results(&s->prog, it->pos, a->name, a->res, v, a->n);
  free(v);
  it->state = IT_RECORDED;
  vc_acc_free(a);
  free(a);
  it->a = NULL;
  return 0;
}

/* Sends one job to a ready worker: the program's index in the corpus, the
   attempt, then the modes. Returns 0 or -1 (the worker went away). */
static int send_job(slot *sl, const item *it) {
  vc_wbuf msg;
  vc_wbuf_init(&msg);
  vc_put_u64(&msg, it->idx);
  vc_put_u64(&msg, it->a->attempt);
  vc_put_u64(&msg, it->npending);
  for (uint32_t i = 0; i < it->npending; i++) vc_put_u64(&msg, (uint64_t)it->pending[i]);
  int rc = vc_msg_send(sl->w.to, VC_MSG_JOB, &msg) != 0 ? -1 : 0;
  vc_wbuf_free(&msg);
  return rc;
}

/* The program's timeout after the job's start, not counting the time it
   waited for a device token; 0: no timeout. A program's own
   (expect (timeout S)) replaces --timeout (docs/usage.md); its info comes
   with the program, so the deadline is set again then. */
static uint32_t job_timeout_s(const run_state *s, const slot *sl) {
  uint32_t own = sl->it ? sl->it->a->info.timeout_s : 0;
  return own ? own : s->o->timeout_s;
}

static uint64_t job_deadline(const run_state *s, const slot *sl) {
  uint32_t t = job_timeout_s(s, sl);
  return t ? sl->start_ns + sl->waited_ns + (uint64_t)t * 1000000000u : 0;
}

/* The step in flight, if any, ends now: its time goes to the program. */
static void end_step(slot *sl, uint64_t now) {
  if (sl->step >= 0 && sl->step < VC_PHASE_COUNT)
    sl->it->a->step_ns[sl->step] += now - sl->step_since;
  sl->step = -1;
}

/* A new mode (or a step) starts: nothing of the last one is carried. */
static void mode_times_reset(slot *sl, uint64_t mode_since) {
  sl->mode_since = mode_since;
  sl->mode_wait_ns = sl->mode_phase_ns = 0;
}

/* One attempt at a program: its pending modes in the slot's ready worker.
   A worker that went away between programs is stopped, and the program
   waits for the next ready one. */
static void start_job(run_state *s, slot *sl, item *it) {
  if (send_job(sl, it) != 0) {
    slot_stop(s, sl, SIGKILL);
    it->state = IT_QUEUED;
    return;
  }
  vc_program_acc *a = it->a;
  sl->it = it;
  memcpy(sl->modes, it->pending, it->npending * sizeof *sl->modes);
  sl->nmodes = it->npending;
  it->npending = 0;
  it->state = IT_RUNNING;
  a->cur_mode = -1;
  snprintf(a->phase, sizeof a->phase, "%s", vc_phase_name(VC_PHASE_SETUP));
  vc_progress_start(&s->prog, (uint32_t)(sl - s->slots), it->pos, a->name);
  sl->start_ns = vc_now_ns();
  sl->waited_ns = 0;
  sl->deadline = job_deadline(s, sl);
  sl->step = VC_PHASE_SETUP;
  sl->step_since = sl->start_ns;
  mode_times_reset(sl, 0);
}

/* The modes of the latest attempt with a result that a rerun may tell more
   of (vc_verdict_rerun: one that fails the run, or that only flake entries
   excuse). Returns their number. */
static uint32_t flaky_candidates(run_state *s, const vc_program_acc *a, vc_mode *modes) {
  vc_exp_config cfg = device_config(s);
  uint32_t n = 0;
  for (uint32_t i = 0; i < a->n; i++) {
    const vc_result *r = &a->res[i];
    int m = vc_mode_from_name(r->mode);
    if (r->attempts != a->attempt + 1) continue;
    if (!vc_verdict_rerun(s->expect, &cfg, s->today, a->name, r)) continue;
    bool have = false;
    for (uint32_t k = 0; k < n; k++) have |= (int)modes[k] == m;
    if (!have) modes[n++] = (vc_mode)m;
  }
  return n;
}

/* A job ended: its modes without a result go to a fresh worker; a program
   with every result in is rerun where it failed unexpectedly (up to
   --flake-reruns times, each in a fresh worker), else finished. */
static void job_ended(run_state *s, slot *sl, const vc_mode *rerun, uint32_t nrerun) {
  item *it = sl->it;
  vc_program_acc *a = it->a;
  uint64_t now = vc_now_ns();
  end_step(sl, now);
  a->flight_ns += now - sl->start_ns;
  sl->it = NULL;
  sl->wait_since = 0;
  vc_progress_stop(&s->prog, (uint32_t)(sl - s->slots));
  if (nrerun) {
    memcpy(it->pending, rerun, nrerun * sizeof *rerun);
    it->npending = nrerun;
    it->state = IT_QUEUED;
    return;
  }
  if (a->attempt < s->o->flake_reruns && (it->npending = flaky_candidates(s, a, it->pending))) {
    if (sl->w.pid > 0) slot_stop(s, sl, 0); /* a fresh worker for the rerun */
    a->attempt++;
    it->state = IT_QUEUED;
    return;
  }
  vc_acc_collapse_attempts(a);
  vc_acc_mark_nondeterministic(a);
  it->state = IT_FINISHED;
}

/* A token the slot held comes back; with --device-lock the lock goes with
   the last one out. */
static void token_back(run_state *s, slot *sl) {
  if (!sl->holds) return;
  sl->mode_phase_ns += vc_now_ns() - sl->grant_ns;
  sl->holds = false;
  s->tokens_out--;
  if (s->tokens_out == 0 && s->lock_held) {
    flock(s->lock_fd, LOCK_UN);
    s->lock_held = false;
  }
}

/* --device-lock: the first token out takes the lock, without blocking (the
   runner keeps serving its workers meanwhile; wait_for_workers tries again
   soon). Returns whether it is held. */
static bool take_lock(run_state *s) {
  s->lock_busy = false;
  if (s->lock_fd < 0 || s->lock_held) return true;
  if (flock(s->lock_fd, LOCK_EX | LOCK_NB) == 0) return s->lock_held = true;
  s->lock_busy = true;
  return false;
}

/* Hands free device tokens to the waiting workers, longest waiting first.
   The wait (for a token, and for --device-lock) does not count against a
   program's timeout. */
static void grant_tokens(run_state *s) {
  uint32_t cap = s->o->device_jobs ? s->o->device_jobs : 1;
  s->lock_busy = false;
  while (s->tokens_out < cap) {
    slot *best = NULL;
    for (uint32_t k = 0; k < s->nslots; k++) {
      slot *sl = &s->slots[k];
      if (sl->it && sl->wait_since && (!best || sl->wait_since < best->wait_since)) best = sl;
    }
    if (!best || !take_lock(s)) return;
    uint64_t now = vc_now_ns();
    best->waited_ns += now - best->wait_since;
    best->mode_wait_ns += now - best->wait_since;
    best->grant_ns = now;
    best->deadline = job_deadline(s, best);
    best->wait_since = 0;
    best->holds = true;
    s->tokens_out++;
    /* a worker gone meanwhile shows as end of file on its pipe */
    vc_msg_send(best->w.to, VC_MSG_GRANT, NULL);
  }
}

/* vc_acc_after_failure for the slot's job, its worker stopped already: the
   first row it makes (the step in flight) keeps what the worker wrote since
   its last result, a dying driver's last words. */
static uint32_t after_failure(run_state *s, slot *sl, vc_status st, const char *why,
                              vc_mode *rerun) {
  vc_program_acc *a = sl->it->a;
  uint32_t before = a->n;
  uint32_t n = vc_acc_after_failure(a, sl->modes, sl->nmodes, s->o->conform.repeat, st, why, rerun);
  if (a->n > before)
    snprintf(a->res[before].captured_stderr, sizeof a->res[before].captured_stderr, "%s",
             sl->w.last_words);
  return n;
}

static void on_timeout(run_state *s, slot *sl) {
  vc_program_acc *a = sl->it->a;
  vc_mode rerun[VC_MODE_COUNT];
  slot_stop(s, sl, SIGKILL);
  char why[256];
  snprintf(why, sizeof why, "no result within %u s (%s) during %s; worker killed",
           job_timeout_s(s, sl),
           a->info.timeout_s ? "the program's (expect (timeout S))" : "--timeout",
           a->cur_mode >= 0 ? vc_mode_name((vc_mode)a->cur_mode) : a->phase);
  uint32_t nrerun = after_failure(s, sl, VC_ST_TIMEOUT, why, rerun);
  job_ended(s, sl, rerun, nrerun);
}

/* One message from the slot's worker (its pipe is readable). */
static void on_message(run_state *s, slot *sl, vc_wbuf *msg) {
  vc_program_acc *a = sl->it->a;
  vc_mode rerun[VC_MODE_COUNT];
  uint32_t nrerun = 0;
  int type = 0;
  if (vc_msg_recv(sl->w.from, &type, msg) != 0) {
    int st = slot_stop(s, sl, SIGKILL);
    char why[256];
    crash_reason(st, a, why, sizeof why);
    nrerun = after_failure(s, sl, VC_ST_CRASH, why, rerun);
    job_ended(s, sl, rerun, nrerun);
    return;
  }
  if (type == VC_MSG_PROGRAM) {
    vc_program_info pi;
    vc_get_program_info(msg, &pi);
    snprintf(a->name, sizeof a->name, "%s", pi.name);
    snprintf(a->tags, sizeof a->tags, "%s", pi.tags);
    a->info = pi;
    a->info.name = a->name;
    a->info.path = a->path;
    a->info.source_digest = a->digest;
    a->info.tags = a->tags;
    a->info.source = a->source;
    if (!sl->wait_since) sl->deadline = job_deadline(s, sl);
  } else if (type == VC_MSG_PHASE) {
    uint64_t ph = vc_get_u64(msg), now = vc_now_ns();
    end_step(sl, now);
    mode_times_reset(sl, 0);
    sl->step = ph < VC_PHASE_COUNT ? (int)ph : -1;
    sl->step_since = now;
    snprintf(a->phase, sizeof a->phase, "%s", vc_phase_name((vc_phase)ph));
    vc_progress_mode(&s->prog, (uint32_t)(sl - s->slots), a->phase, 0);
  } else if (type == VC_MSG_MODE) {
    a->cur_mode = (int)vc_get_u64(msg);
    a->cur_repeat = (uint32_t)vc_get_u64(msg);
    uint64_t now = vc_now_ns();
    end_step(sl, now);
    mode_times_reset(sl, now);
    vc_progress_mode(&s->prog, (uint32_t)(sl - s->slots), vc_mode_name((vc_mode)a->cur_mode),
                     a->cur_repeat);
  } else if (type == VC_MSG_WANT) {
    sl->wait_since = vc_now_ns();
  } else if (type == VC_MSG_RELEASE) {
    token_back(s, sl);
  } else if (type == VC_MSG_RESULT) {
    vc_result *res = vc_acc_add(a);
    vc_get_result(msg, res, a->modes[a->n - 1], sizeof a->modes[0]);
    res->mode = a->modes[a->n - 1];
    res->attempts = a->attempt + 1;
    uint64_t now = vc_now_ns();
    res->mode_ns = sl->mode_since ? now - sl->mode_since : 0;
    res->wait_ns = sl->mode_wait_ns;
    res->phase_ns = sl->mode_phase_ns;
    mode_times_reset(sl, sl->mode_since ? now : 0);
  } else if (type == VC_MSG_DONE) {
    if (vc_get_u64(msg)) {
      /* It retires: a launch did not finish and the device is stuck. */
      slot_stop(s, sl, SIGKILL);
      nrerun = after_failure(s, sl, VC_ST_TIMEOUT, "a launch did not finish in time", rerun);
    }
    token_back(s, sl); /* a worker that forgot to give it back */
    job_ended(s, sl, rerun, nrerun);
  } else if (type == VC_MSG_FATAL) {
    vc_get_u64(msg);
    char why[512];
    snprintf(why, sizeof why, "worker failed: %s", vc_get_str(msg));
    slot_stop(s, sl, SIGKILL);
    nrerun = after_failure(s, sl, VC_ST_ERROR, why, rerun);
    job_ended(s, sl, rerun, nrerun);
  }
}

/* Waits up to a second (less before a deadline; 0.2 ms while
   --device-lock is held elsewhere) for the busy workers and those opening
   their device, then handles what came and the deadlines that passed.
   tick: show progress. Returns 0, or an exit status that ends the run (a
   worker failed to open the device). */
static int wait_for_workers(run_state *s, vc_wbuf *msg, bool tick) {
  struct pollfd *p = calloc(s->nslots, sizeof *p);
  uint32_t *which = calloc(s->nslots, sizeof *which);
  if (!p || !which) abort();
  uint32_t n = 0;
  uint64_t now = vc_now_ns();
  /* wake up to notice interrupts and to show progress; while --device-lock
     is held elsewhere, often enough that the device idles little between
     one run's phase and another's (flock has no wait with a timeout) */
  int ms = 1000;
  for (uint32_t k = 0; k < s->nslots; k++) {
    slot *sl = &s->slots[k];
    bool opening = sl->w.pid > 0 && !sl->ready;
    if (!sl->it && !opening) continue;
    uint64_t deadline = opening ? sl->open_deadline : sl->wait_since ? 0 : sl->deadline;
    if (deadline) {
      int left = deadline > now ? (int)((deadline - now) / 1000000u) + 1 : 0;
      if (left < ms) ms = left;
    }
    p[n] = (struct pollfd){sl->w.from, POLLIN, 0};
    which[n++] = k;
  }
  int r = poll(p, n, s->lock_busy ? 0 : ms);
  if (r == 0 && s->lock_busy && ms > 0) {
    nanosleep(&(struct timespec){0, 200000L}, NULL);
    r = poll(p, n, 0);
  }
  now = vc_now_ns();
  int status = 0;
  for (uint32_t i = 0; r > 0 && i < n && !status; i++) {
    slot *sl = &s->slots[which[i]];
    if (!p[i].revents) continue;
    if (sl->it) {
      on_message(s, sl, msg);
    } else if (sl->w.pid > 0 && !sl->ready) {
      int type = 0;
      int rc = vc_msg_recv(sl->w.from, &type, msg);
      status = open_answer(s, sl, rc, type, msg);
    }
  }
  for (uint32_t i = 0; i < n && !status; i++) {
    slot *sl = &s->slots[which[i]];
    /* a worker with a message waiting is read first: its result may be in */
    if (r > 0 && p[i].revents) continue;
    if (sl->it && !sl->wait_since && sl->deadline && now >= sl->deadline)
      on_timeout(s, sl);
    else if (!sl->it && sl->w.pid > 0 && !sl->ready && now >= sl->open_deadline)
      status = open_answer(s, sl, -2, 0, msg);
  }
  free(p);
  free(which);
  if (tick) vc_progress_tick(&s->prog);
  return status;
}

/* The next program to give a worker: one whose modes wait for a fresh
   worker, else the next not started (whose skipped modes are recorded
   here; one with nothing left to run is finished at once). */
static item *next_item(run_state *s, item *items, uint32_t n, uint32_t from, uint32_t *next_new) {
  for (uint32_t i = from; i < n; i++) /* those not started yet are IT_NEW */
    if (items[i].state == IT_QUEUED) return &items[i];
  while (*next_new < n) {
    uint32_t k = (*next_new)++;
    item *it = &items[s->order ? s->order[k] : k];
    /* kept from its start until it is recorded: a corpus of thousands
       holds only the programs in flight and those waiting to be recorded */
    it->a = calloc(1, sizeof *it->a);
    if (!it->a) abort();
    vc_acc_reset(it->a, &s->c->files[it->idx]);
    it->npending = apply_skips(s, &s->c->files[it->idx], it->a, it->pending);
    if (it->npending) return it;
    it->state = IT_FINISHED;
  }
  return NULL;
}

/* Whether a program waits for a worker, or one has not started. */
static bool work_left(const item *items, uint32_t n, uint32_t from, uint32_t next_new) {
  if (next_new < n) return true;
  for (uint32_t i = from; i < n; i++)
    if (items[i].state == IT_QUEUED) return true;
  return false;
}

/* Runs the programs, up to one per slot at once, and records them in their
   order. A slot whose worker was stopped gets a fresh one while programs
   are left; a job goes only to a worker that has opened its device. An
   interrupt stops every worker and records the programs that finished.
   Returns 0 or an exit status that ends the run. */
static int run_items(run_state *s, item *items, uint32_t n) {
  uint32_t next_new = 0, next_rec = 0;
  int status = 0;
  vc_wbuf msg;
  vc_wbuf_init(&msg);
  while (!status && next_rec < n) {
    if (g_interrupted) {
      status = VC_EXIT_INTERRUPTED;
      break;
    }
    for (uint32_t k = 0; k < s->nslots && !status; k++) {
      slot *sl = &s->slots[k];
      if (sl->it) continue;
      if (sl->w.pid <= 0) {
        if (work_left(items, n, next_rec, next_new)) status = spawn_worker(s, sl);
        continue;
      }
      if (!sl->ready) continue;
      item *it = next_item(s, items, n, next_rec, &next_new);
      if (!it) break;
      start_job(s, sl, it);
    }
    while (!status && next_rec < n && items[next_rec].state == IT_FINISHED)
      status = record_and_judge(s, &items[next_rec++]);
    if (status || next_rec == n) break;
    grant_tokens(s);
    status = wait_for_workers(s, &msg, true);
  }
  vc_wbuf_free(&msg);
  if (status == VC_EXIT_INTERRUPTED) {
    kill_all(s);
    for (uint32_t i = next_rec; i < n && status == VC_EXIT_INTERRUPTED; i++)
      if (items[i].state == IT_FINISHED && record_and_judge(s, &items[i])) status = VC_EXIT_DB;
  }
  for (uint32_t i = 0; i < n; i++)
    if (items[i].a) {
      vc_acc_free(items[i].a);
      free(items[i].a);
    }
  return status;
}

/* Two files that declare the same program name are refused (results are
   keyed by name). Returns 0 or an exit status. */
static int unique_names(const vc_corpus *c) {
  for (uint32_t i = 0; i < c->n; i++) {
    if (!c->files[i].program) continue;
    for (uint32_t j = i + 1; j < c->n; j++)
      if (c->files[j].program && strcmp(c->files[i].program->name, c->files[j].program->name) == 0) {
        fprintf(stderr, "vyre-conform: %s and %s both declare program %s; names must be unique\n",
                c->files[i].path, c->files[j].path, c->files[i].program->name);
        return VC_EXIT_INPUT;
      }
  }
  return 0;
}

static void join_list(vc_strbuf *sb, const char *const *v, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) vc_sb_printf(sb, "%s%s", i ? "," : "", v[i]);
}

/* A selection that leaves nothing to run is a usage error: a green run of
   no program would pass every gate. Names the step that emptied it. */
static int empty_selection(const vc_runner_opts *o, const char *step, uint32_t before) {
  vc_strbuf sb;
  vc_sb_init(&sb);
  if (!strcmp(step, "paths")) {
    vc_sb_puts(&sb, "no *.vyre program under ");
    for (uint32_t i = 0; i < o->npaths; i++) vc_sb_printf(&sb, "%s%s", i ? ", " : "", o->paths[i]);
  } else if (!strcmp(step, "shard")) {
    vc_sb_printf(&sb, "shard %u/%u of %u program%s is empty", o->shard_k, o->shard_n, before,
                 before == 1 ? "" : "s");
  } else {
    vc_sb_puts(&sb, "--exclude-tag ");
    join_list(&sb, o->exclude_tags, o->nexclude_tags);
    vc_sb_printf(&sb, " leaves none of the %u program%s", before, before == 1 ? "" : "s");
  }
  fprintf(stderr, "vyre-conform: nothing to run: %s\n", vc_sb_str(&sb));
  vc_sb_free(&sb);
  return VC_EXIT_USAGE;
}

/* --filter and --caselist: every glob must select a program, or the run is
   refused naming each one that does not (a typo in a caselist would
   otherwise drop its program from every run without a word). */
static int select_by_filters(const vc_runner_opts *o, vc_corpus *c) {
  if (!o->nfilters) return 0;
  uint32_t before = c->n, unmatched = 0;
  bool *matched = calloc(o->nfilters, sizeof *matched);
  if (!matched) abort();
  vc_corpus_select(c, o->filters, o->nfilters, matched);
  for (uint32_t g = 0; g < o->nfilters; g++) {
    if (matched[g]) continue;
    const char *from = o->filter_origins ? o->filter_origins[g] : "--filter";
    fprintf(stderr, "vyre-conform: %s%s%s matches none of the %u %s (by name or relative path)\n",
            from, strcmp(from, "--filter") ? ": " : " ", o->filters[g], before,
            vc_plural(before, "program", "programs"));
    unmatched++;
  }
  free(matched);
  if (!unmatched) return 0;
  fprintf(stderr, "vyre-conform: nothing to run: %s\n",
          c->n ? "every --filter and caselist line must select a program"
               : "no --filter or caselist line selects a program");
  return VC_EXIT_USAGE;
}

/* --shard-costs: read before anything is written; a file that cannot be
   read or parsed refuses the run (never a quiet fall back to estimates). */
static int load_shard_costs(const vc_runner_opts *o, vc_cost_table *t) {
  memset(t, 0, sizeof *t);
  if (!o->shard_costs) return 0;
  vc_error e;
  vc_error_clear(&e);
  if (!vc_cost_table_load(o->shard_costs, t, &e)) return 0;
  fprintf(stderr, "vyre-conform: --shard-costs: %s\n", e.msg);
  return VC_EXIT_INPUT;
}

/* The selection's digest and size (runs.selection_digest): by program
   name and source digest, as the programs table records them, so that
   merge can check a shard set against it. */
static void record_selection(const vc_corpus *c, vc_selection *sel) {
  vc_named_digest *items = calloc(c->n ? c->n : 1, sizeof *items);
  char (*names)[256] = calloc(c->n ? c->n : 1, sizeof *names);
  if (!items || !names) abort();
  for (uint32_t i = 0; i < c->n; i++) {
    vc_corpus_program_name(&c->files[i], names[i], sizeof names[i]);
    items[i] = (vc_named_digest){names[i], c->files[i].digest};
  }
  vc_selection_digest(items, c->n, sel->digest);
  sel->programs = c->n;
  vc_sb_init(&sel->list);
  for (uint32_t i = 0; i < c->n; i++)
    vc_sb_printf(&sel->list, "%s %s\n", items[i].digest, items[i].name);
  free(names);
  free(items);
}

/* What runs: the files under PATH, then --filter (name or path), parsing,
   --exclude-tag, and last --shard: every shard is cut from the same
   selection, which is recorded (sel, when not NULL) before it is cut. Each
   file is parsed here, once: the worker inherits the parsed programs. The
   shard plan needs them all parsed (their costs). costs: the --shard-costs
   table (empty: estimates). Returns 0 or an exit status. */
static int select_programs(const vc_runner_opts *o, const vc_cost_table *costs, vc_corpus *c,
                           vc_selection *sel) {
  if (!c->n) return empty_selection(o, "paths", 0);
  uint32_t before = c->n;
  int rc = select_by_filters(o, c);
  if (rc) return rc;
  vc_corpus_parse(c);
  before = c->n;
  for (uint32_t i = c->n; i-- > 0;) {
    bool ex = false;
    for (uint32_t t = 0; c->files[i].program && t < o->nexclude_tags && !ex; t++)
      ex = vc_program_has_tag(c->files[i].program, o->exclude_tags[t]);
    if (ex) vc_corpus_remove(c, i);
  }
  if (!c->n) return empty_selection(o, "tags", before);
  if ((rc = unique_names(c))) return rc;
  if (sel) record_selection(c, sel);
  before = c->n;
  if (o->shard_n) vc_shard_keep(c, costs, o->shard_k, o->shard_n);
  if (!c->n) return empty_selection(o, "shard", before);
  return 0;
}

/* --shard-plan N: the selection as N shards would split it, printed; no
   device is opened, nothing written. */
static int print_shard_plan(const vc_runner_opts *o) {
  vc_runner_opts all = *o;
  all.shard_n = all.shard_k = 0;
  vc_corpus c;
  memset(&c, 0, sizeof c);
  vc_error e;
  vc_error_clear(&e);
  vc_cost_table costs;
  int rc = load_shard_costs(o, &costs);
  if (!rc && vc_corpus_collect(&c, o->paths, o->npaths, &e)) {
    fprintf(stderr, "vyre-conform: %s\n", e.msg);
    rc = VC_EXIT_INPUT;
  }
  if (!rc) rc = select_programs(&all, &costs, &c, NULL);
  if (!rc) {
    vc_shard_plan p;
    vc_shard_plan_make(&c, &costs, o->shard_plan, &p);
    vc_shard_plan_print(&p, stdout);
    vc_shard_plan_free(&p);
  }
  vc_cost_table_free(&costs);
  vc_corpus_free(&c);
  return rc;
}

/* --inject-flip must name an output buffer and an element that some selected
   program has: a flip that lands nowhere would make the test pass vacuously. */
static int check_flip(const vc_runner_opts *o, const vc_corpus *c) {
  const vc_conform_opts *co = &o->conform;
  if (!co->flip_mode) return 0;
  bool mode_selected = false;
  for (uint32_t i = 0; i < co->nmodes; i++)
    mode_selected |= strcmp(vc_mode_name(co->modes[i]), co->flip_mode) == 0;
  if (!mode_selected) {
    fprintf(stderr, "vyre-conform: --inject-flip: mode %s is not among the modes run\n",
            co->flip_mode);
    return VC_EXIT_USAGE;
  }
  uint64_t largest = 0;
  bool named = false;
  for (uint32_t i = 0; i < c->n; i++) {
    const vc_program *p = c->files[i].program;
    int b = p ? vc_program_find_buffer(p, co->flip_buffer) : -1;
    if (b < 0 || p->buffers[b].access == VC_READ) continue;
    named = true;
    if (co->flip_index < p->buffers[b].count) return 0;
    if (p->buffers[b].count > largest) largest = p->buffers[b].count;
  }
  if (!named)
    fprintf(stderr, "vyre-conform: --inject-flip: no selected program has an output buffer %s\n",
            co->flip_buffer);
  else
    fprintf(stderr,
            "vyre-conform: --inject-flip: index %llu is past the end of every output buffer %s "
            "(the longest has %llu %s)\n",
            (unsigned long long)co->flip_index, co->flip_buffer, (unsigned long long)largest,
            vc_plural(largest, "element", "elements"));
  return VC_EXIT_USAGE;
}

/* The readable record of what was selected, kept with the run. */
static void selection_text(const vc_runner_opts *o, const vc_corpus *c, vc_strbuf *sb) {
  if (o->nfilters) {
    vc_sb_puts(sb, "filter=");
    join_list(sb, o->filters, o->nfilters);
    vc_sb_putc(sb, ' ');
  }
  if (o->nexclude_tags) {
    vc_sb_puts(sb, "exclude-tag=");
    join_list(sb, o->exclude_tags, o->nexclude_tags);
    vc_sb_putc(sb, ' ');
  }
  if (o->shard_n) vc_sb_printf(sb, "shard=%u/%u ", o->shard_k, o->shard_n);
  vc_sb_printf(sb, "programs=%u", c->n);
}

/* --resume: reopens the run and marks the programs it has finished (by the
   names parsed already: the corpus is not read again). */
static int resume(run_state *s, const vc_corpus *c, bool *done, vc_error *e) {
  vc_db_resume r;
  int rc = vc_db_resume_run(s->db, s->o->resume_run, s->o->backend, c->digest, &r, e);
  if (rc) return rc;
  s->run_id = s->o->resume_run;
  s->resumed = true;
  snprintf(s->resumed_device, sizeof s->resumed_device, "%s", r.device_name);
  uint32_t skipped = 0;
  for (uint32_t i = 0; i < c->n; i++) {
    char name[256];
    vc_corpus_program_name(&c->files[i], name, sizeof name);
    for (uint32_t k = 0; k < r.ndone && !done[i]; k++)
      if (strcmp(r.done[k], name) == 0) done[i] = true;
    skipped += done[i];
  }
  s->verdict.earlier = skipped; /* their results were judged by the run before */
  printf("vyre-conform: resuming run %lld: %u program%s done already\n", (long long)s->run_id,
         skipped, skipped == 1 ? "" : "s");
  vc_db_resume_free(&r);
  return 0;
}

/* Entries for this backend and device that are past their date fail the run
   loudly: a known failure must be looked at again, not carried forever. */
static uint32_t expired_entries(const run_state *s) {
  vc_exp_config cfg = device_config(s);
  uint32_t n = 0;
  for (uint32_t i = 0; i < s->expect->n; i++) {
    const vc_expectation *x = &s->expect->items[i];
    if (!vc_expectation_applies(x, &cfg) || !vc_expectation_expired(x, s->today)) continue;
    fprintf(stderr, "vyre-conform: %s:%u: expectation for %s %s expired on %s: %s\n",
            s->expect->file, x->line, x->program, x->mode, x->expires_text ? x->expires_text : "?",
            x->reason ? x->reason : "");
    n++;
  }
  return n;
}

/* --expectations FILE, none, or by default the project's for the backend:
   its entries apply only where the device matches their scope. Returns 0
   or an exit status. */
static int load_expectations(const vc_runner_opts *o, run_state *s, vc_expectations *store,
                             char *path, size_t n) {
  vc_error e;
  vc_error_clear(&e);
  path[0] = '\0';
  if (o->expectations && strcmp(o->expectations, "none") == 0) {
    snprintf(s->expect_says, sizeof s->expect_says, "none (--expectations none): every failure is new");
    return 0;
  }
  if (o->expectations) {
    snprintf(path, n, "%s", o->expectations);
    snprintf(s->expect_says, sizeof s->expect_says, "%s", path);
  } else {
    vc_default_exps d;
    vc_default_expectations(o->backend, &d);
    if (!d.found) {
      snprintf(s->expect_says, sizeof s->expect_says,
               "none found for %s (looked for %s): every failure is new; "
               "--expectations FILE names one",
               o->backend, d.looked);
      return 0;
    }
    snprintf(path, n, "%s", d.path);
    snprintf(s->expect_says, sizeof s->expect_says,
             "%s (the project's for this backend, from %s; --expectations none: off)", path,
             d.where);
  }
  if (vc_expectations_load(path, store, &e)) {
    fprintf(stderr, "vyre-conform: %s\n", e.msg);
    return VC_EXIT_INPUT;
  }
  s->expect = store;
  s->expect_file = path;
  return 0;
}

static void modes_text(const vc_runner_opts *o, char *out, size_t n) {
  size_t u = 0;
  out[0] = '\0';
  for (uint32_t i = 0; i < o->conform.nmodes && u < n; i++)
    u += (size_t)snprintf(out + u, n - u, "%s%s", i ? "," : "", vc_mode_name(o->conform.modes[i]));
}

/* What can refuse the run before it is written: the selection, the
   injected flip, the expectations file (the device: start_workers, next).
   Returns 0 or an exit status; nothing is in the database yet. */
static int prepare(run_state *s, vc_corpus *c, vc_expectations *expect) {
  const vc_runner_opts *o = s->o;
  vc_error e;
  vc_error_clear(&e);
  if (vc_corpus_collect(c, o->paths, o->npaths, &e)) {
    fprintf(stderr, "vyre-conform: %s\n", e.msg);
    return VC_EXIT_INPUT;
  }
  vc_cost_table costs;
  int rc = load_shard_costs(o, &costs);
  if (!rc) rc = select_programs(o, &costs, c, &s->selection);
  vc_cost_table_free(&costs);
  if (!rc) rc = check_flip(o, c);
  if (rc) return rc;
  vc_corpus_redigest(c); /* the digest covers what runs, not what was found */
  rc = load_expectations(o, s, expect, s->expect_path, sizeof s->expect_path);
  if (rc) return rc;
  if (o->device_lock) {
    s->lock_fd = open(o->device_lock, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (s->lock_fd < 0) {
      fprintf(stderr, "vyre-conform: --device-lock %s: %s\n", o->device_lock, strerror(errno));
      return VC_EXIT_USAGE;
    }
  }
  return 0;
}

/* Every worker opens its device at once; the run starts when one has. No
   more workers than programs to run (vc_schedule_workers): the slots past
   them stay empty for the whole run. Returns 0 or an exit status. */
static int start_workers(run_state *s, uint32_t programs) {
  s->nslots = vc_schedule_workers(s->o->jobs ? s->o->jobs : 1, programs);
  int rc = 0;
  for (uint32_t k = 0; k < s->nslots && !rc; k++) rc = spawn_worker(s, &s->slots[k]);
  vc_wbuf msg;
  vc_wbuf_init(&msg);
  while (!rc && !s->have_device)
    rc = g_interrupted ? VC_EXIT_INTERRUPTED : wait_for_workers(s, &msg, false);
  vc_wbuf_free(&msg);
  return rc;
}

int vc_run_corpus(const vc_runner_opts *o) {
  if (o->shard_plan) return print_shard_plan(o);
  vc_corpus c;
  memset(&c, 0, sizeof c);
  vc_error e;
  vc_error_clear(&e);
  run_state s;
  memset(&s, 0, sizeof s);
  s.o = o;
  s.c = &c;
  s.lock_fd = -1;
  vc_runlock_init(&s.runlock);
  s.today = vc_today_utc();
  s.nslots = o->jobs ? o->jobs : 1;
  s.slots = calloc(s.nslots, sizeof *s.slots);
  if (!s.slots) abort();
  vc_expectations expect;
  install_handlers();
  /* before the device is opened: a run still running elsewhere is refused */
  if (o->resume_run && vc_runlock_take(&s.runlock, o->db_path, o->resume_run, &e)) {
    fprintf(stderr, "vyre-conform: --resume: %s\n", e.msg);
    free(s.slots);
    return e.code == VC_ERR_USAGE ? VC_EXIT_USAGE : VC_EXIT_DB;
  }
  int prepared = prepare(&s, &c, &expect);
  /* a resumed run starts its workers once it knows what is left */
  if (!prepared && !o->resume_run) prepared = start_workers(&s, c.n);
  if (prepared) {
    vc_sb_free(&s.selection.list);
    vc_runlock_release(&s.runlock);
    kill_all(&s);
    free(s.slots);
    if (s.expect) vc_expectations_free(s.expect);
    vc_corpus_free(&c);
    return prepared;
  }
  if (vc_db_open(o->db_path, vc_run_db_busy_ms(o), &s.db, &e)) {
    vc_sb_free(&s.selection.list);
    kill_all(&s);
    free(s.slots);
    if (s.expect) vc_expectations_free(s.expect);
    fprintf(stderr, "vyre-conform: %s\n", e.msg);
    vc_corpus_free(&c);
    return VC_EXIT_DB;
  }
  char host[256] = "", shard[32] = "", modes[128], paths[4096] = "";
  gethostname(host, sizeof host - 1);
  if (o->shard_n) snprintf(shard, sizeof shard, "%u/%u", o->shard_k, o->shard_n);
  vc_strbuf opts, sel;
  vc_sb_init(&opts);
  vc_sb_init(&sel);
  /* The default expectations are recorded as the file they were, so that
     --resume judges by the same entries. */
  vc_runner_opts recorded = *o;
  if (!o->expectations) recorded.expectations = s.expect ? s.expect_file : "none";
  vc_run_settings_text(&recorded, &opts);
  selection_text(o, &c, &sel);
  modes_text(o, modes, sizeof modes);
  size_t u = 0;
  for (uint32_t i = 0; i < o->npaths && u < sizeof paths; i++)
    u += (size_t)snprintf(paths + u, sizeof paths - u, "%s%s", i ? " " : "", o->paths[i]);
  /* The file's digest, so that a package can prove which entries judged it. */
  char exps_sha[65] = "";
  if (s.expect && vc_digest_file(s.expect_file, exps_sha) != 0) snprintf(exps_sha, sizeof exps_sha, "unknown");
  vc_strbuf env;
  vc_sb_init(&env);
  vc_run_environment(&env);
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  vc_run_info ri = {VC_VERSION,
                    VC_GIT_COMMIT,
                    o->command_line,
                    host,
                    paths,
                    c.digest,
                    shard,
                    o->backend,
                    modes,
                    vc_sb_str(&opts),
                    (int64_t)now.tv_sec * 1000000000 + now.tv_nsec,
                    vc_sb_str(&sel),
                    s.selection.digest,
                    s.selection.programs,
                    vc_sb_str(&s.selection.list),
                    vc_build_id(),
                    s.plugin_id,
                    vc_sb_str(&env),
                    exps_sha};
  bool *done = calloc(c.n, sizeof *done);
  if (!done) abort();
  int opened =
      o->resume_run ? resume(&s, &c, done, &e) : vc_db_begin_run(s.db, &ri, &s.run_id, &e);
  if (!opened && !o->resume_run) opened = vc_runlock_take(&s.runlock, o->db_path, s.run_id, &e);
  vc_sb_free(&opts);
  vc_sb_free(&sel);
  vc_sb_free(&env);
  vc_sb_free(&s.selection.list);
  uint32_t todo = 0;
  for (uint32_t i = 0; i < c.n; i++) todo += !done[i];
  /* nothing written yet: a device that fails leaves the run resumable */
  int started = !opened && o->resume_run ? start_workers(&s, todo) : 0;
  if (opened || started) {
    vc_runlock_release(&s.runlock);
    if (opened) fprintf(stderr, "vyre-conform: %s\n", e.msg);
    kill_all(&s);
    free(s.slots);
    vc_db_close(s.db);
    vc_corpus_free(&c);
    free(done);
    if (s.expect) vc_expectations_free(s.expect);
    if (started) return started;
    return e.code == VC_ERR_USAGE ? VC_EXIT_USAGE : VC_EXIT_DB;
  }
  vc_progress_init(&s.prog, o->progress, o->backend, o->db_path, s.run_id, todo, s.nslots);
  printf("expectations: %s\n", s.expect_says);
  printf("build: %s, plugin %s\n", vc_build_id(), s.plugin_id);
  if (todo && s.nslots < o->jobs)
    printf("workers: %u (--jobs %u, no more than the programs to run)\n", s.nslots, o->jobs);
  int status = record_device(&s);
  item *items = calloc(todo ? todo : 1, sizeof *items);
  if (!items) abort();
  for (uint32_t i = 0, pos = 0; i < c.n; i++)
    if (!done[i]) {
      items[pos].idx = i;
      items[pos].pos = pos;
      pos++;
    }
  /* With several workers the costliest programs start first; one worker
     runs them in corpus order. */
  if (s.nslots > 1 && todo > 1) {
    uint32_t *idx = malloc(todo * sizeof *idx);
    s.order = malloc(todo * sizeof *s.order);
    if (!idx || !s.order) abort();
    for (uint32_t k = 0; k < todo; k++) idx[k] = items[k].idx;
    vc_schedule_order(s.c, idx, todo, s.order);
    free(idx);
  }
  if (!status) status = run_items(&s, items, todo);
  free(s.order);
  free(items);
  free(done);
  /* one still opening its device would answer a quit only once it has */
  for (uint32_t k = 0; k < s.nslots; k++)
    slot_stop(&s, &s.slots[k], s.slots[k].ready ? 0 : SIGKILL);
  free(s.slots);
  if (s.lock_fd >= 0) close(s.lock_fd);
  s.lock_fd = -1;

  const char *end = status == VC_EXIT_INTERRUPTED      ? "interrupted"
                    : status && status != VC_EXIT_FAIL ? "failed"
                                                       : "complete";
  if (status != VC_EXIT_DB && vc_db_end_run(s.db, s.run_id, end, &e)) {
    fprintf(stderr, "vyre-conform: %s\n", e.msg);
    status = VC_EXIT_DB;
  }
  vc_db_close(s.db);
  vc_runlock_release(&s.runlock);
  vc_progress_summary(&s.prog, &s.verdict, s.expect_file);
  vc_progress_free(&s.prog);
  if (s.expect) {
    s.verdict.expired = expired_entries(&s);
    vc_expectations_free(s.expect);
  }
  int verdict = vc_run_verdict_exit(&s.verdict);
  vc_corpus_free(&c);
  if (status == VC_EXIT_INTERRUPTED)
    fprintf(stderr, "vyre-conform: interrupted; run %lld is marked interrupted\n",
            (long long)s.run_id);
  return vc_exit_worst(status, verdict);
}
