#include "harness/run/runner.h"

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
#include "harness/lang/corpus.h"
#include "harness/base/exitcodes.h"
#include "harness/base/version.h"
#include "harness/lang/parse.h"
#include "harness/run/progress.h"
#include "harness/base/strbuf.h"
#include "harness/run/wire.h"
#include "harness/model/expectations.h"
#include "harness/exec/verdict.h"

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
  signal(SIGPIPE, SIG_IGN);
}

typedef struct worker {
  pid_t pid;
  int to, from; /* pipe ends: jobs to the worker, messages from it */
} worker;

static int start_worker(const vc_runner_opts *o, worker *w, vc_error *err) {
  int down[2], up[2];
  if (pipe(down) || pipe(up)) return vc_fail(err, VC_ERR_IO, "pipe: %s", strerror(errno));
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) return vc_fail(err, VC_ERR_IO, "fork: %s", strerror(errno));
  if (pid == 0) {
    close(down[1]);
    close(up[0]);
    _exit(vc_worker_main(down[0], up[1], o));
  }
  close(down[0]);
  close(up[1]);
  w->pid = pid;
  w->to = down[1];
  w->from = up[0];
  return 0;
}

/* Ends the worker: `how` 0 asks it to quit, a signal number kills it.
   Returns its wait status. */
static int stop_worker(worker *w, int how) {
  if (w->pid <= 0) return 0;
  if (how)
    kill(w->pid, how);
  else
    vc_msg_send(w->to, VC_MSG_QUIT, NULL);
  close(w->to);
  close(w->from);
  int st = 0;
  while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR) {
  }
  w->pid = 0;
  return st;
}

/* Waits for one message; -2 on timeout, -3 on interrupt, 1 on end of file. */
static int recv_until(worker *w, uint64_t deadline_ns, int *type, vc_wbuf *msg) {
  for (;;) {
    if (g_interrupted) return -3;
    uint64_t now = vc_now_ns();
    if (deadline_ns && now >= deadline_ns) return -2;
    int ms = deadline_ns ? (int)((deadline_ns - now) / 1000000u) + 1 : 1000;
    if (!deadline_ns || ms > 1000) ms = 1000; /* wake up to notice interrupts */
    struct pollfd p = {w->from, POLLIN, 0};
    int n = poll(&p, 1, ms);
    if (n < 0 && errno != EINTR) return -1;
    if (n > 0) return vc_msg_recv(w->from, type, msg);
  }
}

/* Results of the program in flight, kept until it is recorded. */
typedef struct program_acc {
  char name[256], path[4096], digest[65], tags[512];
  vc_program_info info;
  vc_result *res;
  char (*modes)[32];
  uint32_t n, cap;
  int cur_mode; /* mode in flight, -1 before any */
  uint32_t cur_repeat;
} program_acc;

static void acc_free_results(program_acc *a) {
  for (uint32_t i = 0; i < a->n; i++) {
    free(a->res[i].divs);
    free(a->res[i].segs);
  }
  a->n = 0;
}

static void acc_reset(program_acc *a, const vc_corpus_file *f) {
  acc_free_results(a);
  a->cur_mode = -1;
  a->cur_repeat = 0;
  memset(&a->info, 0, sizeof a->info);
  vc_corpus_file_name(f->rel, a->name, sizeof a->name);
  snprintf(a->path, sizeof a->path, "%s", f->path);
  memcpy(a->digest, f->digest, sizeof a->digest);
  a->tags[0] = '\0';
  a->info.name = a->name;
  a->info.path = a->path;
  a->info.source_digest = a->digest;
  a->info.tags = a->tags;
}

static void acc_free(program_acc *a) {
  acc_free_results(a);
  free(a->res);
  free(a->modes);
  memset(a, 0, sizeof *a);
}

