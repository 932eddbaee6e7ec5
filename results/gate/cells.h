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
  /* the mode's kernels (one per segment in a split mode, one native) and
     how many came from the kernel cache (results.cache_hits) */
  uint32_t kernels, cache_hits;
} vc_cell;

typedef struct vc_cells {
  vc_cell *items; /* by program name, then mode (native, host-split, resident-split, ...) */
  uint32_t n;
  const char **modes; /* every mode that occurs, in that order */
  uint32_t nmodes;
} vc_cells;

/* A run's kernel cache over its passing cells: a cold cache compiles
   every kernel, a warm one reads every kernel from the cache (the run
   records it per result, results.cache_hits). */
typedef enum vc_cache_kind {
  VC_CACHE_COLD = 0, /* no kernel from the cache (or nothing passed) */
  VC_CACHE_PARTLY,   /* some */
  VC_CACHE_WARM      /* every one */
} vc_cache_kind;

typedef struct vc_cache_state {
  vc_cache_kind kind;
  uint32_t hits, kernels;
} vc_cache_state;

/* Of one cell, and of a run's passing cells. */
vc_cache_kind vc_cell_cache(const vc_cell *c);
vc_cache_state vc_cells_cache(const vc_cells *c);
const char *vc_cache_kind_name(vc_cache_kind k); /* "cold", "partly warm", "warm" */

int vc_cells_build(const vc_run_data *r, vc_cells *out, vc_error *err);
void vc_cells_free(vc_cells *c);
/* NULL when the program has no result in that mode. */
const vc_cell *vc_cells_find(const vc_cells *c, const char *program, const char *mode);
/* The median of n values (the mean of the middle two for even n); sorts v. */
uint64_t vc_median_u64(uint64_t *v, uint32_t n);

#endif
