/* The report's "Choosing a mode" section (sections.h): the crossover map of
 * each run's device, from the newest finished map of the same file, backend
 * and device (vc-crossover-bench --db, docs/performance.md), with the mode
 * that costs least at each point and a chart of the walls per live size. */
#include <stdio.h>
#include <string.h>

#include "harness/base/plural.h"
#include "results/report/blocks.h"
#include "results/report/fmt.h"
#include "results/report/sections.h"

enum { MODES = 3, MAX_SIZES = 16, MAX_BARRIERS = 16 };

/* The map's modes in the order the bench records a point's rows. */
static const char *const mode_names[MODES] = {"native", "resident-split", "host-split"};

/* The row of a point's mode m, or NULL; a point's rows are recorded
   together, so they stand at p .. p + MODES - 1. */
static const vc_crossover_point *mode_row(const vc_run_data *r, uint32_t p, int m) {
  for (uint32_t i = p; i < r->ncrossover && i < p + MODES; i++) {
    const vc_crossover_point *c = &r->crossover[i];
    if (c->barriers != r->crossover[p].barriers || c->live_bytes != r->crossover[p].live_bytes)
      break;
    if (!strcmp(c->mode, mode_names[m])) return c;
  }
  return NULL;
}

/* The index of the point after the one at p. */
static uint32_t next_point(const vc_run_data *r, uint32_t p) {
  uint32_t i = p + 1;
  while (i < r->ncrossover && r->crossover[i].barriers == r->crossover[p].barriers &&
         r->crossover[i].live_bytes == r->crossover[p].live_bytes)
    i++;
  return i;
}

/* The cheapest mode that ran at the point at p, or -1. */
static int winner(const vc_run_data *r, uint32_t p) {
  int best = -1;
  uint64_t least = 0;
  for (int m = 0; m < MODES; m++) {
    const vc_crossover_point *c = mode_row(r, p, m);
    if (c && !strcmp(c->state, "ran") && (best < 0 || c->wall_ns < least)) {
      best = m;
      least = c->wall_ns;
    }
  }
  return best;
}

static const vc_col map_cols[] = {
    {"barriers", VC_COL_NUM},       {"live", VC_COL_NUM},
    {"native (device)", VC_COL_NUM}, {"resident-split (device)", VC_COL_NUM},
    {"host-split (device)", VC_COL_NUM}, {"wins", VC_COL_TEXT}};

static void map_table(const vc_markup *d, vc_strbuf *sb, const vc_run_data *r) {
  table t = table_open(d, sb, "crossover", map_cols, (int)(sizeof map_cols / sizeof map_cols[0]));
  for (uint32_t p = 0; p < r->ncrossover; p = next_point(r, p)) {
    const vc_crossover_point *a = &r->crossover[p];
    char live[VC_FMT_LEN];
    vc_fmt_bytes(live, a->live_bytes);
    row_open(&t, false);
    cell_fmt(&t, "%u", a->barriers);
    cell_text(&t, live);
    for (int m = 0; m < MODES; m++) {
      const vc_crossover_point *c = mode_row(r, p, m);
      char wall[VC_FMT_LEN], dev[VC_FMT_LEN];
      if (!c) {
        cell_text(&t, "-");
      } else if (strcmp(c->state, "ran")) {
        cell_text(&t, c->state);
      } else {
        vc_fmt_ns(wall, c->wall_ns);
        vc_fmt_ns(dev, c->device_ns);
        cell_fmt(&t, "%s (%s)", wall, dev);
      }
    }
    int w = winner(r, p);
    cell_text(&t, w < 0 ? "-" : mode_names[w]);
    row_close(&t);
  }
  put(sb, d->table_close);
}

/* The live sizes of the map, in the order first recorded. */
static uint32_t live_sizes(const vc_run_data *r, uint64_t *sizes) {
  uint32_t n = 0;
  for (uint32_t p = 0; p < r->ncrossover; p = next_point(r, p)) {
    uint32_t k = 0;
    while (k < n && sizes[k] != r->crossover[p].live_bytes) k++;
    if (k == n && n < MAX_SIZES) sizes[n++] = r->crossover[p].live_bytes;
  }
  return n;
}

/* Per live size, the barrier counts at which each mode wins: what a user
   reads to choose a mode. */
