/* vc-cuda-smoke: the CUDA plugin on a real device, driven through its
 * table as the harness drives it, checked against the CPU oracle. Built on
 * any machine, run on the GPU machine (docs/backend-cuda.md). */
#ifndef VC_CUDA_SMOKE_H
#define VC_CUDA_SMOKE_H

#include <stdbool.h>
#include <stdint.h>

#include "backends/backend.h"

typedef struct smoke {
  const vc_backend *be;
  vc_dev *dev;
  uint32_t passed, failed, skipped;
} smoke;

/* Prints a PASS or FAIL line and counts it. */
void smoke_report(smoke *s, bool ok, const char *what, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* smoke_program.c: one .vyre program (a single launch: no grid barrier, no
   fixpoint) on the device, every output byte against the oracle. */
void smoke_program(smoke *s, const char *path);

/* smoke_checks.c: the plugin's own promises (staging round trips, zero,
   limit and usage refusals, a native kernel compiles) and the figures worth
   recording (launch cost, copy bandwidth, event timing). */
void smoke_checks(smoke *s);
void smoke_figures(smoke *s);

/* A program from .vyre text; NULL after printing the diagnostics. */
vc_program *smoke_parse_text(const char *name, const char *text);

#endif
