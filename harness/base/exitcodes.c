/* The one precedence of exit statuses that run, compare and ci/nightly
 * apply (exitcodes.h). Statuses that say the judgement could not be made as
 * asked come first (the command was wrong, the device, the database or the
 * harness failed, a side of a comparison had planted faults, a package is
 * invalid, an input was broken, an expectation is stale), then the
 * judgement itself (something failed), then a run that judged nothing
 * (nothing ran), then success. */
#include "harness/base/exitcodes.h"

static const int precedence[] = {
    VC_EXIT_INTERRUPTED, VC_EXIT_USAGE,   VC_EXIT_NO_BACKEND, VC_EXIT_DB,
    VC_EXIT_INTERNAL,    VC_EXIT_PLANTED, VC_EXIT_PKG_INVALID, VC_EXIT_INPUT,
    VC_EXIT_EXPIRED,     VC_EXIT_FAIL,    VC_EXIT_PKG_WARNINGS, VC_EXIT_NOT_RUN,
    VC_EXIT_NOTHING,     VC_EXIT_OK};

enum { NPRECEDENCE = sizeof precedence / sizeof precedence[0] };

/* 0 for the first in the list; -1 for a status it does not hold. */
static int rank(int s) {
  for (int i = 0; i < NPRECEDENCE; i++)
    if (precedence[i] == s) return i;
  return -1;
}

int vc_exit_worst(int a, int b) { return rank(a) <= rank(b) ? a : b; }
