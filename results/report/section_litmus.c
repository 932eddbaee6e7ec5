/* The report's grid-sync contract section (sections.h): the litmus run of
 * the same device, its forward-progress checks, and the controls' weak
 * outcomes across the stress settings (docs/litmus.md). */
#include <stdio.h>
#include <string.h>

#include "harness/base/plural.h"
#include "results/report/blocks.h"
#include "results/report/fmt.h"
#include "results/report/sections.h"

/* One test x access x place x stress setting: its outcome rows summed;
   litmus_group returns the index of the next one. */
typedef struct litmus_sum {
  const vc_litmus_result *first;
  uint64_t forbidden, weak;
} litmus_sum;

static uint32_t litmus_group(const vc_run_data *r, uint32_t i, litmus_sum *g) {
  const vc_litmus_result *a = &r->litmus[i];
  *g = (litmus_sum){a, 0, 0};
  uint32_t j = i;
  for (; j < r->nlitmus; j++) {
    const vc_litmus_result *b = &r->litmus[j];
    if (strcmp(a->test, b->test) || strcmp(a->access, b->access) || strcmp(a->place, b->place) ||
        a->stress_groups != b->stress_groups)
      break;
    if (b->forbidden) g->forbidden += b->count;
    if (b->weak) g->weak += b->count;
  }
  return j;
}

static double per_million(uint64_t n, uint64_t of) { return of ? 1e6 * (double)n / (double)of : 0; }

/* The stress settings of the run, in the order they ran (a sweep has
   more than one). */
enum { MAX_POINTS = 16 };
static uint32_t stress_points(const vc_run_data *r, uint32_t *pts) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < r->nlitmus; i++) {
    uint32_t k = 0;
    while (k < n && pts[k] != r->litmus[i].stress_groups) k++;
    if (k == n && n < MAX_POINTS) pts[n++] = r->litmus[i].stress_groups;
  }
  return n;
}

static const vc_col litmus_cols[] = {
    {"test", VC_COL_HEAD},       {"access", VC_COL_TEXT},    {"place", VC_COL_TEXT},
    {"stress groups", VC_COL_NUM}, {"iterations", VC_COL_NUM}, {"forbidden", VC_COL_NUM},
    {"weak per million", VC_COL_NUM}, {"time", VC_COL_NUM},  {"verdict", VC_COL_TEXT}};

static void litmus_table(const vc_markup *d, vc_strbuf *sb, const vc_run_data *r) {
  const vc_litmus_run_info *li = &r->litmus_info;
  uint32_t rows = 0, failed = 0, powered = 0, controls = 0;
  litmus_sum g;
  for (uint32_t i = 0, next; i < r->nlitmus; i = next) {
    next = litmus_group(r, i, &g);
    rows++;
    if (g.forbidden) failed++;
    bool ran = g.first->iterations > 0;
    if (g.first->control && ran) {
      controls++;
      if (g.weak) powered++;
    }
  }
  put(sb, d->para.open);
  vc_sb_printf(sb, "Litmus run %lld (docs/litmus.md): verdict ", (long long)r->litmus_id);
  d->esc(sb, li->verdict);
  vc_sb_printf(sb, ", seed %llu, ", (unsigned long long)li->seed);
  d->esc(sb, li->options);
  vc_sb_printf(sb, "; %u %s of test × access × place, %u with a forbidden outcome. ", rows,
               vc_plural(rows, "row", "rows"), failed);
  if (controls && !powered)
    vc_sb_puts(sb, "No control showed a weak outcome: the tests had no power on this device, "
                   "and the rows that pass are no evidence of ordering.");
  else
    vc_sb_printf(sb, "%u of %u %s showed a weak outcome: the tests have power here.", powered,
                 controls, vc_plural(controls, "control", "controls"));
  put(sb, d->para.close);
  table t = table_open(d, sb, "litmus", litmus_cols,
                       (int)(sizeof litmus_cols / sizeof litmus_cols[0]));
  for (uint32_t i = 0, next; i < r->nlitmus; i = next) {
    next = litmus_group(r, i, &g);
    const vc_litmus_result *a = g.first;
    char took[VC_FMT_LEN];
    vc_fmt_ns(took, a->wall_ns);
    row_open(&t, g.forbidden > 0 || !strcmp(a->verdict, "error"));
    cell_text(&t, a->test);
    cell_text(&t, a->access);
    cell_text(&t, a->place);
    cell_fmt(&t, "%u", a->stress_groups);
    cell_fmt(&t, "%llu", (unsigned long long)a->iterations);
    if (g.forbidden)
      cell_fmt(&t, "%llu (first: launch %u, instance %u)", (unsigned long long)g.forbidden,
               a->first_launch, a->first_instance);
    else
      cell_text(&t, "0");
    if (a->control)
      cell_fmt(&t, "%.1f", per_million(g.weak, a->iterations));
    else
      cell_text(&t, "-");
    cell_text(&t, took);
    cell_text(&t, a->verdict[0] ? a->verdict : "-");
    row_close(&t);
  }
  put(sb, d->table_close);
}

/* The controls that showed a weak outcome at some stress setting, a bar
   per setting: the rates the table holds, drawn where the dialect draws. */
