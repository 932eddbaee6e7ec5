/* vyre-conform litmus --backend B: the litmus tests of the grid-sync
 * contract under stress (harness/litmus, docs/litmus.md), one line per test
 * x access x place as it is measured, recorded with --db. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness/base/clock.h"
#include "harness/base/exitcodes.h"
#include "harness/base/plural.h"
#include "harness/base/version.h"
#include "harness/cli/args.h"
#include "harness/cli/cmd_util.h"
#include "harness/cli/commands.h"
#include "harness/cli/watchdog.h"
#include "harness/exec/plugin.h"
#include "harness/litmus/litmus.h"
#include "harness/litmus/progress.h"
#include "harness/model/digest.h"
#include "results/store/record.h"

static const char help[] =
    "usage: vyre-conform litmus --backend B [options]\n"
    "\n"
    "Runs the litmus tests of the grid-sync contract (docs/litmus.md): message\n"
    "passing (mp), store buffering (sb), load buffering (lb), 2+2W (2+2w),\n"
    "coherence of reads (corr) and 64-bit tearing (torn64), with plain and\n"
    "atomic accesses, in five places: none and workgroup (the positive\n"
    "controls, where weak outcomes may show), native, host-split and\n"
    "resident-split (across the grid barrier or the launch boundary, where the\n"
    "test's forbidden outcomes must never show). Every launch pairs the\n"
    "testing workgroups afresh from the seed; stress workgroups hammer a\n"
    "scratch buffer meanwhile. One line per test x access x place, with the\n"
    "count of each outcome per million iterations. Then, when the native place\n"
    "is selected, the forward-progress checks of the native grid barrier:\n"
    "co-resident (launches of a program of many grid barriers among the\n"
    "discovered participants: every one must release) and over-occupancy (one\n"
    "participant more than the device holds: every launch must be refused or\n"
    "end with a wait that gave up and says so, never hang).\n"
    "\n"
    "  --backend B          vulkan, opencl or cuda (required)\n"
    "  --device N           device index (default 0)\n"
    "  --device-options S   the backend's device options, as for run\n"
    "  --test LIST          comma-separated tests (default all)\n"
    "  --access LIST        plain, atomic (default both)\n"
    "  --place LIST         none, workgroup, native, host-split, resident-split\n"
    "                       (default all)\n"
    "  --seed N             the pairings' seed (default 1)\n"
    "  --launches N         launches per test x access x place (default 8)\n"
    "  --workgroup N        invocations per workgroup (default 256)\n"
    "  --testing-groups N   workgroups playing the roles (default 512); each\n"
    "                       launch runs N x workgroup iterations\n"
    "  --stress-groups LIST workgroups hammering the scratch buffer, a comma-\n"
    "                       separated list: every row runs at each (a sweep:\n"
    "                       the report plots the rates across it; default\n"
    "                       0,64)\n"
    "  --stress-iters N     scratch accesses per stress invocation and half\n"
    "                       (default 64)\n"
    "  --scratch N          u32 elements of the scratch buffer (default 65536)\n"
    "  --progress-trials N  launches of the co-resident check (default 16; 0\n"
    "                       leaves it out)\n"
    "  --over-trials N      launches of the over-occupancy check (default 2; 0\n"
    "                       leaves it out)\n"
    "  --over-options S     device options that put one participant over the\n"
    "                       occupancy, added to --device-options (default:\n"
    "                       native-phantoms=1 on opencl and vulkan, with a\n"
    "                       native-spin from 16 up that keeps every wait at\n"
    "                       least a co-resident launch long; native-over=1 on\n"
    "                       cuda)\n"
    "  --progress-only      the forward-progress checks only, no litmus row\n"
    "  --progress-barriers N, --progress-workgroup N, --progress-groups N\n"
    "                       the checks' program: grid barriers (default 16),\n"
    "                       invocations per workgroup (64), workgroups (1024)\n"
    "  --timeout S          seconds a test x access x place may take (default\n"
    "                       60), and each forward-progress check; one that\n"
    "                       takes longer is a hang: the run records it as\n"
    "                       timeout and ends with status 1\n"
    "  --db FILE            record the run in this results file (tables\n"
    "                       litmus_runs, litmus_results and progress_results,\n"
    "                       docs/database.md)\n"
    "  --emit               print the selected programs' text, with the first\n"
    "                       launch's pairing as the pair buffer's init (for\n"
    "                       check and run), and exit\n"
    "\n"
    "A row's verdict: FAIL (a forbidden outcome was seen: its count and the\n"
    "launch and instance of the first), pass, weak or \"no weak\" (a control\n"
    "that did or did not show its weak outcome), unsupported, error (a launch\n"
    "failed, or a native wait gave up: no evidence), timeout. A check's:\n"
    "pass (co-resident: every launch released), detected (over-occupancy:\n"
    "every launch refused or gave up), inconclusive (a wait gave up sooner\n"
    "than a co-resident launch takes), FAIL, unsupported, error, timeout.\n"
    "When no control shows a weak outcome the run says the tests had no power\n"
    "on this device.\n"
    "\n"
    "Exit status: 0 no forbidden outcome and no check failed; 1 a forbidden\n"
    "outcome, a check that failed, a launch that failed or a timeout; 2 usage\n"
    "error; 3 no such backend or device; 5 the results file; 7 internal error;\n"
    "9 nothing ran (every place and check unsupported).\n";

/* Parses a comma-separated list of names into sel (all false first). */
static int pick(const char *opt, const char *list, int (*from)(const char *), int n,
                const char *(*name)(int), bool *sel, vc_error *err) {
  for (int i = 0; i < n; i++) sel[i] = false;
  char buf[512];
  snprintf(buf, sizeof buf, "%s", list);
  for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    int k = from(t);
    if (k < 0) {
      char names[256] = "";
      size_t u = 0;
      for (int i = 0; i < n && u < sizeof names; i++)
        u += (size_t)snprintf(names + u, sizeof names - u, "%s%s", i ? ", " : "", name(i));
      return vc_fail(err, VC_ERR_USAGE, "--%s: no %s named \"%s\" (%s)", opt, opt, t, names);
    }
    sel[k] = true;
  }
  return 0;
}

