/* Native kernels on lavapipe through the Vulkan plugin's table: the
 * one-row cases (tests/vulkan/native) give the oracle's bytes, passes and
 * barriers in both orderings; the shared cases (tests/native/cases) pass,
 * workgroups of several lavapipe rows among them; the dispatch size and the
 * lavapipe defaults hold;
 * the control words are reset before every dispatch; a wait that cannot
 * end and a participant past the loop budget make a run untrustworthy;
 * finish gives up at its deadline; native_stats refuses what it cannot
 * answer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backends/common/native/native_ctrl.h"
#include "harness/model/inputs.h"
#include "oracles/oracle.h"
#include "tests/native/native_util.h"
#include "tests/vulkan/vk_test_util.h"

#define CASES VC_SOURCE_DIR "/tests/native/cases"
#define ROWS VC_SOURCE_DIR "/tests/vulkan/native"

static vc_plugin plugin;
static const vc_backend *be;

static int setup(void **state) {
  (void)state;
  if (vkt_load(&plugin) != 0) return -1;
  be = plugin.ops;
  return 0;
}

static int teardown(void **state) {
  (void)state;
  vc_plugin_unload(&plugin);
  return 0;
}

static vc_dev *open_dev(const char *options) {
  vc_dev *d = NULL;
  vc_error e;
  if (be->open(0, options, &d, &e)) fail_msg("open(%s): %s", options ? options : "", e.msg);
  return d;
}

/* The plan's buffers on the device, filled as the harness fills them:
   program buffers from their initialisers, spill buffers zero. */
typedef struct plan {
  uint32_t n;
  vc_buf **dev;
} plan;

static plan plan_make(vc_dev *dev, const native_case *c) {
  const vc_split *s = c->split;
  plan pl = {s->nbuffers, calloc(s->nbuffers, sizeof(vc_buf *))};
  assert_non_null(pl.dev);
  vc_error e;
  for (uint32_t i = 0; i < s->nbuffers; i++) {
    uint64_t bytes = vc_buffer_bytes(&s->buffers[i]);
    uint32_t *host = calloc(s->buffers[i].count, 4);
    assert_non_null(host);
    if (i < s->nuser) vc_inputs_fill(&s->buffers[i], host);
    if (be->alloc(dev, bytes, &pl.dev[i], &e) || be->upload(dev, pl.dev[i], host, bytes, &e))
      fail_msg("%s: buffer %u: %s", c->prog->name, i, e.msg);
    free(host);
  }
  return pl;
}

static void plan_free(vc_dev *dev, plan *pl) {
  for (uint32_t i = 0; i < pl->n; i++)
    if (pl->dev[i]) be->free_buffer(dev, pl->dev[i]);
  free(pl->dev);
}

/* The oracle's program buffers and pass count. */
static vkt_buffers oracle(const native_case *c, uint32_t *passes) {
  vkt_buffers b;
  assert_int_equal(vkt_buffers_init(c->prog, &b), 0);
  vc_oracle *o = NULL;
  vc_error e;
  vc_oracle_report rep;
  if (vc_oracle_compile(c->prog, &o, &e) || vc_oracle_run(o, b.data, NULL, &rep, &e))
    fail_msg("oracle: %s", e.msg);
  vc_oracle_free(o);
  *passes = rep.passes;
  return b;
}

/* Launches kern once over pl, finishes, reads the stats and the program's
   buffers. Returns the first failing call's code. */
static int run(vc_dev *dev, vc_kern *kern, const native_case *c, plan *pl, vkt_buffers *out,
               vc_native_stats *st, vc_error *e) {
  uint64_t ns = 0;
  uint32_t n = 0;
  int rc = be->launch(dev, kern, pl->dev, pl->n, e);
  if (!rc) rc = be->finish(dev, &ns, 1, &n, e);
  if (!rc) rc = be->native_stats(dev, kern, st, e);
  if (!rc) rc = vkt_buffers_init(c->prog, out);
  for (uint32_t i = 0; i < c->prog->nbuffers && !rc; i++)
    rc = be->download(dev, pl->dev[i], out->data[i], vc_buffer_bytes(&c->prog->buffers[i]), e);
  return rc;
}

