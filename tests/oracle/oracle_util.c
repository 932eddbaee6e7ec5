#include "oracle_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness/lang/diag.h"
#include "harness/model/inputs.h"
#include "harness/lang/parse.h"

vc_program *vt_parse(const char *text) {
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = vc_parse("test.vyre", text, strlen(text), &d);
  if (!p || d.count) {
    vc_diags_print(&d, stderr);
    vc_diags_free(&d);
    vc_program_free(p);
    fail_msg("program text does not parse");
  }
  vc_diags_free(&d);
  return p;
}

static void fill(vt_run *r) {
  for (uint32_t i = 0; i < r->p->nbuffers; i++) vc_inputs_fill(&r->p->buffers[i], r->bufs[i]);
}

void vt_rerun(vt_run *r, const vc_oracle_opts *opts) {
  vc_error err = {0};
  fill(r);
  int rc = vc_oracle_run(r->o, r->bufs, opts, &r->rep, &err);
  if (rc) fail_msg("vc_oracle_run: %s", err.msg);
}

void vt_exec(vt_run *r, const char *text, const vc_oracle_opts *opts) {
  vc_error err = {0};
  memset(r, 0, sizeof *r);
  r->p = vt_parse(text);
  if (vc_oracle_compile(r->p, &r->o, &err)) fail_msg("vc_oracle_compile: %s", err.msg);
  r->bufs = calloc(r->p->nbuffers + 1, sizeof *r->bufs);
  assert_non_null(r->bufs);
  for (uint32_t i = 0; i < r->p->nbuffers; i++) {
    r->bufs[i] = calloc(1, vc_buffer_bytes(&r->p->buffers[i]));
    assert_non_null(r->bufs[i]);
  }
  vt_rerun(r, opts);
}

uint32_t *vt_buf(const vt_run *r, const char *name) {
  int i = vc_program_find_buffer(r->p, name);
  if (i < 0) fail_msg("no buffer %s", name);
  return r->bufs[i];
}

uint32_t vt_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

const char *vt_invalid(const vt_run *r) {
  static char why[512];
  if (!vc_oracle_invalid(r->p, &r->rep, why, sizeof why)) why[0] = '\0';
  return why;
}

void vt_done(vt_run *r) {
  for (uint32_t i = 0; r->bufs && i < r->p->nbuffers; i++) free(r->bufs[i]);
  free(r->bufs);
  vc_oracle_free(r->o);
  vc_program_free(r->p);
  memset(r, 0, sizeof *r);
}

void vt_check(const char *decls, const char *entry, const uint32_t *want, uint32_t n) {
  size_t len = strlen(decls) + strlen(entry) + 128;
  char *text = malloc(len);
  assert_non_null(text);
  snprintf(text, len, "(program t (buffer out u32 64 write) %s (entry %s))", decls, entry);
  vt_run r;
  vt_exec(&r, text, NULL);
  free(text);
  const uint32_t *out = vt_buf(&r, "out");
  for (uint32_t i = 0; i < n; i++)
    if (out[i] != want[i]) print_error("out[%u] = 0x%08x, want 0x%08x\n", i, out[i], want[i]);
  for (uint32_t i = 0; i < n; i++) assert_int_equal(out[i], want[i]);
  assert_string_equal(vt_invalid(&r), "");
  vt_done(&r);
}
