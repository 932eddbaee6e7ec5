/* Where a run came from, as it recorded it (runs.options, runs.command_line):
 * the faults planted in it on purpose. A run with
 * planted faults qualifies nothing: the reports say so in their title and
 * compare gates no such run (docs/gating.md). */
#ifndef VC_RESULTS_PROVENANCE_H
#define VC_RESULTS_PROVENANCE_H

#include <stdbool.h>
#include <stddef.h>

#include "results/store/load.h"

enum { VC_PLANTED_TEXT = 1024 };

/* (the stored settings themselves: vc_run_option, results/gate/judged_by.h) */
/* What was planted, "" for nothing: --inject-* and --fault on the command
   line, and the recorded inject-flip=, inject-crash=, inject-hang=,
   mutant-build=, mutant= and fault= items, e.g. "--inject-flip native:out:3,
   mutant=skip-last". */
void vc_run_planted(const vc_run_data *r, char *out, size_t n);

#endif
