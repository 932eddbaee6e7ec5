/* The device tokens (tokens.h): who may be in a device phase, and --device-lock. */
#include "harness/run/tokens.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "harness/base/clock.h"
#include "harness/base/exitcodes.h"
#include "harness/run/supervise.h"
#include "harness/run/wire.h"

int vc_device_lock_open(run_state *s) {
  const char *path = s->o->device_lock;
  if (!path) return 0;
  s->tokens.lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (s->tokens.lock_fd >= 0) return 0;
  fprintf(stderr, "vyre-conform: --device-lock %s: %s\n", path, strerror(errno));
  return VC_EXIT_USAGE;
}

void vc_device_lock_close(run_state *s) {
  if (s->tokens.lock_fd >= 0) close(s->tokens.lock_fd);
  s->tokens.lock_fd = -1;
  s->tokens.lock_held = false;
}

/* A token the slot held comes back; with --device-lock the lock goes with
   the last one out. */
void vc_token_back(run_state *s, slot *sl) {
  if (!sl->holds) return;
  sl->mode_phase_ns += vc_now_ns() - sl->grant_ns;
  sl->holds = false;
  s->tokens.out--;
  if (s->tokens.out == 0 && s->tokens.lock_held) {
    flock(s->tokens.lock_fd, LOCK_UN);
    s->tokens.lock_held = false;
  }
}

/* --device-lock: the first token out takes the lock, without blocking (the
   runner keeps serving its workers meanwhile; vc_workers_wait tries again
   soon). Returns whether it is held. */
static bool take_lock(run_state *s) {
  s->tokens.lock_busy = false;
  if (s->tokens.lock_fd < 0 || s->tokens.lock_held) return true;
  if (flock(s->tokens.lock_fd, LOCK_EX | LOCK_NB) == 0) return s->tokens.lock_held = true;
  s->tokens.lock_busy = true;
  return false;
}

/* Hands free device tokens to the waiting workers, longest waiting first.
   The wait (for a token, and for --device-lock) does not count against a
   program's timeout. */
void vc_tokens_grant(run_state *s) {
  uint32_t cap = s->o->device_jobs ? s->o->device_jobs : 1;
  s->tokens.lock_busy = false;
  while (s->tokens.out < cap) {
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
    best->deadline = vc_job_deadline(s, best);
    best->wait_since = 0;
    best->holds = true;
    s->tokens.out++;
    /* a worker gone meanwhile shows as end of file on its pipe */
    vc_msg_send(best->w.to, VC_MSG_GRANT, NULL);
  }
}