/* Compiles c, runs it once; VC_ERR_* of the first failing call. */
static int run_case(vc_dev *dev, const native_case *c, vkt_buffers *out, vc_native_stats *st,
                    vc_error *e) {
  vc_kern *kern = NULL;
  int rc = be->compile(dev, &c->kd, &kern, NULL, e);
  if (rc) return rc;
  plan pl = plan_make(dev, c);
  rc = run(dev, kern, c, &pl, out, st, e);
  plan_free(dev, &pl);
  be->free_kernel(dev, kern);
  return rc;
}

/* The oracle's bytes and passes, the barriers those passes need, one
   participant (lavapipe's cap, which a kernel without a grid barrier, one
   that skips discovery, keeps too), a trustworthy run. Returns the
   stats. */
static vc_native_stats check_case(vc_dev *dev, const native_case *c) {
  uint32_t passes = 0;
  vkt_buffers want = oracle(c, &passes), got = {0};
  vc_native_stats st;
  vc_error e;
  if (run_case(dev, c, &got, &st, &e)) fail_msg("%s: %s", c->prog->name, e.msg);
  char why[512];
  if (!vkt_outputs_equal(c->prog, &want, &got, why, sizeof why)) fail_msg("%s", why);
  if (st.untrustworthy) fail_msg("%s: untrustworthy: %s", c->prog->name, st.note);
  vc_native_shape sh;
  vc_native_shape_of(&c->kd, false, &sh);
  assert_int_equal(st.passes, passes);
  assert_int_equal(st.barriers, vc_native_expected_barriers(&sh, passes));
  assert_int_equal(st.participants, 1);
  assert_int_equal(st.virtual_per_participant, sh.virtual_wgs);
  vkt_buffers_free(&want);
  vkt_buffers_free(&got);
  return st;
}

static void check_one(native_case *c, void *dev) { check_case(dev, c); }

static void one_row_cases(const char *options) {
  vc_dev *dev = open_dev(options);
  vkt_native_each(ROWS, 5, check_one, dev);
  be->close(dev);
}

static void one_row_cases_with_the_memory_model(void **state) {
  (void)state;
  one_row_cases("native-memory-model=on");
}

static void one_row_cases_without_the_memory_model(void **state) {
  (void)state;
  one_row_cases("native-memory-model=off");
}

/* lavapipe's rows: subgroup_size lanes of x, one y, one z. */
static bool multi_row(const vc_program *p, uint32_t lanes) {
  return p->workgroup[0] > lanes || p->workgroup[1] > 1 || p->workgroup[2] > 1;
}

static uint32_t subgroup_size(vc_dev *dev) {
  vc_device_info info;
  vc_error e;
  assert_int_equal(be->describe(dev, &info, &e), 0);
  const char *v = strstr(info.extra, "\nsubgroup_size=");
  assert_non_null(v);
  return (uint32_t)strtoul(v + 15, NULL, 10);
}

typedef struct counts {
  vc_dev *dev;
  uint32_t lanes;
  size_t passed, untrustworthy, multi_row;
} counts;

/* Each case passes, or says it cannot be trusted because its one participant
   spent lavapipe's loop budget (the spin of a barrier-detection program run
   for every virtual workgroup in one invocation): never wrong bytes in a
   run that claims to be right. */
