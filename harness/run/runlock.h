/* One process at a time records into a run: the process that runs it
 * holds an flock on a lock file beside the database, named for the run
 * (DB.run-ID.lock), for its whole life. The kernel lets the lock go when
 * the process ends, however it ends (kill -9 included), so `--resume RUN`
 * of a run whose process is alive is refused, naming that process, and of
 * one whose process died is allowed. */
#ifndef VC_RUNLOCK_H
#define VC_RUNLOCK_H

#include <stdint.h>

#include "harness/base/error.h"

typedef struct vc_runlock {
  int fd; /* -1: not held */
  char path[4200];
} vc_runlock;

void vc_runlock_init(vc_runlock *l);
/* Takes the lock of run_id of the database at db_path, without waiting,
   and writes this process's id into the file. VC_ERR_USAGE when another
   process holds it (the message names the run and that process), VC_ERR_IO
   when the file cannot be made. */
int vc_runlock_take(vc_runlock *l, const char *db_path, int64_t run_id, vc_error *err);
/* Removes the file and lets the lock go (nothing when not held). */
void vc_runlock_release(vc_runlock *l);
/* The descriptor, for the runner to close in its workers; -1: none. */
int vc_runlock_fd(const vc_runlock *l);

#endif
