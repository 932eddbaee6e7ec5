/* vc-raw-barrier-bench [--api vulkan|opencl|all] [--grid G] [--barriers B]
 *     [--repeat N] [--spin POLLS] [--deadline S] [--vulkan-device SEL]
 *     [--opencl-platform SEL] [--opencl-device SEL]
 *     [--opencl-atomics auto|cl12|device]
 *
 * A hand-written grid barrier on Vulkan and OpenCL, the APIs used
 * directly (docs/performance.md, "A raw grid barrier"): for each API, on
 * the device picked (SEL: an index or a name substring; default the first
 * GPU), every variant of bench/raw_barrier.h on G workgroups of 256, one
 * warm-up run each, then N rounds of one run of each variant, timed by the
 * device; medians. Every run's buffer is checked (every word below 1024
 * equal to the segments run, the counter at B x G, no wait that gave up).
 * Exit status: 0, 1 a run wrong or timed out, 2 usage, 3 no API or device
 * (an API asked for by --api, or none at all). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/median.h"
#include "bench/raw_barrier.h"
#include "harness/base/exitcodes.h"

static const char *const keys[] = {
#define RB_KEY(e, key, what) key,
    RB_VARIANTS(RB_KEY)
#undef RB_KEY
};
static const char *const whats[] = {
#define RB_WHAT(e, key, what) what,
    RB_VARIANTS(RB_WHAT)
#undef RB_WHAT
};

const char *rb_variant_key(rb_variant v) {
  return v < RB_NVARIANTS ? keys[v] : "?";
}
const char *rb_variant_what(rb_variant v) {
  return v < RB_NVARIANTS ? whats[v] : "?";
}

bool rb_selects(const char *sel, uint32_t i, const char *name) {
  if (!sel || !*sel) return false;
  if (strspn(sel, "0123456789") == strlen(sel)) return strtoul(sel, NULL, 10) == i;
  size_t n = strlen(sel), m = strlen(name);
  for (size_t at = 0; at + n <= m; at++) {
    size_t k = 0;
    while (k < n && tolower((unsigned char)name[at + k]) == tolower((unsigned char)sel[k])) k++;
    if (k == n) return true;
  }
  return false;
}

const char *rb_check(const rb_run *r, rb_variant v, uint32_t barriers, uint32_t grid, char *msg,
                     size_t n) {
  uint32_t b = v == RB_NONE ? 0 : barriers;
  if (r->ctrl[RB_GAVE_UP] != 0) {
    snprintf(msg, n,
             "%u waits gave up at the spin bound, the first at barrier %u: were all %u "
             "workgroups resident (or a loop cut short: lavapipe's loop budget)?",
             r->ctrl[RB_GAVE_UP], r->ctrl[RB_GAVE_UP_AT], grid);
    return msg;
  }
  if (r->ctrl[RB_COUNT] != b * grid) {
    snprintf(msg, n, "the counter is %u after the run, not B x G = %u", r->ctrl[RB_COUNT],
             b * grid);
    return msg;
  }
  /* a grid of fewer than 1024 invocations leaves the words above it 0 */
  uint64_t invocations = (uint64_t)grid * RB_WORKGROUP;
  for (uint32_t i = 0; i < RB_WORDS; i++) {
    uint32_t want = i < invocations ? b + 1 : 0;
    if (r->words[i] != want) {
      snprintf(msg, n, "word %u is %u, not %u (the segments its invocation ran)", i, r->words[i],
               want);
      return msg;
    }
  }
  return NULL;
}

/* ---- arguments ---- */

typedef struct args {
  rb_opts o;
  const char *api;
} args;

static int number(const char *s, uint32_t lo, uint32_t hi, uint32_t *out) {
  char *end;
  if (!s || *s < '0' || *s > '9') return -1;
  unsigned long v = strtoul(s, &end, 10);
  if (*end || v < lo || v > hi) return -1;
  *out = (uint32_t)v;
  return 0;
}