enum { MAX_BARS = 64 };
static void weak_chart(const vc_markup *d, vc_strbuf *sb, const vc_run_data *r) {
  if (!d->chart) return;
  uint32_t pts[MAX_POINTS], npts = stress_points(r, pts);
  char names[MAX_BARS][48], series_names[MAX_POINTS][32];
  const char *labels[MAX_BARS], *series[MAX_POINTS];
  uint64_t values[MAX_BARS * MAX_POINTS];
  memset(values, 0, sizeof values);
  uint32_t nlabels = 0;
  litmus_sum g;
  for (uint32_t i = 0, next; i < r->nlitmus; i = next) {
    next = litmus_group(r, i, &g);
    const vc_litmus_result *a = g.first;
    if (!a->control || !g.weak) continue;
    char name[48];
    snprintf(name, sizeof name, "%s/%s/%s", a->test, a->access, a->place);
    uint32_t l = 0;
    while (l < nlabels && strcmp(names[l], name)) l++;
    if (l == nlabels) {
      if (nlabels == MAX_BARS) continue;
      snprintf(names[nlabels], sizeof names[nlabels], "%s", name);
      labels[nlabels] = names[nlabels];
      nlabels++;
    }
    uint32_t p = 0;
    while (p < npts && pts[p] != a->stress_groups) p++;
    values[l * npts + p] = (uint64_t)(per_million(g.weak, a->iterations) + 0.5);
  }
  if (!nlabels) return;
  for (uint32_t p = 0; p < npts; p++) {
    snprintf(series_names[p], sizeof series_names[p], "stress groups %u", pts[p]);
    series[p] = series_names[p];
  }
  d->chart(sb, &(vc_chart){"Weak outcomes of the controls per million iterations", VC_UNIT_COUNT,
                           labels, nlabels, series, npts, values});
}

static const vc_col progress_cols[] = {
    {"check", VC_COL_HEAD},       {"launches", VC_COL_NUM},    {"released", VC_COL_NUM},
    {"gave up", VC_COL_NUM},      {"refused", VC_COL_NUM},     {"wrong", VC_COL_NUM},
    {"hung", VC_COL_NUM},         {"participants", VC_COL_NUM}, {"barriers", VC_COL_NUM},
    {"slowest", VC_COL_NUM},      {"device options", VC_COL_WRAP}, {"verdict", VC_COL_TEXT}};

static void progress_table(const vc_markup *d, vc_strbuf *sb, const vc_run_data *r) {
  if (!r->nprogress) {
    para(d, sb, "No forward-progress check ran with this litmus run.");
    return;
  }
  para(d, sb,
       "Forward progress of the native grid barrier: co-resident launches a program of many "
       "grid barriers among the participants the device gave, and each must release; "
       "over-occupancy puts one participant more than the device holds, and each launch must be "
       "refused or end with a wait that gave up and says so, never hang or release.");
  table t = table_open(d, sb, "progress", progress_cols,
                       (int)(sizeof progress_cols / sizeof progress_cols[0]));
  for (uint32_t i = 0; i < r->nprogress; i++) {
    const vc_progress_result *p = &r->progress[i];
    bool good = !strcmp(p->verdict, "pass") || !strcmp(p->verdict, "detected") ||
                !strcmp(p->verdict, "unsupported");
    char slowest[VC_FMT_LEN];
    vc_fmt_ns(slowest, p->slowest_ns);
    row_open(&t, !good);
    cell_text(&t, p->check_name);
    cell_fmt(&t, "%u of %u", p->ran, p->trials);
    cell_fmt(&t, "%u", p->released);
    cell_fmt(&t, "%u", p->gave_up);
    cell_fmt(&t, "%u", p->refused);
    cell_fmt(&t, "%u", p->wrong);
    cell_fmt(&t, "%u", p->hung);
    if (p->participants_min == p->participants_max)
      cell_fmt(&t, "%u", p->participants_min);
    else
      cell_fmt(&t, "%u to %u", p->participants_min, p->participants_max);
    cell_fmt(&t, "%llu", (unsigned long long)p->barriers);
    cell_text(&t, slowest);
    cell_text(&t, p->device_options[0] ? p->device_options : "-");
    cell_text(&t, p->verdict);
    row_close(&t);
  }
  put(sb, d->table_close);
  for (uint32_t i = 0; i < r->nprogress; i++)
    if (r->progress[i].reason[0]) {
      put(sb, d->para.open);
      d->esc(sb, r->progress[i].check_name);
      vc_sb_puts(sb, ": ");
      d->esc(sb, r->progress[i].reason);
      put(sb, d->para.close);
    }
}

void vc_section_litmus(const vc_markup *d, const vc_qual *q, vc_strbuf *sb) {
  bool any = false;
  for (uint32_t i = 0; i < q->nruns; i++) any |= q->runs[i].run->litmus_id != 0;
  if (!any) return;
  heading(d, sb, 2, "Grid-sync contract");
  para(d, sb,
       "Litmus tests of the device this run used, from the newest finished litmus run of the "
       "same file, backend and device. Forbidden outcomes across the native grid barrier and "
       "the launch boundary of the split modes break the contract; the controls (none, "
       "workgroup) order nothing across workgroups, and their weak outcomes show that the "
       "tests can see what they look for. This section does not change the run's verdict.");
  for (uint32_t i = 0; i < q->nruns; i++) {
    const vc_run_data *r = q->runs[i].run;
    if (!r->litmus_id) continue;
    if (q->nruns > 1) run_heading(d, sb, 3, r);
    litmus_table(d, sb, r);
    weak_chart(d, sb, r);
    progress_table(d, sb, r);
  }
}