static const char *test_name(int i) { return vc_litmus_test_name((vc_litmus_test_id)i); }
static const char *access_name(int i) { return vc_litmus_access_name((vc_litmus_access)i); }
static const char *place_name(int i) { return vc_litmus_place_name((vc_litmus_place)i); }

typedef struct litmus_ctx {
  vc_db *db;
  int64_t id;
  vc_watchdog *dog;
  uint32_t timeout_s;
  vc_litmus_row current; /* the row being measured */
  bool in_check;         /* a forward-progress check, not a row, is being measured */
  vc_progress_row check; /* the check being measured */
  const char *check_opts;
  uint32_t stress;       /* the sweep's point being measured */
  bool sweeping;         /* more than one point */
  uint64_t started_ns;   /* of the run */
  uint32_t rows, failed, errored, unsupported, controls, powered;
  uint32_t checks, checks_failed, checks_errored, checks_unsupported;
  vc_strbuf weak;        /* "sb/plain/none 12.3/M, ..." */
  vc_error dberr;
  bool dbfailed;
} litmus_ctx;

static double per_million(uint64_t n, uint64_t of) { return of ? 1e6 * (double)n / (double)of : 0; }

/* The fields of a row's records that every outcome shares; outcome "" and
   counts 0 until the caller fills them. */
static vc_litmus_result result_of(const vc_litmus_row *r, const char *verdict, uint32_t stress) {
  return (vc_litmus_result){vc_litmus_test_name(r->test),
                            vc_litmus_access_name(r->access),
                            vc_litmus_place_name(r->place),
                            vc_litmus_place_is_control(r->place),
                            verdict,
                            r->why,
                            "",
                            false,
                            false,
                            0,
                            r->iterations,
                            r->first_launch,
                            r->first_instance,
                            r->wall_ns,
                            stress};
}