static int parse_args(int argc, char **argv, args *a) {
  *a =
      (args){.o = {.grid = 1056, .barriers = 100, .repeat = 20, .spin = 1u << 28, .deadline_s = 30},
             .api = "all"};
  for (int i = 1; i < argc; i += 2) {
    const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    int rc = v ? 0 : -1;
    if (rc) {
    } else if (strcmp(k, "--api") == 0) {
      a->api = v;
      rc = strcmp(v, "vulkan") && strcmp(v, "opencl") && strcmp(v, "all") ? -1 : 0;
    } else if (strcmp(k, "--grid") == 0)
      rc = number(v, 1, 65535, &a->o.grid);
    else if (strcmp(k, "--barriers") == 0)
      rc = number(v, 1, 10000, &a->o.barriers);
    else if (strcmp(k, "--repeat") == 0)
      rc = number(v, 1, 1000, &a->o.repeat);
    else if (strcmp(k, "--spin") == 0)
      rc = number(v, 1, UINT32_MAX, &a->o.spin);
    else if (strcmp(k, "--deadline") == 0)
      rc = number(v, 1, 86400, &a->o.deadline_s);
    else if (strcmp(k, "--vulkan-device") == 0)
      a->o.vk_device = v;
    else if (strcmp(k, "--opencl-platform") == 0)
      a->o.cl_platform = v;
    else if (strcmp(k, "--opencl-device") == 0)
      a->o.cl_device = v;
    else if (strcmp(k, "--opencl-atomics") == 0) {
      if (strcmp(v, "auto") == 0)
        a->o.cl_atomics = RB_CL_AUTO;
      else if (strcmp(v, "cl12") == 0)
        a->o.cl_atomics = RB_CL_12;
      else if (strcmp(v, "device") == 0)
        a->o.cl_atomics = RB_CL_DEVICE;
      else
        rc = -1;
    } else
      rc = -1;
    if (rc) {
      fprintf(stderr, "vc-raw-barrier-bench: %s %s: %s\n", k, v ? v : "",
              v ? "unknown option or bad value" : "needs a value");
      return -1;
    }
  }
  return 0;
}

/* ---- one API ---- */

static void figure(const char *api, const char *name, const char *what, double value,
                   const char *unit, const char *def) {
  char key[64];
  snprintf(key, sizeof key, "%s.%s.%s", api, name, what);
  printf("%-32s %12.3f %-5s %s\n", key, value, unit, def);
}

/* One run, checked; a wrong one is VC_ERR_INTERNAL with the reason. */
static int checked_run(const rb_api *api, void *ctx, const rb_opts *o, rb_variant v, rb_run *r,
                       vc_error *err) {
  int rc = api->run(ctx, v, v == RB_NONE ? 0 : o->barriers, r, err);
  char why[256];
  if (rc == 0 && rb_check(r, v, o->barriers, o->grid, why, sizeof why))
    rc = vc_fail(err, VC_ERR_INTERNAL, "%s %s: %s", api->name, rb_variant_key(v), why);
  return rc;
}

static int measure(const rb_api *api, void *ctx, const rb_opts *o, vc_error *err) {
  double *ns = calloc((size_t)RB_NVARIANTS * o->repeat, sizeof *ns);
  rb_run *r = malloc(sizeof *r);
  if (!ns || !r) {
    free(ns);
    free(r);
    return vc_fail(err, VC_ERR_NOMEM, "no memory for the samples");
  }
  int rc = 0;
  for (uint32_t v = 0; rc == 0 && v < RB_NVARIANTS; v++) /* warm-up */
    rc = checked_run(api, ctx, o, (rb_variant)v, r, err);
  for (uint32_t k = 0; rc == 0 && k < o->repeat; k++)
    for (uint32_t v = 0; rc == 0 && v < RB_NVARIANTS; v++) {
      rc = checked_run(api, ctx, o, (rb_variant)v, r, err);
      ns[v * o->repeat + k] = (double)r->ns;
    }
  if (rc == 0) {
    double med[RB_NVARIANTS];
    for (uint32_t v = 0; v < RB_NVARIANTS; v++)
      med[v] = vc_bench_median(ns + v * o->repeat, o->repeat);
    char def[512];
    for (uint32_t v = 0; v < RB_NVARIANTS; v++) {
      const char *key = rb_variant_key((rb_variant)v);
      snprintf(def, sizeof def, "median device time of one run (%s)",
               rb_variant_what((rb_variant)v));
      figure(api->name, key, "us", med[v] / 1e3, "us", def);
      if (v != RB_NONE) {
        figure(api->name, key, "us_per_barrier", (med[v] - med[RB_NONE]) / o->barriers / 1e3, "us",
               "(the run with B barriers - none) / B");
        if (v != RB_ACQREL && med[RB_ACQREL] > med[RB_NONE])
          figure(api->name, key, "vs_acqrel",
                 (med[v] - med[RB_NONE]) / (med[RB_ACQREL] - med[RB_NONE]), "",
                 "per barrier / acqrel's per barrier");
      }
      snprintf(def, sizeof def,
               "pass: all %u runs right (every word below 1024 that an invocation has = %u "
               "segment%s, the counter %u x %u, no wait gave up)",
               o->repeat + 1, v == RB_NONE ? 1 : o->barriers + 1, v == RB_NONE ? "" : "s",
               v == RB_NONE ? 0 : o->barriers, o->grid);
      char ck[64];
      snprintf(ck, sizeof ck, "%s.%s.check", api->name, key);
      printf("%-32s %12s %-5s %s\n", ck, "pass", "", def);
    }
    fflush(stdout);
  }
  free(ns);
  free(r);
  return rc;
}

