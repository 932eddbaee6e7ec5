/* Per-mode totals of a run: counts by status, median and total times,
 * traffic and launches. The reports' summary tables and charts. */
#ifndef VC_RESULTS_MODESTATS_H
#define VC_RESULTS_MODESTATS_H

#include "results/gate/cells.h"
#include "results/report/fmt.h"

typedef struct vc_mode_stats {
  const char *mode;
  uint32_t programs;
  uint32_t counts[VC_STATUS_COUNT]; /* cells by aggregate status */
  uint32_t ran;                     /* cells that ran to a verdict: pass or diverge */
  /* medians over the cells that ran to a verdict (pass or diverge) */
  uint64_t wall_median, device_median;
  /* sums over all cells of their median times; traffic and launches of their first repeat */
  uint64_t wall_total, device_total;
  uint64_t bytes_up, bytes_down, launches;
} vc_mode_stats;

/* out has room for c->nmodes entries. */
int vc_mode_stats_build(const vc_cells *c, vc_mode_stats *out, vc_error *err);
/* The medians as text: "-" where no cell ran to a verdict and, for device
   time, where the device has no timestamps. */
void vc_mode_stats_medians(const vc_mode_stats *m, bool timestamps, char wall[VC_FMT_LEN],
                           char device[VC_FMT_LEN]);

/* What the reports start from: a run's cells and its per-mode statistics. */
typedef struct vc_run_summary {
  vc_cells cells;
  vc_mode_stats *modes; /* cells.nmodes of them */
} vc_run_summary;

int vc_run_summary_build(const vc_run_data *r, vc_run_summary *s, vc_error *err);
void vc_run_summary_free(vc_run_summary *s);

#endif
