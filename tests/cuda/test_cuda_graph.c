/* launch=graph (the default) against the fake driver (fake_cuda.h): the
 * segment launches between two finishes go out as one graph, whose event
 * nodes give each launch's device time; the instantiated graph is kept and
 * set in place for a batch of the same shape; small batches, timing=none,
 * a batch forced out by a copy, failures that name the launch or the batch,
 * the deadline, and nothing left behind. */
#include <cuda.h>
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness/lang/parse.h"
#include "tests/cuda/cuda_fixture.h"
#include "tests/cuda/fake_cuda.h"

static vc_plugin plugin;
static const vc_backend *be;
static void *fake;
static fake_cuda_stats_fn stats_of;
static fake_cuda_fail_fn fail_next;
static fake_cuda_fail_node_fn fail_node;
static fake_cuda_set_hang_fn set_hang;
static fake_cuda_set_kernel_fn set_kernel;

/* What the played kernel saw, launch by launch. */
#define SEEN_MAX 64
static uint32_t seen_grid[SEEN_MAX];
static void *seen_buf[SEEN_MAX];
static uint32_t nseen;

static void play(const fake_cuda_launch *l) {
  if (nseen < SEEN_MAX) {
    seen_grid[nseen] = l->grid[0];
    seen_buf[nseen] = l->nparams ? l->params[0] : NULL;
  }
  nseen++;
}

static void *control(const char *name) {
  void *f = dlsym(fake, name);
  if (!f) fprintf(stderr, "fake driver lacks %s\n", name);
  return f;
}

static int setup(void **state) {
  (void)state;
  setenv("VYRE_CONFORM_LIBCUDA", VC_FAKE_LIBCUDA, 1);
  if (cuda_fixture_load(&plugin) != 0) return -1;
  be = plugin.ops;
  fake = dlopen(VC_FAKE_LIBCUDA, RTLD_NOW | RTLD_LOCAL);
  if (!fake) return -1;
  void *f[5] = {control("fake_cuda_stats_get"), control("fake_cuda_fail"),
                control("fake_cuda_fail_node"), control("fake_cuda_set_hang"),
                control("fake_cuda_set_kernel")};
  for (int i = 0; i < 5; i++)
    if (!f[i]) return -1;
  /* POSIX: dlsym results convert to function pointers */
  memcpy(&stats_of, &f[0], sizeof f[0]);
  memcpy(&fail_next, &f[1], sizeof f[1]);
  memcpy(&fail_node, &f[2], sizeof f[2]);
  memcpy(&set_hang, &f[3], sizeof f[3]);
  memcpy(&set_kernel, &f[4], sizeof f[4]);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  vc_plugin_unload(&plugin);
  if (fake) dlclose(fake);
  return 0;
}

/* Two segment kernels told apart by their grids (2 and 3 blocks), one
   buffer each, and two buffers to bind. */
typedef struct rig {
  vc_dev *dev;
  vc_program *prog[2];
  vc_kern *kern[2];
  vc_buf *buf[2];
} rig;

static vc_program *parse(const char *text) {
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = vc_parse("graph.vyre", text, strlen(text), &d);
  vc_diags_print(&d, stderr);
  vc_diags_free(&d);
  if (!p) fail_msg("test program does not parse");
  return p;
}

static void rig_open(rig *r, const char *options) {
  static const char *const text[2] = {
      "(program ga (workgroup 64) (grid 2) (buffer o u32 1024 read_write)\n"
      "  (entry (store o (global_id x) 1u)))",
      "(program gb (workgroup 64) (grid 3) (buffer o u32 1024 read_write)\n"
      "  (entry (store o (global_id x) 2u)))"};
  static const char *const label[2] = {"seg a", "seg b"};
  memset(r, 0, sizeof *r);
  vc_error e;
  if (be->open(0, options, &r->dev, &e) != 0) fail_msg("open: %s", e.msg);
  for (int i = 0; i < 2; i++) {
    r->prog[i] = parse(text[i]);
    vc_kernel_desc k = {.kind = VC_KERNEL_SEGMENT, .prog = r->prog[i], .label = label[i]};
    if (be->compile(r->dev, &k, &r->kern[i], NULL, &e) != 0) fail_msg("compile: %s", e.msg);
    if (be->alloc(r->dev, 4096, &r->buf[i], &e) != 0) fail_msg("alloc: %s", e.msg);
  }
  nseen = 0;
  set_kernel(play);
}

static void rig_close(rig *r) {
  for (int i = 0; i < 2; i++) {
    be->free_kernel(r->dev, r->kern[i]);
    be->free_buffer(r->dev, r->buf[i]);
    vc_program_free(r->prog[i]);
  }
  be->close(r->dev);
  set_kernel(NULL);
}

