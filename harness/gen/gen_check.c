/* Generated programs proved before they leave the generator (the check of
 * `vyre-conform check`, reused), and the oracle equivalence of two texts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/plural.h"
#include "harness/exec/check.h"
#include "harness/exec/reference.h"
#include "harness/gen/gen_internal.h"
#include "harness/lang/parse.h"

int vc_gen_program(const vc_gen_opts *o, uint64_t seed, uint32_t index, vc_strbuf *out,
                   vc_error *err) {
  return vc_gen_program_ex(o, seed, index, true, NULL, out, err);
}

/* Parses text; on failure err holds the first diagnostic. */
static vc_program *parse_text(const char *path, const char *text, vc_error *err) {
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = vc_parse(path, text, strlen(text), &d);
  if (!p)
    vc_fail(err, VC_ERR_PARSE, "%s:%u:%u: %s", path, d.count ? d.items[0].loc.line : 0,
            d.count ? d.items[0].loc.col : 0, d.count ? d.items[0].msg : "does not parse");
  vc_diags_free(&d);
  return p;
}

/* Parses text, adds what the dead-output analysis finds to stats (may be
   NULL) and, with check, checks it as `check` does. */
static int check_parsed(const char *text, uint64_t seed, uint32_t index, bool check,
                        vc_gen_stats *stats, vc_error *err) {
  char path[64];
  snprintf(path, sizeof path, "gen_%llu_%u.vyre", (unsigned long long)seed, index);
  vc_error e;
  vc_error_clear(&e);
  vc_program *p = parse_text(path, text, &e);
  if (!p)
    return vc_fail(err, VC_ERR_INTERNAL, "generator bug: seed %llu index %u does not parse: %s",
                   (unsigned long long)seed, index, e.msg);
  if (stats) {
    vc_gen_live l;
    if (vc_gen_liveness(p, &l)) {
      vc_program_free(p);
      return vc_fail(err, VC_ERR_INTERNAL, "out of memory in the dead-output analysis");
    }
    stats->live += l.live;
    stats->dead_output += !l.output_computed;
    stats->no_flow += !l.ordered_flow;
    stats->shared_unread += l.shared_unread;
    stats->open_bitcasts += l.open_bitcasts;
  }
  vc_check_result r;
  r.verdict = VC_CHECK_OK;
  if (check) {
    vc_oracle_opts oo;
    memset(&oo, 0, sizeof oo);
    vc_check_program(p, &oo, &r);
  }
  vc_program_free(p);
  if (r.verdict != VC_CHECK_OK)
    return vc_fail(err, VC_ERR_INTERNAL, "generator bug: seed %llu index %u is %s: %s",
                   (unsigned long long)seed, index,
                   r.verdict == VC_CHECK_INVALID ? "invalid" : "refused by the check", r.why);
  return 0;
}

int vc_gen_check_text(const char *text, uint64_t seed, uint32_t index, vc_error *err) {
  return check_parsed(text, seed, index, true, NULL, err);
}

int vc_gen_program_ex(const vc_gen_opts *o, uint64_t seed, uint32_t index, bool check,
                      vc_gen_stats *stats, vc_strbuf *out, vc_error *err) {
  vc_strbuf text;
  vc_sb_init(&text);
  vc_gen_write(o, seed, index, stats, &text);
  if (!text.data) vc_sb_puts(&text, "");
  int rc = check || stats ? check_parsed(text.data, seed, index, check, stats, err) : 0;
  if (!rc) vc_sb_putn(out, text.data, text.len);
  vc_sb_free(&text);
  return rc;
}

/* A valid program's reference run; false with the reason in err. */
static bool valid_run(const char *what, const char *text, vc_program **p, vc_reference *ref,
                      vc_error *err) {
  memset(ref, 0, sizeof *ref);
  *p = parse_text(what, text, err);
  if (!*p) return false;
  vc_oracle_opts oo;
  memset(&oo, 0, sizeof oo);
  if (vc_reference_run(*p, &oo, ref, err)) return false;
  char why[512];
  if (vc_oracle_invalid(*p, &ref->report, why, sizeof why)) {
    vc_fail(err, VC_ERR_INVALID, "%s is invalid: %s", what, why);
    return false;
  }
  return true;
}

int vc_gen_equivalent(const char *a, const char *b, vc_error *err) {
  vc_program *pa = NULL, *pb = NULL;
  vc_reference ra, rb;
  int rc = 0;
  vc_error e;
  vc_error_clear(&e);
  if (!valid_run("the original", a, &pa, &ra, &e) ||
      !valid_run("the transformed program", b, &pb, &rb, &e)) {
    rc = vc_fail(err, e.code ? e.code : VC_ERR_INVALID, "%s", e.msg);
    goto done;
  }
  if (ra.report.passes != rb.report.passes) {
    rc = vc_fail(err, VC_ERR_INTERNAL, "the original runs %u %s, the transformed one %u %s",
                 ra.report.passes, vc_plural(ra.report.passes, "pass", "passes"),
                 rb.report.passes, vc_plural(rb.report.passes, "pass", "passes"));
    goto done;
  }
  /* The outputs are the write and read_write buffers, in order; the
     transformed program may add read buffers (dead-code's condition). */
  uint32_t j = 0;
  for (uint32_t i = 0; i < pa->nbuffers; i++) {
    const vc_buffer *x = &pa->buffers[i];
    if (x->access == VC_READ) continue;
    while (j < pb->nbuffers && pb->buffers[j].access == VC_READ) j++;
    if (j == pb->nbuffers) {
      rc = vc_fail(err, VC_ERR_INTERNAL, "output buffer %s is missing", x->name);
      goto done;
    }
    const vc_buffer *y = &pb->buffers[j];
    if (strcmp(x->name, y->name) || x->type != y->type || x->count != y->count) {
      rc = vc_fail(err, VC_ERR_INTERNAL, "output buffer %s became %s", x->name, y->name);
      goto done;
    }
    uint64_t words = (uint64_t)x->count * vc_type_words(x->type);
    for (uint64_t w = 0; w < words; w++)
      if (ra.outputs[i][w] != rb.outputs[j][w]) {
        rc = vc_fail(err, VC_ERR_INTERNAL, "%s differs at word %llu: 0x%08x, transformed 0x%08x",
                     x->name, (unsigned long long)w, ra.outputs[i][w], rb.outputs[j][w]);
        goto done;
      }
    j++;
  }
  for (; j < pb->nbuffers; j++)
    if (pb->buffers[j].access != VC_READ) {
      rc = vc_fail(err, VC_ERR_INTERNAL, "the transformed program has an extra output %s",
                   pb->buffers[j].name);
      goto done;
    }
done:
  if (pa) vc_reference_free(&ra);
  if (pb) vc_reference_free(&rb);
  vc_program_free(pa);
  vc_program_free(pb);
  return rc;
}
