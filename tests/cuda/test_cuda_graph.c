/* launch=graph (the default) against the fake driver (fake_cuda.h): the
 * segment launches between two finishes go out as one graph, whose stamps
 * (timing=stamps, the default: each kernel's start, and a stamp kernel's
 * after the last) or event nodes (timing=launch) give each launch's device
 * time; a stamp missing or going backwards gives no time; the
 * instantiated graph is kept and
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
#include <unistd.h>

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
static fake_cuda_advance_ns_fn advance_ns;

/* What the played kernel saw, launch by launch: the segment kernels (their
   grid, first buffer and stamp), and apart from them the stamp kernel's
   launches (one block of one thread, one parameter: its slot). */
#define SEEN_MAX 64
static uint32_t seen_grid[SEEN_MAX];
static void *seen_buf[SEEN_MAX];
static uint64_t seen_stamp[SEEN_MAX];
static uint32_t nseen;
static uint64_t end_stamp[SEEN_MAX];
static uint32_t nend;
/* a test's own device: called for each segment launch i (0, 1, ...) */
static void (*also)(const fake_cuda_launch *l, uint32_t i);

static bool stamp_kernel(const fake_cuda_launch *l) {
  return l->grid[0] * l->grid[1] * l->grid[2] == 1 &&
         l->block[0] * l->block[1] * l->block[2] == 1 && l->nparams == 1;
}

static void play(const fake_cuda_launch *l) {
  if (stamp_kernel(l)) {
    if (nend < SEEN_MAX) end_stamp[nend] = l->stamp_ns;
    nend++;
    return;
  }
  if (nseen < SEEN_MAX) {
    seen_grid[nseen] = l->grid[0];
    seen_buf[nseen] = l->nparams ? l->params[0] : NULL;
    seen_stamp[nseen] = l->stamp_ns;
  }
  if (also) also(l, nseen);
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
  void *f[6] = {control("fake_cuda_stats_get"), control("fake_cuda_fail"),
                control("fake_cuda_fail_node"), control("fake_cuda_set_hang"),
                control("fake_cuda_set_kernel"), control("fake_cuda_advance_ns")};
  for (int i = 0; i < 6; i++)
    if (!f[i]) return -1;
  /* POSIX: dlsym results convert to function pointers */
  memcpy(&stats_of, &f[0], sizeof f[0]);
  memcpy(&fail_next, &f[1], sizeof f[1]);
  memcpy(&fail_node, &f[2], sizeof f[2]);
  memcpy(&set_hang, &f[3], sizeof f[3]);
  memcpy(&set_kernel, &f[4], sizeof f[4]);
  memcpy(&advance_ns, &f[5], sizeof f[5]);
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
  nseen = nend = 0;
  also = NULL;
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
  also = NULL;
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
  assert_int_equal(b.launches, a.launches + 6); /* and the stamp kernel */
  assert_int_equal(b.event_records, a.event_records);
  vc_device_info info;
  vc_error e;
  assert_int_equal(be->describe(r.dev, &info, &e), 0);
  assert_non_null(strstr(info.extra, "launch=graph graph_min=3 graph_update=nodes\n"));
  rig_close(&r);
}

/* Launch i takes i + 1 us longer than the fake's 0.25 ms. */
static void longer(const fake_cuda_launch *l, uint32_t i) {
  (void)l;
  advance_ns(1000u * (i + 1));
}

/* finish after n launches: count n, times in ns. */
static void finish_n(rig *r, uint32_t n, uint64_t *ns) {
  uint32_t count = 0;
  vc_error e;
  if (be->finish(r->dev, ns, SEEN_MAX, &count, &e) != 0) fail_msg("finish: %s", e.msg);
  assert_int_equal(count, n);
}

/* timing=stamps (the default): each launch stamps its start, the stamp
   kernel (one per batch, after its last launch) the end; launch i's time
   is stamp i + 1 - stamp i, exactly what the played kernels took, with no
   cuEventRecord. A second batch before the finish has slots of its own.
   The same with the stamps in device memory, copied back at finish. */
