/* The worker process: opens the backend device and runs programs it is sent,
 * streaming every piece of every result back as soon as it exists. */
#include <fnmatch.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "harness/lang/corpus.h"
#include "harness/exec/fingerprint.h"
#include "harness/exec/plugin.h"
#include "harness/run/runner.h"
#include "harness/run/wire.h"

typedef struct worker_sink {
  int fd;
  vc_wbuf buf;
} worker_sink;

static void send(worker_sink *w, int type) {
  /* A runner that went away leaves nothing to report to. */
  if (vc_msg_send(w->fd, type, &w->buf) != 0) _exit(1);
  w->buf.len = 0;
}

static void on_program(void *ctx, const vc_program_info *info) {
  worker_sink *w = ctx;
  vc_put_program_info(&w->buf, info);
  send(w, VC_MSG_PROGRAM);
}

static void on_mode(void *ctx, vc_mode m, uint32_t repeat) {
  worker_sink *w = ctx;
  vc_put_u64(&w->buf, (uint64_t)m);
  vc_put_u64(&w->buf, repeat);
  send(w, VC_MSG_MODE);
}

static void on_result(void *ctx, const vc_result *r) {
  worker_sink *w = ctx;
  vc_put_result(&w->buf, r);
  send(w, VC_MSG_RESULT);
}

static int fatal(worker_sink *w, const vc_error *e) {
  vc_put_u64(&w->buf, (uint64_t)e->code);
  vc_put_str(&w->buf, e->msg);
  send(w, VC_MSG_FATAL);
  return 1;
}

static bool matches(const char *glob, const char *path) {
  if (!glob) return false;
  char name[1024];
  vc_corpus_file_name(path, name, sizeof name);
  return fnmatch(glob, name, 0) == 0;
}

int vc_worker_main(int in_fd, int out_fd, const vc_runner_opts *o) {
  /* The runner decides what an interrupt means; the worker just stops when told. */
  signal(SIGINT, SIG_IGN);
  signal(SIGTERM, SIG_DFL);
  worker_sink w = {out_fd, {0}};
  vc_wbuf_init(&w.buf);
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
  send(&w, VC_MSG_DEVICE);

  vc_conform_sink sink = {&w, on_program, on_mode, on_result};
  vc_wbuf job;
  vc_wbuf_init(&job);
  int type;
  while (vc_msg_recv(in_fd, &type, &job) == 0 && type == VC_MSG_JOB) {
    const char *path = vc_get_str(&job);
    /* The modes to run: the runner leaves out those a skip expectation covers. */
    uint64_t mask = vc_get_u64(&job);
    vc_conform_opts co = o->conform;
    co.nmodes = 0;
    for (uint32_t m = 0; m < o->conform.nmodes; m++)
      if (mask & (1ull << o->conform.modes[m])) co.modes[co.nmodes++] = o->conform.modes[m];
    if (matches(o->inject_crash, path)) {
      /* Drivers (LLVM in PoCL, for one) install SIGSEGV handlers of their own. */
      signal(SIGSEGV, SIG_DFL);
      raise(SIGSEGV);
    }
    while (matches(o->inject_hang, path)) pause();
    vc_error_clear(&e);
    int rc = vc_conform_program(path, be, dev, &info, &co, &sink, &e);
    if (rc && rc != VC_ERR_TIMEOUT) return fatal(&w, &e);
    vc_put_u64(&w.buf, rc == VC_ERR_TIMEOUT); /* retire: the device is stuck */
    send(&w, VC_MSG_DONE);
    if (rc == VC_ERR_TIMEOUT) _exit(0); /* closing a stuck device could block */
  }
  vc_wbuf_free(&job);
  vc_wbuf_free(&w.buf);
  be->close(dev);
  vc_plugin_unload(&plugin);
  return 0;
}
