/* Candidates in child processes (probe.h). */
#include "harness/reduce/probe.h"

#include <errno.h>
#include <fnmatch.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/base/clock.h"
#include "harness/exec/fingerprint.h"
#include "harness/exec/plugin.h"
#include "harness/exec/reference.h"
#include "harness/lang/parse.h"
#include "harness/run/wire.h"

/* Waits until fd is readable or the deadline passes: 1 readable, 0 timed out. */
static int wait_readable(int fd, uint64_t deadline_ns) {
  for (;;) {
    uint64_t now = vc_now_ns();
    if (now >= deadline_ns) return 0;
    struct pollfd p = {fd, POLLIN, 0};
    uint64_t ms = (deadline_ns - now) / 1000000u + 1;
    int n = poll(&p, 1, ms > 60000 ? 60000 : (int)ms);
    if (n > 0) return 1;
    if (n < 0 && errno != EINTR) return 1; /* let the read report it */
  }
}

static int reap(pid_t pid) {
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  return st;
}

/* ---- the oracle's check ---- */

static bool write_all(int fd, const void *p, size_t n) {
  const char *c = p;
  while (n) {
    ssize_t w = write(fd, c, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    c += w;
    n -= (size_t)w;
  }
  return true;
}

static void oracle_child(const vc_program *p, const vc_reduce_opts *o, bool full,
                         vc_check_result *r) {
  vc_oracle_opts oo = o->conform.oracle;
  oo.deadline_ns = vc_now_ns() + (uint64_t)o->timeout_s * 1000000000u;
  if (full) {
    vc_check_program(p, &oo, r);
    return;
  }
  memset(r, 0, sizeof *r);
  vc_reference ref;
  memset(&ref, 0, sizeof ref);
  vc_error e;
  vc_error_clear(&e);
  if (vc_reference_run(p, &oo, &ref, &e)) {
    r->verdict = VC_CHECK_FAILED;
    snprintf(r->why, sizeof r->why, "%s", e.msg);
  } else if (vc_oracle_invalid(p, &ref.report, r->why, sizeof r->why)) {
    r->verdict = VC_CHECK_INVALID;
  }
  r->report = ref.report;
  vc_reference_free(&ref);
}

void vc_probe_oracle_run(const vc_program *p, const vc_reduce_opts *o, bool full,
                         vc_probe_oracle *out) {
  memset(out, 0, sizeof *out);
  int fds[2];
  if (pipe(fds) != 0) {
    out->status = VC_PROBE_INVALID;
    snprintf(out->r.why, sizeof out->r.why, "pipe: %s", strerror(errno));
    return;
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    vc_check_result r;
    oracle_child(p, o, full, &r);
    _exit(write_all(fds[1], &r, sizeof r) ? 0 : 1);
  }
  close(fds[1]);
  if (pid < 0) {
    close(fds[0]);
    out->status = VC_PROBE_INVALID;
    snprintf(out->r.why, sizeof out->r.why, "fork: %s", strerror(errno));
    return;
  }
  /* the oracle's own deadline comes first; this one catches a hang */
  uint64_t deadline = vc_now_ns() + ((uint64_t)o->timeout_s + 5) * 1000000000u;
  size_t got = 0;
  char *dst = (char *)&out->r;
  while (got < sizeof out->r) {
    if (!wait_readable(fds[0], deadline)) {
      out->timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    ssize_t n = read(fds[0], dst + got, sizeof out->r - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += (size_t)n;
  }
  close(fds[0]);
  int st = reap(pid);
  if (out->timed_out || got < sizeof out->r) {
    out->status = VC_PROBE_DIED;
    out->died_sig = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
    if (out->r.verdict == VC_CHECK_OK && !out->timed_out && !out->died_sig) out->died_sig = -1;
    return;
  }
  /* the oracle's deadline: a hang of the program, not a failure of the split */
  bool late = out->r.verdict == VC_CHECK_TIMEOUT ||
              (out->r.verdict == VC_CHECK_FAILED &&
               strstr(out->r.why, "not finished within the time limit") != NULL);
  if (out->r.verdict == VC_CHECK_INVALID || out->r.verdict == VC_CHECK_UNSUPPORTED || late ||
      (!full && out->r.verdict == VC_CHECK_FAILED))
    out->status = VC_PROBE_INVALID;
  else
    out->status = VC_PROBE_VALID;
}

/* ---- the device ---- */

typedef struct child_sink {
  int fd;
  vc_wbuf buf;
  const vc_reduce_opts *o;
  const char *name; /* the program in flight */
} child_sink;

static void child_send(child_sink *c, int type) {
  if (vc_msg_send(c->fd, type, &c->buf) != 0) _exit(1); /* the reducer went away */
  c->buf.len = 0;
}

static bool inject_matches(const char *spec, const char *name, const char *mode) {
  if (!spec || !name) return false;
  char glob[512];
  snprintf(glob, sizeof glob, "%s", spec);
  char *at = strrchr(glob, '@');
  if (at) {
    *at = '\0';
    if (strcmp(at + 1, mode) != 0) return false;
  }
  return fnmatch(glob, name, 0) == 0;
}

static void on_program(void *ctx, const vc_program_info *info) {
  (void)ctx;
  (void)info;
}

static void on_mode(void *ctx, vc_mode m, uint32_t repeat) {
  child_sink *c = ctx;
  vc_put_u64(&c->buf, (uint64_t)m);
  vc_put_u64(&c->buf, repeat);
  child_send(c, VC_MSG_MODE);
  if (inject_matches(c->o->inject_crash, c->name, vc_mode_name(m))) {
    signal(SIGSEGV, SIG_DFL); /* drivers install handlers of their own */
    raise(SIGSEGV);
  }
  while (inject_matches(c->o->inject_hang, c->name, vc_mode_name(m))) pause();
}

static void on_result(void *ctx, const vc_result *r) {
  child_sink *c = ctx;
  vc_put_result(&c->buf, r);
  child_send(c, VC_MSG_RESULT);
}

static int child_fatal(child_sink *c, const vc_error *e) {
  vc_put_u64(&c->buf, (uint64_t)e->code);
  vc_put_str(&c->buf, e->msg);
  child_send(c, VC_MSG_FATAL);
  return 1;
}

/* The child: opens the device, then runs each job (a program's text and
   its modes) and streams its results back. */
static int device_child(int in, int out, const vc_reduce_opts *o) {
  signal(SIGINT, SIG_IGN);
  child_sink c = {out, {0}, o, NULL};
  vc_wbuf_init(&c.buf);
  vc_error e;
  vc_error_clear(&e);
  vc_plugin plugin;
  if (vc_plugin_load(o->backend, &plugin, &e) != 0) return child_fatal(&c, &e);
  const vc_backend *be = plugin.ops;
  vc_dev *dev = NULL;
  if (be->open(o->device, o->device_options, &dev, &e) != 0) return child_fatal(&c, &e);
  vc_device_info info;
  memset(&info, 0, sizeof info);
  if (be->describe(dev, &info, &e) != 0) return child_fatal(&c, &e);
  vc_put_bytes(&c.buf, &info, sizeof info);
  child_send(&c, VC_MSG_DEVICE);
  /* as the runner's worker does, so that a divergence is classed by cause
     here as it is in a run (a device that flushes denormals) */
  char fingerprint[256];
  vc_fingerprint(be, dev, fingerprint, sizeof fingerprint);
  bool flushes = vc_fingerprint_flushes(fingerprint);
  vc_conform_sink sink = {&c, on_program, on_mode, on_result, NULL};
  vc_wbuf job;
  vc_wbuf_init(&job);
  int type;
  while (vc_msg_recv(in, &type, &job) == 0 && type == VC_MSG_JOB) {
    vc_conform_opts co = o->conform;
    co.flushes_denormals = flushes;
    uint64_t n = vc_get_u64(&job);
    co.nmodes = 0;
    for (uint64_t i = 0; i < n && i < VC_MODE_COUNT; i++) co.modes[co.nmodes++] = (vc_mode)vc_get_u64(&job);
    const char *text = vc_get_str(&job);
    vc_diags d;
    vc_diags_init(&d);
    vc_program *p = vc_parse("candidate.vyre", text, strlen(text), &d);
    c.name = p ? p->name : NULL;
    vc_error_clear(&e);
    int rc = vc_conform_parsed("candidate.vyre", "", p, &d, be, dev, &info, &co, &sink, &e);
    if (rc && rc != VC_ERR_TIMEOUT) return child_fatal(&c, &e);
    vc_put_u64(&c.buf, rc == VC_ERR_TIMEOUT);
    child_send(&c, VC_MSG_DONE);
    if (rc == VC_ERR_TIMEOUT) _exit(0); /* closing a stuck device could block */
    vc_program_free(p);
    vc_diags_free(&d);
  }
  vc_wbuf_free(&job);
  vc_wbuf_free(&c.buf);
  be->close(dev);
  vc_plugin_unload(&plugin);
  return 0;
}

void vc_probe_device_stop(vc_probe_device *d) {
  if (!d->pid) return;
  vc_wbuf q;
  vc_wbuf_init(&q);
  vc_msg_send(d->to, VC_MSG_QUIT, &q);
  vc_wbuf_free(&q);
  close(d->to);
  /* a child that does not leave in time (a stuck driver) is killed */
  if (!wait_readable(d->from, vc_now_ns() + 5000000000ull)) kill(d->pid, SIGKILL);
  close(d->from);
  reap(d->pid);
  d->pid = 0;
}

static void kill_child(vc_probe_device *d) {
  kill(d->pid, SIGKILL);
  close(d->to);
  close(d->from);
  reap(d->pid);
  d->pid = 0;
}

int vc_probe_device_start(vc_probe_device *d, const vc_reduce_opts *o, vc_error *err) {
  d->o = o;
  int down[2], up[2];
  if (pipe(down) != 0) return vc_fail(err, VC_ERR_IO, "pipe: %s", strerror(errno));
  if (pipe(up) != 0) {
    close(down[0]);
    close(down[1]);
    return vc_fail(err, VC_ERR_IO, "pipe: %s", strerror(errno));
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    close(down[1]);
    close(up[0]);
    signal(SIGPIPE, SIG_IGN);
    _exit(device_child(down[0], up[1], o));
  }
  close(down[0]);
  close(up[1]);
  if (pid < 0) {
    close(down[1]);
    close(up[0]);
    return vc_fail(err, VC_ERR_IO, "fork: %s", strerror(errno));
  }
  d->pid = pid;
  d->to = down[1];
  d->from = up[0];
  vc_wbuf m;
  vc_wbuf_init(&m);
  int type = 0, rc = 0;
  uint64_t deadline = vc_now_ns() + ((uint64_t)o->timeout_s + 60) * 1000000000u;
  if (!wait_readable(d->from, deadline) || vc_msg_recv(d->from, &type, &m) != 0) {
    rc = vc_fail(err, VC_ERR_NO_DEVICE, "the %s device did not open (its process ended)",
                 o->backend);
  } else if (type == VC_MSG_FATAL) {
    vc_errcode code = (vc_errcode)vc_get_u64(&m);
    rc = vc_fail(err, code, "%s", vc_get_str(&m));
  } else {
    vc_get_bytes(&m, &d->info, sizeof d->info);
  }
  vc_wbuf_free(&m);
  if (rc) kill_child(d);
  return rc;
}

static void set_sig(vc_reduce_sig *s, vc_mode m, vc_status st, const char *detail) {
  memset(s, 0, sizeof *s);
  snprintf(s->mode, sizeof s->mode, "%s", vc_mode_name(m));
  s->status = st;
  s->cls = -1;
  if (detail) snprintf(s->detail, sizeof s->detail, "%s", detail);
}

int vc_probe_device_run(vc_probe_device *d, const char *text, const vc_mode *modes,
                        uint32_t nmodes, vc_reduce_sig *sigs, vc_error *err) {
  for (uint32_t i = 0; i < nmodes; i++) set_sig(&sigs[i], modes[i], VC_ST_SKIP, NULL);
  if (!d->pid) {
    d->restarts++;
    int rc = vc_probe_device_start(d, d->o, err);
    if (rc) return rc;
  }
  vc_wbuf m;
  vc_wbuf_init(&m);
  vc_put_u64(&m, nmodes);
  for (uint32_t i = 0; i < nmodes; i++) vc_put_u64(&m, (uint64_t)modes[i]);
  vc_put_str(&m, text);
  int sent = vc_msg_send(d->to, VC_MSG_JOB, &m);
  int in_flight = -1; /* index into modes */
  uint64_t deadline = vc_now_ns() + (uint64_t)d->o->timeout_s * 1000000000u;
  for (;;) {
    int type = 0;
    if (sent != 0 || !wait_readable(d->from, deadline)) {
      bool timeout = sent == 0;
      kill_child(d);
      for (uint32_t i = (uint32_t)(in_flight < 0 ? 0 : in_flight); i < nmodes; i++)
        if (sigs[i].status == VC_ST_SKIP) {
          set_sig(&sigs[i], modes[i], timeout ? VC_ST_TIMEOUT : VC_ST_CRASH, NULL);
          break;
        }
      break;
    }
    if (vc_msg_recv(d->from, &type, &m) != 0) {
      kill_child(d); /* it died: the mode in flight crashed */
      for (uint32_t i = (uint32_t)(in_flight < 0 ? 0 : in_flight); i < nmodes; i++)
        if (sigs[i].status == VC_ST_SKIP) {
          set_sig(&sigs[i], modes[i], VC_ST_CRASH, NULL);
          break;
        }
      break;
    }
    if (type == VC_MSG_MODE) {
      vc_mode md = (vc_mode)vc_get_u64(&m);
      for (uint32_t i = 0; i < nmodes; i++)
        if (modes[i] == md) in_flight = (int)i;
      deadline = vc_now_ns() + (uint64_t)d->o->timeout_s * 1000000000u;
    } else if (type == VC_MSG_RESULT) {
      vc_result r;
      char mode[32];
      vc_get_result(&m, &r, mode, sizeof mode);
      r.mode = mode;
      int md = vc_mode_from_name(mode);
      for (uint32_t i = 0; i < nmodes; i++)
        if ((int)modes[i] == md && r.repeat == 0) {
          if (r.status == VC_ST_PASS || !vc_status_is_failure(r.status))
            set_sig(&sigs[i], modes[i], r.status, NULL);
          else
            vc_reduce_sig_of_result(&r, &sigs[i]);
        }
      /* a step before the modes failed (setup, reference, oracle): every
         mode has it as its reason */
      free(r.divs);
      free(r.segs);
    } else if (type == VC_MSG_DONE) {
      if (vc_get_u64(&m)) kill_child(d); /* the device is stuck: a fresh child next time */
      break;
    } else if (type == VC_MSG_FATAL) {
      kill_child(d);
      break;
    }
  }
  vc_wbuf_free(&m);
  return 0;
}