static void record(litmus_ctx *c, const vc_litmus_row *r) {
  if (!c->db || c->dbfailed) return;
  vc_litmus_result rows[VC_LITMUS_MAX_OUTCOMES];
  uint32_t n = vc_litmus_outcomes(r->test);
  for (uint32_t o = 0; o < n; o++) {
    rows[o] = result_of(r, vc_litmus_row_verdict(r), c->stress);
    rows[o].outcome = vc_litmus_outcome_name(r->test, o);
    rows[o].forbidden = vc_litmus_forbidden(r->test, r->access, r->place, o);
    rows[o].weak = vc_litmus_weak(r->test, o);
    rows[o].count = r->counts[o];
  }
  if (vc_db_record_litmus(c->db, c->id, rows, n, &c->dberr)) c->dbfailed = true;
}

static void record_check(litmus_ctx *c, const vc_progress_row *r, const char *verdict) {
  if (!c->db || c->dbfailed) return;
  vc_progress_result rec = {vc_progress_check_name(r->check),
                            verdict,
                            r->why,
                            c->check_opts,
                            r->trials,
                            r->ran,
                            r->released,
                            r->gave_up,
                            r->refused,
                            r->wrong,
                            r->hung,
                            r->participants_min,
                            r->participants_max,
                            r->barriers,
                            r->slowest_ns,
                            r->median_ns,
                            r->wall_ns};
  if (vc_db_record_progress(c->db, c->id, &rec, &c->dberr)) c->dbfailed = true;
}

static void on_start(void *ctx, const vc_litmus_row *r) {
  litmus_ctx *c = ctx;
  c->current = *r;
  vc_watchdog_arm(c->dog, c->timeout_s);
}

/* On the watchdog's thread, while the main one is stuck in a launch: the
   row is recorded as a timeout and the run ends. */
static int on_timeout(void *ctx) {
  litmus_ctx *c = ctx;
  if (c->in_check) {
    vc_progress_row *k = &c->check;
    snprintf(k->why, sizeof k->why,
             "no result in %u s (--timeout): a launch hangs: a grid barrier that never "
             "releases, or a participant that is not resident",
             c->timeout_s);
    printf("%-11s %-14s %s\n", "timeout", vc_progress_check_name(k->check), k->why);
    fflush(stdout);
    k->hung++;
    k->ran++;
    k->wall_ns = (uint64_t)c->timeout_s * 1000000000u;
    record_check(c, k, "timeout");
    if (c->db && (c->dbfailed || vc_db_end_litmus(c->db, c->id, "FAIL",
                                                  vc_now_ns() - c->started_ns, &c->dberr))) {
      fprintf(stderr, "vyre-conform litmus: %s\n", c->dberr.msg);
      return VC_EXIT_DB;
    }
    return VC_EXIT_FAIL;
  }
  vc_litmus_row *r = &c->current;
  snprintf(r->why, sizeof r->why,
           "no result in %u s (--timeout): a launch hangs or is slower than that; across a "
           "grid barrier, a hang is a barrier that never releases or participants that are not "
           "all resident",
           c->timeout_s);
  printf("%-11s %-6s %-6s %-14s %s\n", "timeout", vc_litmus_test_name(r->test),
         vc_litmus_access_name(r->access), vc_litmus_place_name(r->place), r->why);
  printf("%u rows measured; the run ends at this timeout\n", c->rows);
  fflush(stdout);
  if (c->db && !c->dbfailed) {
    r->wall_ns = (uint64_t)c->timeout_s * 1000000000u;
    vc_litmus_result row = result_of(r, "timeout", c->stress); /* nothing counted */
    if (vc_db_record_litmus(c->db, c->id, &row, 1, &c->dberr) ||
        vc_db_end_litmus(c->db, c->id, "FAIL", vc_now_ns() - c->started_ns, &c->dberr)) {
      fprintf(stderr, "vyre-conform litmus: %s\n", c->dberr.msg);
      return VC_EXIT_DB;
    }
  }
  return VC_EXIT_FAIL;
}

