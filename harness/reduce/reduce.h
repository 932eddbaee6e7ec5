/* harness/reduce: delta debugging of a failing program (edits of its tree, candidates run in child processes, failure signatures). */
/* The reducer: shrinks a program that fails (on a device, or in the
 * backend-free check) to a smaller one that fails the same way.
 *
 * Every candidate is parsed and validated, then checked by the CPU oracle
 * in a child process (it must be valid: no out-of-bounds access it does not
 * declare, no race, no oracle error); only then is it run: on the device
 * in a long-lived child process that a crash or a hang costs only itself
 * (it is restarted), or, for a check failure, by the check in a child of
 * its own. A candidate is kept when its failure has the original's
 * signature (signature.h). */
#ifndef VC_REDUCE_H
#define VC_REDUCE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "harness/base/error.h"
#include "harness/exec/conform.h"
#include "harness/reduce/signature.h"

typedef struct vc_reduce_opts {
  bool check;                 /* a failure of the check, no device */
  const char *backend;        /* otherwise the device's */
  uint32_t device;
  const char *device_options;
  vc_conform_opts conform;    /* modes: those to look at (the first failing one is kept) */
  uint32_t timeout_s;         /* per candidate and child process */
  /* Fault injection, for testing the reducer (as run's): the device child
     crashes or hangs in mode M of programs whose name matches GLOB@M. */
  const char *inject_crash, *inject_hang;
  const char *origin;         /* named in the output's (doc ...): the original file */
  FILE *log;                  /* each step and the sizes; NULL: none */
} vc_reduce_opts;

typedef struct vc_reduce_size {
  uint32_t statements, buffers, segments;
  uint64_t invocations;
} vc_reduce_size;

typedef struct vc_reduce_result {
  bool nothing;               /* the program does not fail: nothing to reduce */
  char nothing_why[256];
  vc_reduce_sig sig;
  char *text;                 /* the reduced program (free it) */
  vc_reduce_size before, after;
  uint32_t steps;             /* candidates kept */
  uint32_t parsed;            /* candidates that were programs */
  uint32_t ran;               /* of those, valid ones run (device or check) */
  uint64_t wall_ns;
} vc_reduce_result;

/* Reduces the program in text (path names it in messages). Fails with
   VC_ERR_PARSE when the text is not a program, VC_ERR_NO_DRIVER/NO_DEVICE
   when the device cannot be opened; a program that does not fail is not
   an error: r->nothing says so. */
int vc_reduce(const char *path, const char *text, size_t len, const vc_reduce_opts *o,
              vc_reduce_result *r, vc_error *err);
void vc_reduce_result_free(vc_reduce_result *r);

/* The sizes printed before and after. */
void vc_reduce_size_of(const vc_program *p, vc_reduce_size *s);

#endif
