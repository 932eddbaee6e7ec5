#include "results/report/modestats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add_cell(vc_mode_stats *m, const vc_cell *c, uint64_t *walls, uint64_t *devs,
                     uint32_t *nran) {
  m->programs++;
  m->counts[c->status]++;
  m->wall_total += c->wall_median;
  m->device_total += c->device_median;
  m->bytes_up += c->bytes_up;
  m->bytes_down += c->bytes_down;
  m->launches += c->launches;
  if (c->status == VC_ST_PASS || c->status == VC_ST_DIVERGE) {
    walls[*nran] = c->wall_median;
    devs[*nran] = c->device_median;
    (*nran)++;
  }
}

int vc_mode_stats_build(const vc_cells *c, vc_mode_stats *out, vc_error *err) {
  uint64_t *walls = malloc((c->n ? c->n : 1) * sizeof *walls);
  uint64_t *devs = malloc((c->n ? c->n : 1) * sizeof *devs);
  if (!walls || !devs) {
    free(walls);
    free(devs);
    return vc_fail(err, VC_ERR_NOMEM, "summarising modes: out of memory");
  }
  for (uint32_t m = 0; m < c->nmodes; m++) {
    memset(&out[m], 0, sizeof out[m]);
    out[m].mode = c->modes[m];
    uint32_t nran = 0;
    for (uint32_t i = 0; i < c->n; i++)
      if (strcmp(c->items[i].mode, c->modes[m]) == 0)
        add_cell(&out[m], &c->items[i], walls, devs, &nran);
    out[m].ran = nran;
    out[m].wall_median = vc_median_u64(walls, nran);
    out[m].device_median = vc_median_u64(devs, nran);
  }
  free(walls);
  free(devs);
  return 0;
}

void vc_mode_stats_medians(const vc_mode_stats *m, bool timestamps, char wall[VC_FMT_LEN],
                           char device[VC_FMT_LEN]) {
  if (m->ran)
    vc_fmt_ns(wall, m->wall_median);
  else
    snprintf(wall, VC_FMT_LEN, "-");
  if (m->ran && timestamps)
    vc_fmt_ns(device, m->device_median);
  else
    snprintf(device, VC_FMT_LEN, "-");
}

int vc_run_summary_build(const vc_run_data *r, vc_run_summary *s, vc_error *err) {
  s->modes = NULL;
  int rc = vc_cells_build(r, &s->cells, err);
  if (rc) return rc;
  s->modes = calloc(s->cells.nmodes + 1, sizeof *s->modes);
  if (!s->modes) rc = vc_fail(err, VC_ERR_NOMEM, "summarising modes: out of memory");
  if (!rc) rc = vc_mode_stats_build(&s->cells, s->modes, err);
  if (rc) vc_run_summary_free(s);
  return rc;
}

void vc_run_summary_free(vc_run_summary *s) {
  vc_cells_free(&s->cells);
  free(s->modes);
  s->modes = NULL;
}