static int on_row(void *ctx, const vc_litmus_row *r) {
  litmus_ctx *c = ctx;
  vc_watchdog_disarm(c->dog);
  const char *v = vc_litmus_row_verdict(r);
  c->rows++;
  printf("%-11s %-6s %-6s %-14s", v, vc_litmus_test_name(r->test),
         vc_litmus_access_name(r->access), vc_litmus_place_name(r->place));
  if (r->unsupported || r->errored) {
    printf(" %s\n", r->why);
  } else {
    printf(" %llu iterations;", (unsigned long long)r->iterations);
    for (uint32_t o = 0; o < vc_litmus_outcomes(r->test); o++)
      if (r->counts[o])
        printf(" %s%s %.1f/M", vc_litmus_outcome_name(r->test, o),
               vc_litmus_forbidden(r->test, r->access, r->place, o) ? " (forbidden)" : "",
               per_million(r->counts[o], r->iterations));
    if (r->forbidden)
      printf("; %llu forbidden, the first in launch %u instance %u",
             (unsigned long long)r->forbidden, r->first_launch, r->first_instance);
    printf("; %.2f s\n", (double)r->wall_ns / 1e9);
  }
  fflush(stdout);
  if (r->unsupported) c->unsupported++;
  if (r->errored) c->errored++;
  if (r->forbidden) c->failed++;
  if (vc_litmus_place_is_control(r->place) && !r->unsupported && !r->errored) {
    c->controls++;
    if (r->weak) {
      vc_sb_printf(&c->weak, "%s%s/%s/%s %.1f/M", c->powered++ ? ", " : "",
                   vc_litmus_test_name(r->test), vc_litmus_access_name(r->access),
                   vc_litmus_place_name(r->place), per_million(r->weak, r->iterations));
      if (c->sweeping) vc_sb_printf(&c->weak, " at stress-groups %u", c->stress);
    }
  }
  record(c, r);
  return 0;
}

/* ---- forward progress ---- */

/* The device options that put one participant over the occupancy: a
   barrier arrival that never comes (with a spin limit, so that the wait
   gives up; the command finds one long enough, below), or on CUDA a
   cooperative grid one block larger than the occupancy API allows, which
   the driver must refuse. */
static const struct {
  const char *backend, *options;
} over_defaults[] = {{"opencl", "native-phantoms=1"},
                     {"vulkan", "native-phantoms=1"},
                     {"cuda", "native-over=1"}};

static const char *over_default(const char *backend) {
  for (size_t i = 0; i < sizeof over_defaults / sizeof over_defaults[0]; i++)
    if (!strcmp(over_defaults[i].backend, backend)) return over_defaults[i].options;
  return "";
}

static void print_check(const vc_progress_row *r, const char *verdict) {
  printf("%-11s %-14s", verdict, vc_progress_check_name(r->check));
  if (r->unsupported || r->errored) {
    printf(" %s\n", r->why);
  } else {
    printf(" %u of %u launches: %u released, %u gave up, %u refused, %u wrong, %u hung; "
           "participants %u to %u, %llu grid barriers a launch; median %.2f ms, slowest "
           "%.2f ms; %.2f s",
           r->ran, r->trials, r->released, r->gave_up, r->refused, r->wrong, r->hung,
           r->participants_min, r->participants_max, (unsigned long long)r->barriers,
           (double)r->median_ns / 1e6, (double)r->slowest_ns / 1e6, (double)r->wall_ns / 1e9);
    printf(r->why[0] ? "; first note: %s\n" : "\n", r->why);
  }
  fflush(stdout);
}

/* One check on dev, or on the device opened again with extra added to
   devopts; the row in c->check. Returns VC_ERR_TIMEOUT after a hang
   (nothing more may run on the device), another error that ends the run,
   or 0. */
static int measure_check(litmus_ctx *c, const vc_backend *be, vc_dev *dev, uint32_t device,
                         const char *devopts, const char *extra, vc_progress_check k,
                         const vc_progress_opts *po, vc_error *e) {
  vc_progress_row *r = &c->check;
  vc_dev *own = NULL;
  int rc = 0;
  if (extra[0]) {
    char joined[1024];
    snprintf(joined, sizeof joined, "%s%s%s", devopts, devopts[0] ? "," : "", extra);
    if (be->open(device, joined, &own, e)) {
      memset(r, 0, sizeof *r);
      r->check = k;
      r->trials = po->trials[k];
      r->errored = true;
      snprintf(r->why, sizeof r->why, "opening the device with \"%s\": %s", joined, e->msg);
      return 0;
    }
    dev = own;
  }
  c->in_check = true;
  vc_watchdog_arm(c->dog, c->timeout_s);
  rc = vc_progress_run(be, dev, k, po, r, e);
  vc_watchdog_disarm(c->dog);
  c->in_check = false;
  /* a device whose launch hung is left open: closing it would wait */
  if (own && rc != VC_ERR_TIMEOUT) be->close(own);
  return rc;
}