static vc_result *acc_add(program_acc *a) {
  if (a->n == a->cap) {
    a->cap = a->cap ? a->cap * 2 : 8;
    a->res = realloc(a->res, a->cap * sizeof *a->res);
    a->modes = realloc(a->modes, a->cap * sizeof *a->modes);
    if (!a->res || !a->modes) abort();
    /* mode names live in a->modes: re-point after the move */
    for (uint32_t i = 0; i < a->n; i++) a->res[i].mode = a->modes[i];
  }
  vc_result *r = &a->res[a->n++];
  memset(r, 0, sizeof *r);
  r->mode = a->modes[a->n - 1];
  return r;
}

static bool acc_has(const program_acc *a, const char *mode, uint32_t repeat) {
  for (uint32_t i = 0; i < a->n; i++)
    if (strcmp(a->res[i].mode, mode) == 0 && a->res[i].repeat == repeat) return true;
  return false;
}

/* After a worker died or was killed: the mode in flight gets `st`, every mode
   not reached is recorded as not run (verdict.c decides both). */
static void acc_finish_failed(program_acc *a, const vc_runner_opts *o, vc_status st,
                              const char *reason) {
  bool past_flight = false;
  for (uint32_t m = 0; m < o->conform.nmodes; m++)
    for (uint32_t r = 0; r < o->conform.repeat; r++) {
      const char *mode = vc_mode_name(o->conform.modes[m]);
      if (acc_has(a, mode, r)) continue;
      bool in_flight =
          !past_flight &&
          (a->cur_mode < 0 || ((int)o->conform.modes[m] == a->cur_mode && r == a->cur_repeat));
      vc_result *res = acc_add(a);
      snprintf(a->modes[a->n - 1], sizeof a->modes[0], "%s", mode);
      res->repeat = r;
      vc_verdict_worker_stopped(st, reason, in_flight, res);
      past_flight = past_flight || in_flight;
    }
}

/* Results of one mode whose output changed between repeats are flagged. */
static void mark_nondeterministic(program_acc *a) {
  for (uint32_t i = 0; i < a->n; i++)
    for (uint32_t j = i + 1; j < a->n; j++)
      if (strcmp(a->res[i].mode, a->res[j].mode) == 0 && a->res[i].output_digest[0] &&
          a->res[j].output_digest[0] &&
          strcmp(a->res[i].output_digest, a->res[j].output_digest) != 0)
        a->res[i].nondeterministic = a->res[j].nondeterministic = true;
}

typedef struct run_state {
  const vc_runner_opts *o;
  vc_db *db;
  int64_t run_id;
  worker w;
  bool have_device;
  vc_device_info device;
  vc_expectations *expect; /* NULL with --expectations none or no default */
  const char *expect_file; /* where they were read from */
  vc_run_verdict verdict;
  bool resumed;            /* --resume: the device is recorded already */
  char resumed_device[256];
  int today;
  vc_progress prog;
  int exit_code;
} run_state;

static int db_fail(run_state *s, const vc_error *e) {
  fprintf(stderr, "vyre-conform: %s\n", e->msg);
  stop_worker(&s->w, SIGKILL);
  return VC_EXIT_DB;
}