static void pass_each(native_case *c, void *ctx) {
  counts *r = ctx;
  uint32_t passes = 0;
  vkt_buffers want = oracle(c, &passes), got = {0};
  vc_native_stats st;
  vc_error e;
  if (run_case(r->dev, c, &got, &st, &e)) fail_msg("%s: %s", c->prog->name, e.msg);
  char why[512];
  if (st.untrustworthy) {
    r->untrustworthy++;
  } else {
    if (!vkt_outputs_equal(c->prog, &want, &got, why, sizeof why)) fail_msg("%s", why);
    r->passed++;
    r->multi_row += multi_row(c->prog, r->lanes);
  }
  vkt_buffers_free(&want);
  vkt_buffers_free(&got);
}

/* The shared cases with the defaults, workgroups of several lavapipe rows
   among them, pass: the native kernel keeps memory barriers out of loops
   whose trip count differs per invocation, which lavapipe runs wrong in a
   workgroup of several rows (docs/device-facts.md). */
static void shared_cases_pass(void **state) {
  (void)state;
  counts r = {open_dev(NULL), 0, 0, 0, 0};
  r.lanes = subgroup_size(r.dev);
  vkt_native_each(CASES, 9, pass_each, &r);
  be->close(r.dev);
  assert_int_equal(r.passed + r.untrustworthy, 9);
  assert_true(r.passed >= 7);
  assert_true(r.multi_row >= 1);
}

/* A program with 32 KiB of shared arrays, all lavapipe has, runs
   natively: the kernel adds no workgroup memory of its own. */
static void full_shared_memory(void **state) {
  (void)state;
  vc_dev *dev = open_dev(NULL);
  vc_device_info info;
  vc_error e;
  assert_int_equal(be->describe(dev, &info, &e), 0);
  native_case c;
  native_case_load(&c, VC_SOURCE_DIR "/corpus/shared/shared_full.vyre");
  uint64_t bytes = 0;
  for (uint32_t i = 0; i < c.desc.nshared; i++) bytes += 4u * c.desc.shared[i].count;
  assert_int_equal(bytes, info.max_shared_bytes);
  check_case(dev, &c);
  native_case_free(&c);
  be->close(dev);
}

/* The value of "key=" in describe's extra lines. */
static void extra_value(vc_dev *dev, const char *key, char *out, size_t n) {
  vc_device_info info;
  vc_error e;
  assert_int_equal(be->describe(dev, &info, &e), 0);
  char want[64];
  snprintf(want, sizeof want, "\n%s=", key);
  const char *v = strstr(info.extra, want);
  if (!v) fail_msg("no %s in describe", key);
  v += strlen(want);
  snprintf(out, n, "%.*s", (int)strcspn(v, "\n"), v);
}

/* describe records the ordering and the settings: lavapipe's defaults
   (one participant, no window), or what the options say. */
static void describe_native(void **state) {
  (void)state;
  char v[128];
  vc_dev *dev = open_dev(NULL);
  extra_value(dev, "vulkan_memory_model", v, sizeof v);
  bool vmm = strcmp(v, "yes") == 0;
  extra_value(dev, "native_ordering", v, sizeof v);
  assert_non_null(strstr(v, vmm ? "vulkan-memory-model" : "coherent buffers"));
  extra_value(dev, "native_spirv", v, sizeof v);
  assert_string_equal(v, vmm ? "1.5" : "1.3");
  extra_value(dev, "native_cap", v, sizeof v);
  assert_string_equal(v, "1");
  extra_value(dev, "native_window", v, sizeof v);
  assert_string_equal(v, "0");
  extra_value(dev, "native_spin", v, sizeof v);
  assert_string_equal(v, "33554432");
  extra_value(dev, "native_wgs", v, sizeof v);
  assert_string_equal(v, "1024");
  extra_value(dev, "deadline_s", v, sizeof v);
  assert_string_equal(v, "30");
  /* lavapipe has none of the vendor extensions that count compute units */
  extra_value(dev, "compute_units_from", v, sizeof v);
  assert_string_equal(v, "none");
  be->close(dev);
  dev = open_dev("native-memory-model=off,native-cap=3,native-window=5,native-spin=7,"
                 "native-wgs=9,deadline=11");
  extra_value(dev, "native_ordering", v, sizeof v);
  assert_non_null(strstr(v, "coherent buffers"));
  extra_value(dev, "native_spirv", v, sizeof v);
  assert_string_equal(v, "1.3");
  static const char *const keys[] = {"native_cap", "native_window", "native_spin", "native_wgs",
                                     "deadline_s"};
  static const char *const values[] = {"3", "5", "7", "9", "11"};
  for (int i = 0; i < 5; i++) {
    extra_value(dev, keys[i], v, sizeof v);
    assert_string_equal(v, values[i]);
  }
  be->close(dev);
}

