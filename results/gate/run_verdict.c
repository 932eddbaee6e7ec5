#include "results/gate/run_verdict.h"

#include <string.h>
#include <time.h>

#include "harness/base/exitcodes.h"
#include "results/gate/provenance.h"

/* The day the run started: the day its expectations were judged on. */
static int run_day(const vc_run_data *r) {
  time_t t = (time_t)(r->info.started_ns / 1000000000);
  struct tm tm;
  gmtime_r(&t, &tm);
  return (tm.tm_year + 1900) * 10000 + (tm.tm_mon + 1) * 100 + tm.tm_mday;
}

void vc_file_verdict_of(const vc_run_data *r, const vc_expectations *exps, vc_file_verdict *out) {
  memset(out, 0, sizeof *out);
  vc_exp_config cfg = {r->info.backend, r->device.device_name, r->device.driver_name,
                       r->device.driver_version};
  int today = run_day(r);
  for (uint32_t p = 0; p < r->nprogs; p++) {
    const vc_prog_data *pd = &r->progs[p];
    for (uint32_t i = 0; i < pd->nresults; i++) {
      vc_verdict v = vc_verdict_of(exps, &cfg, today, pd->info.name, &pd->results[i]);
      vc_run_verdict_add(&out->rv, &v);
    }
  }
  for (uint32_t i = 0; exps && i < exps->n; i++)
    out->rv.expired += vc_expectation_applies(&exps->items[i], &cfg) &&
                       vc_expectation_expired(&exps->items[i], today);
  out->judged = vc_run_verdict_exit(&out->rv);
  out->exit = out->judged;
  /* not every program ran: no pass, whatever the rest says */
  if (strcmp(r->status, "complete") != 0) out->exit = vc_exit_worst(out->exit, VC_EXIT_FAIL);
  vc_run_planted(r, out->planted, sizeof out->planted);
  if (out->planted[0]) out->exit = vc_exit_worst(out->exit, VC_EXIT_PLANTED);
}
