/* A worker lives no longer than its runner: a worker left behind by a
 * runner killed with SIGKILL would hold the device (and a hung one would
 * never notice the runner gone, its pipe unread). */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "harness/run/runner.h"

void vc_worker_tie_to_runner(int runner) {
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  /* the runner may have died before prctl: then the signal never comes */
  if (getppid() != (pid_t)runner) _exit(1);
}

void vc_worker_kill(int pid, int sig) {
  if (kill(-(pid_t)pid, sig) != 0) kill((pid_t)pid, sig);
}
