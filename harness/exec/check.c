#include "harness/exec/check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/plural.h"
#include "harness/model/digest.h"
#include "harness/exec/compare_selfcheck.h"
#include "harness/exec/diverge.h"
#include "harness/exec/modes.h"
#include "harness/exec/plan_check.h"
#include "harness/exec/reference.h"
#include "harness/lang/print.h"
#include "harness/split/split.h"
#include "harness/split/validate.h"
#include "oracles/oracle_backend.h"

static void fail(vc_check_result *r, vc_check_verdict v, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fail(vc_check_result *r, vc_check_verdict v, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->why, sizeof r->why, fmt, ap);
  va_end(ap);
  r->verdict = v;
}

/* Runs the plan on the oracle backend in mode m and compares with the
   unsplit oracle. Returns true when everything agrees. */
static bool split_on_oracle(const vc_program *p, const vc_split *s, vc_mode m,
                            uint32_t *const *inputs, uint32_t *const *expected,
                            uint64_t deadline_ns, vc_check_result *r) {
  const vc_backend *be = vc_oracle_backend();
  vc_dev *dev = NULL;
  vc_error e;
  vc_error_clear(&e);
  char options[64] = "";
  if (deadline_ns)
    snprintf(options, sizeof options, "deadline=%llu", (unsigned long long)deadline_ns);
  if (be->open(0, options, &dev, &e)) {
    fail(r, VC_CHECK_FAILED, "oracle backend: %s", e.msg);
    return false;
  }
  vc_exec x;
  vc_exec_init(&x, be, dev, p, s);
  vc_mode_out mo;
  const char *mn = vc_mode_name(m);
  bool ok = false;
  vc_buffer_diff *diffs = NULL;
  if (vc_exec_run(&x, m, (const uint32_t *const *)inputs, &mo, &e)) {
    if (e.code == VC_ERR_TIMEOUT)
      fail(r, VC_CHECK_TIMEOUT, "%s on the oracle", mn);
    else
      fail(r, VC_CHECK_FAILED, "%s on the oracle: %s", mn, e.msg);
    goto done;
  }
  vc_oracle_report rep;
  vc_oracle_backend_report(dev, &rep);
  /* A valid program's segments are valid too; out-of-bounds ones the program
     declared show up again in the segments and are fine. */
  for (int k = 0; k < VC_ISSUE_COUNT; k++)
    if (rep.issues[k].count && !(k == VC_ISSUE_OOB && r->report.issues[k].count)) {
      fail(r, VC_CHECK_FAILED, "%s: a segment program is invalid: %s", mn, rep.issues[k].msg);
      goto done;
    }
  /* the comparison the self-check proved (check_plan), exact */
  diffs = calloc(p->nbuffers ? p->nbuffers : 1, sizeof *diffs);
  if (!diffs) abort();
  vc_compare_outputs(p, expected, mo.outputs, vc_compare_buffer, false, diffs);
  for (uint32_t i = 0; i < p->nbuffers; i++) {
    const vc_buffer_diff *d = &diffs[i];
    if (d->mismatches || d->nan_payloads) {
      fail(r, VC_CHECK_FAILED,
           "split-on-oracle (%s) differs from the unsplit oracle in %llu %s of %s; "
           "first [%llu]: expected %s, got %s",
           mn, (unsigned long long)(d->mismatches + d->nan_payloads),
           vc_plural(d->mismatches + d->nan_payloads, "element", "elements"), p->buffers[i].name,
           (unsigned long long)d->div.first_index, d->div.expected_hex, d->div.actual_hex);
      goto done;
    }
  }
  if (mo.passes != r->report.passes) {
    fail(r, VC_CHECK_FAILED, "%s on the oracle ran %u %s, the unsplit oracle %u", mn,
         mo.passes, vc_plural(mo.passes, "pass", "passes"), r->report.passes);
    goto done;
  }
  vc_traffic t = vc_plan_traffic(s, m, mo.passes);
  if (t.up != mo.bytes_up || t.down != mo.bytes_down || t.launches != mo.launches) {
    fail(r, VC_CHECK_FAILED,
         "%s moved %llu B up and %llu B down in %u %s; the plan says %llu, %llu, %u", mn,
         (unsigned long long)mo.bytes_up, (unsigned long long)mo.bytes_down, mo.launches,
         vc_plural(mo.launches, "launch", "launches"),
         (unsigned long long)t.up, (unsigned long long)t.down, t.launches);
    goto done;
  }
  if (!vc_plan_launches_ok(p, s, m, &mo, r->why, sizeof r->why)) {
    r->verdict = VC_CHECK_FAILED;
    goto done;
  }
  ok = true;
done:
  free(diffs);
  vc_mode_out_free(&mo);
  vc_exec_free(&x);
  be->close(dev);
  return ok;
}

