/* Native kernels on PoCL through the OpenCL plugin's table: every case in
 * cases/ gives the oracle's bytes and pass count in both orderings
 * (device-scope atomics and the OpenCL 1.2 fallback), with the barrier
 * count its passes imply; participant caps hold; a wait that cannot end
 * is cut short and marks the run untrustworthy; finish gives up at its
 * deadline; native_stats refuses what it cannot answer. */
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
#include "harness/exec/plugin.h"
#include "native_util.h"
#include "oracles/oracle.h"

#define CASES VC_SOURCE_DIR "/tests/native/cases"

static vc_plugin plugin;
static const vc_backend *be;

static int load_plugin(void **state) {
  (void)state;
  vc_error err = {0};
  if (vc_plugin_load_file(VC_BINARY_DIR "/vc-backend-opencl.so", &plugin, &err)) {
    fprintf(stderr, "load: %s\n", err.msg);
    return -1;
  }
  be = plugin.ops;
  return 0;
}

static int unload_plugin(void **state) {
  (void)state;
  vc_plugin_unload(&plugin);
  return 0;
}

static vc_dev *open_dev(const char *options) {
  vc_dev *d = NULL;
  vc_error err = {0};
  if (be->open(0, options, &d, &err)) fail_msg("open(%s): %s", options ? options : "", err.msg);
  return d;
}

/* Plan buffers as the harness starts them: user buffers from their
   initialisers, spill buffers zero. */
static uint32_t **plan_inputs(const native_case *c) {
  const vc_split *s = c->split;
  uint32_t **b = calloc(s->nbuffers, sizeof *b);
  assert_non_null(b);
  for (uint32_t i = 0; i < s->nbuffers; i++) {
    b[i] = calloc(s->buffers[i].count, 4);
    assert_non_null(b[i]);
    if (i < s->nuser) vc_inputs_fill(&s->buffers[i], b[i]);
  }
  return b;
}

static void free_plan(const native_case *c, uint32_t **b) {
  for (uint32_t i = 0; i < c->split->nbuffers; i++) free(b[i]);
  free(b);
}

/* The oracle's user buffers and pass count. */
static uint32_t **oracle(const native_case *c, uint32_t *passes) {
  uint32_t **b = plan_inputs(c);
  vc_oracle *o = NULL;
  vc_error err = {0};
  vc_oracle_report rep;
  if (vc_oracle_compile(c->prog, &o, &err) || vc_oracle_run(o, b, NULL, &rep, &err))
    fail_msg("oracle: %s", err.msg);
  vc_oracle_free(o);
  *passes = rep.passes;
  return b;
}

/* One native run on dev: compile, upload, one launch, finish, stats,
   download into host. Returns the first failing call's code. */
static int run_native(vc_dev *dev, const native_case *c, uint32_t **host, vc_native_stats *st,
                      vc_error *err) {
  const vc_split *s = c->split;
  vc_kern *kern = NULL;
  vc_compile_info ci = {0, NULL, false};
  int rc = be->compile(dev, &c->kd, &kern, &ci, err);
  free(ci.log);
  if (rc) return rc;
  vc_buf **db = calloc(s->nbuffers, sizeof *db);
  assert_non_null(db);
  for (uint32_t i = 0; i < s->nbuffers && !rc; i++) {
    uint64_t bytes = vc_buffer_bytes(&s->buffers[i]);
    rc = be->alloc(dev, bytes, &db[i], err);
    if (!rc) rc = be->upload(dev, db[i], host[i], bytes, err);
  }
  uint64_t ns = 0;
  uint32_t n = 0;
  if (!rc) rc = be->launch(dev, kern, db, s->nbuffers, err);
  if (!rc) rc = be->finish(dev, &ns, 1, &n, err);
  if (!rc) rc = be->native_stats(dev, kern, st, err);
  for (uint32_t i = 0; i < s->nuser && !rc; i++)
    rc = be->download(dev, db[i], host[i], vc_buffer_bytes(&s->buffers[i]), err);
  for (uint32_t i = 0; i < s->nbuffers; i++)
    if (db[i]) be->free_buffer(dev, db[i]);
  free(db);
  be->free_kernel(dev, kern);
  return rc;
}

