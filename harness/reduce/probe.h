/* Running one candidate, always in a child process: the oracle's check of
 * it (forked per candidate: it inherits the parsed program), and the
 * device run (a long-lived child that opens the device once and is started
 * again after a crash or a hang). */
#ifndef VC_REDUCE_PROBE_H
#define VC_REDUCE_PROBE_H

#include <stdbool.h>
#include <sys/types.h>

#include "harness/exec/check.h"
#include "harness/reduce/reduce.h"

typedef enum vc_probe_status {
  VC_PROBE_VALID = 0,  /* the oracle accepts it (the check's verdict in r) */
  VC_PROBE_INVALID,    /* refused, unsupported, or the oracle failed on it */
  VC_PROBE_DIED        /* the child died (died_sig) or ran out of time (timed_out) */
} vc_probe_status;

typedef struct vc_probe_oracle {
  vc_probe_status status;
  vc_check_result r;  /* full: the whole check; otherwise only the reference run */
  bool timed_out;
  int died_sig;
} vc_probe_oracle;

/* full: the check command's whole check (split-on-oracle too); otherwise
   the unsplit oracle only, which decides validity. */
void vc_probe_oracle_run(const vc_program *p, const vc_reduce_opts *o, bool full,
                         vc_probe_oracle *out);

typedef struct vc_probe_device {
  const vc_reduce_opts *o;
  pid_t pid;          /* 0: not running */
  int to, from;
  vc_device_info info;
  uint32_t restarts;
} vc_probe_device;

/* Starts the child and opens the device (err says why it could not). */
int vc_probe_device_start(vc_probe_device *d, const vc_reduce_opts *o, vc_error *err);
/* Runs the program text in the modes given; sigs[i] is mode i's result's
   signature (status pass when it passed, skip when it did not run). A
   child that dies gives crash for the mode in flight, one that does not
   answer within the timeout is killed and gives timeout; the next run
   starts a fresh child. Fails only when no child can be started. */
int vc_probe_device_run(vc_probe_device *d, const char *text, const vc_mode *modes,
                        uint32_t nmodes, vc_reduce_sig *sigs, vc_error *err);
void vc_probe_device_stop(vc_probe_device *d);

#endif