static bool same_value(vc_type t, uint64_t a, uint64_t b) {
  bool nan_a = (a & 0x7fffffffu) > 0x7f800000u, nan_b = (b & 0x7fffffffu) > 0x7f800000u;
  return a == b || (t == VC_F32 && nan_a && nan_b); /* any NaN is a NaN (semantics.md) */
}

/* The oracle's outputs against the program's (expect (buffer NAME ...
   (values ...))), element by element; false with the first mismatch, in
   the buffer's type, written into why. */
bool vc_check_expected_values(const vc_program *p, const uint32_t *const *outputs, char *why,
                              size_t n) {
  for (uint32_t k = 0; k < p->nexpects; k++) {
    const vc_expect *e = &p->expects[k];
    if (e->kind != VC_EXPECT_VALUES || e->ref >= p->nbuffers) continue;
    const vc_buffer *b = &p->buffers[e->ref];
    for (uint32_t i = 0; i < e->nvalues && e->n + i < b->count; i++) {
      uint64_t got = vc_elem_get(outputs[e->ref], e->n + i, b->type);
      uint64_t want = vc_elem_get(e->values, i, b->type);
      if (same_value(b->type, got, want)) continue;
      vc_strbuf g, w;
      vc_sb_init(&g);
      vc_sb_init(&w);
      vc_print_literal(b->type, got, &g);
      vc_print_literal(b->type, want, &w);
      snprintf(why, n, "%s[%u] is %s, the program expects %s (expect at %u:%u)", b->name, e->n + i,
               vc_sb_str(&g), vc_sb_str(&w), e->loc.line, e->loc.col);
      vc_sb_free(&g);
      vc_sb_free(&w);
      return false;
    }
  }
  return true;
}

/* Everything after the split: the plan's shape, the comparison's self-check,
   and split-on-oracle in both split modes. */
static void check_plan(const vc_program *p, const vc_split *s, const vc_reference *ref,
                       const vc_oracle_opts *opts, vc_check_result *r) {
  r->segments = s->nsegs;
  r->spills = s->nbuffers - s->nuser;
  for (uint32_t k = 0; k < s->nsegs; k++) r->recomputed += s->segs[k].nremat;
  if (!vc_plan_segments_ok(p, s, r->why, sizeof r->why)) {
    r->verdict = VC_CHECK_FAILED;
    return;
  }
  if (!vc_compare_selfcheck(p, ref->outputs, vc_compare_buffer, false, r->why, sizeof r->why)) {
    r->verdict = VC_CHECK_FAILED;
    return;
  }
  for (vc_mode m = VC_MODE_HOST_SPLIT; m <= VC_MODE_RESIDENT_SPLIT; m++)
    if (!split_on_oracle(p, s, m, ref->inputs, ref->outputs, opts->deadline_ns, r)) break;
}

static uint64_t oracle_bytes(const vc_program *p, bool checks) {
  vc_oracle *o = NULL;
  vc_error e;
  vc_error_clear(&e);
  uint64_t b = vc_oracle_compile(p, &o, &e) ? 0 : vc_oracle_run_bytes(o, checks);
  vc_oracle_free(o);
  return b;
}

/* The most a check of p holds at once, roughly: the reference run's inputs
   and outputs and its oracle, then for split-on-oracle the plan's buffers
   on the oracle backend, the host copies of host-split, the mode's outputs
   and the oracle of the largest segment. */
static uint64_t check_bytes(const vc_program *p, const vc_split *s, bool checks) {
  uint64_t user = 0, plan = 0, seg = 0;
  for (uint32_t i = 0; i < p->nbuffers; i++) user += vc_buffer_bytes(&p->buffers[i]);
  for (uint32_t i = 0; i < s->nbuffers; i++) plan += vc_buffer_bytes(&s->buffers[i]);
  for (uint32_t k = 0; k < s->nsegs; k++) {
    uint64_t b = oracle_bytes(s->segs[k].prog, true);
    if (b > seg) seg = b;
  }
  return 2 * user + oracle_bytes(p, checks) + 2 * plan + user + seg;
}