/* Launches kernels[0..n) ("abab": a, b, a, b), each on buffer `buf`. */
static void launch_all(rig *r, const char *kernels, int buf) {
  vc_error e;
  for (const char *k = kernels; *k; k++)
    if (be->launch(r->dev, r->kern[*k - 'a'], &r->buf[buf], 1, &e) != 0)
      fail_msg("launch: %s", e.msg);
}

/* finish, expecting n device times of one fake launch (0.25 ms) each. */
static void finish_all(rig *r, uint32_t n) {
  uint64_t ns[SEEN_MAX];
  uint32_t count = 0;
  vc_error e;
  if (be->finish(r->dev, ns, SEEN_MAX, &count, &e) != 0) fail_msg("finish: %s", e.msg);
  assert_int_equal(count, n);
  for (uint32_t i = 0; i < n; i++) assert_int_equal(ns[i], 250000);
}

/* The grids the played kernel saw, as "abab". */
static void ran(const char *kernels) {
  char got[SEEN_MAX + 1];
  uint32_t i = 0;
  for (; i < nseen && i < SEEN_MAX; i++) got[i] = seen_grid[i] == 2 ? 'a' : 'b';
  got[i] = '\0';
  assert_string_equal(got, kernels);
  nseen = 0;
}

/* One batch is one graph: nothing reaches the driver before finish, no
   cuEventRecord at all, the launches run in order and each has its time. */
static void one_graph_per_batch(void **state) {
  (void)state;
  rig r;
  rig_open(&r, NULL);
  fake_cuda_stats a, b;
  stats_of(&a);
  launch_all(&r, "abaab", 0);
  stats_of(&b);
  assert_int_equal(b.graph_instantiations, a.graph_instantiations);
  assert_int_equal(b.graph_launches, a.graph_launches);
  finish_all(&r, 5);
  ran("abaab");
  stats_of(&b);
  assert_int_equal(b.graph_instantiations, a.graph_instantiations + 1);
  assert_int_equal(b.graph_launches, a.graph_launches + 1);
  assert_int_equal(b.launches, a.launches + 5);
  assert_int_equal(b.event_records, a.event_records);
  vc_device_info info;
  vc_error e;
  assert_int_equal(be->describe(r.dev, &info, &e), 0);
  assert_non_null(strstr(info.extra, "launch=graph graph_min=3 graph_update=nodes\n"));
  rig_close(&r);
}

/* The same shape again: the kept graph, nothing set (same buffers, and the
   pool gives the same events after a finish); other buffers: the kernel
   nodes set in place, the launches see the new buffers; another shape: a
   new graph. graph-update=instantiate: a new graph every time. */
static void kept_and_updated(void **state) {
  (void)state;
  rig r;
  rig_open(&r, NULL);
  fake_cuda_stats a, b;
  launch_all(&r, "abab", 0);
  finish_all(&r, 4);
  void *first = seen_buf[0];
  ran("abab");
  stats_of(&a);
  launch_all(&r, "abab", 0);
  finish_all(&r, 4);
  ran("abab");
  stats_of(&b);
  assert_int_equal(b.graph_instantiations, a.graph_instantiations);
  assert_int_equal(b.graph_node_sets, a.graph_node_sets);
  assert_int_equal(b.graph_launches, a.graph_launches + 1);
  /* buffers moved */
  launch_all(&r, "abab", 1);
  finish_all(&r, 4);
  assert_ptr_not_equal(seen_buf[0], first);
  for (uint32_t i = 1; i < 4; i++) assert_ptr_equal(seen_buf[i], seen_buf[0]);
  ran("abab");
  stats_of(&a);
  assert_int_equal(a.graph_instantiations, b.graph_instantiations);
  assert_int_equal(a.graph_node_sets, b.graph_node_sets + 4);
  /* the first buffer again: the launches see it, not the second */
  launch_all(&r, "abab", 0);
  finish_all(&r, 4);
  for (uint32_t i = 0; i < 4; i++) assert_ptr_equal(seen_buf[i], first);
  ran("abab");
  /* another order, another count: a new graph each */
  stats_of(&a);
  launch_all(&r, "baba", 0);
  finish_all(&r, 4);
  ran("baba");
  launch_all(&r, "babab", 0);
  finish_all(&r, 5);
  ran("babab");
  stats_of(&b);
  assert_int_equal(b.graph_instantiations, a.graph_instantiations + 2);
  rig_close(&r);
  rig_open(&r, "graph-update=instantiate");
  stats_of(&a);
  for (int i = 0; i < 3; i++) {
    launch_all(&r, "abab", 0);
    finish_all(&r, 4);
  }
  ran("abababababab");
  stats_of(&b);
  assert_int_equal(b.graph_instantiations, a.graph_instantiations + 3);
  assert_int_equal(b.graph_node_sets, a.graph_node_sets);
  rig_close(&r);
}