static void stamps_per_launch(void **state) {
  (void)state;
  static const char *const options[] = {NULL, "stamp-memory=device"};
  for (int o = 0; o < 2; o++) {
    rig r;
    rig_open(&r, options[o]);
    also = longer;
    fake_cuda_stats a, b;
    stats_of(&a);
    uint64_t ns[SEEN_MAX];
    launch_all(&r, "abaab", 0);
    finish_n(&r, 5, ns);
    assert_int_equal(nseen, 5);
    assert_int_equal(nend, 1);
    for (uint32_t i = 0; i < 5; i++) {
      uint64_t next = i + 1 < 5 ? seen_stamp[i + 1] : end_stamp[0];
      assert_true(seen_stamp[i] != 0);
      assert_int_equal(ns[i], next - seen_stamp[i]);
      assert_int_equal(ns[i], FAKE_CUDA_LAUNCH_NS + 1000u * (i + 1));
    }
    ran("abaab");
    stats_of(&b);
    assert_int_equal(b.stamps, a.stamps + 6);
    assert_int_equal(b.launches, a.launches + 6);
    assert_int_equal(b.event_records, a.event_records);
    /* two batches, a copy between them */
    nend = 0;
    vc_error e;
    launch_all(&r, "aab", 0);
    assert_int_equal(be->zero(r.dev, r.buf[1], &e), 0);
    launch_all(&r, "abb", 0);
    finish_n(&r, 6, ns);
    assert_int_equal(nend, 2);
    for (uint32_t i = 0; i < 6; i++) {
      uint64_t next = i == 2 ? end_stamp[0] : i == 5 ? end_stamp[1] : seen_stamp[i + 1];
      assert_int_equal(ns[i], next - seen_stamp[i]);
      assert_int_equal(ns[i], FAKE_CUDA_LAUNCH_NS + 1000u * (i + 1));
    }
    ran("aababb");
    vc_device_info info;
    assert_int_equal(be->describe(r.dev, &info, &e), 0);
    assert_non_null(strstr(info.extra, o ? "timing=stamps stamp_memory=device (graph batches"
                                         : "timing=stamps stamp_memory=host (graph batches"));
    rig_close(&r);
  }
}

/* A stamp that is missing (a kernel that did not run) or out of order (a
   clock gone backwards) gives no time to the launches it would time, and
   to a neighbour whose stamp it contradicts; the others keep theirs. */
static uint32_t broken_at;
static int broken_backwards;

static void break_stamp(const fake_cuda_launch *l, uint32_t i) {
  if (i != broken_at) return;
  uint64_t *slot = l->params[l->nparams - 1];
  *slot = broken_backwards ? l->stamp_ns - FAKE_CUDA_LAUNCH_NS - 1000u : 0;
}

static void stamps_missing(void **state) {
  (void)state;
  static const char *const options[] = {NULL, "stamp-memory=device"};
  for (int o = 0; o < 2; o++) {
    for (int backwards = 0; backwards < 2; backwards++) {
      rig r;
      rig_open(&r, options[o]);
      also = break_stamp;
      broken_at = 2;
      broken_backwards = backwards;
      uint64_t ns[SEEN_MAX];
      launch_all(&r, "ababa", 0);
      finish_n(&r, 5, ns);
      /* missing: launches 1 and 2 use stamp 2; backwards: stamp 2 is
         before stamp 1, so neither is trusted (launches 0, 1, 2) */
      for (uint32_t i = 0; i < 5; i++) {
        bool none = backwards ? i <= 2 : i == 1 || i == 2;
        assert_int_equal(ns[i], none ? 0 : FAKE_CUDA_LAUNCH_NS);
      }
      /* the next finish is whole again */
      also = NULL;
      launch_all(&r, "ababa", 0);
      finish_all(&r, 5);
      rig_close(&r);
    }
  }
}

/* A launch that hangs after launch 2 ran: with the stamps in host memory
   finish names the first launch whose next stamp has not come (launch 3
   of 5: the fourth never started), with device memory, which it cannot
   read before the batch ends, the batch's first. */
static void hang_after_two(const fake_cuda_launch *l, uint32_t i) {
  (void)l;
  if (i == 2) set_hang(1);
}

static void stamps_deadline(void **state) {
  (void)state;
  static const char *const options[] = {"deadline=1", "deadline=1,stamp-memory=device"};
  static const char *const says[] = {"kernel ga (seg a) (launch 3 of 5) did not finish within 1 s",
                                     "kernel ga (seg a) (launch 1 of 5) did not finish within 1 s"};
  for (int o = 0; o < 2; o++) {
    rig r;
    rig_open(&r, options[o]);
    also = hang_after_two;
    launch_all(&r, "ababa", 0);
    uint64_t ns[8];
    uint32_t count = 9;
    vc_error e;
    assert_int_equal(be->finish(r.dev, ns, 8, &count, &e), VC_ERR_TIMEOUT);
    assert_int_equal(count, 0);
    if (!strstr(e.msg, says[o])) fail_msg("%s", e.msg);
    set_hang(0);
    also = NULL;
    rig_close(&r);
  }
}

/* The stamps' own driver calls failing: finish names them, the batch is
   dropped, nothing is left behind and the next batch has its times. */