/* Runs c on dev and requires the oracle's bytes and passes, the barriers
   those passes need, and a trustworthy run. Returns the participants. */
static uint32_t check_case(vc_dev *dev, const native_case *c) {
  uint32_t want_passes = 0;
  uint32_t **want = oracle(c, &want_passes);
  uint32_t **got = plan_inputs(c);
  vc_native_stats st;
  vc_error err = {0};
  if (run_native(dev, c, got, &st, &err)) fail_msg("%s: %s", c->prog->name, err.msg);
  for (uint32_t i = 0; i < c->split->nuser; i++) {
    const vc_buffer *b = &c->split->buffers[i];
    if (b->access == VC_READ) continue;
    for (uint32_t e = 0; e < b->count; e++)
      if (got[i][e] != want[i][e])
        fail_msg("%s: %s[%u] = 0x%08x, the oracle says 0x%08x (participants %u)", c->prog->name,
                 b->name, e, got[i][e], want[i][e], st.participants);
  }
  vc_native_shape sh;
  vc_native_shape_of(&c->kd, false, &sh);
  if (st.untrustworthy) fail_msg("%s: untrustworthy: %s", c->prog->name, st.note);
  assert_int_equal(st.passes, want_passes);
  assert_int_equal(st.barriers, vc_native_expected_barriers(&sh, want_passes));
  assert_true(st.participants >= 1);
  assert_int_equal(st.virtual_per_participant,
                   (sh.virtual_wgs + st.participants - 1) / st.participants);
  free_plan(c, want);
  free_plan(c, got);
  return st.participants;
}

static void run_all_cases(const char *options) {
  vc_dev *dev = open_dev(options);
  size_t n = 0;
  char **files = native_list(CASES, &n);
  assert_true(n >= 9);
  for (size_t i = 0; i < n; i++) {
    native_case c;
    native_case_load(&c, files[i]);
    check_case(dev, &c);
    native_case_free(&c);
  }
  native_list_free(files, n);
  be->close(dev);
}

static void cases_with_device_scope_atomics(void **state) {
  (void)state;
  run_all_cases("native-atomics=device");
}

static void cases_with_opencl_1_2_atomics(void **state) {
  (void)state;
  run_all_cases("native-atomics=cl12");
}

/* The counter barrier (gridbar=counter) stays exact beside the flip
   barrier (the default, above), in both orderings. */
static void cases_with_counter_barrier(void **state) {
  (void)state;
  run_all_cases("gridbar=counter,native-atomics=device");
  run_all_cases("gridbar=counter,native-atomics=cl12");
}

/* Discovery's first protocol, tickets by compare-and-swap on the poll
   (native-discovery=cas), and the segments of a pass as one loop
   (native-segments=loop) stay exact in both orderings. */
static void cases_with_cas_discovery_and_looped_segments(void **state) {
  (void)state;
  run_all_cases("native-discovery=cas,native-atomics=device");
  run_all_cases("native-discovery=cas,native-segments=loop,native-atomics=cl12");
  run_all_cases("native-segments=loop,native-atomics=device");
}

/* gridbar=lead (work-group-scope barriers, device scope in the lead
   work-item only) stays exact in both orderings. */
static void cases_with_lead_barrier(void **state) {
  (void)state;
  run_all_cases("gridbar=lead,native-atomics=device");
  run_all_cases("gridbar=lead,native-atomics=cl12");
}

/* The barrier really waits: with a long discovery window PoCL's second
   worker thread joins (it starts milliseconds after the first), and the
   bytes stay right. Participants vary from run to run; some run of ten
   must have two. */
