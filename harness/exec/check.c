#include "harness/exec/check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/model/digest.h"
#include "harness/exec/diverge.h"
#include "harness/exec/modes.h"
#include "harness/exec/reference.h"
#include "harness/lang/print.h"
#include "harness/split/split.h"
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
                            vc_check_result *r) {
  const vc_backend *be = vc_oracle_backend();
  vc_dev *dev = NULL;
  vc_error e;
  vc_error_clear(&e);
  if (be->open(0, NULL, &dev, &e)) {
    fail(r, VC_CHECK_FAILED, "oracle backend: %s", e.msg);
    return false;
  }
  vc_exec x;
  vc_exec_init(&x, be, dev, p, s);
  vc_mode_out mo;
  const char *mn = vc_mode_name(m);
  bool ok = false;
  if (vc_exec_run(&x, m, (const uint32_t *const *)inputs, &mo, &e)) {
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
  for (uint32_t i = 0; i < p->nbuffers; i++) {
    if (p->buffers[i].access == VC_READ) continue;
    vc_buffer_diff d;
    vc_compare_buffer(&p->buffers[i], expected[i], mo.outputs[i], 0, &d);
    if (d.mismatches || d.nan_payloads) {
      fail(r, VC_CHECK_FAILED,
           "split-on-oracle (%s) differs from the unsplit oracle in %llu elements of %s; "
           "first [%llu]: expected %s, got %s",
           mn, (unsigned long long)(d.mismatches + d.nan_payloads), p->buffers[i].name,
           (unsigned long long)d.div.first_index, d.div.expected_hex, d.div.actual_hex);
      goto done;
    }
  }
  if (mo.passes != r->report.passes) {
    fail(r, VC_CHECK_FAILED, "%s on the oracle ran %u passes, the unsplit oracle %u", mn,
         mo.passes, r->report.passes);
    goto done;
  }
  vc_traffic t = vc_plan_traffic(s, m, mo.passes);
  if (t.up != mo.bytes_up || t.down != mo.bytes_down || t.launches != mo.launches) {
    fail(r, VC_CHECK_FAILED,
         "%s moved %llu B up and %llu B down in %u launches; the plan says %llu, %llu, %u", mn,
         (unsigned long long)mo.bytes_up, (unsigned long long)mo.bytes_down, mo.launches,
         (unsigned long long)t.up, (unsigned long long)t.down, t.launches);
    goto done;
  }
  ok = true;
done:
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

void vc_check_program(const vc_program *p, const vc_oracle_opts *opts, vc_check_result *r) {
  memset(r, 0, sizeof *r);
  vc_reference ref;
  vc_split *s = NULL;
  vc_error e;
  vc_error_clear(&e);
  int rc = vc_reference_run(p, opts, &ref, &e);
  r->report = ref.report;
  if (rc) {
    fail(r, VC_CHECK_FAILED, "%s", e.msg);
    goto done;
  }
  if (vc_oracle_invalid(p, &r->report, r->why, sizeof r->why)) {
    r->verdict = VC_CHECK_INVALID;
    goto done;
  }
  vc_output_digest(p, (const uint32_t *const *)ref.outputs, r->digest);
  if (!vc_check_expected_values(p, (const uint32_t *const *)ref.outputs, r->why, sizeof r->why)) {
    r->verdict = VC_CHECK_FAILED;
    goto done;
  }
  if (vc_split_program(p, &s, &e)) {
    fail(r, VC_CHECK_FAILED, "split: %s", e.msg);
    goto done;
  }
  r->segments = s->nsegs;
  r->spills = s->nbuffers - s->nuser;
  for (uint32_t k = 0; k < s->nsegs; k++) r->recomputed += s->segs[k].nremat;
  for (vc_mode m = VC_MODE_HOST_SPLIT; m <= VC_MODE_RESIDENT_SPLIT; m++)
    if (!split_on_oracle(p, s, m, ref.inputs, ref.outputs, r)) break;
done:
  vc_reference_free(&ref);
  vc_split_free(s);
}
