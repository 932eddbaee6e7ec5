/* The generated OpenCL C, run on PoCL, computes the oracle's bytes for every
 * semantic rule of docs/semantics.md. Each case is a program in cases/:
 * parsed, run by the oracle and by the OpenCL plugin, and every output
 * buffer compared. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness/model/inputs.h"
#include "harness/lang/parse.h"
#include "harness/exec/plugin.h"
#include "oracles/oracle.h"

typedef struct test_case {
  const char *name;
  bool nan_payload; /* NaN payloads must match too (the case only moves bits) */
} test_case;

static test_case cases[] = {
    {"int_wrap", false},  {"div_rem", false},    {"shifts", false},   {"f32_minmax", true},
    {"casts", false},     {"oob", false},        {"no_contract", false}, {"denormals", false},
    {"atomics", false},   {"order", false},      {"control", false},  {"f32_ops", false},
    {"literals", true},   {"builtins", false},   {"shared", false},   {"signedness", false},
    {"atomic_load_store", false}, {"while_break", false}, {"int64", false},
};

static vc_plugin plugin;
static vc_dev *dev;

static int open_device(void **state) {
  (void)state;
  vc_error err = {0};
  if (vc_plugin_load_file(VC_BINARY_DIR "/vc-backend-opencl.so", &plugin, &err)) {
    fprintf(stderr, "load: %s\n", err.msg);
    return -1;
  }
  if (plugin.ops->open(0, NULL, &dev, &err)) {
    fprintf(stderr, "open: %s\n", err.msg);
    return -1;
  }
  return 0;
}

static int close_device(void **state) {
  (void)state;
  plugin.ops->close(dev);
  vc_plugin_unload(&plugin);
  return 0;
}

/* Each buffer of p as initial contents, count elements each. */
static uint32_t **inputs(const vc_program *p) {
  uint32_t **b = calloc(p->nbuffers, sizeof *b);
  assert_non_null(b);
  for (uint32_t i = 0; i < p->nbuffers; i++) {
    b[i] = calloc(1, vc_buffer_bytes(&p->buffers[i]));
    assert_non_null(b[i]);
    vc_inputs_fill(&p->buffers[i], b[i]);
  }
  return b;
}

static void free_buffers(const vc_program *p, uint32_t **b) {
  for (uint32_t i = 0; i < p->nbuffers; i++) free(b[i]);
  free(b);
}

static void run_oracle(const vc_program *p, uint32_t **bufs) {
  vc_oracle *o = NULL;
  vc_error err = {0};
  vc_oracle_report rep;
  vc_oracle_opts opts = {.order = VC_ORDER_FORWARD};
  if (vc_oracle_compile(p, &o, &err) || vc_oracle_run(o, bufs, &opts, &rep, &err))
    fail_msg("oracle: %s", err.msg);
  vc_oracle_free(o);
  char why[512];
  if (vc_oracle_invalid(p, &rep, why, sizeof why)) fail_msg("%s is invalid: %s", p->name, why);
}

static void run_device(const vc_program *p, uint32_t **bufs) {
  const vc_backend *be = plugin.ops;
  vc_error err = {0};
  vc_kernel_desc k = {.kind = VC_KERNEL_SEGMENT, .prog = p, .label = p->name};
  vc_kern *kern = NULL;
  vc_compile_info ci = {0};
  if (be->compile(dev, &k, &kern, &ci, &err)) fail_msg("compile: %s", err.msg);
  free(ci.log);
  vc_buf **db = calloc(p->nbuffers, sizeof *db);
  assert_non_null(db);
  for (uint32_t i = 0; i < p->nbuffers; i++) {
    uint64_t bytes = vc_buffer_bytes(&p->buffers[i]);
    if (be->alloc(dev, bytes, &db[i], &err) || be->upload(dev, db[i], bufs[i], bytes, &err))
      fail_msg("buffer %s: %s", p->buffers[i].name, err.msg);
  }
  uint64_t ns[1];
  uint32_t n = 0;
  if (be->launch(dev, kern, db, p->nbuffers, &err) || be->finish(dev, ns, 1, &n, &err))
    fail_msg("run: %s", err.msg);
  for (uint32_t i = 0; i < p->nbuffers; i++) {
    if (be->download(dev, db[i], bufs[i], vc_buffer_bytes(&p->buffers[i]), &err))
      fail_msg("download %s: %s", p->buffers[i].name, err.msg);
    be->free_buffer(dev, db[i]);
  }
  free(db);
  be->free_kernel(dev, kern);
}