static void several_participants(void **state) {
  (void)state;
  static const char *const opts[] = {"native-window=67108864",
                                     "native-window=67108864,native-atomics=cl12",
                                     "native-window=67108864,gridbar=counter",
                                     "native-window=67108864,gridbar=lead",
                                     "native-window=67108864,gridbar=lead,native-atomics=cl12"};
  for (int v = 0; v < 5; v++) {
    vc_dev *dev = open_dev(opts[v]);
    static const char *const files[] = {CASES "/spin_barriers.vyre", CASES "/fixpoint_flag.vyre"};
    for (int f = 0; f < 2; f++) {
      native_case c;
      native_case_load(&c, files[f]);
      uint32_t most = 0;
      for (int i = 0; i < 10 && most < 2; i++) {
        uint32_t p = check_case(dev, &c);
        if (p > most) most = p;
      }
      if (most < 2) fail_msg("%s, %s: never two participants", opts[v], files[f]);
      native_case_free(&c);
    }
    be->close(dev);
  }
}

static uint32_t compute_units(vc_dev *dev) {
  vc_device_info info;
  vc_error err = {0};
  assert_int_equal(be->describe(dev, &info, &err), 0);
  assert_true(info.compute_units >= 1);
  return info.compute_units;
}

/* The poll closes once the tickets reach what can be resident at once
   (EXPECT; on a CPU device its compute units, the worker threads), not at
   the window's end: with a window of 2^32 - 1 polls (seconds) the run
   still ends well within a deadline of 2 s, with every worker thread
   participating. */
static void poll_closes_at_expect(void **state) {
  (void)state;
  vc_dev *dev = open_dev("deadline=2,native-window=4294967295");
  uint32_t cu = compute_units(dev);
  native_case c;
  native_case_load(&c, CASES "/spin_barriers.vyre");
  uint32_t launched = c.split->segs[0].prog->grid[0] * c.split->segs[0].prog->grid[1] *
                      c.split->segs[0].prog->grid[2];
  if (launched > cu * 16) launched = cu * 16;
  uint32_t want = cu < launched ? cu : launched;
  assert_int_equal(check_case(dev, &c), want);
  native_case_free(&c);
  be->close(dev);
}

/* A kernel without a grid barrier waits for nothing, so it needs no
   co-residency and no discovery: every launched workgroup participates,
   and none is late, where discovery on PoCL finds at most its worker
   threads. */
static void barrier_free_kernel_all_participate(void **state) {
  (void)state;
  native_case c;
  native_case_load(&c, CASES "/no_barrier.vyre"); /* 40 workgroups */
  /* both joins: the slot's (the default) and every invocation by itself */
  static const char *const joins[][2] = {{NULL, "native-cap=3"},
                                         {"native-join=direct", "native-join=direct,native-cap=3"}};
  for (int j = 0; j < 2; j++) {
    vc_dev *dev = open_dev(joins[j][0]);
    uint32_t cu = compute_units(dev);
    uint32_t launched = 40 < cu * 16 ? 40 : cu * 16;
    assert_int_equal(check_case(dev, &c), launched);
    be->close(dev);
    dev = open_dev(joins[j][1]); /* the cap still holds */
    assert_int_equal(check_case(dev, &c), 3);
    be->close(dev);
  }
  native_case_free(&c);
}

/* native-cap bounds the participants, native-wgs the workgroups launched;
   one participant then runs every virtual workgroup. */
static void caps_participants(void **state) {
  (void)state;
  static const char *const opts[] = {"native-cap=1", "native-wgs=1",
                                     "native-cap=2,native-window=67108864"};
  static const uint32_t most[] = {1, 1, 2};
  native_case c;
  native_case_load(&c, CASES "/many_workgroups.vyre");
  for (int i = 0; i < 3; i++) {
    vc_dev *dev = open_dev(opts[i]);
    uint32_t p = check_case(dev, &c);
    if (p < 1 || p > most[i]) fail_msg("%s: %u participants", opts[i], p);
    be->close(dev);
  }
  native_case_free(&c);
}