/* One check, printed and recorded. OVER with a phantom needs a spin
   limit long enough for the real participants: the same launches without
   the phantom must release at it (a control, not recorded). It starts at
   16 rounds and grows 4-fold up to 2^22; without one the check is
   inconclusive. The options that ran are recorded. */
enum { SPIN_FIRST = 16, SPIN_LAST = 1u << 22 };
static const char PHANTOM[] = "native-phantoms=1";

/* over with its phantom option replaced by phantoms=0, and spin added. */
static void control_options(const char *over, uint32_t spin, char *out, size_t n) {
  const char *at = strstr(over, PHANTOM);
  snprintf(out, n, "%.*snative-phantoms=0%s,native-spin=%u", (int)(at - over), over,
           at + strlen(PHANTOM), spin);
}

static int run_check(litmus_ctx *c, const vc_backend *be, vc_dev *dev, uint32_t device,
                     const char *devopts, const char *over, vc_progress_check k,
                     const vc_progress_opts *po, vc_error *e) {
  static char ran[512];
  bool calibrate = k == VC_PROGRESS_OVER && strstr(over, PHANTOM) && !strstr(over, "native-spin");
  snprintf(ran, sizeof ran, "%s", k == VC_PROGRESS_OVER ? over : "");
  c->check_opts = ran;
  int rc = 0;
  uint32_t spin = SPIN_FIRST;
  for (; calibrate; spin *= 4) {
    char ctl[512];
    control_options(over, spin, ctl, sizeof ctl);
    vc_progress_opts cpo = *po;
    cpo.trials[VC_PROGRESS_CORESIDENT] = po->trials[VC_PROGRESS_OVER];
    rc = measure_check(c, be, dev, device, devopts, ctl, VC_PROGRESS_CORESIDENT, &cpo, e);
    const vc_progress_row *r = &c->check;
    if (rc || r->errored || r->unsupported || r->released == r->trials || spin >= SPIN_LAST) break;
    printf("            %-14s without the extra participant %u of %u launches gave up at "
           "native-spin=%u: again at %u\n",
           vc_progress_check_name(k), r->gave_up, r->trials, spin, spin * 4);
    fflush(stdout);
  }
  bool found = !calibrate || (!rc && c->check.released == c->check.trials);
  bool usable = !calibrate || (!c->check.errored && !c->check.unsupported);
  if (calibrate) snprintf(ran, sizeof ran, "%s,native-spin=%u", over, spin);
  if (!rc && usable) rc = measure_check(c, be, dev, device, devopts, ran, k, po, e);
  c->check.check = k; /* a control that could not run is the check's row */
  c->check.trials = po->trials[k];
  c->check.inconclusive = !found && usable && !c->check.errored && !c->check.unsupported;
  if (rc && rc != VC_ERR_TIMEOUT) return rc;
  vc_progress_row *r = &c->check;
  const char *v = vc_progress_verdict(r);
  if (r->inconclusive)
    snprintf(r->why, sizeof r->why,
             "without the extra participant the launches still gave up at native-spin=%u: "
             "no spin limit tells a missing participant from a slow one here",
             SPIN_LAST);
  print_check(r, v);
  c->checks++;
  if (!strcmp(v, "FAIL")) c->checks_failed++;
  if (r->errored || r->inconclusive) c->checks_errored++;
  if (r->unsupported) c->checks_unsupported++;
  record_check(c, r, v);
  return rc;
}


/* Each with launch 0's pairing as its pair buffer's init, so that check
   and run take it as it is. */