static void where_each_wins(const vc_markup *d, vc_strbuf *sb, const vc_run_data *r,
                            const uint64_t *sizes, uint32_t nsizes) {
  for (uint32_t s = 0; s < nsizes; s++) {
    char live[VC_FMT_LEN];
    vc_fmt_bytes(live, sizes[s]);
    put(sb, d->para.open);
    vc_sb_printf(sb, "%s live:", live);
    bool any = false;
    for (int m = 0; m < MODES; m++) {
      uint32_t wins = 0, last = 0;
      for (uint32_t p = 0; p < r->ncrossover; p = next_point(r, p))
        if (r->crossover[p].live_bytes == sizes[s] && winner(r, p) == m) {
          last = r->crossover[p].barriers;
          if (wins)
            vc_sb_printf(sb, ", %u", r->crossover[p].barriers);
          else
            vc_sb_printf(sb, "%s%s at %u", any ? "; " : " ", mode_names[m],
                         r->crossover[p].barriers);
          wins++;
        }
      if (wins) {
        vc_sb_printf(sb, " %s", wins == 1 && last == 1 ? "barrier" : "barriers");
        any = true;
      }
    }
    if (!any) vc_sb_puts(sb, " no mode ran");
    vc_sb_puts(sb, ".");
    put(sb, d->para.close);
  }
}

/* One chart a live size: the walls by barrier count, a bar a mode. */
static void charts(const vc_markup *d, vc_strbuf *sb, const vc_run_data *r, const uint64_t *sizes,
                   uint32_t nsizes) {
  if (!d->chart) return;
  for (uint32_t s = 0; s < nsizes; s++) {
    char labels[MAX_BARRIERS][32], live[VC_FMT_LEN], title[96];
    const char *lp[MAX_BARRIERS];
    uint64_t values[MAX_BARRIERS * MODES];
    uint32_t n = 0;
    for (uint32_t p = 0; p < r->ncrossover && n < MAX_BARRIERS; p = next_point(r, p)) {
      if (r->crossover[p].live_bytes != sizes[s]) continue;
      snprintf(labels[n], sizeof labels[n], "%u %s", r->crossover[p].barriers,
               vc_plural(r->crossover[p].barriers, "barrier", "barriers"));
      lp[n] = labels[n];
      for (int m = 0; m < MODES; m++) {
        const vc_crossover_point *c = mode_row(r, p, m);
        values[n * MODES + (uint32_t)m] = c && !strcmp(c->state, "ran") ? c->wall_ns : 0;
      }
      n++;
    }
    vc_fmt_bytes(live, sizes[s]);
    snprintf(title, sizeof title, "Wall per run, %s live", live);
    d->chart(sb, &(vc_chart){title, VC_UNIT_NS, lp, n, mode_names, MODES, values});
  }
}

void vc_section_crossover(const vc_markup *d, const vc_qual *q, vc_strbuf *sb) {
  bool any = false;
  for (uint32_t i = 0; i < q->nruns; i++) any |= q->runs[i].run->crossover_id != 0;
  if (!any) return;
  heading(d, sb, 2, "Choosing a mode");
  para(d, sb,
       "The crossover map of the device each run used, from the newest finished map of the same "
       "file, backend and device (vc-crossover-bench, docs/performance.md): for programs of B "
       "grid barriers with L bytes live across each, the median wall of a run in each mode (first "
       "upload to last download) with its device time, and the mode that costs least. Every run "
       "of the map was checked against its closed form. This section does not change the run's "
       "verdict.");
  for (uint32_t i = 0; i < q->nruns; i++) {
    const vc_run_data *r = q->runs[i].run;
    if (!r->crossover_id) continue;
    if (q->nruns > 1) run_heading(d, sb, 3, r);
    const vc_crossover_map_info *mi = &r->crossover_info;
    char when[VC_FMT_LEN], budget[VC_FMT_LEN];
    vc_fmt_utc(when, mi->started_ns);
    vc_fmt_ns(budget, mi->budget_ns);
    put(sb, d->para.open);
    vc_sb_printf(sb, "Map %lld, %s: ", (long long)r->crossover_id, when);
    d->esc(sb, mi->verdict);
    vc_sb_printf(sb, "; up to %u timed %s a mode and point, fewer past %s of them.", mi->runs,
                 vc_plural(mi->runs, "run", "runs"), budget);
    if (strcmp(mi->verdict, "pass"))
      vc_sb_puts(sb, " The map stopped at a failed run: the points before it are shown.");
    put(sb, d->para.close);
    map_table(d, sb, r);
    uint64_t sizes[MAX_SIZES];
    uint32_t nsizes = live_sizes(r, sizes);
    where_each_wins(d, sb, r, sizes, nsizes);
    charts(d, sb, r, sizes, nsizes);
  }
}
