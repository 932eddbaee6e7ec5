/* A cell is one program in one mode, summarised over its repeats: the pass
 * matrix of a report and the unit that compare compares. */
#ifndef VC_RESULTS_CELLS_H
#define VC_RESULTS_CELLS_H

#include "results/store/load.h"

typedef struct vc_cell {
  const vc_prog_data *prog;
  const char *mode;
  const vc_result *results; /* this mode's repeats */
  uint32_t n;
  /* The first failing repeat's status if any repeat failed; else pass if any
     passed; else unsupported if any was; else skip. */
  vc_status status;
  const char *reason;                       /* of the repeat that gave the status */
  uint32_t nfailing;                        /* repeats that failed */
  uint64_t wall_median, wall_min, wall_max; /* over repeats */
  uint64_t device_median;
  /* of the first repeat: deterministic for a program */
  uint64_t bytes_up, bytes_down;
  uint32_t launches;
} vc_cell;

typedef struct vc_cells {
  vc_cell *items; /* by program name, then mode (native, host-split, resident-split, ...) */
  uint32_t n;
  const char **modes; /* every mode that occurs, in that order */
  uint32_t nmodes;
} vc_cells;

int vc_cells_build(const vc_run_data *r, vc_cells *out, vc_error *err);
void vc_cells_free(vc_cells *c);
/* NULL when the program has no result in that mode. */
const vc_cell *vc_cells_find(const vc_cells *c, const char *program, const char *mode);
/* The median of n values (the mean of the middle two for even n); sorts v. */
uint64_t vc_median_u64(uint64_t *v, uint32_t n);

#endif