static int emit_all(const vc_litmus_opts *o) {
  uint32_t *pair = malloc((size_t)o->testing_groups * o->workgroup * sizeof *pair);
  vc_error e;
  if (!pair || vc_litmus_pairing(o->seed, 0, o->testing_groups, o->workgroup, pair, &e)) {
    fprintf(stderr, "vyre-conform litmus: out of memory for the pairing\n");
    free(pair);
    return VC_EXIT_INTERNAL;
  }
  for (int t = 0; t < VC_LITMUS_TEST_COUNT; t++)
    for (int a = 0; a < VC_LITMUS_ACCESS_COUNT; a++)
      for (int p = 0; p < VC_LITMUS_PLACE_COUNT; p++) {
        if (!o->tests[t] || !o->access[a] || !o->places[p]) continue;
        vc_strbuf sb;
        vc_sb_init(&sb);
        vc_litmus_program((vc_litmus_test_id)t, (vc_litmus_access)a, (vc_litmus_place)p, o, pair,
                          &sb);
        fputs(vc_sb_str(&sb), stdout);
        vc_sb_free(&sb);
      }
  free(pair);
  return VC_EXIT_OK;
}

static void options_text(const vc_litmus_opts *o, const uint32_t *sweep, uint32_t nsweep,
                         const vc_progress_opts *po, char *out, size_t n) {
  char groups[128] = "";
  for (uint32_t i = 0, u = 0; i < nsweep && u < sizeof groups; i++)
    u += (uint32_t)snprintf(groups + u, sizeof groups - u, "%s%u", i ? "," : "", sweep[i]);
  snprintf(out, n,
           "launches=%u workgroup=%u testing-groups=%u stress-groups=%s stress-iters=%u "
           "scratch=%u progress-trials=%u over-trials=%u progress-barriers=%u "
           "progress-workgroup=%u progress-groups=%u",
           o->launches, o->workgroup, o->testing_groups, groups, o->stress_iters, o->scratch,
           po->trials[VC_PROGRESS_CORESIDENT], po->trials[VC_PROGRESS_OVER], po->barriers,
           po->workgroup, po->groups);
}