/* A wait whose condition cannot hold (the barrier waits for a phantom
   participant) ends at the spin limit and says so; a kernel without a
   grid barrier never waits and stays trustworthy. One participant runs
   the segments in order, so the bytes are right either way: only the
   check can tell. */
static void cut_short_wait_is_untrustworthy(void **state) {
  (void)state;
  for (int v = 0; v < 2; v++) {
  vc_dev *dev = open_dev(v ? "native-cap=1,native-phantoms=1,native-spin=1,gridbar=counter"
                           : "native-cap=1,native-phantoms=1,native-spin=1");
  static const char *const files[] = {CASES "/spin_barriers.vyre", CASES "/fixpoint_flag.vyre",
                                      CASES "/no_barrier.vyre"};
  for (int i = 0; i < 3; i++) {
    native_case c;
    native_case_load(&c, files[i]);
    uint32_t passes = 0;
    uint32_t **want = oracle(&c, &passes);
    uint32_t **got = plan_inputs(&c);
    vc_native_stats st;
    vc_error err = {0};
    if (run_native(dev, &c, got, &st, &err)) fail_msg("%s: %s", files[i], err.msg);
    bool waits = i < 2;
    if (st.untrustworthy != waits)
      fail_msg("%s: untrustworthy %d, note: %s", files[i], st.untrustworthy, st.note);
    if (waits) assert_non_null(strstr(st.note, "grid-barrier wait ended without its condition"));
    for (uint32_t b = 0; b < c.split->nuser; b++)
      assert_memory_equal(got[b], want[b], vc_buffer_bytes(&c.split->buffers[b]));
    free_plan(&c, want);
    free_plan(&c, got);
    native_case_free(&c);
  }
  be->close(dev);
  }
}

/* A kernel that outlives the deadline: finish returns VC_ERR_TIMEOUT naming
   the kernel. The wait gives up after its spin limit (seconds later), so
   the kernel still ends and the device closes. */
static void finish_has_a_deadline(void **state) {
  (void)state;
  vc_dev *dev = open_dev("deadline=1,native-cap=1,native-phantoms=1,native-spin=5000000");
  native_case c;
  native_case_load(&c, CASES "/spin_barriers.vyre");
  vc_kern *kern = NULL;
  vc_error err = {0};
  assert_int_equal(be->compile(dev, &c.kd, &kern, NULL, &err), 0);
  vc_buf **db = calloc(c.split->nbuffers, sizeof *db);
  assert_non_null(db);
  for (uint32_t i = 0; i < c.split->nbuffers; i++) {
    assert_int_equal(be->alloc(dev, vc_buffer_bytes(&c.split->buffers[i]), &db[i], &err), 0);
    assert_int_equal(be->zero(dev, db[i], &err), 0);
  }
  assert_int_equal(be->launch(dev, kern, db, c.split->nbuffers, &err), 0);
  uint64_t ns = 0;
  uint32_t n = 0;
  assert_int_equal(be->finish(dev, &ns, 1, &n, &err), VC_ERR_TIMEOUT);
  assert_non_null(strstr(err.msg, "native did not finish within 1 s"));
  for (uint32_t i = 0; i < c.split->nbuffers; i++) be->free_buffer(dev, db[i]);
  free(db);
  be->free_kernel(dev, kern);
  be->close(dev);
  native_case_free(&c);
}

