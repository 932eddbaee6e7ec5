/* The worker process: opens the backend device and runs programs it is sent,
 * streaming every piece of every result back as soon as it exists. The
 * programs were parsed by the runner before the fork: a job names one by
 * its index, so no file is parsed twice. */
#include <fcntl.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/base/clock.h"
#include "harness/lang/corpus.h"
#include "harness/exec/fingerprint.h"
#include "harness/exec/plugin.h"
#include "harness/model/digest.h"
#include "harness/run/capture.h"
#include "harness/run/runner.h"
#include "harness/run/wire.h"

typedef struct worker_sink {
  int fd;
  int in_fd;                  /* the runner's messages: jobs, device grants */
  vc_wbuf buf;
  const vc_runner_opts *o;
  const vc_corpus_file *file; /* the program in flight */
  bool flushes;               /* the fingerprint says the device flushes denormals */
  vc_capture err;             /* fd 2 during the program in flight */
} worker_sink;

static void send(worker_sink *w, int type) {
  /* A runner that went away leaves nothing to report to. */
  if (vc_msg_send(w->fd, type, &w->buf) != 0) _exit(1);
  w->buf.len = 0;
}

/* --inject-crash/--inject-hang GLOB[@STEP]: STEP a phase, a mode or
   `device` (a mode's device phase, the token held), setup when left out.
   GLOB matches the program name or the file name. */
static bool inject_matches(const char *spec, const vc_corpus_file *f, const char *step) {
  if (!spec || !f) return false;
  char glob[512], file[1024], name[256];
  snprintf(glob, sizeof glob, "%s", spec);
  char *at = strrchr(glob, '@');
  const char *want = "setup";
  if (at) {
    *at = '\0';
    want = at + 1;
  }
  if (strcmp(want, step) != 0) return false;
  vc_corpus_file_name(f->rel, file, sizeof file);
  vc_corpus_program_name(f, name, sizeof name);
  return fnmatch(glob, file, 0) == 0 || fnmatch(glob, name, 0) == 0;
}

static void inject(const worker_sink *w, const char *step) {
  char name[256];
  if (w->file) vc_corpus_program_name(w->file, name, sizeof name);
  if (inject_matches(w->o->inject_crash, w->file, step)) {
    /* last words, as a driver's assertion would leave them */
    fprintf(stderr, "vyre-conform worker: --inject-crash: crashing in %s at %s\n", name, step);
    /* Drivers (LLVM in PoCL, for one) install SIGSEGV handlers of their own. */
    signal(SIGSEGV, SIG_DFL);
    raise(SIGSEGV);
  }
  if (inject_matches(w->o->inject_hang, w->file, step))
    fprintf(stderr, "vyre-conform worker: --inject-hang: hanging in %s at %s\n", name, step);
  while (inject_matches(w->o->inject_hang, w->file, step)) pause();
}

static void on_program(void *ctx, const vc_program_info *info) {
  worker_sink *w = ctx;
  vc_put_program_info(&w->buf, info);
  send(w, VC_MSG_PROGRAM);
}

static void on_phase(void *ctx, vc_phase ph) {
  worker_sink *w = ctx;
  vc_put_u64(&w->buf, (uint64_t)ph);
  send(w, VC_MSG_PHASE);
  if (ph != VC_PHASE_SETUP) inject(w, vc_phase_name(ph)); /* setup: at the job's start */
}

static void on_mode(void *ctx, vc_mode m, uint32_t repeat) {
  worker_sink *w = ctx;
  vc_put_u64(&w->buf, (uint64_t)m);
  vc_put_u64(&w->buf, repeat);
  send(w, VC_MSG_MODE);
  inject(w, vc_mode_name(m));
}

static void on_result(void *ctx, const vc_result *r) {
  worker_sink *w = ctx;
  vc_result with = *r;
  vc_capture_take(&w->err, with.captured_stderr, sizeof with.captured_stderr);
  vc_put_result(&w->buf, &with);
  send(w, VC_MSG_RESULT);
}

/* VYRE_CONFORM_DEVICE_LOG=FILE, for testing the harness: every device
   phase appends "enter NS PID" and "leave NS PID" lines (NS: the monotonic
   clock, shared by the processes), one write each, so a test can check
   that no more than --device-jobs phases overlap; the worker's start and
   its device opened are "open NS PID" and "ready NS PID", and "want NS PID"
   that it has asked for the token (a test holding --device-lock waits for it). */
static void device_log(const char *what) {
  const char *path = getenv("VYRE_CONFORM_DEVICE_LOG");
  if (!path || !*path) return;
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
  if (fd < 0) return;
  char line[96];
  int n = snprintf(line, sizeof line, "%s %llu %d\n", what, (unsigned long long)vc_now_ns(),
                   (int)getpid());
  if (write(fd, line, (size_t)n) != n) {
    /* a test's log only: a short write shows there as a missing line */
  }
  close(fd);
}

/* The device token: the runner grants it over the pipes, so that a worker
   that dies holding it costs nothing but its program (the runner sees the
   pipe close and hands the token on). */