/* A copy between launches sends the batch before it (the copy sees what
   the launches wrote); the second batch of the same shape reuses the
   graph with its own events, set in place; finish has all six times. */
static void copy_forces_batch_out(void **state) {
  (void)state;
  rig r;
  rig_open(&r, NULL);
  launch_all(&r, "abb", 0);
  finish_all(&r, 3);
  nseen = 0;
  fake_cuda_stats a, b;
  stats_of(&a);
  vc_error e;
  launch_all(&r, "abb", 0);
  assert_int_equal(be->zero(r.dev, r.buf[1], &e), 0);
  stats_of(&b);
  assert_int_equal(b.graph_launches, a.graph_launches + 1);
  launch_all(&r, "abb", 0);
  finish_all(&r, 6);
  ran("abbabb");
  stats_of(&b);
  assert_int_equal(b.graph_instantiations, a.graph_instantiations);
  assert_int_equal(b.graph_node_sets, a.graph_node_sets + 4); /* the second batch's events */
  assert_int_equal(b.graph_launches, a.graph_launches + 2);
  /* a download waits for the launches before it */
  uint32_t word = 7;
  launch_all(&r, "aaa", 0);
  assert_int_equal(be->download(r.dev, r.buf[0], &word, 4, &e), 0);
  assert_int_equal(nseen, 3);
  finish_all(&r, 3);
  rig_close(&r);
}

/* Fewer than graph-min launches go on the stream, chained events and all;
   graph-min=1 sends even one as a graph; launch=stream never a graph. */
static void small_batches(void **state) {
  (void)state;
  rig r;
  rig_open(&r, NULL);
  fake_cuda_stats a, b;
  stats_of(&a);
  launch_all(&r, "ab", 0);
  finish_all(&r, 2);
  ran("ab");
  stats_of(&b);
  assert_int_equal(b.graph_launches, a.graph_launches);
  assert_int_equal(b.event_records, a.event_records + 3);
  /* a copy after a small batch sent on its way: the next launch starts at
     an event of its own, not at the batch's last (the copy is no launch's
     device time) */
  vc_error e;
  stats_of(&a);
  launch_all(&r, "ab", 0);
  assert_int_equal(be->zero(r.dev, r.buf[1], &e), 0);
  launch_all(&r, "ab", 0);
  finish_all(&r, 4);
  stats_of(&b);
  assert_int_equal(b.event_records, a.event_records + 6);
  rig_close(&r);
  rig_open(&r, "graph-min=1");
  stats_of(&a);
  launch_all(&r, "b", 0);
  finish_all(&r, 1);
  ran("b");
  stats_of(&b);
  assert_int_equal(b.graph_launches, a.graph_launches + 1);
  assert_int_equal(b.event_records, a.event_records);
  rig_close(&r);
  rig_open(&r, "launch=stream");
  stats_of(&a);
  launch_all(&r, "ababab", 0);
  finish_all(&r, 6);
  ran("ababab");
  stats_of(&b);
  assert_int_equal(b.graph_launches, a.graph_launches);
  assert_int_equal(b.event_records, a.event_records + 7);
  vc_device_info info;
  assert_int_equal(be->describe(r.dev, &info, &e), 0);
  assert_non_null(strstr(info.extra, "launch=stream\n"));
  rig_close(&r);
}

/* timing=none: a graph of kernel nodes only, one event for the deadline,
   no device times. */
static void graph_without_timing(void **state) {
  (void)state;
  rig r;
  rig_open(&r, "timing=none");
  fake_cuda_stats a, b;
  stats_of(&a);
  launch_all(&r, "abab", 0);
  finish_all(&r, 0);
  ran("abab");
  stats_of(&b);
  assert_int_equal(b.graph_launches, a.graph_launches + 1);
  assert_int_equal(b.event_records, a.event_records + 1);
  rig_close(&r);
}

/* Failures name the launch when the driver names its node, else the
   batch by its labels; the batch is dropped and the device goes on. */