static void stats_refusals_and_options(void **state) {
  (void)state;
  vc_dev *dev = open_dev(NULL);
  native_case c;
  native_case_load(&c, CASES "/no_barrier.vyre");
  vc_kern *kern = NULL;
  vc_error err = {0};
  vc_native_stats st;
  assert_int_equal(be->compile(dev, &c.kd, &kern, NULL, &err), 0);
  assert_int_equal(be->native_stats(dev, kern, &st, &err), VC_ERR_USAGE); /* before a launch */
  assert_non_null(strstr(err.msg, "before any launch"));
  be->free_kernel(dev, kern);
  vc_kernel_desc seg = {VC_KERNEL_SEGMENT, c.split->segs[0].prog, NULL, "segment 0"};
  assert_int_equal(be->compile(dev, &seg, &kern, NULL, &err), 0);
  assert_int_equal(be->native_stats(dev, kern, &st, &err), VC_ERR_USAGE);
  assert_non_null(strstr(err.msg, "not native"));
  be->free_kernel(dev, kern);
  /* the ordering: the device's best on a device, the portable one without */
  vc_device_info info;
  assert_int_equal(be->describe(dev, &info, &err), 0);
  assert_non_null(strstr(info.extra, "native_ordering=device-scope"));
  assert_non_null(strstr(info.extra, "native_gridbar=flip\n"));
  char *src = NULL;
  assert_int_equal(be->emit(&c.kd, dev, &src, &err), 0);
  assert_non_null(strstr(src, "memory_scope_device"));
  free(src);
  assert_int_equal(be->emit(&c.kd, NULL, &src, &err), 0);
  assert_non_null(strstr(src, "OpenCL 1.2 atomics"));
  free(src);
  be->close(dev);
  native_case_free(&c);
  static const char *const bad[] = {"native-atomics=fast", "deadline=0", "native-cap=-1",
                                    "native-spin=99999999999", "gridbar=ticket", "gridbar=",
                                    "native-join=lead"};
  for (int i = 0; i < 7; i++) {
    vc_dev *d = NULL;
    assert_int_equal(be->open(0, bad[i], &d, &err), VC_ERR_USAGE);
    assert_null(d);
    assert_non_null(strstr(err.msg, bad[i]));
  }
  vc_dev *d = NULL;
  assert_int_equal(be->open(0, "gridbar=ticket", &d, &err), VC_ERR_USAGE);
  assert_non_null(strstr(err.msg, "expected flip, counter or lead"));
  d = open_dev("gridbar=counter"); /* describe says which barrier */
  vc_device_info ci;
  assert_int_equal(be->describe(d, &ci, &err), 0);
  assert_non_null(strstr(ci.extra, "native_gridbar=counter\n"));
  assert_non_null(strstr(ci.extra, "native_join=slot\n"));
  assert_non_null(strstr(ci.extra, "native_discovery=add\n"));
  be->close(d);
  assert_int_equal(be->open(0, "native-join=lead", &d, &err), VC_ERR_USAGE);
  assert_non_null(strstr(err.msg, "expected slot or direct"));
  d = open_dev("native-join=direct,native-discovery=cas");
  assert_int_equal(be->describe(d, &ci, &err), 0);
  assert_non_null(strstr(ci.extra, "native_join=direct\n"));
  assert_non_null(strstr(ci.extra, "native_discovery=cas\n"));
  be->close(d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(cases_with_device_scope_atomics),
      cmocka_unit_test(cases_with_opencl_1_2_atomics),
      cmocka_unit_test(cases_with_counter_barrier),
      cmocka_unit_test(cases_with_cas_discovery_and_looped_segments),
      cmocka_unit_test(cases_with_lead_barrier),
      cmocka_unit_test(several_participants),
      cmocka_unit_test(caps_participants),
      cmocka_unit_test(poll_closes_at_expect),
      cmocka_unit_test(barrier_free_kernel_all_participate),
      cmocka_unit_test(cut_short_wait_is_untrustworthy),
      cmocka_unit_test(finish_has_a_deadline),
      cmocka_unit_test(stats_refusals_and_options),
  };
  return cmocka_run_group_tests(tests, load_plugin, unload_plugin);
}