/* emit gives what compile compiles: the device's ordering with a device,
   the portable one without. */
static void emit_native(void **state) {
  (void)state;
  native_case c;
  native_case_load(&c, ROWS "/row_no_barrier_2d.vyre");
  vc_dev *dev = open_dev("native-memory-model=on");
  vc_dev *off = open_dev("native-memory-model=off");
  char *src = NULL;
  vc_error e;
  assert_int_equal(be->emit(&c.kd, dev, &src, &e), 0);
  assert_non_null(strstr(src, "GL_KHR_memory_scope_semantics"));
  assert_non_null(strstr(src, "binding = 1) buffer VcCtrl")); /* after the one plan buffer */
  free(src);
  assert_int_equal(be->emit(&c.kd, off, &src, &e), 0);
  assert_null(strstr(src, "GL_KHR_memory_scope_semantics"));
  assert_non_null(strstr(src, "coherent volatile buffer VcCtrl"));
  free(src);
  assert_int_equal(be->emit(&c.kd, NULL, &src, &e), 0);
  assert_null(strstr(src, "GL_KHR_memory_scope_semantics"));
  free(src);
  be->close(off);
  be->close(dev);
  native_case_free(&c);
}

/* The late workgroups in the note: the dispatch is min(program
   workgroups, native-wgs) workgroups, of which one participates. */
static void dispatch_size(void **state) {
  (void)state;
  native_case c;
  native_case_load(&c, CASES "/many_workgroups.vyre"); /* 1000 workgroups of 4 */
  static const char *const opts[] = {NULL, "native-wgs=10", "native-wgs=1", "native-wgs=5000"};
  static const unsigned late[] = {999, 9, 0, 999};
  for (int i = 0; i < 4; i++) {
    vc_dev *dev = open_dev(opts[i]);
    vc_native_stats st = check_case(dev, &c);
    char want[64];
    snprintf(want, sizeof want, "1 participants (%u late workgroups)", late[i]);
    if (!strstr(st.note, want)) fail_msg("%s: %s", opts[i] ? opts[i] : "defaults", st.note);
    be->close(dev);
  }
  native_case_free(&c);
}

/* Two dispatches of one kernel in one batch, then one finish: each got
   fresh control words, and each has its device time. Without them the
   second finds the poll closed and every workgroup late, which leaves the
   first's counts standing: only the late count tells. */
static void control_words_reset_per_dispatch(void **state) {
  (void)state;
  vc_dev *dev = open_dev(NULL);
  native_case c;
  native_case_load(&c, CASES "/fixpoint_count.vyre");
  vc_native_shape sh;
  vc_native_shape_of(&c.kd, false, &sh);
  vc_kern *kern = NULL;
  vc_error e;
  assert_int_equal(be->compile(dev, &c.kd, &kern, NULL, &e), 0);
  plan pl = plan_make(dev, &c);
  for (int round = 0; round < 2; round++) {
    for (int k = 0; k < 2; k++) assert_int_equal(be->launch(dev, kern, pl.dev, pl.n, &e), 0);
    uint64_t ns[4];
    uint32_t n = 0;
    assert_int_equal(be->finish(dev, ns, 4, &n, &e), 0);
    vc_device_info info;
    assert_int_equal(be->describe(dev, &info, &e), 0);
    assert_int_equal(n, info.timestamps ? 2u : 0u);
    vc_native_stats st;
    assert_int_equal(be->native_stats(dev, kern, &st, &e), 0);
    if (st.untrustworthy) fail_msg("round %d: %s", round, st.note);
    assert_int_equal(st.passes, sh.max_passes);
    assert_int_equal(st.barriers, vc_native_expected_barriers(&sh, sh.max_passes));
    char want[64];
    snprintf(want, sizeof want, "1 participants (%u late workgroups)", sh.virtual_wgs - 1);
    if (!strstr(st.note, want)) fail_msg("round %d: %s", round, st.note);
  }
  plan_free(dev, &pl);
  be->free_kernel(dev, kern);
  native_case_free(&c);
  be->close(dev);
}