/* The APIs this build has. */
static const rb_api *const apis[] = {
#ifdef VC_RB_VULKAN
    &rb_vulkan,
#endif
#ifdef VC_RB_OPENCL
    &rb_opencl,
#endif
    NULL};

int main(int argc, char **argv) {
  args a;
  if (parse_args(argc, argv, &a) != 0) {
    fprintf(stderr,
            "usage: vc-raw-barrier-bench [--api vulkan|opencl|all] [--grid G] [--barriers B] "
            "[--repeat N] [--spin POLLS] [--deadline S] [--vulkan-device SEL] "
            "[--opencl-platform SEL] [--opencl-device SEL] [--opencl-atomics auto|cl12|device]\n"
            "  SEL: an index or a name substring (default: the first GPU)\n");
    return VC_EXIT_USAGE;
  }
  int status = VC_EXIT_OK;
  uint32_t measured = 0, asked = 0;
  for (const rb_api *const *p = apis; *p; p++) {
    const rb_api *api = *p;
    if (strcmp(a.api, "all") != 0 && strcmp(a.api, api->name) != 0) continue;
    asked++;
    vc_error err;
    vc_error_clear(&err);
    void *ctx = NULL;
    char ident[512] = "";
    if (api->open(&a.o, &ctx, ident, sizeof ident, &err) != 0) {
      printf("%-8s not measured: %s\n", api->name, err.msg);
      /* no driver, no such device, or one that cannot run the kernels: a
         note with --api all, status 3 when this API was asked for; any
         other failure (a build, a call) is status 1 */
      bool absent = err.code == VC_ERR_NO_DRIVER || err.code == VC_ERR_NO_DEVICE ||
                    err.code == VC_ERR_UNSUPPORTED;
      if (!absent)
        status = VC_EXIT_FAIL;
      else if (strcmp(a.api, "all") != 0 && status == VC_EXIT_OK)
        status = VC_EXIT_NO_BACKEND;
      fflush(stdout);
      continue;
    }
    printf("%-8s %s\n", api->name, ident);
    printf("\n== raw grid barrier on %s: grid %u x %u, B = %u barriers; %u runs of each variant, "
           "interleaved, after one warm-up each\n",
           api->name, a.o.grid, RB_WORKGROUP, a.o.barriers, a.o.repeat);
    fflush(stdout);
    int rc = measure(api, ctx, &a.o, &err);
    if (rc != 0) {
      printf("FAILED   %s: %s\n", api->name, err.msg);
      fflush(stdout);
      /* a kernel still running cannot be freed under; leave without it */
      if (rc == VC_ERR_TIMEOUT) _exit(VC_EXIT_FAIL);
      status = VC_EXIT_FAIL;
    } else {
      measured++;
    }
    api->close(ctx);
  }
  if (asked == 0 || (measured == 0 && status == VC_EXIT_OK)) {
    if (asked == 0)
      printf("no API: this build has %s\n", apis[0] ? "other APIs" : "neither Vulkan nor OpenCL");
    status = VC_EXIT_NO_BACKEND;
  }
  return status;
}