/* Starts a worker and waits for its device. Returns 0, or an exit status. */
static int ensure_worker(run_state *s) {
  if (s->w.pid > 0) return 0;
  vc_error e;
  vc_error_clear(&e);
  if (start_worker(s->o, &s->w, &e)) {
    fprintf(stderr, "vyre-conform: %s\n", e.msg);
    return VC_EXIT_FAIL;
  }
  vc_wbuf msg;
  vc_wbuf_init(&msg);
  int type = 0;
  /* Opening a device can take a while (driver start); a hang here is a
     broken driver and counts against the first program's timeout. */
  uint64_t deadline =
      vc_now_ns() + (uint64_t)(s->o->timeout_s ? s->o->timeout_s : 600) * 1000000000u;
  int rc = recv_until(&s->w, deadline, &type, &msg);
  int status = 0;
  if (rc == 0 && type == VC_MSG_DEVICE) {
    vc_device_info info;
    vc_get_bytes(&msg, &info, sizeof info);
    const char *fingerprint = vc_get_str(&msg);
    if (!s->have_device) {
      s->have_device = true;
      s->device = info;
      vc_progress_device(&s->prog, &info, fingerprint);
      if (s->resumed && s->resumed_device[0] && strcmp(s->resumed_device, info.device_name)) {
        fprintf(stderr, "vyre-conform: run %lld ran on %s, this device is %s\n",
                (long long)s->run_id, s->resumed_device, info.device_name);
        stop_worker(&s->w, SIGKILL);
        status = VC_EXIT_USAGE;
      } else if ((!s->resumed || !s->resumed_device[0]) &&
                 vc_db_record_device(s->db, s->run_id, &info, fingerprint, &e)) {
        status = db_fail(s, &e);
      }
    }
  } else if (rc == 0 && type == VC_MSG_FATAL) {
    vc_errcode code = (vc_errcode)vc_get_u64(&msg);
    fprintf(stderr, "vyre-conform: backend %s, device %u: %s\n", s->o->backend, s->o->device,
            vc_get_str(&msg));
    stop_worker(&s->w, SIGKILL);
    /* VC_ERR_USAGE: the plugin refused --device-options */
    status = code == VC_ERR_USAGE ? VC_EXIT_USAGE
             : code == VC_ERR_NO_DRIVER || code == VC_ERR_NO_DEVICE || code == VC_ERR_ABI
                 ? VC_EXIT_NO_BACKEND
                 : VC_EXIT_FAIL;
  } else if (rc == -3) {
    stop_worker(&s->w, SIGKILL);
    status = VC_EXIT_INTERRUPTED;
  } else {
    int st = stop_worker(&s->w, SIGKILL);
    fprintf(stderr, "vyre-conform: backend %s: the worker process %s while opening device %u\n",
            s->o->backend,
            rc == -2          ? "hung"
            : WIFSIGNALED(st) ? strsignal(WTERMSIG(st))
                              : "exited",
            s->o->device);
    status = VC_EXIT_NO_BACKEND;
  }
  vc_wbuf_free(&msg);
  return status;
}