int vc_cmd_litmus(int argc, char **argv) {
  if (vc_wants_help(argc, argv)) {
    fputs(help, stdout);
    return VC_EXIT_OK;
  }
  vc_opt opts[] = {VC_OPT("backend", true, false),        VC_OPT("device", true, false),
                   VC_OPT("device-options", true, false), VC_OPT("test", true, false),
                   VC_OPT("access", true, false),         VC_OPT("place", true, false),
                   VC_OPT("seed", true, false),           VC_OPT("launches", true, false),
                   VC_OPT("workgroup", true, false),      VC_OPT("testing-groups", true, false),
                   VC_OPT("stress-groups", true, false),  VC_OPT("stress-iters", true, false),
                   VC_OPT("scratch", true, false),        VC_OPT("db", true, false),
                   VC_OPT("emit", false, false),          VC_OPT("timeout", true, false),
                   VC_OPT("progress-trials", true, false), VC_OPT("over-trials", true, false),
                   VC_OPT("over-options", true, false),   VC_OPT("progress-barriers", true, false),
                   VC_OPT("progress-workgroup", true, false),
                   VC_OPT("progress-groups", true, false), VC_OPT("progress-only", false, false)};
  const uint32_t nopts = sizeof opts / sizeof opts[0];
  vc_args a;
  vc_error e;
  vc_error_clear(&e);
  vc_plugin plugin = {0};
  vc_dev *dev = NULL;
  litmus_ctx c;
  memset(&c, 0, sizeof c);
  vc_sb_init(&c.weak);
  vc_litmus_opts lo;
  vc_litmus_opts_default(&lo);
  vc_progress_opts po;
  vc_progress_opts_default(&po);
  /* weak outcomes show at one setting on one device and at the other on
     another (docs/litmus.md, Measured): both by default */
  uint32_t sweep[VC_LITMUS_MAX_SWEEP] = {0, 64}, nsweep = 2;
  uint32_t device = 0;
  c.timeout_s = 60;
  int status = VC_EXIT_OK;
  vc_opt *o;
  if (vc_args_parse(argc, argv, opts, nopts, &a, &e)) goto usage;
  if (a.npos) {
    vc_fail(&e, VC_ERR_USAGE, "unexpected argument %s (litmus takes no PATH)", a.pos[0]);
    goto usage;
  }
  struct {
    const char *name;
    uint32_t *v;
    uint32_t lo, hi;
  } nums[] = {{"launches", &lo.launches, 1, 1u << 20},
              {"workgroup", &lo.workgroup, 1, 1024},
              {"testing-groups", &lo.testing_groups, 2, 65535},
              {"stress-iters", &lo.stress_iters, 0, 1u << 20},
              {"scratch", &lo.scratch, 1, 1u << 28},
              {"device", &device, 0, 1u << 16},
              {"timeout", &c.timeout_s, 1, 86400},
              {"progress-trials", &po.trials[VC_PROGRESS_CORESIDENT], 0, 1u << 16},
              {"over-trials", &po.trials[VC_PROGRESS_OVER], 0, 1u << 16},
              {"progress-barriers", &po.barriers, 1, 256},
              {"progress-workgroup", &po.workgroup, 1, 1024},
              {"progress-groups", &po.groups, 1, 65535}};
  for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
    if ((o = vc_args_get(opts, nopts, nums[i].name)) &&
        vc_args_u32(o, nums[i].lo, nums[i].hi, nums[i].v, &e))
      goto usage;
  if ((o = vc_args_get(opts, nopts, "seed")) && vc_args_u64(o, &lo.seed, &e)) goto usage;
  if ((o = vc_args_get(opts, nopts, "stress-groups")) &&
      vc_litmus_parse_sweep(o->value, sweep, &nsweep, &e))
    goto usage;
  lo.stress_groups = sweep[0];
  for (uint32_t i = 0; i < nsweep; i++)
    if (sweep[i] > lo.stress_groups) lo.stress_groups = sweep[i]; /* checked at its largest */
  if ((o = vc_args_get(opts, nopts, "test")) &&
      pick("test", o->value, vc_litmus_test_from_name, VC_LITMUS_TEST_COUNT, test_name, lo.tests,
           &e))
    goto usage;
  if ((o = vc_args_get(opts, nopts, "access")) &&
      pick("access", o->value, vc_litmus_access_from_name, VC_LITMUS_ACCESS_COUNT, access_name,
           lo.access, &e))
    goto usage;
  if ((o = vc_args_get(opts, nopts, "place")) &&
      pick("place", o->value, vc_litmus_place_from_name, VC_LITMUS_PLACE_COUNT, place_name,
           lo.places, &e))
    goto usage;
  if (vc_litmus_opts_check(&lo, &e) || vc_progress_opts_check(&po, &e)) goto usage;
  if (vc_args_get(opts, nopts, "emit")) {
    status = emit_all(&lo);
    goto done;
  }
  vc_opt *ob = vc_args_get(opts, nopts, "backend");
  if (!ob) {
    char names[2048];
    vc_plugin_names(names, sizeof names);
    vc_fail(&e, VC_ERR_USAGE, "--backend is required (backends found: %s)", names);
    goto usage;
  }
  vc_opt *od = vc_args_get(opts, nopts, "db");
  if (od && vc_db_open(od->value, 60000, &c.db, &e)) {
    fprintf(stderr, "vyre-conform litmus: %s\n", e.msg);
    status = VC_EXIT_DB;
    goto done;
  }
  if (vc_plugin_load(ob->value, &plugin, &e)) {
    fprintf(stderr, "vyre-conform litmus: %s\n", e.msg);
    status = VC_EXIT_NO_BACKEND;
    goto done;
  }
  vc_opt *oo = vc_args_get(opts, nopts, "device-options");
  vc_device_info info;
  memset(&info, 0, sizeof info);
  if (plugin.ops->open(device, oo ? oo->value : "", &dev, &e) ||
      plugin.ops->describe(dev, &info, &e)) {
    fprintf(stderr, "vyre-conform litmus: backend %s, device %u: %s\n", ob->value, device, e.msg);
    status = VC_EXIT_NO_BACKEND;
    goto done;
  }
  char optext[512], host[256] = "";
  options_text(&lo, sweep, nsweep, &po, optext, sizeof optext);
  gethostname(host, sizeof host - 1);
  char *args = vc_cmd_join_args(argc, argv);
  vc_strbuf cmdline;
  vc_sb_init(&cmdline);
  vc_sb_printf(&cmdline, "vyre-conform %s", args);
  free(args);
  printf("litmus on %s (%s %s), seed %llu: %s\n", info.device_name, info.driver_name,
         info.driver_version, (unsigned long long)lo.seed, optext);
  fflush(stdout);
  if (c.db) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    vc_litmus_run_info ri = {VC_VERSION,
                             vc_build_id(),
                             vc_sb_str(&cmdline),
                             host,
                             ob->value,
                             info.device_name,
                             info.driver_version,
                             (int64_t)now.tv_sec * 1000000000 + now.tv_nsec,
                             0,
                             lo.seed,
                             optext,
                             "running"};
    if (vc_db_begin_litmus(c.db, &ri, &c.id, &e)) {
      fprintf(stderr, "vyre-conform litmus: %s\n", e.msg);
      vc_sb_free(&cmdline);
      status = VC_EXIT_DB;
      goto done;
    }
  }
  vc_sb_free(&cmdline);
  uint64_t t0 = c.started_ns = vc_now_ns();
  if (vc_watchdog_start(&c.dog, on_timeout, &c, &e)) {
    fprintf(stderr, "vyre-conform litmus: %s\n", e.msg);
    status = VC_EXIT_INTERNAL;
    goto done;
  }
  vc_litmus_sink sink = {&c, on_start, on_row};
  int rc = 0;
  bool rows = !vc_args_get(opts, nopts, "progress-only");
  c.sweeping = nsweep > 1;
  for (uint32_t i = 0; rows && !rc && i < nsweep; i++) {
    lo.stress_groups = c.stress = sweep[i];
    if (nsweep > 1) printf("stress-groups %u:\n", sweep[i]);
    rc = vc_litmus_run(plugin.ops, dev, &lo, &sink, &e);
  }
  const char *over = vc_args_get(opts, nopts, "over-options")
                         ? vc_args_get(opts, nopts, "over-options")->value
                         : over_default(ob->value);
  c.check_opts = "";
  for (int k = 0; !rc && lo.places[VC_LITMUS_PLACE_NATIVE] && k < VC_PROGRESS_CHECK_COUNT; k++)
    if (po.trials[k])
      rc = run_check(&c, plugin.ops, dev, device, oo ? oo->value : "", over,
                     (vc_progress_check)k, &po, &e);
  vc_watchdog_stop(c.dog);
  c.dog = NULL;
  uint64_t wall = vc_now_ns() - t0;
  if (rc) fprintf(stderr, "vyre-conform litmus: %s\n", e.msg);
  printf("%u rows: %u failed, %u errors, %u unsupported", c.rows, c.failed, c.errored,
         c.unsupported);
  if (c.checks)
    printf("; %u forward-progress %s: %u failed, %u errors, %u unsupported", c.checks,
           vc_plural(c.checks, "check", "checks"), c.checks_failed, c.checks_errored,
           c.checks_unsupported);
  printf("; %.1f s\n", (double)wall / 1e9);
  if (c.controls && !c.powered)
    printf("no control showed a weak outcome: the tests had no power on this device\n");
  else if (c.powered)
    printf("controls with weak outcomes: %s\n", vc_sb_str(&c.weak));
  bool failed = c.failed || c.checks_failed;
  status = rc == VC_ERR_INTERNAL || rc == VC_ERR_NOMEM            ? VC_EXIT_INTERNAL
           : failed || c.errored || c.checks_errored || rc        ? VC_EXIT_FAIL
           : c.rows == c.unsupported && c.checks == c.checks_unsupported ? VC_EXIT_NOT_RUN
                                                                  : VC_EXIT_OK;
  if (c.db) {
    const char *verdict = status == VC_EXIT_OK ? "pass" : status == VC_EXIT_NOT_RUN ? "not run"
                          : failed                                                  ? "FAIL"
                                                                                    : "error";
    if (c.dbfailed || vc_db_end_litmus(c.db, c.id, verdict, wall, &c.dberr)) {
      fprintf(stderr, "vyre-conform litmus: %s\n", c.dberr.msg);
      status = VC_EXIT_DB;
    }
  }
  goto done;
usage:
  status = vc_usage_error("litmus", e.msg);
done:
  vc_watchdog_stop(c.dog);
  if (dev) plugin.ops->close(dev);
  vc_plugin_unload(&plugin);
  if (c.db) vc_db_close(c.db);
  vc_sb_free(&c.weak);
  vc_args_free(opts, nopts, &a);
  return status;
}
