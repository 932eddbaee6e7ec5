/* One program on the device through the plugin, against the oracle. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/exec/diverge.h"
#include "harness/model/inputs.h"
#include "harness/lang/parse.h"
#include "oracles/oracle.h"
#include "tests/cuda/smoke.h"

/* Host copies of every buffer: inputs, the oracle's results, the device's. */
typedef struct copies {
  uint32_t n;
  uint32_t **input, **expect, **actual;
} copies;

static bool has_grid_barrier(const vc_node *n) {
  if (n->kind == VC_S_BARRIER) return n->op == VC_BARRIER_GRID;
  for (uint32_t i = 0; i < n->nkids; i++)
    if (n->kids[i] && !vc_node_is_expr(n->kids[i]) && has_grid_barrier(n->kids[i])) return true;
  return false;
}

static uint32_t **new_set(const vc_program *p) {
  uint32_t **set = calloc(p->nbuffers ? p->nbuffers : 1, sizeof *set);
  for (uint32_t i = 0; set && i < p->nbuffers; i++) {
    set[i] = calloc(p->buffers[i].count, sizeof **set);
    if (!set[i]) abort(); /* a test tool: out of memory ends it */
  }
  return set;
}

static void free_set(uint32_t **set, uint32_t n) {
  for (uint32_t i = 0; set && i < n; i++) free(set[i]);
  free(set);
}

static void copies_init(copies *c, const vc_program *p) {
  c->n = p->nbuffers;
  c->input = new_set(p);
  c->expect = new_set(p);
  c->actual = new_set(p);
  if (!c->input || !c->expect || !c->actual) abort();
  for (uint32_t i = 0; i < p->nbuffers; i++) {
    vc_inputs_fill(&p->buffers[i], c->input[i]);
    memcpy(c->expect[i], c->input[i], vc_buffer_bytes(&p->buffers[i]));
  }
}

static void copies_free(copies *c) {
  free_set(c->input, c->n);
  free_set(c->expect, c->n);
  free_set(c->actual, c->n);
}

static int run_oracle(const vc_program *p, copies *c, char *why, size_t n) {
  vc_oracle *o;
  vc_error e;
  vc_oracle_opts opts = {.order = VC_ORDER_FORWARD};
  vc_oracle_report r;
  int rc = vc_oracle_compile(p, &o, &e);
  if (rc == 0) {
    rc = vc_oracle_run(o, c->expect, &opts, &r, &e);
    vc_oracle_free(o);
  }
  if (rc != 0) {
    snprintf(why, n, "oracle: %s", e.msg);
    return rc;
  }
  if (vc_oracle_invalid(p, &r, why, n)) return VC_ERR_INVALID;
  return 0;
}

typedef struct device_run {
  vc_kern *kern;
  vc_buf *bufs[VC_MAX_BUFFERS];
  uint64_t compile_ns, device_ns;
} device_run;

static int stage_in(smoke *s, const vc_program *p, copies *c, device_run *d, vc_error *e) {
  for (uint32_t i = 0; i < p->nbuffers; i++) {
    const vc_buffer *b = &p->buffers[i];
    int rc = s->be->alloc(s->dev, vc_buffer_bytes(b), &d->bufs[i], e);
    if (rc == 0 && b->access == VC_WRITE) rc = s->be->zero(s->dev, d->bufs[i], e);
    else if (rc == 0) rc = s->be->upload(s->dev, d->bufs[i], c->input[i], vc_buffer_bytes(b), e);
    if (rc != 0) return rc;
  }
  return 0;
}

static int run_device(smoke *s, const vc_program *p, copies *c, device_run *d, vc_error *e) {
  vc_kernel_desc k = {.kind = VC_KERNEL_SEGMENT, .prog = p, .label = "one launch"};
  vc_compile_info ci;
  int rc = s->be->compile(s->dev, &k, &d->kern, &ci, e);
  d->compile_ns = ci.compile_ns;
  free(ci.log);
  if (rc == 0) rc = stage_in(s, p, c, d, e);
  if (rc == 0) rc = s->be->launch(s->dev, d->kern, d->bufs, p->nbuffers, e);
  uint32_t count = 0;
  if (rc == 0) rc = s->be->finish(s->dev, &d->device_ns, 1, &count, e);
  if (rc == 0 && count != 1)
    rc = vc_fail(e, VC_ERR_INTERNAL, "finish reported %u launch times, expected 1", count);
  for (uint32_t i = 0; rc == 0 && i < p->nbuffers; i++)
    if (p->buffers[i].access != VC_READ)
      rc = s->be->download(s->dev, d->bufs[i], c->actual[i], vc_buffer_bytes(&p->buffers[i]), e);
  for (uint32_t i = 0; i < p->nbuffers; i++) s->be->free_buffer(s->dev, d->bufs[i]);
  s->be->free_kernel(s->dev, d->kern);
  return rc;
}

static uint32_t ulp_of(const vc_program *p, uint32_t buffer) {
  for (uint32_t i = 0; i < p->nexpects; i++)
    if (p->expects[i].kind == VC_EXPECT_ULP && p->expects[i].ref == buffer) return p->expects[i].n;
  return 0;
}

/* Every output byte; the first divergence goes into why. */
static bool compare(const vc_program *p, const copies *c, char *why, size_t n) {
  bool ok = true;
  for (uint32_t i = 0; i < p->nbuffers && ok; i++) {
    const vc_buffer *b = &p->buffers[i];
    if (b->access == VC_READ) continue;
    vc_buffer_diff d;
    vc_compare_buffer(b, c->expect[i], c->actual[i], ulp_of(p, i), &d);
    if (d.mismatches == 0) continue;
    ok = false;
    snprintf(why, n,
             "%s[%" PRIu64 "]: %" PRIu64 " elements differ (%s); from element %" PRIu64
             " expected %s, got %s",
             b->name, d.div.first_index, d.mismatches, vc_divclass_name(d.div.cls), d.div.context_start,
             d.div.expected_hex, d.div.actual_hex);
  }
  return ok;
}

static void check_program(smoke *s, const char *path, const vc_program *p) {
  char why[1024] = "";
  copies c;
  copies_init(&c, p);
  if (run_oracle(p, &c, why, sizeof why) != 0) {
    smoke_report(s, false, path, "%s", why);
    copies_free(&c);
    return;
  }
  device_run d = {0};
  vc_error e;
  if (run_device(s, p, &c, &d, &e) != 0)
    smoke_report(s, false, path, "%s (%s)", e.msg, vc_errcode_name(e.code));
  else if (!compare(p, &c, why, sizeof why))
    smoke_report(s, false, path, "%s", why);
  else
    smoke_report(s, true, path, "%" PRIu64 " invocations, device %.1f us, compile %.1f ms",
                 vc_program_invocations(p), (double)d.device_ns / 1e3, (double)d.compile_ns / 1e6);
  copies_free(&c);
}

void smoke_program(smoke *s, const char *path) {
  vc_diags diags;
  vc_diags_init(&diags);
  vc_program *p = vc_parse_file(path, &diags);
  if (!p) {
    vc_diags_print(&diags, stdout);
    smoke_report(s, false, path, "does not parse");
  } else if (p->fixpoint.present || has_grid_barrier(p->entry)) {
    printf("SKIP  %s: grid barriers or a fixpoint; run it with vyre-conform\n", path);
    s->skipped++;
  } else {
    check_program(s, path, p);
  }
  vc_program_free(p);
  vc_diags_free(&diags);
}
