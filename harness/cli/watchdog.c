#include "harness/cli/watchdog.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct vc_watchdog {
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  bool armed, stop;
  struct timespec deadline; /* CLOCK_MONOTONIC */
  vc_watchdog_expire expire;
  void *ctx;
};

static void *watch(void *arg) {
  vc_watchdog *w = arg;
  pthread_mutex_lock(&w->mu);
  while (!w->stop) {
    if (!w->armed) {
      pthread_cond_wait(&w->cv, &w->mu);
      continue;
    }
    if (pthread_cond_timedwait(&w->cv, &w->mu, &w->deadline) == ETIMEDOUT && w->armed &&
        !w->stop) {
      /* Still holding the lock: a disarm that comes now waits, and the
         process ends before it returns. */
      int status = w->expire(w->ctx);
      _exit(status);
    }
  }
  pthread_mutex_unlock(&w->mu);
  return NULL;
}

int vc_watchdog_start(vc_watchdog **out, vc_watchdog_expire expire, void *ctx, vc_error *err) {
  vc_watchdog *w = calloc(1, sizeof *w);
  if (!w) return vc_fail(err, VC_ERR_NOMEM, "out of memory for the watchdog");
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_mutex_init(&w->mu, NULL);
  pthread_cond_init(&w->cv, &ca);
  pthread_condattr_destroy(&ca);
  w->expire = expire;
  w->ctx = ctx;
  int rc = pthread_create(&w->thread, NULL, watch, w);
  if (rc) {
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    free(w);
    return vc_fail(err, VC_ERR_INTERNAL, "cannot start the watchdog thread: %s", strerror(rc));
  }
  *out = w;
  return 0;
}

void vc_watchdog_arm(vc_watchdog *w, uint32_t seconds) {
  pthread_mutex_lock(&w->mu);
  clock_gettime(CLOCK_MONOTONIC, &w->deadline);
  w->deadline.tv_sec += seconds;
  w->armed = true;
  pthread_cond_signal(&w->cv);
  pthread_mutex_unlock(&w->mu);
}

void vc_watchdog_disarm(vc_watchdog *w) {
  pthread_mutex_lock(&w->mu);
  w->armed = false;
  pthread_cond_signal(&w->cv);
  pthread_mutex_unlock(&w->mu);
}

void vc_watchdog_stop(vc_watchdog *w) {
  if (!w) return;
  pthread_mutex_lock(&w->mu);
  w->stop = true;
  pthread_cond_signal(&w->cv);
  pthread_mutex_unlock(&w->mu);
  pthread_join(w->thread, NULL);
  pthread_cond_destroy(&w->cv);
  pthread_mutex_destroy(&w->mu);
  free(w);
}