/* A wait whose condition cannot hold (a phantom arrival) ends at the spin
   limit and says so; a kernel without a grid barrier never waits. One
   participant runs the segments in order, so only the check can tell. */
static void cut_short_wait_is_untrustworthy(void **state) {
  (void)state;
  vc_dev *dev = open_dev("native-phantoms=1,native-spin=1");
  static const char *const files[] = {ROWS "/row_barrier_detect.vyre",
                                      ROWS "/row_no_barrier_2d.vyre"};
  for (int i = 0; i < 2; i++) {
    native_case c;
    native_case_load(&c, files[i]);
    uint32_t passes;
    vkt_buffers want = oracle(&c, &passes), got = {0};
    vc_native_stats st;
    vc_error e;
    if (run_case(dev, &c, &got, &st, &e)) fail_msg("%s: %s", files[i], e.msg);
    bool waits = i == 0;
    if (st.untrustworthy != waits) fail_msg("%s: %s", files[i], st.note);
    if (waits) assert_non_null(strstr(st.note, "grid-barrier wait ended without its condition"));
    char why[512];
    if (!vkt_outputs_equal(c.prog, &want, &got, why, sizeof why)) fail_msg("%s", why);
    vkt_buffers_free(&want);
    vkt_buffers_free(&got);
    native_case_free(&c);
  }
  be->close(dev);
}

/* More loop iterations than lavapipe's budget (65,535 per invocation) for
   the one participant, though no workgroup alone comes near it: 100
   workgroups of 8, each invocation 1,000 LCG steps. The budget cuts the
   virtual-workgroup loop and the run says so, whatever its bytes. */
static const char budget_text[] =
    "(program vk_loop_budget (workgroup 8) (grid 100) (buffer out u32 800 write)\n"
    "  (entry (let g (global_id x)) (var x g)\n"
    "    (loop i 0u 1000u (set x (add (mul x 1664525u) 1013904223u)))\n"
    "    (barrier grid) (store out g x)))\n";

static void loop_budget_is_untrustworthy(void **state) {
  (void)state;
  vc_dev *dev = open_dev(NULL);
  native_case c;
  native_case_text(&c, "budget.vyre", budget_text);
  vkt_buffers got = {0};
  vc_native_stats st;
  vc_error e;
  if (run_case(dev, &c, &got, &st, &e)) fail_msg("%s", e.msg);
  assert_true(st.untrustworthy);
  assert_non_null(strstr(st.note, "a virtual-workgroup loop ended before its last workgroup"));
  vkt_buffers_free(&got);
  native_case_free(&c);
  be->close(dev);
}

/* About three seconds on lavapipe (two cores): 409,600 invocations of
   60,000 LCG steps, under the loop budget each. */
static const char long_text[] =
    "(program vk_long (workgroup 64) (grid 6400) (buffer out u32 409600 write)\n"
    "  (entry (let g (global_id x)) (var x g)\n"
    "    (loop i 0u 60000u (set x (add (mul x 1664525u) 1013904223u)))\n"
    "    (store out g x)))\n";

