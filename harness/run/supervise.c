/* The workers of a run (supervise.h): starting them, their jobs, their
 * messages, deadlines and deaths. */
#include "harness/run/supervise.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness/base/clock.h"
#include "harness/base/exitcodes.h"
#include "harness/model/verdict.h"
#include "harness/run/prepare.h"
#include "harness/run/runopts.h"
#include "harness/run/tokens.h"

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

int vc_slot_stop(run_state *s, slot *sl, int how) {
  vc_token_back(s, sl);
  sl->wait_since = 0;
  sl->ready = false;
  return stop_worker(&sl->w, how);
}

/* Kills every worker; the lock goes with them (a run that ends early). */
void vc_slots_kill(run_state *s) {
  for (uint32_t k = 0; k < s->nslots; k++) vc_slot_stop(s, &s->slots[k], SIGKILL);
  vc_device_lock_close(s);
}

/* Starts the slot's worker, which opens the device and then says so
   (VC_MSG_DEVICE): it gets no job before, so that the first worker ready
   takes the costliest program, not one still opening its device (a second
   on some drivers, more when several open at once). Returns 0, or an exit
   status. */
int vc_slot_spawn(run_state *s, slot *sl) {
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
  if (s->tokens.lock_fd >= 0) fds[nfds++] = s->tokens.lock_fd;
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
    /* Recorded by the caller once the run's row exists (vc_run_record_device). */
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
    vc_slot_stop(s, sl, SIGKILL);
    /* Options the plugin refuses are the user's mistake, not a missing device. */
    status = code == VC_ERR_USAGE ? VC_EXIT_USAGE
             : code == VC_ERR_NO_DRIVER || code == VC_ERR_NO_DEVICE || code == VC_ERR_ABI
                 ? VC_EXIT_NO_BACKEND
                 : VC_EXIT_FAIL;
  } else {
    int st = vc_slot_stop(s, sl, SIGKILL);
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

static void crash_reason(int st, const vc_program_acc *a, char *out, size_t n) {
  const char *mode = a->cur_mode >= 0 ? vc_mode_name((vc_mode)a->cur_mode) : a->phase;
  if (WIFSIGNALED(st))
    snprintf(out, n, "worker killed by signal %d (%s) during %s", WTERMSIG(st),
             strsignal(WTERMSIG(st)), mode);
  else
    snprintf(out, n, "worker exited with status %d during %s", WEXITSTATUS(st), mode);
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

uint64_t vc_job_deadline(const run_state *s, const slot *sl) {
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
void vc_slot_start_job(run_state *s, slot *sl, item *it) {
  if (send_job(sl, it) != 0) {
    vc_slot_stop(s, sl, SIGKILL);
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
  sl->deadline = vc_job_deadline(s, sl);
  sl->step = VC_PHASE_SETUP;
  sl->step_since = sl->start_ns;
  mode_times_reset(sl, 0);
}

/* The modes of the latest attempt with a result that a rerun may tell more
   of (vc_verdict_rerun: one that fails the run, or that only flake entries
   excuse). Returns their number. */
static uint32_t flaky_candidates(run_state *s, const vc_program_acc *a, vc_mode *modes) {
  vc_exp_config cfg = vc_run_exp_config(s);
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
    if (sl->w.pid > 0) vc_slot_stop(s, sl, 0); /* a fresh worker for the rerun */
    a->attempt++;
    it->state = IT_QUEUED;
    return;
  }
  vc_acc_collapse_attempts(a);
  vc_acc_mark_nondeterministic(a);
  it->state = IT_FINISHED;
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
  vc_slot_stop(s, sl, SIGKILL);
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
    int st = vc_slot_stop(s, sl, SIGKILL);
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
    if (!sl->wait_since) sl->deadline = vc_job_deadline(s, sl);
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
    vc_token_back(s, sl);
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
      vc_slot_stop(s, sl, SIGKILL);
      nrerun = after_failure(s, sl, VC_ST_TIMEOUT, "a launch did not finish in time", rerun);
    }
    vc_token_back(s, sl); /* a worker that forgot to give it back */
    job_ended(s, sl, rerun, nrerun);
  } else if (type == VC_MSG_FATAL) {
    vc_get_u64(msg);
    char why[512];
    snprintf(why, sizeof why, "worker failed: %s", vc_get_str(msg));
    vc_slot_stop(s, sl, SIGKILL);
    nrerun = after_failure(s, sl, VC_ST_ERROR, why, rerun);
    job_ended(s, sl, rerun, nrerun);
  }
}

/* Waits up to a second (less before a deadline; 0.2 ms while
   --device-lock is held elsewhere) for the busy workers and those opening
   their device, then handles what came and the deadlines that passed.
   tick: show progress. Returns 0, or an exit status that ends the run (a
   worker failed to open the device). */
int vc_workers_wait(run_state *s, vc_wbuf *msg, bool tick) {
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
  int r = poll(p, n, s->tokens.lock_busy ? 0 : ms);
  if (r == 0 && s->tokens.lock_busy && ms > 0) {
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