static int device_enter(void *ctx, vc_error *err) {
  (void)err;
  worker_sink *w = ctx;
  send(w, VC_MSG_WANT);
  device_log("want"); /* after asking: whoever sees the line knows the runner was asked */
  vc_wbuf msg;
  vc_wbuf_init(&msg);
  int type = 0;
  int rc = vc_msg_recv(w->in_fd, &type, &msg);
  vc_wbuf_free(&msg);
  if (rc != 0 || type != VC_MSG_GRANT) _exit(0); /* the runner quit or went away */
  device_log("enter");
  inject(w, "device"); /* a fault while holding the device */
  return 0;
}

static void device_leave(void *ctx) {
  device_log("leave");
  send(ctx, VC_MSG_RELEASE);
}

static int fatal(worker_sink *w, const vc_error *e) {
  vc_put_u64(&w->buf, (uint64_t)e->code);
  vc_put_str(&w->buf, e->msg);
  send(w, VC_MSG_FATAL);
  return 1;
}

/* A job: the program's index, then the modes to run (a subset of the
   selected ones when a crash or a stuck device cut an earlier attempt). */
static const vc_corpus_file *read_job(vc_wbuf *job, const vc_corpus *c, const vc_runner_opts *o,
                                      vc_conform_opts *co) {
  uint64_t idx = vc_get_u64(job);
  uint64_t attempt = vc_get_u64(job);
  /* --inject-flip M:B:I@N: a fault on the first N attempts only (a flake) */
  if (o->flip_attempts && attempt >= o->flip_attempts) co->flip_mode = NULL;
  uint64_t n = vc_get_u64(job);
  co->nmodes = 0;
  for (uint64_t i = 0; i < n && i < VC_MODE_COUNT; i++) {
    uint64_t m = vc_get_u64(job);
    if (m < VC_MODE_COUNT) co->modes[co->nmodes++] = (vc_mode)m;
  }
  return !job->bad && idx < c->n ? &c->files[idx] : NULL;
}

int vc_worker_main(int in_fd, int out_fd, const vc_runner_opts *o, const vc_corpus *c,
                   const vc_capture_file *cap) {
  /* The runner decides what an interrupt means; the worker just stops when told. */
  signal(SIGINT, SIG_IGN);
  signal(SIGTERM, SIG_DFL);
  worker_sink w = {out_fd, in_fd, {0}, o, NULL, false, {0}};
  vc_wbuf_init(&w.buf);
  device_log("open");
  vc_capture_start_in(&w.err, cap);
  vc_error e;
  vc_error_clear(&e);
  vc_plugin plugin;
  if (vc_plugin_load(o->backend, &plugin, &e) != 0) return fatal(&w, &e);
  const vc_backend *be = plugin.ops;
  vc_dev *dev = NULL;
  if (be->open(o->device, o->device_options, &dev, &e) != 0) return fatal(&w, &e);
  vc_device_info info;
  memset(&info, 0, sizeof info);
  if (be->describe(dev, &info, &e) != 0) return fatal(&w, &e);
  char fingerprint[256];
  vc_fingerprint(be, dev, fingerprint, sizeof fingerprint);
  vc_put_bytes(&w.buf, &info, sizeof info);
  vc_put_str(&w.buf, fingerprint);
  char plugin_id[65];
  if (vc_digest_file(plugin.path, plugin_id) != 0) snprintf(plugin_id, sizeof plugin_id, "unknown");
  vc_put_str(&w.buf, plugin_id);
  device_log("ready");
  send(&w, VC_MSG_DEVICE); /* ready: the runner sends no job before */
  w.flushes = vc_fingerprint_flushes(fingerprint);

  vc_conform_sink sink = {&w, on_program, on_mode, on_result, on_phase};
  vc_wbuf job;
  vc_wbuf_init(&job);
  int type;
  while (vc_msg_recv(in_fd, &type, &job) == 0 && type == VC_MSG_JOB) {
    vc_conform_opts co = o->conform;
    co.flushes_denormals = w.flushes;
    co.gate = (vc_device_gate){device_enter, device_leave, &w};
    const vc_corpus_file *f = read_job(&job, c, o, &co);
    if (!f) {
      vc_fail(&e, VC_ERR_INTERNAL, "a job names no program of the corpus");
      return fatal(&w, &e);
    }
    w.file = f;
    vc_capture_skip(&w.err); /* what opening the device wrote belongs to no result */
    inject(&w, "setup");
    vc_error_clear(&e);
    int rc = vc_conform_parsed(f->path, f->digest, f->program, &f->diags, be, dev, &info, &co,
                               &sink, &e);
    if (rc && rc != VC_ERR_TIMEOUT) return fatal(&w, &e);
    vc_put_u64(&w.buf, rc == VC_ERR_TIMEOUT); /* retire: the device is stuck */
    send(&w, VC_MSG_DONE);
    if (rc == VC_ERR_TIMEOUT) _exit(0); /* closing a stuck device could block */
  }
  vc_wbuf_free(&job);
  vc_wbuf_free(&w.buf);
  be->close(dev);
  vc_plugin_unload(&plugin);
  vc_capture_stop(&w.err);
  return 0;
}
