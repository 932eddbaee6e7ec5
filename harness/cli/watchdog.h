/* A deadline for a step that may never return (a launch that hangs in the
 * driver): a thread that waits for the step to end and, when it does not
 * end in time, calls a function and ends the process with its status. */
#ifndef VC_WATCHDOG_H
#define VC_WATCHDOG_H

#include <stdint.h>

#include "harness/base/error.h"

typedef struct vc_watchdog vc_watchdog;

/* expire runs on the watchdog's thread while the step still runs, and
   returns the process's exit status. */
typedef int (*vc_watchdog_expire)(void *ctx);

int vc_watchdog_start(vc_watchdog **out, vc_watchdog_expire expire, void *ctx, vc_error *err);
/* A step begins: expire is called if disarm does not come within seconds. */
void vc_watchdog_arm(vc_watchdog *w, uint32_t seconds);
void vc_watchdog_disarm(vc_watchdog *w);
void vc_watchdog_stop(vc_watchdog *w);

#endif