static void graph_failures(void **state) {
  (void)state;
  rig r;
  rig_open(&r, NULL);
  uint64_t ns[8];
  uint32_t count = 9;
  vc_error e;
  launch_all(&r, "abab", 0);
  fail_node(1);
  assert_int_equal(be->finish(r.dev, ns, 8, &count, &e), VC_ERR_DEVICE);
  assert_int_equal(count, 0);
  assert_string_equal(e.msg, "finish: kernel gb (seg b) (launch 2 of a graph of 4): "
                             "cuGraphInstantiateWithParams (grid 3x1x1, block 64x1x1) on Fake "
                             "GPU (CUDA device 0): CUDA_ERROR_INVALID_VALUE (fake description)");
  assert_int_equal(nseen, 0);
  launch_all(&r, "abab", 0);
  fail_next("cuGraphAddKernelNode", 3, CUDA_ERROR_OUT_OF_MEMORY);
  assert_int_equal(be->finish(r.dev, ns, 8, &count, &e), VC_ERR_LIMIT);
  assert_non_null(strstr(e.msg, "kernel ga (seg a) (launch 3 of a graph of 4): cuGraphAddKernelNode"));
  launch_all(&r, "abababa", 0);
  fail_next("cuGraphLaunch", 1, CUDA_ERROR_ILLEGAL_ADDRESS);
  uint32_t word;
  assert_int_equal(be->download(r.dev, r.buf[0], &word, 4, &e), VC_ERR_DEVICE);
  assert_string_equal(e.msg, "download: graph of 7 launches (kernel ga (seg a), kernel gb (seg b), ..., kernel gb "
                             "(seg b), kernel ga (seg a)) "
                             "on Fake GPU (CUDA device 0): cuGraphLaunch: "
                             "CUDA_ERROR_ILLEGAL_ADDRESS (fake description)");
  assert_int_equal(be->finish(r.dev, ns, 8, &count, &e), 0);
  assert_int_equal(count, 0);
  assert_int_equal(nseen, 0);
  /* a finish that cannot even make the context current drops the batch */
  launch_all(&r, "abab", 0);
  fail_next("cuCtxSetCurrent", 1, CUDA_ERROR_INVALID_CONTEXT);
  assert_int_equal(be->finish(r.dev, ns, 8, &count, &e), VC_ERR_DEVICE);
  assert_non_null(strstr(e.msg, "finish: cuCtxSetCurrent on Fake GPU"));
  /* and the device still serves */
  launch_all(&r, "abab", 0);
  finish_all(&r, 4);
  ran("abab");
  rig_close(&r);
}

/* A hung launch in a graph: finish gives up at the deadline naming the
   first launch whose end event has not come. */
static void graph_deadline(void **state) {
  (void)state;
  rig r;
  rig_open(&r, "deadline=1");
  launch_all(&r, "baba", 0);
  set_hang(1);
  uint64_t ns[4];
  uint32_t count = 9;
  vc_error e;
  assert_int_equal(be->finish(r.dev, ns, 4, &count, &e), VC_ERR_TIMEOUT);
  assert_int_equal(count, 0);
  assert_non_null(strstr(e.msg, "kernel gb (seg b) (launch 1 of 4) did not finish within 1 s"));
  set_hang(0);
  rig_close(&r);
}

/* A kernel freed: the kept graph that launches it goes first; close gives
   back every graph and exec. */
static void graph_given_back(void **state) {
  (void)state;
  rig r;
  rig_open(&r, NULL);
  launch_all(&r, "aaaa", 0);
  finish_all(&r, 4);
  fake_cuda_stats st;
  stats_of(&st);
  assert_int_equal(st.graphs, 1);
  assert_int_equal(st.graph_execs, 1);
  be->free_kernel(r.dev, r.kern[1]); /* not in the graph: it stays */
  r.kern[1] = NULL;
  stats_of(&st);
  assert_int_equal(st.graph_execs, 1);
  be->free_kernel(r.dev, r.kern[0]);
  r.kern[0] = NULL;
  stats_of(&st);
  assert_int_equal(st.graphs, 0);
  assert_int_equal(st.graph_execs, 0);
  /* launches held back at close are sent and waited for */
  rig_close(&r);
  rig_open(&r, NULL);
  launch_all(&r, "abab", 0);
  rig_close(&r);
  ran("abab");
  stats_of(&st);
  assert_int_equal(st.graphs, 0);
  assert_int_equal(st.graph_execs, 0);
  assert_int_equal(st.events, 0);
  assert_int_equal(st.device_allocs, 0);
  assert_int_equal(st.modules, 0);
  assert_int_equal(st.unsafe_frees, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(one_graph_per_batch), cmocka_unit_test(kept_and_updated),
      cmocka_unit_test(copy_forces_batch_out), cmocka_unit_test(small_batches),
      cmocka_unit_test(graph_without_timing), cmocka_unit_test(graph_failures),
      cmocka_unit_test(graph_deadline), cmocka_unit_test(graph_given_back),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
