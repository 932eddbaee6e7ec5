/* Runs the litmus tests (litmus.h): each combination compiled once and
 * launched o->launches times, each launch with a fresh pairing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/clock.h"
#include "harness/exec/modes.h"
#include "harness/litmus/litmus.h"
#include "harness/litmus/parse_text.h"
#include "harness/split/split.h"

static const vc_mode place_modes[] = {
#define VC_X(id, name, control, mode, what) mode,
    VC_LITMUS_PLACE_TABLE(VC_X)
#undef VC_X
};

void vc_litmus_opts_default(vc_litmus_opts *o) {
  memset(o, 0, sizeof *o);
  o->seed = 1;
  o->launches = 8;
  o->workgroup = 256;
  o->testing_groups = 512;
  o->stress_groups = 64;
  o->stress_iters = 64;
  o->scratch = 65536;
  for (int i = 0; i < VC_LITMUS_TEST_COUNT; i++) o->tests[i] = true;
  for (int i = 0; i < VC_LITMUS_ACCESS_COUNT; i++) o->access[i] = true;
  for (int i = 0; i < VC_LITMUS_PLACE_COUNT; i++) o->places[i] = true;
}

int vc_litmus_parse_sweep(const char *list, uint32_t *values, uint32_t *n, vc_error *err) {
  *n = 0;
  const char *at = list;
  for (;;) {
    char *end = NULL;
    unsigned long v = *at >= '0' && *at <= '9' ? strtoul(at, &end, 10) : 0;
    if (!end || (*end && *end != ',') || v > 65533)
      return vc_fail(err, VC_ERR_USAGE,
                     "--stress-groups: \"%s\" is not a comma-separated list of 0 to 65533", list);
    for (uint32_t i = 0; i < *n; i++)
      if (values[i] == v)
        return vc_fail(err, VC_ERR_USAGE, "--stress-groups: %lu is listed twice", v);
    if (*n == VC_LITMUS_MAX_SWEEP)
      return vc_fail(err, VC_ERR_USAGE, "--stress-groups: more than %d values",
                     VC_LITMUS_MAX_SWEEP);
    values[(*n)++] = (uint32_t)v;
    if (!*end) return 0;
    at = end + 1;
  }
}

int vc_litmus_opts_check(const vc_litmus_opts *o, vc_error *err) {
  if (o->launches < 1) return vc_fail(err, VC_ERR_USAGE, "--launches must be at least 1");
  if (o->workgroup < 1 || o->workgroup > 1024)
    return vc_fail(err, VC_ERR_USAGE, "--workgroup must be 1 to 1024, not %u", o->workgroup);
  if (o->testing_groups < 2)
    return vc_fail(err, VC_ERR_USAGE,
                   "--testing-groups must be at least 2 (roles A and B are in different workgroups)");
  uint64_t groups = (uint64_t)o->testing_groups + o->stress_groups;
  if (groups > 65535)
    return vc_fail(err, VC_ERR_USAGE,
                   "--testing-groups plus --stress-groups is %llu workgroups; the grid holds 65535",
                   (unsigned long long)groups);
  if ((uint64_t)o->testing_groups * o->workgroup * 2 > (1u << 28))
    return vc_fail(err, VC_ERR_USAGE,
                   "--testing-groups times --workgroup is over 2^27 instances (a buffer holds 2^28 "
                   "elements)");
  if (o->scratch < 1 || o->scratch > (1u << 28))
    return vc_fail(err, VC_ERR_USAGE, "--scratch must be 1 to 2^28 elements");
  bool any[3] = {false, false, false};
  for (int i = 0; i < VC_LITMUS_TEST_COUNT; i++) any[0] |= o->tests[i];
  for (int i = 0; i < VC_LITMUS_ACCESS_COUNT; i++) any[1] |= o->access[i];
  for (int i = 0; i < VC_LITMUS_PLACE_COUNT; i++) any[2] |= o->places[i];
  if (!any[0] || !any[1] || !any[2])
    return vc_fail(err, VC_ERR_USAGE, "no %s selected", !any[0] ? "test" : !any[1] ? "access" : "place");
  return 0;
}

const char *vc_litmus_row_verdict(const vc_litmus_row *r) {
  if (r->errored) return "error";
  if (r->unsupported) return "unsupported";
  if (r->forbidden) return "FAIL";
  if (vc_litmus_place_is_control(r->place)) return r->weak ? "weak" : "no weak";
  return "pass";
}

/* The host side of one combination: its inputs, zeroed once, and the
   pairing rewritten before each launch. */
enum { NBUFS = 5 }; /* pair, mx, my, res, scratch (vc_litmus_program) */
typedef struct bufs {
  uint32_t *in[NBUFS];
} bufs;

