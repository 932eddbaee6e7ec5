#include "harness/run/progress.h"

#include <stdio.h>
#include <string.h>

#include "harness/base/clock.h"

void vc_progress_init(vc_progress *p, int tty, const char *backend, const char *db_path,
                      int64_t run_id, uint32_t total) {
  memset(p, 0, sizeof *p);
  p->tty = tty;
  p->backend = backend;
  p->db_path = db_path;
  p->run_id = run_id;
  p->total = total;
  p->start_ns = vc_now_ns();
  printf("vyre-conform: run %lld, %u program%s on %s, results in %s\n", (long long)run_id, total,
         total == 1 ? "" : "s", backend, db_path);
  fflush(stdout);
}

void vc_progress_device(vc_progress *p, const vc_device_info *info, const char *fingerprint) {
  (void)p;
  printf("device: %s (%s %s, driver %s %s)\nbehaviour: %s\n", info->device_name, info->api,
         info->api_version, info->driver_name, info->driver_version, fingerprint);
  fflush(stdout);
}

static void clear_line(const vc_progress *p) {
  if (p->tty) fputs("\r\033[K", stderr);
}

void vc_progress_program(vc_progress *p, uint32_t index, uint32_t total, const char *name) {
  snprintf(p->current, sizeof p->current, "[%u/%u] %s", index + 1, total, name);
  if (p->tty) {
    clear_line(p);
    fprintf(stderr, "%s", p->current);
    fflush(stderr);
  }
}

void vc_progress_mode(vc_progress *p, const char *mode, uint32_t repeat) {
  if (!p->tty) return;
  clear_line(p);
  if (repeat)
    fprintf(stderr, "%s %s #%u", p->current, mode, repeat + 1);
  else
    fprintf(stderr, "%s %s", p->current, mode);
  fflush(stderr);
}

/* What the verdict adds to a result's status on its line. */
static const char *verdict_note(const vc_verdict *v) {
  switch (v->excuse) {
  case VC_EXCUSE_EXPECTED: return " (expected)";
  case VC_EXCUSE_IMPROVEMENT: return " (expected to fail: improvement)";
  case VC_EXCUSE_SKIPPED:
  case VC_EXCUSE_FLAKE_PASS:
  case VC_EXCUSE_NONE: break;
  }
  return "";
}

/* The summary row of a result: its mode, or the step it was charged to. */
static int row_of(const char *mode) {
  int m = vc_mode_from_name(mode);
  if (m >= 0) return m;
  int ph = vc_phase_from_name(mode);
  return ph >= 0 ? VC_MODE_COUNT + ph : -1;
}

static const char *row_name(int row) {
  return row < VC_MODE_COUNT ? vc_mode_name((vc_mode)row)
                             : vc_phase_name((vc_phase)(row - VC_MODE_COUNT));
}

static bool worth_a_line(const vc_result *r, const vc_verdict *v) {
  return vc_status_is_failure(r->status) || r->nondeterministic || *verdict_note(v) ||
         v->excuse == VC_EXCUSE_SKIPPED;
}

void vc_progress_results(vc_progress *p, const char *name, const vc_result *r, const vc_verdict *v,
                         uint32_t n) {
  p->done++;
  for (uint32_t i = 0; i < n; i++) {
    int m = row_of(r[i].mode);
    if (m >= 0 && (unsigned)r[i].status < VC_STATUS_COUNT && v[i].excuse != VC_EXCUSE_EXPECTED)
      p->counts[m][r[i].status]++;
    p->nondeterministic += r[i].nondeterministic;
  }
  if (p->tty) {
    for (uint32_t i = 0; i < n; i++) {
      if (!worth_a_line(&r[i], &v[i])) continue;
      clear_line(p);
      printf("%s %s %s%s%s: %s\n", vc_status_name(r[i].status), name, r[i].mode,
             r[i].nondeterministic ? " (nondeterministic)" : "", verdict_note(&v[i]),
             r[i].reason);
    }
    fflush(stdout);
    return;
  }
  printf("%s", p->current);
  for (uint32_t i = 0; i < n; i++) {
    if (i && strcmp(r[i].mode, r[i - 1].mode) == 0 && r[i].status == r[i - 1].status) continue;
    printf(" %s:%s%s%s", r[i].mode, vc_status_name(r[i].status),
           r[i].nondeterministic ? "(nondeterministic)" : "", verdict_note(&v[i]));
  }
  putchar('\n');
  for (uint32_t i = 0; i < n; i++)
    if (vc_status_is_failure(r[i].status) || v[i].excuse == VC_EXCUSE_SKIPPED)
      printf("    %s #%u%s: %s\n", r[i].mode, r[i].repeat + 1, verdict_note(&v[i]),
             r[i].reason);
  fflush(stdout);
}

void vc_progress_summary(vc_progress *p, const vc_run_verdict *rv, const char *expectations) {
  clear_line(p);
  double secs = (double)(vc_now_ns() - p->start_ns) / 1e9;
  printf("\n%-16s", "mode");
  for (int s = 0; s < VC_STATUS_COUNT; s++) printf(" %13s", vc_status_name((vc_status)s));
  putchar('\n');
  for (int m = 0; m < VC_MODE_COUNT + VC_PHASE_COUNT; m++) {
    uint32_t any = 0;
    for (int s = 0; s < VC_STATUS_COUNT; s++) any += p->counts[m][s];
    if (!any) continue;
    printf("%-16s", row_name(m));
    for (int s = 0; s < VC_STATUS_COUNT; s++) printf(" %13u", p->counts[m][s]);
    putchar('\n');
  }
  printf("%u of %u program%s in %.1f s", p->done, p->total, p->total == 1 ? "" : "s", secs);
  if (rv->excused)
    printf("; %u known failure%s excused, not counted above (listed in %s)", rv->excused,
           rv->excused == 1 ? "" : "s", expectations ? expectations : "the expectations");
  if (rv->skipped)
    printf("; %u result%s not run (skip expectations)", rv->skipped, rv->skipped == 1 ? "" : "s");
  if (rv->improvements)
    printf("; %u result%s expected to fail passed", rv->improvements,
           rv->improvements == 1 ? "" : "s");
  if (p->nondeterministic)
    printf("; %u nondeterministic result%s", p->nondeterministic,
           p->nondeterministic == 1 ? "" : "s");
  printf("; run %lld in %s\n", (long long)p->run_id, p->db_path);
  fflush(stdout);
}

void vc_progress_free(vc_progress *p) { memset(p, 0, sizeof *p); }
