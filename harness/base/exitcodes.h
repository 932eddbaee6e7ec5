/* Exit statuses of the vyre-conform command, documented in docs/usage.md. */
#ifndef VC_EXITCODES_H
#define VC_EXITCODES_H

enum {
  VC_EXIT_OK = 0,          /* everything passed (or was expected) */
  VC_EXIT_FAIL = 1,        /* a divergence, error, crash, timeout, invalid program, regression */
  VC_EXIT_USAGE = 2,       /* unknown flag, bad argument */
  VC_EXIT_NO_BACKEND = 3,  /* plugin missing, no driver, no device */
  VC_EXIT_INPUT = 4,       /* a program or input file cannot be read or parsed */
  VC_EXIT_DB = 5,          /* results database locked, corrupt, foreign, full */
  VC_EXIT_EXPIRED = 6,     /* an expectations entry is past its expiry date */
  VC_EXIT_INTERNAL = 7,    /* a bug of the harness itself, e.g. a generated program the oracle refuses */
  VC_EXIT_NOTHING = 8,     /* reduce: the program does not fail, nothing to reduce */
  VC_EXIT_NOT_RUN = 9,     /* no result passed: everything skipped or unsupported, no coverage */
  VC_EXIT_PLANTED = 10,    /* compare: a side was made with planted faults, it gates nothing */
  VC_EXIT_PKG_INVALID = 11, /* verify: the package is incomplete or inconsistent */
  VC_EXIT_PKG_WARNINGS = 12, /* verify: valid, with warnings (NOT FOR SUBMISSION, an extra file) */
  VC_EXIT_INTERRUPTED = 130 /* SIGINT, SIGTERM or SIGHUP: the run is marked interrupted */
};

/* Where several statuses apply (a run with an invalid program, a failure
   and an expired entry; a gate with a regression and an expired entry),
   the exit status is the one first in this precedence (exitcodes.c, argued
   in docs/usage.md, "Exit status"): 130 > 2 > 3 > 5 > 7 > 10 > 11 > 4 > 6 >
   1 > 12 > 9 > 8 > 0. A status outside the list ranks first: it is passed through. */
int vc_exit_worst(int a, int b);

#endif
