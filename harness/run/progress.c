#include "harness/run/progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "harness/base/clock.h"

void vc_progress_init(vc_progress *p, int tty, const char *backend, const char *db_path,
                      int64_t run_id, uint32_t total, uint32_t slots) {
  memset(p, 0, sizeof *p);
  p->tty = tty;
  p->backend = backend;
  p->db_path = db_path;
  p->run_id = run_id;
  p->total = total;
  p->start_ns = p->last_beat_ns = vc_now_ns();
  vc_sb_init(&p->flake_list);
  vc_sb_init(&p->known_flake_list);
  p->nflight = slots ? slots : 1;
  p->flight = calloc(p->nflight, sizeof *p->flight);
  if (!p->flight) abort();
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

static void put_duration(char *out, size_t n, uint64_t ns) {
  uint64_t s = ns / 1000000000u;
  snprintf(out, n, "%llu:%02llu", (unsigned long long)(s / 60), (unsigned long long)(s % 60));
}

/* The terminal's status line: elapsed, ETA, counts, and what is in flight. */
static void draw(vc_progress *p) {
  if (!p->tty) return;
  uint64_t now = vc_now_ns();
  p->last_draw_ns = now;
  char el[32], eta[32] = "?";
  put_duration(el, sizeof el, now - p->start_ns);
  if (p->done)
    put_duration(eta, sizeof eta,
                 (now - p->start_ns) / p->done * (uint64_t)(p->total - p->done));
  uint32_t running = 0;
  for (uint32_t k = 0; k < p->nflight; k++) running += p->flight[k].busy;
  char line[1024];
  size_t u = (size_t)snprintf(line, sizeof line,
                              "[%u/%u] %s, ETA %s; %u passed, %u failed, %u running:", p->done,
                              p->total, el, eta, p->passed, p->failed, running);
  for (uint32_t k = 0; k < p->nflight && u < sizeof line; k++)
    if (p->flight[k].busy)
      u += (size_t)snprintf(line + u, sizeof line - u, " %s %s", p->flight[k].name,
                            p->flight[k].step);
  /* a line that wraps could not be rewritten in place */
  struct winsize ws;
  size_t width = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col ? ws.ws_col : 100;
  if (width - 1 < sizeof line) line[width - 1] = '\0';
  clear_line(p);
  fputs(line, stderr);
  fflush(stderr);
}

void vc_progress_start(vc_progress *p, uint32_t slot, uint32_t pos, const char *name) {
  if (slot >= p->nflight) return;
  vc_in_flight *f = &p->flight[slot];
  f->busy = true;
  f->pos = pos;
  snprintf(f->name, sizeof f->name, "%s", name);
  snprintf(f->step, sizeof f->step, "setup");
  f->start_ns = vc_now_ns();
  draw(p);
}

void vc_progress_mode(vc_progress *p, uint32_t slot, const char *step, uint32_t repeat) {
  if (slot >= p->nflight) return;
  vc_in_flight *f = &p->flight[slot];
  if (repeat)
    snprintf(f->step, sizeof f->step, "%s #%u", step, repeat + 1);
  else
    snprintf(f->step, sizeof f->step, "%s", step);
  draw(p);
}

void vc_progress_stop(vc_progress *p, uint32_t slot) {
  if (slot < p->nflight) p->flight[slot].busy = false;
}

void vc_progress_tick(vc_progress *p) {
  uint64_t now = vc_now_ns();
  if (p->tty) {
    if (now - p->last_draw_ns >= 250000000u) draw(p);
    return;
  }
  /* Plain: a program that hangs would otherwise print nothing until its
     timeout; a line at least every 10 s says what is in flight. */
  if (now - p->last_beat_ns < 10000000000u) return;
  p->last_beat_ns = now;
  bool any = false;
  for (uint32_t k = 0; k < p->nflight; k++) {
    const vc_in_flight *f = &p->flight[k];
    if (!f->busy) continue;
    printf("%s [%u/%u] %s %s for %.0f s", any ? "," : "running:", f->pos + 1, p->total, f->name,
           f->step, (double)(now - f->start_ns) / 1e9);
    any = true;
  }
  if (any) {
    char el[32];
    put_duration(el, sizeof el, now - p->start_ns);
    printf(" (%u of %u recorded, %s elapsed)\n", p->done, p->total, el);
    fflush(stdout);
  }
}

/* What the verdict adds to a result's status on its line. */
static const char *verdict_note(const vc_verdict *v) {
  if (v->status == VC_ST_FLAKE)
    return v->fails ? " (a failure: no flake entry lists it)" : " (known flake)";
  switch (v->excuse) {
  case VC_EXCUSE_EXPECTED: return " (expected)";
  case VC_EXCUSE_IMPROVEMENT: return " (expected to fail: improvement)";
  case VC_EXCUSE_SKIPPED:
  case VC_EXCUSE_FLAKE_PASS:
  case VC_EXCUSE_NONE: break;
  }
  return "";
}

/* A known flake is left out of the table, as an excused failure is. */
static bool excused(const vc_verdict *v) {
  return v->excuse == VC_EXCUSE_EXPECTED ||
         (v->status == VC_ST_FLAKE && v->excuse == VC_EXCUSE_FLAKE_PASS);
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
  return vc_status_is_failure(r->status) || r->status == VC_ST_FLAKE || r->nondeterministic ||
         *verdict_note(v) || v->excuse == VC_EXCUSE_SKIPPED;
}

void vc_progress_results(vc_progress *p, uint32_t pos, const char *name, const vc_result *r,
                         const vc_verdict *v, uint32_t n) {
  p->done++;
  bool fails = false;
  for (uint32_t i = 0; i < n; i++) {
    int m = row_of(r[i].mode);
    if (m >= 0 && (unsigned)r[i].status < VC_STATUS_COUNT && !excused(&v[i]))
      p->counts[m][r[i].status]++;
    p->nondeterministic += r[i].nondeterministic;
    fails |= v[i].fails;
    if (r[i].status == VC_ST_FLAKE) {
      vc_strbuf *list = v[i].fails ? &p->flake_list : &p->known_flake_list;
      if (v[i].fails)
        p->flakes++;
      else
        p->known_flakes++;
      vc_sb_printf(list, "%s%s %s", list->len ? ", " : "", name, r[i].mode);
      if (r[i].repeat) vc_sb_printf(list, " #%u", r[i].repeat + 1);
    }
  }
  if (fails)
    p->failed++;
  else
    p->passed++;
  if (p->tty) {
    for (uint32_t i = 0; i < n; i++) {
      if (!worth_a_line(&r[i], &v[i])) continue;
      clear_line(p);
      printf("%s %s %s%s%s: %s\n", vc_status_name(r[i].status), name, r[i].mode,
             r[i].nondeterministic ? " (nondeterministic)" : "", verdict_note(&v[i]),
             r[i].reason);
    }
    fflush(stdout);
    draw(p);
    return;
  }
  printf("[%u/%u] %s", pos + 1, p->total, name);
  for (uint32_t i = 0; i < n; i++) {
    if (i && strcmp(r[i].mode, r[i - 1].mode) == 0 && r[i].status == r[i - 1].status) continue;
    printf(" %s:%s%s%s", r[i].mode, vc_status_name(r[i].status),
           r[i].nondeterministic ? "(nondeterministic)" : "", verdict_note(&v[i]));
  }
  putchar('\n');
  for (uint32_t i = 0; i < n; i++)
    if (vc_status_is_failure(r[i].status) || r[i].status == VC_ST_FLAKE ||
        v[i].excuse == VC_EXCUSE_SKIPPED)
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
  if (p->known_flakes)
    printf("; %u known flake%s excused, not counted above (listed in %s)", p->known_flakes,
           p->known_flakes == 1 ? "" : "s", expectations ? expectations : "the expectations");
  if (p->flakes)
    printf("; %u flake%s (failed, then passed on a rerun) that no flake entry lists, failing "
           "the run",
           p->flakes, p->flakes == 1 ? "" : "s");
  printf("; run %lld in %s\n", (long long)p->run_id, p->db_path);
  if (p->flakes)
    printf("flakes not listed in %s: %s (a flake is a failure unless a flake entry lists it: "
           "docs/gating.md)\n",
           expectations ? expectations : "any expectations file (none was read)",
           vc_sb_str(&p->flake_list));
  if (p->known_flakes) printf("known flakes: %s\n", vc_sb_str(&p->known_flake_list));
  if (vc_run_verdict_not_run(rv)) { /* exit 9: skipped and unsupported results are no pass */
    uint32_t skip = 0, uns = 0;
    for (int m = 0; m < VC_MODE_COUNT + VC_PHASE_COUNT; m++) {
      skip += p->counts[m][VC_ST_SKIP];
      uns += p->counts[m][VC_ST_UNSUPPORTED];
    }
    printf("NOT RUN: nothing was checked: no result passed or failed as expected "
           "(%u skip, %u unsupported)\n", skip, uns);
  }
  fflush(stdout);
}

void vc_progress_free(vc_progress *p) {
  vc_sb_free(&p->flake_list);
  vc_sb_free(&p->known_flake_list);
  free(p->flight);
  memset(p, 0, sizeof *p);
}