static void stamp_failures(void **state) {
  (void)state;
  static const struct {
    const char *call, *says;
  } cases[] = {
      {"cuModuleLoadDataEx", "finish: timing=stamps: cuModuleLoadDataEx(the stamp kernel) on Fake "
                             "GPU (CUDA device 0): CUDA_ERROR_OUT_OF_MEMORY"},
      {"cuMemHostGetDevicePointer",
       "finish: timing=stamps: cuMemHostGetDevicePointer(2048 bytes of stamp slots, mapped host "
       "memory) on Fake GPU (CUDA device 0): CUDA_ERROR_OUT_OF_MEMORY"},
      {"cuMemAlloc", "finish: timing=stamps: cuMemAlloc(2048 bytes of stamp slots, device memory) "
                     "on Fake GPU (CUDA device 0): CUDA_ERROR_OUT_OF_MEMORY"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    rig r;
    rig_open(&r, c == 2 ? "stamp-memory=device" : NULL);
    fake_cuda_stats a, b;
    stats_of(&a);
    uint64_t ns[8];
    uint32_t count = 9;
    vc_error e;
    launch_all(&r, "abab", 0);
    fail_next(cases[c].call, 1, CUDA_ERROR_OUT_OF_MEMORY);
    assert_int_equal(be->finish(r.dev, ns, 8, &count, &e), VC_ERR_LIMIT);
    assert_int_equal(count, 0);
    if (!strstr(e.msg, cases[c].says)) fail_msg("%s: %s", cases[c].call, e.msg);
    assert_int_equal(nseen, 0);
    stats_of(&b);
    assert_int_equal(b.host_allocs, a.host_allocs);
    assert_int_equal(b.device_allocs, a.device_allocs);
    launch_all(&r, "abab", 0);
    finish_all(&r, 4);
    ran("abab");
    rig_close(&r);
  }
}

/* The stamp kernel is PTX the plugin holds (loaded at the first stamped
   batch, the driver's JIT compiling it): one entry with one parameter, a
   %globaltimer read and a 64-bit store, which ptxas assembles for sm_90. */
static void stamp_kernel_ptx(void **state) {
  (void)state;
  rig r;
  rig_open(&r, NULL); /* the segment kernels load as cubins: not saved */
  char path[] = "/tmp/vc-stamp-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  fake_cuda_stats a, b;
  stats_of(&a);
  setenv("FAKE_CUDA_PTX_OUT", path, 1);
  launch_all(&r, "aba", 0);
  finish_all(&r, 3);
  launch_all(&r, "aba", 0); /* loaded once */
  finish_all(&r, 3);
  unsetenv("FAKE_CUDA_PTX_OUT");
  stats_of(&b);
  assert_int_equal(b.ptx_loads, a.ptx_loads + 1);
  assert_int_equal(b.modules, a.modules + 1);
  assert_string_equal(b.last_ptx_entry, ".entry vc_stamp");
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  char ptx[4096];
  size_t n = fread(ptx, 1, sizeof ptx - 1, f);
  fclose(f);
  ptx[n] = '\0';
  assert_non_null(strstr(ptx, ".visible .entry vc_stamp(\n  .param .u64 vc_stamp_param_0\n)"));
  assert_non_null(strstr(ptx, "mov.u64 %rd3, %globaltimer;"));
  assert_non_null(strstr(ptx, "st.global.u64 [%rd2], %rd3;"));
  if (VC_PTXAS[0]) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s -arch=sm_90 %s -o /dev/null", VC_PTXAS, path);
    assert_int_equal(system(cmd), 0);
  } else {
    print_message("no ptxas found at build time: the PTX is not assembled\n");
  }
  unlink(path);
  rig_close(&r);
  stats_of(&b);
  assert_int_equal(b.modules, 0);
}

/* timing=launch: the event nodes (one before the first launch, one after
   each), no stamp written and no stamp kernel; the times are the same. */
static void graph_with_events(void **state) {
  (void)state;
  rig r;
  rig_open(&r, "timing=launch");
  fake_cuda_stats a, b;
  stats_of(&a);
  launch_all(&r, "abaab", 0);
  finish_all(&r, 5);
  ran("abaab");
  assert_int_equal(nend, 0);
  stats_of(&b);
  assert_int_equal(b.stamps, a.stamps);
  assert_int_equal(b.launches, a.launches + 5);
  assert_int_equal(b.graph_launches, a.graph_launches + 1);
  assert_int_equal(b.event_records, a.event_records);
  vc_device_info info;
  vc_error e;
  assert_int_equal(be->describe(r.dev, &info, &e), 0);
  assert_non_null(strstr(info.extra, "timing=launch\n"));
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
  /* the second batch's slots (its 3 kernel nodes and the stamp node) and
     its end event */
  assert_int_equal(b.graph_node_sets, a.graph_node_sets + 5);
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
  assert_int_equal(st.host_allocs, 0); /* staging and the stamp slots */
  assert_int_equal(st.modules, 0);     /* the stamp kernel's too */
  assert_int_equal(st.unsafe_frees, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(one_graph_per_batch), cmocka_unit_test(kept_and_updated),
      cmocka_unit_test(copy_forces_batch_out), cmocka_unit_test(small_batches),
      cmocka_unit_test(graph_without_timing), cmocka_unit_test(graph_failures),
      cmocka_unit_test(graph_deadline), cmocka_unit_test(stamps_per_launch),
      cmocka_unit_test(stamps_missing), cmocka_unit_test(stamps_deadline),
      cmocka_unit_test(stamp_failures),
      cmocka_unit_test(stamp_kernel_ptx),
      cmocka_unit_test(graph_with_events),
      cmocka_unit_test(graph_given_back),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