static void crash_reason(int st, const program_acc *a, char *out, size_t n) {
  const char *mode = a->cur_mode >= 0 ? vc_mode_name((vc_mode)a->cur_mode) : "setup";
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

static bool any_skip_applies(const run_state *s) {
  vc_exp_config cfg = device_config(s);
  for (uint32_t i = 0; s->expect && i < s->expect->n; i++)
    if (s->expect->items[i].kind == VC_EXP_SKIP &&
        vc_expectation_applies(&s->expect->items[i], &cfg))
      return true;
  return false;
}

/* Skip expectations keep a program (or some of its modes) from running at
   all: a program that hangs would otherwise cost the whole timeout. The
   skipped modes are recorded here; returns the mask (bit per vc_mode) of
   the modes the worker is to run. */
static uint64_t apply_skips(run_state *s, const vc_corpus_file *f, program_acc *a) {
  uint64_t all = 0;
  for (uint32_t m = 0; m < s->o->conform.nmodes; m++) all |= 1ull << s->o->conform.modes[m];
  if (!any_skip_applies(s)) return all;
  /* Entries name the declared program; a file that does not parse keeps
     its file name, as the worker would record it. */
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = vc_parse_file(f->path, &d);
  if (p) {
    snprintf(a->name, sizeof a->name, "%s", p->name);
    vc_program_info_of(p, 0, a->digest, a->tags, sizeof a->tags, &a->info);
    a->info.name = a->name;
    a->info.path = a->path;
  }
  vc_program_free(p);
  vc_diags_free(&d);
  vc_exp_config cfg = device_config(s);
  uint64_t run = 0;
  for (uint32_t m = 0; m < s->o->conform.nmodes; m++) {
    const char *mode = vc_mode_name(s->o->conform.modes[m]);
    const vc_expectation *x = vc_expectations_match(s->expect, &cfg, s->today, a->name, mode);
    if (!x || x->kind != VC_EXP_SKIP) {
      run |= 1ull << s->o->conform.modes[m];
      continue;
    }
    for (uint32_t r = 0; r < s->o->conform.repeat; r++) {
      vc_result *res = acc_add(a);
      snprintf(a->modes[a->n - 1], sizeof a->modes[0], "%s", mode);
      res->repeat = r;
      vc_verdict_skipped(s->expect, x, res);
    }
  }
  return run;
}

/* Records the program, then judges each result against the expectations and
   shows it: the run's exit status is the sum of these verdicts. */
static int record_and_judge(run_state *s, program_acc *a) {
  vc_error e;
  vc_error_clear(&e);
  if (vc_db_record_program(s->db, s->run_id, &a->info, a->res, a->n, &e)) return db_fail(s, &e);
  vc_verdict *v = malloc((a->n ? a->n : 1) * sizeof *v);
  if (!v) abort();
  vc_exp_config cfg = device_config(s);
  for (uint32_t i = 0; i < a->n; i++) {
    v[i] = vc_verdict_of(s->expect, &cfg, s->today, a->name, &a->res[i]);
    vc_run_verdict_add(&s->verdict, &v[i]);
  }
  vc_progress_results(&s->prog, a->name, a->res, v, a->n);
  free(v);
  return 0;
}

/* Runs one program; records it unless the run is interrupted. Returns 0 or
   an exit status that ends the run. */
static int run_one(run_state *s, const vc_corpus_file *f, program_acc *a, uint32_t idx,
                   uint32_t total) {
  int rc = ensure_worker(s);
  if (rc) return rc;
  acc_reset(a, f);
  uint64_t modes = apply_skips(s, f, a);
  vc_progress_program(&s->prog, idx, total, a->name);
  if (!modes) return record_and_judge(s, a);
  vc_wbuf msg;
  vc_wbuf_init(&msg);
  vc_put_str(&msg, f->path);
  vc_put_u64(&msg, modes);
  if (vc_msg_send(s->w.to, VC_MSG_JOB, &msg) != 0) {
    /* The worker went away between programs: start another and try once more. */
    stop_worker(&s->w, SIGKILL);
    if ((rc = ensure_worker(s)) || vc_msg_send(s->w.to, VC_MSG_JOB, &msg) != 0) {
      vc_wbuf_free(&msg);
      return rc ? rc : VC_EXIT_FAIL;
    }
  }
  uint64_t deadline = s->o->timeout_s ? vc_now_ns() + (uint64_t)s->o->timeout_s * 1000000000u : 0;
  for (;;) {
    int type = 0;
    int r = recv_until(&s->w, deadline, &type, &msg);
    if (r == -3) {
      stop_worker(&s->w, SIGKILL);
      vc_wbuf_free(&msg);
      return VC_EXIT_INTERRUPTED;
    }
    if (r == -2) {
      stop_worker(&s->w, SIGKILL);
      char why[256];
      snprintf(why, sizeof why, "no result within %u s (--timeout); worker killed",
               s->o->timeout_s);
      acc_finish_failed(a, s->o, VC_ST_TIMEOUT, why);
      break;
    }
    if (r != 0) {
      int st = stop_worker(&s->w, SIGKILL);
      char why[256];
      crash_reason(st, a, why, sizeof why);
      acc_finish_failed(a, s->o, VC_ST_CRASH, why);
      break;
    }
    if (type == VC_MSG_PROGRAM) {
      vc_program_info pi;
      vc_get_program_info(&msg, &pi);
      snprintf(a->name, sizeof a->name, "%s", pi.name);
      snprintf(a->tags, sizeof a->tags, "%s", pi.tags);
      a->info = pi;
      a->info.name = a->name;
      a->info.path = a->path;
      a->info.source_digest = a->digest;
      a->info.tags = a->tags;
    } else if (type == VC_MSG_MODE) {
      a->cur_mode = (int)vc_get_u64(&msg);
      a->cur_repeat = (uint32_t)vc_get_u64(&msg);
      vc_progress_mode(&s->prog, vc_mode_name((vc_mode)a->cur_mode), a->cur_repeat);
    } else if (type == VC_MSG_RESULT) {
      vc_result *res = acc_add(a);
      vc_get_result(&msg, res, a->modes[a->n - 1], sizeof a->modes[0]);
      res->mode = a->modes[a->n - 1];
    } else if (type == VC_MSG_DONE) {
      if (vc_get_u64(&msg)) stop_worker(&s->w, SIGKILL); /* it retires: device stuck */
      break;
    } else if (type == VC_MSG_FATAL) {
      vc_get_u64(&msg);
      char why[512];
      snprintf(why, sizeof why, "worker failed: %s", vc_get_str(&msg));
      stop_worker(&s->w, SIGKILL);
      acc_finish_failed(a, s->o, VC_ST_ERROR, why);
      break;
    }
  }
  vc_wbuf_free(&msg);
  mark_nondeterministic(a);
  return record_and_judge(s, a);
}

/* Reads every program once before the run: leaves out excluded tags, and
   refuses two files that declare the same program name (results are keyed
   by name). Returns 0 or an exit status. */
static int screen_programs(const vc_runner_opts *o, vc_corpus *c) {
  char **names = calloc(c->n ? c->n : 1, sizeof *names);
  if (!names) abort();
  int status = 0;
  for (uint32_t i = c->n; i-- > 0;) {
    vc_diags d;
    vc_diags_init(&d);
    vc_program *p = vc_parse_file(c->files[i].path, &d);
    bool ex = false;
    for (uint32_t t = 0; p && t < o->nexclude_tags && !ex; t++)
      ex = vc_program_has_tag(p, o->exclude_tags[t]);
    if (p && !ex) {
      names[i] = vc_strdup(p->name);
    }
    vc_program_free(p);
    vc_diags_free(&d);
    if (ex) {
      vc_corpus_remove(c, i);
      memmove(&names[i], &names[i + 1], (c->n - i) * sizeof *names);
    }
  }
  for (uint32_t i = 0; i < c->n && !status; i++)
    for (uint32_t j = i + 1; names[i] && j < c->n; j++)
      if (names[j] && strcmp(names[i], names[j]) == 0) {
        fprintf(stderr, "vyre-conform: %s and %s both declare program %s; names must be unique\n",
                c->files[i].path, c->files[j].path, names[i]);
        status = VC_EXIT_INPUT;
        break;
      }
  for (uint32_t i = 0; i < c->n; i++) free(names[i]);
  free(names);
  return status;
}

/* --resume: reopens the run and leaves out the programs it has finished. */
static int resume(run_state *s, vc_corpus *c, const char *digest, vc_error *e) {
  vc_db_resume r;
  int rc = vc_db_resume_run(s->db, s->o->resume_run, s->o->backend, digest, &r, e);
  if (rc) return rc;
  s->run_id = s->o->resume_run;
  s->resumed = true;
  snprintf(s->resumed_device, sizeof s->resumed_device, "%s", r.device_name);
  uint32_t skipped = 0;
  for (uint32_t i = c->n; i-- > 0;) {
    vc_diags d;
    vc_diags_init(&d);
    vc_program *p = vc_parse_file(c->files[i].path, &d);
    /* A file that does not parse is recorded under its file name. */
    char name[256];
    if (p)
      snprintf(name, sizeof name, "%s", p->name);
    else
      vc_corpus_file_name(c->files[i].rel, name, sizeof name);
    vc_program_free(p);
    vc_diags_free(&d);
    for (uint32_t k = 0; k < r.ndone; k++)
      if (strcmp(r.done[k], name) == 0) {
        vc_corpus_remove(c, i);
        skipped++;
        break;
      }
  }
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

#ifndef VC_SOURCE_EXPECTATIONS_DIR
#define VC_SOURCE_EXPECTATIONS_DIR ""
#endif
#ifndef VC_BUILD_BINARY_DIR
#define VC_BUILD_BINARY_DIR ""
#endif
#ifndef VC_INSTALL_EXPECTATIONS_DIR
#define VC_INSTALL_EXPECTATIONS_DIR "/usr/local/share/vyre-conform/expectations"
#endif

/* The project's expectations for a backend (ci/expectations/BACKEND.txt):
   the binary of a build tree reads the source tree's, an installed one
   those installed beside it (PREFIX/share/vyre-conform/expectations, found
   from the binary's own place, then from the configured prefix). Returns
   false when there are none. */
static bool default_expectations(const char *backend, char *out, size_t n) {
  char self[4096];
  ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  char dirs[3][4200];
  uint32_t nd = 0;
  if (len > 0) {
    self[len] = '\0';
    char *slash = strrchr(self, '/');
    if (slash) *slash = '\0';
    if (VC_BUILD_BINARY_DIR[0] && strcmp(self, VC_BUILD_BINARY_DIR) == 0)
      snprintf(dirs[nd++], sizeof dirs[0], "%s", VC_SOURCE_EXPECTATIONS_DIR);
    else
      snprintf(dirs[nd++], sizeof dirs[0], "%s/../share/vyre-conform/expectations", self);
  }
  snprintf(dirs[nd++], sizeof dirs[0], "%s", VC_INSTALL_EXPECTATIONS_DIR);
  for (uint32_t i = 0; i < nd; i++) {
    if (!dirs[i][0]) continue;
    snprintf(out, n, "%s/%s.txt", dirs[i], backend);
    if (access(out, R_OK) == 0) return true;
  }
  out[0] = '\0';
  return false;
}

/* --expectations FILE, none, or by default the project's for the backend:
   its entries apply only where the device matches their scope. Returns 0
   or an exit status. */
static int load_expectations(const vc_runner_opts *o, run_state *s, vc_expectations *store,
                             char *path, size_t n) {
  vc_error e;
  vc_error_clear(&e);
  path[0] = '\0';
  if (o->expectations && strcmp(o->expectations, "none") == 0) return 0;
  if (o->expectations)
    snprintf(path, n, "%s", o->expectations);
  else if (!default_expectations(o->backend, path, n))
    return 0;
  if (vc_expectations_load(path, store, &e)) {
    fprintf(stderr, "vyre-conform: %s\n", e.msg);
    return VC_EXIT_INPUT;
  }
  s->expect = store;
  s->expect_file = path;
  return 0;
}

static void options_text(const vc_runner_opts *o, char *out, size_t n) {
  size_t u = (size_t)snprintf(out, n, "device=%u repeat=%u timeout=%u", o->device,
                              o->conform.repeat, o->timeout_s);
  if (o->filter && u < n) u += (size_t)snprintf(out + u, n - u, " filter=%s", o->filter);
  for (uint32_t i = 0; i < o->nexclude_tags && u < n; i++)
    u += (size_t)snprintf(out + u, n - u, " exclude-tag=%s", o->exclude_tags[i]);
  if (o->expectations && u < n)
    u += (size_t)snprintf(out + u, n - u, " expectations=%s", o->expectations);
  if (o->device_options && u < n)
    u += (size_t)snprintf(out + u, n - u, " device-options=%s", o->device_options);
  if (o->conform.oracle.order != VC_ORDER_FORWARD && u < n)
    snprintf(out + u, n - u, " oracle-order=%s:%llu",
             o->conform.oracle.order == VC_ORDER_REVERSE ? "reverse" : "shuffle",
             (unsigned long long)o->conform.oracle.seed);
}

static void modes_text(const vc_runner_opts *o, char *out, size_t n) {
  size_t u = 0;
  out[0] = '\0';
  for (uint32_t i = 0; i < o->conform.nmodes && u < n; i++)
    u += (size_t)snprintf(out + u, n - u, "%s%s", i ? "," : "", vc_mode_name(o->conform.modes[i]));
}

int vc_run_corpus(const vc_runner_opts *o) {
  vc_corpus c;
  vc_error e;
  vc_error_clear(&e);
  if (vc_corpus_collect(&c, o->paths, o->npaths, &e)) {
    fprintf(stderr, "vyre-conform: %s\n", e.msg);
    vc_corpus_free(&c);
    return VC_EXIT_INPUT;
  }
  char corpus_digest[65];
  memcpy(corpus_digest, c.digest, sizeof corpus_digest);
  vc_corpus_filter(&c, o->filter);
  if (o->shard_n) vc_corpus_shard(&c, o->shard_k, o->shard_n);
  int screened = screen_programs(o, &c);
  if (screened) {
    vc_corpus_free(&c);
    return screened;
  }

  run_state s;
  memset(&s, 0, sizeof s);
  s.o = o;
  s.today = vc_today_utc();
  vc_expectations expect;
  char expect_path[4300];
  int loaded = load_expectations(o, &s, &expect, expect_path, sizeof expect_path);
  if (loaded) {
    vc_corpus_free(&c);
    return loaded;
  }
  if (vc_db_open(o->db_path, 5000, &s.db, &e)) {
    if (s.expect) vc_expectations_free(s.expect);
    fprintf(stderr, "vyre-conform: %s\n", e.msg);
    vc_corpus_free(&c);
    return VC_EXIT_DB;
  }
  char host[256] = "", shard[32] = "", opts[1024], modes[128], paths[4096] = "";
  gethostname(host, sizeof host - 1);
  if (o->shard_n) snprintf(shard, sizeof shard, "%u/%u", o->shard_k, o->shard_n);
  options_text(o, opts, sizeof opts);
  if (s.expect && !o->expectations) { /* the default, recorded as the file it was */
    size_t used = strlen(opts);
    snprintf(opts + used, sizeof opts - used, " expectations=%s", s.expect_file);
  }
  modes_text(o, modes, sizeof modes);
  size_t u = 0;
  for (uint32_t i = 0; i < o->npaths && u < sizeof paths; i++)
    u += (size_t)snprintf(paths + u, sizeof paths - u, "%s%s", i ? " " : "", o->paths[i]);
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  vc_run_info ri = {VC_VERSION,
                    VC_GIT_COMMIT,
                    o->command_line,
                    host,
                    paths,
                    corpus_digest,
                    shard,
                    o->backend,
                    modes,
                    opts,
                    (int64_t)now.tv_sec * 1000000000 + now.tv_nsec,
                    ""};
  int opened =
      o->resume_run ? resume(&s, &c, corpus_digest, &e) : vc_db_begin_run(s.db, &ri, &s.run_id, &e);
  if (opened) {
    fprintf(stderr, "vyre-conform: %s\n", e.msg);
    vc_db_close(s.db);
    vc_corpus_free(&c);
    if (s.expect) vc_expectations_free(s.expect);
    return e.code == VC_ERR_USAGE ? VC_EXIT_USAGE : VC_EXIT_DB;
  }
  vc_progress_init(&s.prog, o->progress, o->backend, o->db_path, s.run_id, c.n);
  if (s.expect)
    printf("expectations: %s%s\n", s.expect_file,
           o->expectations ? "" : " (the project's for this backend; --expectations none: off)");
  install_handlers();
  program_acc a;
  memset(&a, 0, sizeof a);
  int status = 0;
  for (uint32_t i = 0; i < c.n && !status; i++) status = run_one(&s, &c.files[i], &a, i, c.n);
  if (s.w.pid > 0) stop_worker(&s.w, 0);
  acc_free(&a);

  const char *end = status == VC_EXIT_INTERRUPTED      ? "interrupted"
                    : status && status != VC_EXIT_FAIL ? "failed"
                                                       : "complete";
  if (status != VC_EXIT_DB && vc_db_end_run(s.db, s.run_id, end, &e)) {
    fprintf(stderr, "vyre-conform: %s\n", e.msg);
    status = VC_EXIT_DB;
  }
  vc_db_close(s.db);
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
  return status ? status : verdict;
}