/* (expect (passes N)) and (expect (converges)) against the oracle's run. */
static bool fixpoint_as_stated(const vc_program *p, vc_check_result *r) {
  for (uint32_t i = 0; i < p->nexpects; i++) {
    const vc_expect *x = &p->expects[i];
    if (x->kind == VC_EXPECT_PASSES && x->n != r->report.passes) {
      fail(r, VC_CHECK_FAILED, "(expect (passes %u)), but the oracle ran %u pass%s%s", x->n,
           r->report.passes, r->report.passes == 1 ? "" : "es",
           p->fixpoint.has_flag && !r->report.converged ? " and did not converge" : "");
      return false;
    }
    if (x->kind == VC_EXPECT_CONVERGES && !r->report.converged) {
      fail(r, VC_CHECK_FAILED,
           "(expect (converges)), but the oracle's fixpoint did not converge in %u passes",
           r->report.passes);
      return false;
    }
  }
  return true;
}

/* The reference run and the oracle's verdict; false when r is final. */
static bool check_reference(const vc_program *p, const vc_oracle_opts *opts, vc_reference *ref,
                            vc_check_result *r) {
  memset(r, 0, sizeof *r);
  vc_error e;
  vc_error_clear(&e);
  int rc = vc_reference_run(p, opts, ref, &e);
  r->report = ref->report;
  if (rc) {
    if (e.code == VC_ERR_TIMEOUT)
      fail(r, VC_CHECK_TIMEOUT, "the oracle's reference run");
    else
      fail(r, VC_CHECK_FAILED, "%s", e.msg);
    return false;
  }
  if (vc_oracle_invalid(p, &r->report, r->why, sizeof r->why)) {
    r->verdict = VC_CHECK_INVALID;
    return false;
  }
  vc_output_digest(p, (const uint32_t *const *)ref->outputs, r->digest);
  if (!vc_check_expected_values(p, (const uint32_t *const *)ref->outputs, r->why, sizeof r->why)) {
    r->verdict = VC_CHECK_FAILED;
    return false;
  }
  return fixpoint_as_stated(p, r);
}

void vc_check_program(const vc_program *p, const vc_oracle_opts *opts, vc_check_result *r) {
  vc_reference ref;
  memset(&ref, 0, sizeof ref);
  vc_split *s = NULL;
  vc_error e;
  vc_error_clear(&e);
  /* Split first: a plan over a limit of the harness is refused before the
     oracle spends its time on the program. */
  int rc = vc_split_program(p, &s, &e);
  if (rc == VC_ERR_LIMIT) {
    memset(r, 0, sizeof *r);
    fail(r, VC_CHECK_UNSUPPORTED, "%s", e.msg);
    goto done;
  }
  /* before anything runs a segment: a plan that breaks a rule may not even
     be safe to run (an index outside a segment's table); a Debug build's
     splitter fails with the validator's message itself */
  if (rc == VC_ERR_INTERNAL || (!rc && vc_plan_validate(s, p, &e))) {
    memset(r, 0, sizeof *r);
    fail(r, VC_CHECK_INTERNAL, "%s", e.msg);
    goto done;
  }
  uint64_t need = rc || !opts->max_bytes ? 0 : check_bytes(p, s, !opts->no_checks);
  if (need > opts->max_bytes) {
    memset(r, 0, sizeof *r);
    fail(r, VC_CHECK_UNSUPPORTED,
         "the oracle's runs need about %llu MiB (%llu bytes), more than the memory budget of "
         "%llu MiB (%llu bytes)",
         (unsigned long long)(need >> 20), (unsigned long long)need,
         (unsigned long long)(opts->max_bytes >> 20), (unsigned long long)opts->max_bytes);
    goto done;
  }
  if (!check_reference(p, opts, &ref, r)) goto done;
  if (rc) {
    fail(r, VC_CHECK_FAILED, "split: %s", e.msg);
    goto done;
  }
  check_plan(p, s, &ref, opts, r);
done:
  vc_reference_free(&ref);
  vc_split_free(s);
}

void vc_check_program_plan(const vc_program *p, const vc_split *s, const vc_oracle_opts *opts,
                           vc_check_result *r) {
  vc_error e;
  vc_error_clear(&e);
  if (vc_plan_validate(s, p, &e)) {
    memset(r, 0, sizeof *r);
    fail(r, VC_CHECK_INTERNAL, "%s", e.msg);
    return;
  }
  vc_reference ref;
  if (check_reference(p, opts, &ref, r)) check_plan(p, s, &ref, opts, r);
  vc_reference_free(&ref);
}
