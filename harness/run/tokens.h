/* The device tokens: the runner grants a worker a token for each mode's
 * device phase, at most --device-jobs at once, longest waiting first; with
 * --device-lock the first token out also takes a file lock that other runs
 * share. A token lives in the runner, so a worker that dies holding it
 * loses it with its process. */
#ifndef VC_RUN_TOKENS_H
#define VC_RUN_TOKENS_H

#include "harness/run/run_state.h"

/* --device-lock FILE opened (not yet taken); -1 without. Returns 0, or an
   exit status. */
int vc_device_lock_open(run_state *s);
/* Closes the lock file, which lets go of the lock. */
void vc_device_lock_close(run_state *s);
/* The slot's token, if it holds one, comes back. */
void vc_token_back(run_state *s, slot *sl);
/* Hands free tokens to the waiting workers. */
void vc_tokens_grant(run_state *s);

#endif