/* finish gives up at the deadline, naming the kernel; what comes next
   waits for the dispatch to end before reusing or freeing anything. */
static void finish_has_a_deadline(void **state) {
  (void)state;
  vc_dev *dev = open_dev("deadline=1");
  vc_program *p = vkt_parse_text("long.vyre", long_text);
  assert_non_null(p);
  vc_kernel_desc k = {.kind = VC_KERNEL_SEGMENT, .prog = p, .label = "long"};
  vc_kern *kern = NULL;
  vc_error e;
  assert_int_equal(be->compile(dev, &k, &kern, NULL, &e), 0);
  vc_buf *b = NULL;
  assert_int_equal(be->alloc(dev, vc_buffer_bytes(&p->buffers[0]), &b, &e), 0);
  assert_int_equal(be->launch(dev, kern, &b, 1, &e), 0);
  uint64_t ns = 0;
  uint32_t n = 0;
  assert_int_equal(be->finish(dev, &ns, 1, &n, &e), VC_ERR_TIMEOUT);
  if (!strstr(e.msg, "kernel long did not finish within 1 s (the deadline option)"))
    fail_msg("%s", e.msg);
  uint32_t first[4] = {0}, want = 3;
  for (int i = 0; i < 60000; i++) want = want * 1664525u + 1013904223u;
  assert_int_equal(be->download(dev, b, first, sizeof first, &e), 0); /* after the dispatch */
  assert_int_equal(first[3], want);
  be->free_buffer(dev, b);
  be->free_kernel(dev, kern);
  vc_program_free(p);
  be->close(dev);
}

static void stats_refusals(void **state) {
  (void)state;
  vc_dev *dev = open_dev(NULL);
  native_case c;
  native_case_load(&c, ROWS "/row_no_barrier_2d.vyre");
  vc_kern *kern = NULL;
  vc_error e;
  vc_native_stats st;
  assert_int_equal(be->native_stats(dev, NULL, &st, &e), VC_ERR_USAGE);
  assert_non_null(strstr(e.msg, "not native"));
  assert_int_equal(be->compile(dev, &c.kd, &kern, NULL, &e), 0);
  assert_int_equal(be->native_stats(dev, kern, &st, &e), VC_ERR_USAGE);
  assert_non_null(strstr(e.msg, "kernel native: native_stats before any launch"));
  be->free_kernel(dev, kern);
  vc_kernel_desc seg = {VC_KERNEL_SEGMENT, c.split->segs[0].prog, NULL, "segment 0"};
  assert_int_equal(be->compile(dev, &seg, &kern, NULL, &e), 0);
  assert_int_equal(be->native_stats(dev, kern, &st, &e), VC_ERR_USAGE);
  assert_non_null(strstr(e.msg, "not native"));
  be->free_kernel(dev, kern);
  be->close(dev);
  native_case_free(&c);
  static const char *const bad[] = {"native-memory-model=yes", "deadline=0", "native-cap=-1",
                                    "native-spin=99999999999"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    vc_dev *d = NULL;
    assert_int_equal(be->open(0, bad[i], &d, &e), VC_ERR_USAGE);
    assert_null(d);
    if (!strstr(e.msg, bad[i])) fail_msg("%s: %s", bad[i], e.msg);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(one_row_cases_with_the_memory_model),
      cmocka_unit_test(one_row_cases_without_the_memory_model),
      cmocka_unit_test(shared_cases_pass),
      cmocka_unit_test(full_shared_memory),
      cmocka_unit_test(describe_native),
      cmocka_unit_test(emit_native),
      cmocka_unit_test(dispatch_size),
      cmocka_unit_test(control_words_reset_per_dispatch),
      cmocka_unit_test(cut_short_wait_is_untrustworthy),
      cmocka_unit_test(loop_budget_is_untrustworthy),
      cmocka_unit_test(finish_has_a_deadline),
      cmocka_unit_test(stats_refusals),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
