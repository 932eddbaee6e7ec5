/* Supervising a run's workers: one process a slot, started to open the
 * device, then given one program's job at a time; its messages (phases,
 * modes, results, token requests), the job's deadline, and what a worker
 * that dies, hangs or fails leaves for a fresh one (or the flake reruns). */
#ifndef VC_RUN_SUPERVISE_H
#define VC_RUN_SUPERVISE_H

#include "harness/run/run_state.h"
#include "harness/run/wire.h"

/* Starts the slot's worker; it gets a job once it has opened the device.
   Returns 0, or an exit status. */
int vc_slot_spawn(run_state *s, slot *sl);
/* Ends the slot's worker (how: 0 asks it to quit, a signal kills it) and
   takes back its device token. Returns the wait status. */
int vc_slot_stop(run_state *s, slot *sl, int how);
/* Kills every worker; the --device-lock file is closed with them. */
void vc_slots_kill(run_state *s);
/* Sends the program's pending modes to the slot's ready worker. */
void vc_slot_start_job(run_state *s, slot *sl, item *it);
/* When the slot's job times out, not counting its waits for a token; 0:
   never. */
uint64_t vc_job_deadline(const run_state *s, const slot *sl);
/* Waits (a second at most) for the workers, then handles their messages
   and the deadlines passed. tick: show progress. Returns 0, or an exit
   status that ends the run. */
int vc_workers_wait(run_state *s, vc_wbuf *msg, bool tick);

#endif