static bool is_nan(uint32_t bits) { return (bits & 0x7fffffffu) > 0x7f800000u; }

/* Distance in units in the last place between two finite f32 of one sign. */
static uint32_t ulps(uint32_t a, uint32_t b) {
  if ((a ^ b) & 0x80000000u) return a == b ? 0 : UINT32_MAX;
  return a > b ? a - b : b - a;
}

static uint32_t allowed_ulps(const vc_program *p, uint32_t buf) {
  for (uint32_t i = 0; i < p->nexpects; i++)
    if (p->expects[i].kind == VC_EXPECT_ULP && p->expects[i].ref == buf) return p->expects[i].n;
  return 0;
}

static bool same(const vc_program *p, uint32_t buf, uint32_t want, uint32_t got, bool payload) {
  if (want == got) return true;
  if (p->buffers[buf].type != VC_F32) return false;
  if (is_nan(want) && is_nan(got)) return !payload;
  return !is_nan(want) && !is_nan(got) && ulps(want, got) <= allowed_ulps(p, buf);
}

/* Prints the generated source once, to find the spelling at fault. */
static void show_source(const vc_program *p) {
  char *src = NULL;
  vc_error err = {0};
  vc_kernel_desc k = {.kind = VC_KERNEL_SEGMENT, .prog = p, .label = p->name};
  if (plugin.ops->emit(&k, dev, &src, &err) == 0) fprintf(stderr, "%s\n", src);
  free(src);
}

static void compare(const vc_program *p, uint32_t **want, uint32_t **got, bool payload) {
  uint32_t bad = 0;
  for (uint32_t b = 0; b < p->nbuffers; b++) {
    if (p->buffers[b].access == VC_READ) continue;
    uint32_t words = vc_type_words(p->buffers[b].type); /* 64-bit: word by word */
    for (uint32_t i = 0; i < p->buffers[b].count * words; i++) {
      if (same(p, b, want[b][i], got[b][i], payload)) continue;
      if (bad++ < 20)
        fprintf(stderr, "%s: %s[%u]%s: oracle 0x%08x, PoCL 0x%08x\n", p->name,
                p->buffers[b].name, i / words,
                words == 1 ? "" : i % 2 ? " (high word)" : " (low word)", want[b][i], got[b][i]);
    }
  }
  if (bad) {
    show_source(p);
    fail_msg("%s: %u elements differ from the oracle", p->name, bad);
  }
}

static void run_case(void **state) {
  const test_case *tc = *state;
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/codegen/cases/%s.vyre", VC_SOURCE_DIR, tc->name);
  vc_diags diags;
  vc_diags_init(&diags);
  vc_program *p = vc_parse_file(path, &diags);
  if (!p) {
    vc_diags_print(&diags, stderr);
    vc_diags_free(&diags);
    fail_msg("%s does not parse", path);
  }
  vc_diags_free(&diags);
  uint32_t **want = inputs(p), **got = inputs(p);
  run_oracle(p, want);
  run_device(p, got);
  compare(p, want, got, tc->nan_payload);
  free_buffers(p, want);
  free_buffers(p, got);
  vc_program_free(p);
}

int main(void) {
  enum { N = sizeof cases / sizeof cases[0] };
  struct CMUnitTest tests[N];
  for (size_t i = 0; i < N; i++)
    tests[i] = (struct CMUnitTest){cases[i].name, run_case, NULL, NULL, &cases[i]};
  return _cmocka_run_group_tests("codegen_pocl", tests, N, open_device, close_device);
}