static int bufs_make(const vc_program *p, bufs *b, vc_error *err) {
  memset(b, 0, sizeof *b);
  if (p->nbuffers != NBUFS)
    return vc_fail(err, VC_ERR_INTERNAL, "litmus: a program of %u buffers", p->nbuffers);
  for (uint32_t i = 0; i < NBUFS; i++) {
    b->in[i] = calloc(1, vc_buffer_bytes(&p->buffers[i]));
    if (!b->in[i])
      return vc_fail(err, VC_ERR_NOMEM, "litmus: out of memory for buffer %s", p->buffers[i].name);
  }
  return 0;
}

static void bufs_free(bufs *b) {
  for (uint32_t i = 0; i < NBUFS; i++) free(b->in[i]);
}

/* The launches of one combination into row. */
static int measure(const vc_backend *be, vc_dev *dev, const vc_litmus_opts *o,
                   const vc_program *p, const vc_split *s, vc_litmus_row *row, vc_error *err) {
  bufs b;
  int rc = bufs_make(p, &b, err);
  vc_exec x;
  vc_exec_init(&x, be, dev, p, s);
  const uint32_t T = o->testing_groups * o->workgroup;
  const uint32_t nout = vc_litmus_outcomes(row->test);
  for (uint32_t l = 0; !rc && l < o->launches; l++) {
    rc = vc_litmus_pairing(o->seed, l, o->testing_groups, o->workgroup, b.in[0], err);
    if (rc) break;
    vc_mode_out mo;
    memset(&mo, 0, sizeof mo);
    rc = vc_exec_run(&x, place_modes[row->place], (const uint32_t *const *)b.in, &mo, err);
    /* a wait that gave up ordered nothing: the launch is no evidence */
    if (rc == 0 && mo.native.untrustworthy)
      rc = vc_fail(err, VC_ERR_DEVICE, "launch %u: %s", l, mo.native.note);
    if (rc == 0) {
      const uint32_t *mx = mo.outputs[1], *my = mo.outputs[2], *res = mo.outputs[3];
      for (uint32_t k = 0; k < T; k++) {
        uint32_t oc = vc_litmus_classify(row->test, res, mx, my, k);
        if (oc >= nout) oc = nout - 1;
        row->counts[oc]++;
        if (vc_litmus_weak(row->test, oc)) row->weak++;
        if (vc_litmus_forbidden(row->test, row->access, row->place, oc) && row->forbidden++ == 0) {
          row->first_launch = l;
          row->first_instance = k;
        }
      }
      row->iterations += T;
    }
    vc_mode_out_free(&mo);
  }
  vc_exec_free(&x);
  bufs_free(&b);
  return rc;
}

static int one(const vc_backend *be, vc_dev *dev, const vc_litmus_opts *o, vc_litmus_row *row,
               vc_error *err) {
  vc_strbuf text;
  vc_sb_init(&text);
  vc_litmus_program(row->test, row->access, row->place, o, NULL, &text);
  char what[64];
  snprintf(what, sizeof what, "litmus %s %s %s", vc_litmus_test_name(row->test),
           vc_litmus_access_name(row->access), vc_litmus_place_name(row->place));
  vc_program *p = vc_litmus_parse_text(what, vc_sb_str(&text), err);
  vc_sb_free(&text);
  if (!p) return VC_ERR_INTERNAL;
  vc_split *s = NULL;
  int rc = vc_split_program(p, &s, err);
  if (rc == 0) {
    uint64_t t0 = vc_now_ns();
    rc = measure(be, dev, o, p, s, row, err);
    row->wall_ns = vc_now_ns() - t0;
  }
  vc_split_free(s);
  vc_program_free(p);
  return rc;
}

int vc_litmus_run(const vc_backend *be, vc_dev *dev, const vc_litmus_opts *o,
                  const vc_litmus_sink *sink, vc_error *err) {
  int rc = vc_litmus_opts_check(o, err);
  for (int t = 0; !rc && t < VC_LITMUS_TEST_COUNT; t++) {
    if (!o->tests[t]) continue;
    for (int a = 0; !rc && a < VC_LITMUS_ACCESS_COUNT; a++) {
      if (!o->access[a]) continue;
      for (int p = 0; !rc && p < VC_LITMUS_PLACE_COUNT; p++) {
        if (!o->places[p]) continue;
        vc_litmus_row row;
        memset(&row, 0, sizeof row);
        row.test = (vc_litmus_test_id)t;
        row.access = (vc_litmus_access)a;
        row.place = (vc_litmus_place)p;
        vc_error e;
        vc_error_clear(&e);
        if (sink->start) sink->start(sink->ctx, &row);
        int r = one(be, dev, o, &row, &e);
        if (r == VC_ERR_INTERNAL || r == VC_ERR_NOMEM) {
          *err = e;
          return r;
        }
        if (r) {
          row.unsupported = r == VC_ERR_UNSUPPORTED;
          row.errored = !row.unsupported;
          snprintf(row.why, sizeof row.why, "%s", e.msg);
        }
        if (sink->row(sink->ctx, &row)) return 0;
        /* the device may not come back from a launch that timed out */
        if (r == VC_ERR_TIMEOUT) {
          *err = e;
          return r;
        }
      }
    }
  }
  return rc;
}
