/* The plugin's device code against a fake driver (fake_cuda.h): open,
 * describe, staging copies against a lazy copy engine, compile through the
 * real NVRTC, launches, event times, limits, driver failures, and a close
 * that gives everything back. Kernels are not executed: the GPU machine's
 * vc-cuda-smoke checks results. */
#include <cuda.h>
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "backends/common/native/native_ctrl.h"
#include "harness/exec/modes.h"
#include "harness/lang/parse.h"
#include "harness/split/split.h"
#include "tests/cuda/cuda_fixture.h"
#include "tests/cuda/fake_cuda.h"

static vc_plugin plugin;
static const vc_backend *be;
static void *fake;
static fake_cuda_stats_fn stats_of;
static fake_cuda_fail_fn fail_next;
static fake_cuda_set_attr_fn set_attr;
static fake_cuda_set_kernel_threads_fn set_kernel_threads;
static fake_cuda_set_devices_fn set_devices;
static fake_cuda_set_occupancy_fn set_occupancy;
static fake_cuda_set_hang_fn set_hang;
static fake_cuda_set_kernel_fn set_kernel;

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
  /* POSIX: dlsym results convert to function pointers */
  void *f[8] = {control("fake_cuda_stats_get"),          control("fake_cuda_fail"),
                control("fake_cuda_set_attr"),           control("fake_cuda_set_kernel_threads"),
                control("fake_cuda_set_devices"),        control("fake_cuda_set_occupancy"),
                control("fake_cuda_set_hang"),           control("fake_cuda_set_kernel")};
  for (int i = 0; i < 8; i++)
    if (!f[i]) return -1;
  memcpy(&stats_of, &f[0], sizeof f[0]);
  memcpy(&fail_next, &f[1], sizeof f[1]);
  memcpy(&set_attr, &f[2], sizeof f[2]);
  memcpy(&set_kernel_threads, &f[3], sizeof f[3]);
  memcpy(&set_devices, &f[4], sizeof f[4]);
  memcpy(&set_occupancy, &f[5], sizeof f[5]);
  memcpy(&set_hang, &f[6], sizeof f[6]);
  memcpy(&set_kernel, &f[7], sizeof f[7]);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  vc_plugin_unload(&plugin);
  if (fake) dlclose(fake);
  return 0;
}

static vc_dev *open_dev(const char *options) {
  vc_dev *dev = NULL;
  vc_error e;
  if (be->open(0, options, &dev, &e) != 0) fail_msg("open: %s", e.msg);
  return dev;
}

static vc_program *parse(const char *text) {
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = vc_parse("fake.vyre", text, strlen(text), &d);
  vc_diags_print(&d, stderr);
  vc_diags_free(&d);
  if (!p) fail_msg("test program does not parse");
  return p;
}

static void identity(void **state) {
  (void)state;
  uint32_t n = 0;
  vc_error e;
  assert_int_equal(be->device_count(&n, &e), 0);
  assert_int_equal(n, 1);
  vc_dev *dev = open_dev(NULL);
  vc_device_info info;
  assert_int_equal(be->describe(dev, &info, &e), 0);
  assert_string_equal(info.api, "cuda");
  assert_string_equal(info.api_version, "13.0");
  assert_string_equal(info.device_name, "Fake GPU");
  assert_string_equal(info.uuid, "0f1e2d3c4b5a69788796a5b4c3d2e1f0");
  assert_int_equal(info.vendor_id, 0x10de);
  assert_int_equal(info.device_id, 0x2335);
  assert_int_equal(info.compute_units, 132);
  assert_int_equal(info.max_workgroup_invocations, 1024);
  assert_int_equal(info.max_workgroup_size[2], 64);
  assert_int_equal(info.max_grid[0], 2147483647u);
  assert_int_equal(info.max_shared_bytes, 49152);
  assert_int_equal(info.global_mem_bytes, (uint64_t)141 << 30);
  assert_true(info.cooperative);
  assert_true(info.timestamps);
  assert_non_null(strstr(info.float_env, "contraction=off"));
  assert_non_null(strstr(info.extra, "compute_capability=9.0\n"));
  assert_non_null(strstr(info.extra, "pci_bus_id=0000:19:00.0\n"));
  assert_non_null(strstr(info.extra, "clock_khz=1980000\n"));
  assert_non_null(strstr(info.extra, "libcuda=" VC_FAKE_LIBCUDA "\n"));
  assert_non_null(strstr(info.extra, "nvrtc=13."));
  assert_non_null(strstr(info.extra, "native_include=/")); /* found beside NVRTC */
  assert_non_null(strstr(info.extra, "deadline_s=30\n"));
  /* attributes the driver does not know are left out, not recorded as -1 */
  assert_null(strstr(info.extra, "l2_cache_bytes"));
  assert_null(strstr(info.extra, "=-1"));
  be->close(dev);
}

/* Upload, download, zero, through a staging buffer of two 8 KiB halves:
   the lazy fake runs each copy only when the plugin waits for it. */
static void staging_round_trips(void **state) {
  (void)state;
  vc_dev *dev = open_dev("staging=16k");
  const uint64_t sizes[] = {4, 8188, 8192, 8196, 16384, 16388, 100004};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    uint64_t n = sizes[s];
    unsigned char *in = malloc(n), *out = malloc(n);
    for (uint64_t i = 0; i < n; i++) in[i] = (unsigned char)(i * 131 + s * 7 + (i >> 8));
    vc_buf *b = NULL;
    vc_error e;
    assert_int_equal(be->alloc(dev, n, &b, &e), 0);
    assert_int_equal(be->upload(dev, b, in, n, &e), 0);
    memset(out, 0xee, n);
    assert_int_equal(be->download(dev, b, out, n, &e), 0);
    if (memcmp(in, out, n) != 0)
      fail_msg("round trip of %llu bytes differs", (unsigned long long)n);
    assert_int_equal(be->zero(dev, b, &e), 0);
    assert_int_equal(be->download(dev, b, out, n, &e), 0);
    for (uint64_t i = 0; i < n; i++)
      if (out[i]) fail_msg("zero of %llu bytes left byte %llu", (unsigned long long)n,
                           (unsigned long long)i);
    be->free_buffer(dev, b);
    free(in);
    free(out);
  }
  fake_cuda_stats st;
  stats_of(&st);
  assert_int_equal(st.pageable_async_copies, 0);
  be->close(dev);
}

static void partial_and_oversized(void **state) {
  (void)state;
  vc_dev *dev = open_dev("staging=16k");
  uint32_t full[8192], part[3000], back[8192];
  for (uint32_t i = 0; i < 8192; i++) full[i] = 0xabc00000u + i;
  for (uint32_t i = 0; i < 3000; i++) part[i] = i;
  vc_buf *b = NULL;
  vc_error e;
  assert_int_equal(be->alloc(dev, sizeof full, &b, &e), 0);
  assert_int_equal(be->upload(dev, b, full, sizeof full, &e), 0);
  assert_int_equal(be->upload(dev, b, part, sizeof part, &e), 0);
  assert_int_equal(be->download(dev, b, back, sizeof back, &e), 0);
  assert_memory_equal(back, part, sizeof part);
  assert_memory_equal(back + 3000, full + 3000, sizeof full - sizeof part);
  assert_int_equal(be->upload(dev, b, full, sizeof full + 4, &e), VC_ERR_USAGE);
  assert_non_null(strstr(e.msg, "the buffer has only 32768 bytes"));
  assert_int_equal(be->download(dev, b, back, sizeof full + 1, &e), VC_ERR_USAGE);
  be->free_buffer(dev, b);
  be->close(dev);
}

/* Memory from host_alloc is pinned: each upload or download of it is one
   DMA from or to exactly that memory, with no staging, of any size (odd,
   0, larger than the staging buffer), and exact. Other memory still goes
   through staging, in halves. */
static void host_memory_direct(void **state) {
  (void)state;
  vc_dev *dev = open_dev("staging=16k");
  const uint64_t sizes[] = {0, 1, 7, 8191, 8193, 16384, 100001, (1u << 20) + 3};
  vc_error e;
  fake_cuda_stats st0, st;
  stats_of(&st0);
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    uint64_t n = sizes[s];
    unsigned char *in = NULL, *out = NULL;
    assert_int_equal(be->host_alloc(dev, n, (void **)&in, &e), 0);
    assert_int_equal(be->host_alloc(dev, n + 8, (void **)&out, &e), 0);
    assert_non_null(in);
    assert_int_equal((uintptr_t)in % 4, 0);
    for (uint64_t i = 0; i < n; i++) in[i] = (unsigned char)(i * 151 + s * 3 + (i >> 9));
    memset(out, 0xee, n + 8);
    vc_buf *b = NULL;
    assert_int_equal(be->alloc(dev, n, &b, &e), 0);
    stats_of(&st0);
    assert_int_equal(be->upload(dev, b, in, n, &e), 0);
    /* into the middle of a pinned region: still direct */
    assert_int_equal(be->download(dev, b, out + 4, n, &e), 0);
    stats_of(&st);
    assert_int_equal(st.htod_copies - st0.htod_copies, n ? 1 : 0);
    assert_int_equal(st.dtoh_copies - st0.dtoh_copies, n ? 1 : 0);
    if (n) assert_ptr_equal(st.last_copy_host, out + 4);
    if (n && memcmp(in, out + 4, n) != 0)
      fail_msg("pinned round trip of %llu bytes differs", (unsigned long long)n);
    for (int i = 0; i < 4; i++) assert_int_equal(out[i], 0xee);
    for (int i = 0; i < 4; i++) assert_int_equal(out[n + 4 + (uint64_t)i], 0xee);
    /* the same bytes from malloc memory: through the 8 KiB halves */
    if (n) {
      unsigned char *plain = malloc(n);
      memcpy(plain, in, n);
      stats_of(&st0);
      assert_int_equal(be->upload(dev, b, plain, n, &e), 0);
      stats_of(&st);
      assert_int_equal(st.htod_copies - st0.htod_copies, (n + 8191) / 8192);
      assert_int_equal(be->download(dev, b, plain, n, &e), 0);
      assert_memory_equal(plain, in, n);
      free(plain);
    }
    be->free_buffer(dev, b);
    be->host_free(dev, in);
    be->host_free(dev, out);
  }
  stats_of(&st);
  assert_int_equal(st.pageable_async_copies, 0);
  assert_int_equal(st.host_allocs, 1); /* the staging buffer only */
  be->close(dev);
}

/* host-memory=malloc: host_alloc's memory is pageable and copied through
   staging, as today's harness memory was; the bytes are the same. */
static void host_memory_malloc_option(void **state) {
  (void)state;
  vc_dev *dev = open_dev("staging=16k,host-memory=malloc");
  const uint64_t n = 100001;
  vc_error e;
  unsigned char *in = NULL, *out = NULL;
  assert_int_equal(be->host_alloc(dev, n, (void **)&in, &e), 0);
  assert_int_equal(be->host_alloc(dev, n, (void **)&out, &e), 0);
  fake_cuda_stats st0, st;
  stats_of(&st0);
  assert_int_equal(st0.host_allocs, 1);
  for (uint64_t i = 0; i < n; i++) in[i] = (unsigned char)(i * 7 + 1);
  vc_buf *b = NULL;
  assert_int_equal(be->alloc(dev, n, &b, &e), 0);
  assert_int_equal(be->upload(dev, b, in, n, &e), 0);
  assert_int_equal(be->download(dev, b, out, n, &e), 0);
  stats_of(&st);
  assert_int_equal(st.htod_copies - st0.htod_copies, 13);
  assert_int_equal(st.dtoh_copies - st0.dtoh_copies, 13);
  assert_memory_equal(in, out, n);
  be->free_buffer(dev, b);
  be->host_free(dev, in);
  be->host_free(dev, out);
  be->close(dev);
  vc_dev *bad = NULL;
  assert_int_equal(be->open(0, "host-memory=pinned", &bad, &e), VC_ERR_USAGE);
  assert_null(bad);
  assert_non_null(strstr(e.msg, "host-memory"));
}

/* Driver failures of the pinned path name the call, the size and the
   device; what close finds still allocated it gives back. */
static void host_memory_failures(void **state) {
  (void)state;
  vc_dev *dev = open_dev(NULL);
  vc_error e;
  void *p = NULL;
  fail_next("cuMemHostAlloc", 1, CUDA_ERROR_OUT_OF_MEMORY);
  assert_int_equal(be->host_alloc(dev, 4096, &p, &e), VC_ERR_LIMIT);
  assert_null(p);
  assert_non_null(strstr(e.msg, "cuMemHostAlloc(4096 bytes of host memory) for Fake GPU (CUDA "
                                "device 0): CUDA_ERROR_OUT_OF_MEMORY"));
  assert_int_equal(be->host_alloc(dev, 4096, &p, &e), 0);
  vc_buf *b = NULL;
  assert_int_equal(be->alloc(dev, 4096, &b, &e), 0);
  fail_next("cuMemcpyHtoDAsync", 1, CUDA_ERROR_INVALID_VALUE);
  assert_int_equal(be->upload(dev, b, p, 4096, &e), VC_ERR_DEVICE);
  assert_non_null(strstr(e.msg, "upload of 4096 bytes to Fake GPU (CUDA device 0): "
                                "cuMemcpyHtoDAsync: CUDA_ERROR_INVALID_VALUE"));
  fail_next("cuMemcpyDtoHAsync", 1, CUDA_ERROR_INVALID_VALUE);
  assert_int_equal(be->download(dev, b, p, 4096, &e), VC_ERR_DEVICE);
  assert_non_null(strstr(e.msg, "download of 4096 bytes from Fake GPU (CUDA device 0): "
                                "cuMemcpyDtoHAsync"));
  assert_int_equal(be->upload(dev, b, p, 4096, &e), 0);
  be->free_buffer(dev, b);
  void *q = NULL;
  assert_int_equal(be->host_alloc(dev, 16, &q, &e), 0);
  be->host_free(dev, q);
  be->close(dev); /* p is still allocated: close frees it */
}

/* Host-split through the harness's mode driver: every upload and download
   of its host copies is one DMA (here 400,000 bytes against 8 KiB staging
   halves: 49 copies each through staging), none from pageable memory; with
   host-memory=malloc they go through the halves again. The traffic is the
   plan's either way, and nothing is left allocated. */
static void host_split_copies_direct(void **state) {
  (void)state;
  static const char text[] =
      "(program hs (workgroup 64) (grid 4)\n"
      "  (buffer acc u32 100000 read_write (init iota))\n"
      "  (entry (let i (global_id x))\n"
      "    (store acc i (add (load acc i) 1u))\n"
      "    (barrier grid)\n"
      "    (store acc (add i 256u) (load acc i))))\n";
  vc_program *p = parse(text);
  vc_split *sp = NULL;
  vc_error e;
  assert_int_equal(vc_split_program(p, &sp, &e), 0);
  assert_int_equal(sp->nbuffers, 1);
  uint32_t *in = calloc(100000, 4);
  const uint32_t *const inputs[1] = {in};
  const char *options[2] = {"staging=16k", "staging=16k,host-memory=malloc"};
  for (int m = 0; m < 2; m++) {
    vc_dev *dev = open_dev(options[m]);
    vc_exec x;
    vc_exec_init(&x, be, dev, p, sp);
    fake_cuda_stats st0, st;
    stats_of(&st0);
    vc_mode_out mo;
    if (vc_exec_run(&x, VC_MODE_HOST_SPLIT, inputs, &mo, &e) != 0) fail_msg("%s", e.msg);
    stats_of(&st);
    vc_traffic plan = vc_plan_traffic(sp, VC_MODE_HOST_SPLIT, mo.passes);
    assert_int_equal(mo.bytes_up, plan.up);
    assert_int_equal(mo.bytes_down, plan.down);
    uint64_t uploads = mo.bytes_up / 400000, downloads = mo.bytes_down / 400000;
    assert_int_equal(uploads, 2);
    assert_int_equal(downloads, 2);
    uint32_t per = m == 0 ? 1 : 49;
    assert_int_equal(st.htod_copies - st0.htod_copies, uploads * per);
    assert_int_equal(st.dtoh_copies - st0.dtoh_copies, downloads * per);
    assert_int_equal(st.pageable_async_copies - st0.pageable_async_copies, 0);
    assert_non_null(mo.outputs[0]);
    vc_mode_out_free(&mo);
    vc_exec_free(&x);
    stats_of(&st);
    assert_int_equal(st.host_allocs, 1); /* the staging buffer only */
    be->close(dev);
  }
  free(in);
  vc_split_free(sp);
  vc_program_free(p);
}

/* One device buffer per program buffer. */
static void alloc_all(vc_dev *dev, const vc_program *p, vc_buf **bufs) {
  vc_error e;
  for (uint32_t i = 0; i < p->nbuffers; i++)
    if (be->alloc(dev, vc_buffer_bytes(&p->buffers[i]), &bufs[i], &e) != 0) fail_msg("%s", e.msg);
}

static const char *four_buffers =
    "(program four (workgroup 64) (grid 4)\n"
    "  (buffer a u32 256 read (init iota))\n"
    "  (buffer b i32 256 read_write)\n"
    "  (buffer c f32 8 write)\n"
    "  (buffer d u32 4096 write)\n"
    "  (shared tile u32 300)\n"
    "  (entry (let i (global_id x))\n"
    "    (store tile (local_id x) (load a i)) (barrier workgroup)\n"
    "    (store d i (load tile (local_id x))) (store b i (cast i32 i))\n"
    "    (store c (and i 7u) 1.0)))";

/* Compiles through the real NVRTC into the fake's module, launches three
   times on the stream (launch=stream) and reads each launch's event time. */
static void compile_launch_finish(void **state) {
  (void)state;
  vc_dev *dev = open_dev("launch=stream");
  vc_program *p = parse(four_buffers);
  vc_kernel_desc k = {.kind = VC_KERNEL_SEGMENT, .prog = p, .label = "segment 0"};
  vc_kern *kern = NULL;
  vc_compile_info ci;
  vc_error e;
  assert_int_equal(be->compile(dev, &k, &kern, &ci, &e), 0);
  assert_true(ci.compile_ns > 0);
  assert_non_null(ci.log);
  /* the fake's device is 9.0 and its driver 13.0: NVRTC 13.0 gives a cubin */
  assert_non_null(strstr(ci.log, "cubin load: fake jit: loaded a cubin"));
  free(ci.log);
  vc_buf *bufs[4];
  alloc_all(dev, p, bufs);
  fake_cuda_stats st;
  stats_of(&st);
  uint32_t before = st.launches, records = st.event_records;
  for (int i = 0; i < 3; i++) assert_int_equal(be->launch(dev, kern, bufs, 4, &e), 0);
  stats_of(&st);
  /* back to back, each launch starts at the event that ended the last */
  assert_int_equal(st.event_records, records + 4);
  assert_string_equal(st.last_ptx_entry, ".entry vc_main");
  assert_int_equal(st.launches, before); /* queued, not yet run */
  assert_int_equal(st.grid[0], 4);
  assert_int_equal(st.grid[1], 1);
  assert_int_equal(st.block[0], 64);
  assert_int_equal(st.block[2], 1);
  /* parameter k is buffer k: the allocations' sizes say which; the last,
     the stamp slot, is 0 on the stream (no stamp) */
  assert_int_equal(st.nparams, 5);
  assert_int_equal(st.param_bytes[0], 1024);
  assert_int_equal(st.param_bytes[1], 1024);
  assert_int_equal(st.param_bytes[2], 32);
  assert_int_equal(st.param_bytes[3], 16384);
  assert_int_equal(st.param_bytes[4], 0);
  uint64_t ns[4] = {0};
  uint32_t count = 0;
  assert_int_equal(be->finish(dev, ns, 4, &count, &e), 0);
  assert_int_equal(count, 3);
  for (int i = 0; i < 3; i++) assert_int_equal(ns[i], 250000);
  stats_of(&st);
  assert_int_equal(st.launches, before + 3);
  /* a copy between launches: the next one records its own start, so the
     copy is not counted as its device time */
  stats_of(&st);
  records = st.event_records;
  assert_int_equal(be->launch(dev, kern, bufs, 4, &e), 0);
  assert_int_equal(be->zero(dev, bufs[1], &e), 0);
  assert_int_equal(be->launch(dev, kern, bufs, 4, &e), 0);
  stats_of(&st);
  assert_int_equal(st.event_records, records + 4);
  assert_int_equal(be->finish(dev, ns, 4, &count, &e), 0);
  assert_int_equal(count, 2);
  assert_int_equal(ns[0], 250000);
  assert_int_equal(ns[1], 250000);
  /* more launches than room: the first ones, then nothing pending */
  for (int i = 0; i < 3; i++) assert_int_equal(be->launch(dev, kern, bufs, 4, &e), 0);
  assert_int_equal(be->finish(dev, ns, 2, &count, &e), 0);
  assert_int_equal(count, 2);
  assert_int_equal(be->finish(dev, ns, 4, &count, &e), 0);
  assert_int_equal(count, 0);
  /* a wrong buffer count never reaches the driver */
  assert_int_equal(be->launch(dev, kern, bufs, 3, &e), VC_ERR_USAGE);
  assert_non_null(strstr(e.msg, "3 buffers bound, the kernel has 4"));
  vc_native_stats ns_;
  assert_int_equal(be->native_stats(dev, kern, &ns_, &e), VC_ERR_USAGE);
  assert_non_null(strstr(e.msg, "not native"));
  /* buffers, then the kernel, freed with a launch still queued: the plugin
     lets it finish first */
  assert_int_equal(be->launch(dev, kern, bufs, 4, &e), 0);
  for (uint32_t i = 0; i < 4; i++) be->free_buffer(dev, bufs[i]);
  alloc_all(dev, p, bufs);
  assert_int_equal(be->launch(dev, kern, bufs, 4, &e), 0);
  be->free_kernel(dev, kern);
  for (uint32_t i = 0; i < 4; i++) be->free_buffer(dev, bufs[i]);
  stats_of(&st);
  assert_int_equal(st.unsafe_frees, 0);
  vc_program_free(p);
  be->close(dev);
}

/* timing=none: no event per launch (one per finish, for its deadline), no
   device times; the launches still run. */
static void launches_without_timing(void **state) {
  (void)state;
  vc_dev *dev = open_dev("timing=none");
  vc_program *p = parse(four_buffers);
  vc_kernel_desc k = {.kind = VC_KERNEL_SEGMENT, .prog = p, .label = "segment 0"};
  vc_kern *kern = NULL;
  vc_error e;
  assert_int_equal(be->compile(dev, &k, &kern, NULL, &e), 0);
  vc_buf *bufs[4];
  alloc_all(dev, p, bufs);
  fake_cuda_stats st;
  stats_of(&st);
  uint32_t before = st.launches, records = st.event_records;
  for (int i = 0; i < 5; i++) assert_int_equal(be->launch(dev, kern, bufs, 4, &e), 0);
  stats_of(&st);
  assert_int_equal(st.event_records, records);
  uint64_t ns[8] = {0};
  uint32_t count = 7;
  assert_int_equal(be->finish(dev, ns, 8, &count, &e), 0);
  assert_int_equal(count, 0);
  stats_of(&st);
  assert_int_equal(st.launches, before + 5);
  assert_int_equal(st.event_records, records + 1);
  be->free_kernel(dev, kern);
  for (uint32_t i = 0; i < 4; i++) be->free_buffer(dev, bufs[i]);
  vc_program_free(p);
  be->close(dev);
}

/* Launches refused before the driver sees them, naming both figures. */
static void launch_limits(void **state) {
  (void)state;
  vc_error e;
  fake_cuda_stats st;
  struct {
    const char *text, *expect[2];
  } cases[] = {
      {"(program deep (workgroup 1 1 128) (buffer o u32 8 write) (entry (store o 0u 1u)))",
       {"workgroup size z of 128", "limit 64 of Fake GPU (CUDA device 0)"}},
      {"(program regs (workgroup 512) (buffer o u32 8 write) (entry (store o 0u 1u)))",
       {"512 invocations", "256 threads per block this kernel can launch"}},
      {"(program big (workgroup 32) (buffer o u32 8 write) (shared s u32 8192)\n"
       "  (entry (store s (local_id x) 1u) (barrier workgroup) (store o 0u (load s 0u))))",
       {"32768 bytes of shared memory", "16384 bytes per block"}},
  };
  set_kernel_threads(256);
  set_attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, 16384);
  vc_dev *dev = open_dev(NULL);
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    vc_program *p = parse(cases[c].text);
    vc_kernel_desc k = {.kind = VC_KERNEL_SEGMENT, .prog = p, .label = "segment 0"};
    vc_kern *kern = NULL;
    vc_buf *b = NULL;
    assert_int_equal(be->compile(dev, &k, &kern, NULL, &e), 0);
    assert_int_equal(be->alloc(dev, 32, &b, &e), 0);
    stats_of(&st);
    uint32_t launches = st.launches;
    assert_int_equal(be->launch(dev, kern, &b, 1, &e), VC_ERR_LIMIT);
    for (int i = 0; i < 2; i++)
      if (!strstr(e.msg, cases[c].expect[i])) fail_msg("case %zu: %s", c, e.msg);
    uint32_t count = 1;
    uint64_t ns;
    assert_int_equal(be->finish(dev, &ns, 1, &count, &e), 0);
    assert_int_equal(count, 0);
    stats_of(&st);
    assert_int_equal(st.launches, launches);
    be->free_buffer(dev, b);
    be->free_kernel(dev, kern);
    vc_program_free(p);
  }
  be->close(dev);
  set_kernel_threads(1024);
  set_attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, 49152);
}

/* Driver failures become messages naming the call, the device and the
   figures, with the error code that fits; the device stays usable. */
static void driver_failures(void **state) {
  (void)state;
  vc_dev *dev = open_dev("staging=16k,launch=stream,module=ptx");
  vc_buf *b = NULL;
  vc_error e;
  fail_next("cuMemAlloc", 1, CUDA_ERROR_OUT_OF_MEMORY);
  assert_int_equal(be->alloc(dev, 4096, &b, &e), VC_ERR_LIMIT);
  assert_string_equal(e.msg, "cuMemAlloc(4096 bytes) on Fake GPU (CUDA device 0): "
                             "CUDA_ERROR_OUT_OF_MEMORY (out of memory)");
  assert_null(b);
  static unsigned char in[40000], out[40000];
  for (size_t i = 0; i < sizeof in; i++) in[i] = (unsigned char)(i * 7);
  assert_int_equal(be->alloc(dev, sizeof in, &b, &e), 0);
  fail_next("cuMemcpyHtoDAsync", 3, CUDA_ERROR_ILLEGAL_ADDRESS);
  assert_int_equal(be->upload(dev, b, in, sizeof in, &e), VC_ERR_DEVICE);
  assert_non_null(strstr(e.msg, "at offset 16384 to Fake GPU (CUDA device 0): cuMemcpyHtoDAsync: "
                                "CUDA_ERROR_ILLEGAL_ADDRESS"));
  assert_int_equal(be->upload(dev, b, in, sizeof in, &e), 0);
  fail_next("cuMemcpyDtoHAsync", 2, CUDA_ERROR_ILLEGAL_ADDRESS);
  assert_int_equal(be->download(dev, b, out, sizeof out, &e), VC_ERR_DEVICE);
  assert_non_null(strstr(e.msg, "at offset 8192 from Fake GPU"));
  assert_int_equal(be->download(dev, b, out, sizeof out, &e), 0);
  assert_memory_equal(in, out, sizeof in);
  be->free_buffer(dev, b);

  vc_program *p = parse(four_buffers);
  vc_kernel_desc k = {.kind = VC_KERNEL_SEGMENT, .prog = p, .label = "segment 0"};
  vc_kern *kern = NULL;
  fail_next("cuModuleLoadDataEx", 1, CUDA_ERROR_UNSUPPORTED_PTX_VERSION);
  assert_int_equal(be->compile(dev, &k, &kern, NULL, &e), VC_ERR_COMPILE);
  assert_null(kern);
  assert_non_null(strstr(e.msg, "kernel four (segment 0): cuModuleLoadDataEx on Fake GPU"));
  assert_non_null(strstr(e.msg, "(PTX for compute_90 from NVRTC 13."));
  assert_non_null(strstr(e.msg, "driver CUDA 13.0)"));
  assert_non_null(strstr(e.msg, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"));
  assert_int_equal(be->compile(dev, &k, &kern, NULL, &e), 0);
  vc_buf *bufs[4];
  alloc_all(dev, p, bufs);
  assert_int_equal(be->launch(dev, kern, bufs, 4, &e), 0);
  fail_next("cuStreamSynchronize", 1, CUDA_ERROR_ILLEGAL_ADDRESS);
  uint64_t ns[2];
  uint32_t count = 9;
  assert_int_equal(be->finish(dev, ns, 2, &count, &e), VC_ERR_DEVICE);
  assert_int_equal(count, 0);
  assert_non_null(strstr(e.msg, "finish: cuStreamSynchronize after 1 launches on Fake GPU"));
  fail_next("cuLaunchKernel", 1, CUDA_ERROR_INVALID_VALUE);
  assert_int_equal(be->launch(dev, kern, bufs, 4, &e), VC_ERR_DEVICE);
  assert_non_null(strstr(e.msg, "cuLaunchKernel (grid 4x1x1, block 64x1x1)"));
  for (uint32_t i = 0; i < 4; i++) be->free_buffer(dev, bufs[i]);
  be->free_kernel(dev, kern);
  vc_program_free(p);
  be->close(dev);
}

/* ---- native kernels ---- */

/* Three segments over 2000 workgroups of 64, a value spilled across both
   barriers: more workgroups than the fake's 8 x 132 co-resident blocks. */
static const char *native_text =
    "(program nat (workgroup 64) (grid 2000)\n"
    "  (buffer a u32 128000 read_write (init iota))\n"
    "  (buffer o u32 128000 write)\n"
    "  (entry (let i (global_id x)) (let v (load a i)) (store a i (add v 1u))\n"
    "    (barrier grid) (store o i (load a (sub 127999u i)))\n"
    "    (barrier grid) (store o i (add (load o i) v))))";

typedef struct native_run {
  vc_program *prog;
  vc_split *split;
  vc_native_desc nd;
  vc_kern *kern;
  vc_buf *bufs[8];
} native_run;

static int native_compile(vc_dev *dev, native_run *n, vc_error *e) {
  memset(n, 0, sizeof *n);
  n->prog = parse(native_text);
  if (vc_split_program(n->prog, &n->split, e) != 0) fail_msg("split: %s", e->msg);
  assert_true(n->split->nbuffers <= 8);
  vc_split_native_desc(n->split, &n->nd);
  vc_kernel_desc k = {.kind = VC_KERNEL_NATIVE, .prog = n->prog, .native = &n->nd,
                      .label = "native"};
  return be->compile(dev, &k, &n->kern, NULL, e);
}

static void native_alloc(vc_dev *dev, native_run *n) {
  vc_error e;
  for (uint32_t i = 0; i < n->split->nbuffers; i++)
    if (be->alloc(dev, vc_buffer_bytes(&n->split->buffers[i]), &n->bufs[i], &e) != 0)
      fail_msg("%s", e.msg);
}

static void native_free(vc_dev *dev, native_run *n) {
  for (uint32_t i = 0; n->split && i < n->split->nbuffers; i++) be->free_buffer(dev, n->bufs[i]);
  be->free_kernel(dev, n->kern);
  vc_split_free(n->split);
  vc_program_free(n->prog);
}

/* The device's side, played: what a cooperative native kernel of nat
   leaves in its control buffer. Counts are added, so words that were not
   reset before a launch show. */
static uint32_t played_barriers = 2;

static void play_native(const fake_cuda_launch *l) {
  if (!l->cooperative || l->nparams == 0) return;
  uint32_t *ctrl = l->params[l->nparams - 1];
  ctrl[VC_NC_PARTICIPANTS] += l->grid[0];
  ctrl[VC_NC_GEN] += played_barriers;
  ctrl[VC_NC_PASSES] += 1;
  ctrl[VC_NC_VWG_RUNS] += 2000 * 3;
}

static void native_stats_of(vc_dev *dev, vc_kern *kern, vc_native_stats *ns) {
  vc_error e;
  uint64_t t[2];
  uint32_t count = 0;
  assert_int_equal(be->finish(dev, t, 2, &count, &e), 0);
  assert_int_equal(count, 1);
  assert_int_equal(t[0], 250000); /* the launch alone, not the control reset */
  if (be->native_stats(dev, kern, ns, &e) != 0) fail_msg("%s", e.msg);
}

/* One cooperative launch of the co-resident blocks with the plan buffers
   and the control buffer, reset before every launch and judged after. */
static void native_launch(void **state) {
  (void)state;
  vc_dev *dev = open_dev(NULL);
  native_run n;
  vc_error e;
  if (native_compile(dev, &n, &e) != 0) fail_msg("%s", e.msg);
  vc_native_stats ns;
  assert_int_equal(be->native_stats(dev, n.kern, &ns, &e), VC_ERR_USAGE);
  assert_non_null(strstr(e.msg, "native_stats before any launch"));
  native_alloc(dev, &n);
  set_kernel(play_native);
  fake_cuda_stats st;
  stats_of(&st);
  uint32_t coop = st.cooperative_launches;
  for (int round = 0; round < 2; round++) {
    assert_int_equal(be->launch(dev, n.kern, n.bufs, n.split->nbuffers, &e), 0);
    stats_of(&st);
    assert_int_equal(st.grid[0], 1056); /* 8 blocks of 64 on each of 132 SMs */
    assert_int_equal(st.grid[1], 1);
    assert_int_equal(st.block[0], 64);
    assert_int_equal(st.nparams, n.split->nbuffers + 1);
    for (uint32_t i = 0; i < n.split->nbuffers; i++)
      assert_int_equal(st.param_bytes[i], vc_buffer_bytes(&n.split->buffers[i]));
    assert_int_equal(st.param_bytes[n.split->nbuffers], VC_NC_WORDS * 4);
    native_stats_of(dev, n.kern, &ns);
    if (ns.untrustworthy) fail_msg("round %d: %s", round, ns.note);
    assert_int_equal(ns.participants, 1056);
    assert_int_equal(ns.virtual_per_participant, 2);
    assert_int_equal(ns.barriers, 2);
    assert_int_equal(ns.passes, 1);
  }
  stats_of(&st);
  assert_int_equal(st.cooperative_launches, coop + 2);
  /* a barrier too many on the device: the words come back and say so */
  played_barriers = 3;
  assert_int_equal(be->launch(dev, n.kern, n.bufs, n.split->nbuffers, &e), 0);
  native_stats_of(dev, n.kern, &ns);
  played_barriers = 2;
  assert_true(ns.untrustworthy);
  assert_non_null(strstr(ns.note, "3 grid barriers completed, the passes need 2"));
  set_kernel(NULL);
  assert_int_equal(be->launch(dev, n.kern, n.bufs, 2, &e), VC_ERR_USAGE);
  assert_non_null(strstr(e.msg, "2 buffers bound, the kernel has 3"));
  native_free(dev, &n);
  stats_of(&st);
  assert_int_equal(st.unsafe_frees, 0);
  be->close(dev);
}

/* The order launches executed in: 's' a segment, 't' the stamp kernel
   (one thread), 'n' a cooperative one. */
static char order[16];
static size_t norder;

static void play_order(const fake_cuda_launch *l) {
  char c = l->cooperative ? 'n' : l->grid[0] == 1 && l->block[0] == 1 ? 't' : 's';
  if (norder + 1 < sizeof order) order[norder++] = c;
  order[norder] = '\0';
  play_native(l);
}

/* launch=graph (the default): segment launches held back for a graph go
   out before a native launch, which is never put into one; each has its
   device time, in order. */
static void native_after_graph(void **state) {
  (void)state;
  vc_dev *dev = open_dev(NULL);
  native_run n;
  vc_error e;
  if (native_compile(dev, &n, &e) != 0) fail_msg("%s", e.msg);
  native_alloc(dev, &n);
  vc_program *p = parse("(program s (workgroup 64) (grid 4) (buffer o u32 256 write)\n"
                        "  (entry (store o (global_id x) 1u)))");
  vc_kernel_desc k = {.kind = VC_KERNEL_SEGMENT, .prog = p, .label = "segment 0"};
  vc_kern *seg = NULL;
  assert_int_equal(be->compile(dev, &k, &seg, NULL, &e), 0);
  fake_cuda_stats a, b;
  stats_of(&a);
  norder = 0;
  order[0] = '\0';
  set_kernel(play_order);
  for (int i = 0; i < 3; i++) assert_int_equal(be->launch(dev, seg, &n.bufs[1], 1, &e), 0);
  assert_int_equal(be->launch(dev, n.kern, n.bufs, n.split->nbuffers, &e), 0);
  uint64_t t[4];
  uint32_t count = 0;
  assert_int_equal(be->finish(dev, t, 4, &count, &e), 0);
  set_kernel(NULL);
  assert_int_equal(count, 4);
  for (int i = 0; i < 4; i++) assert_int_equal(t[i], 250000);
  assert_string_equal(order, "ssstn"); /* the batch's end stamp, then the native launch */
  stats_of(&b);
  assert_int_equal(b.graph_launches, a.graph_launches + 1);
  assert_int_equal(b.cooperative_launches, a.cooperative_launches + 1);
  be->free_kernel(dev, seg);
  vc_program_free(p);
  native_free(dev, &n);
  be->close(dev);
}

/* native-blocks caps the grid; finish gives up at the deadline naming the
   kernel, and the device stays usable once the launch ends. */
static void native_blocks_and_deadline(void **state) {
  (void)state;
  vc_dev *dev = open_dev("native-blocks=100,deadline=1");
  native_run n;
  vc_error e;
  if (native_compile(dev, &n, &e) != 0) fail_msg("%s", e.msg);
  native_alloc(dev, &n);
  set_hang(1);
  assert_int_equal(be->launch(dev, n.kern, n.bufs, n.split->nbuffers, &e), 0);
  fake_cuda_stats st;
  stats_of(&st);
  assert_int_equal(st.grid[0], 100);
  uint64_t t[1];
  uint32_t count = 9;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  assert_int_equal(be->finish(dev, t, 1, &count, &e), VC_ERR_TIMEOUT);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double waited = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  assert_true(waited >= 1.0);
  assert_int_equal(count, 0);
  assert_string_equal(e.msg, "Fake GPU (CUDA device 0): kernel nat (native) (launch 1 of 1) did "
                             "not finish within 1 s (the deadline option); it may still be "
                             "running");
  set_hang(0);
  set_kernel(play_native);
  assert_int_equal(be->launch(dev, n.kern, n.bufs, n.split->nbuffers, &e), 0);
  assert_int_equal(be->finish(dev, t, 1, &count, &e), 0);
  assert_int_equal(count, 1);
  vc_native_stats ns;
  assert_int_equal(be->native_stats(dev, n.kern, &ns, &e), 0);
  set_kernel(NULL);
  /* the hung launch ran first, when finish waited; the reset before the
     second one kept its counts out */
  assert_int_equal(ns.participants, 100);
  assert_int_equal(ns.virtual_per_participant, 20);
  assert_false(ns.untrustworthy);
  native_free(dev, &n);
  be->close(dev);
}

/* native-over=1: a grid one block over the co-resident ones (8 x 132 for
   blocks of 64), whatever the program's workgroups, which the driver must
   refuse (the over-occupancy check of docs/litmus.md). */
static void native_over_is_refused(void **state) {
  (void)state;
  vc_dev *dev = open_dev("native-over=1");
  native_run n;
  vc_error e;
  if (native_compile(dev, &n, &e) != 0) fail_msg("%s", e.msg);
  native_alloc(dev, &n);
  assert_int_equal(be->launch(dev, n.kern, n.bufs, n.split->nbuffers, &e), VC_ERR_LIMIT);
  assert_non_null(strstr(e.msg, "cuLaunchCooperativeKernel (1057 blocks of 64x1x1)"));
  native_free(dev, &n);
  be->close(dev);
}

/* Refusals before a launch: no cooperative launch (before NVRTC runs), no
   co-resident block, an include folder without cooperative_groups.h. */
/* barrier=inline: the native kernel's grid barrier written out, so that
   NVRTC needs no cooperative_groups.h (no include folder at all). The
   default is inline with inline-order=release (grid.sync()'s orders);
   barrier=cg stays selectable. */
static void native_inline_barrier(void **state) {
  (void)state;
  vc_dev *dev = open_dev("barrier=inline,inline-order=fenced,include=/nonexistent/include,module=ptx");
  native_run n;
  vc_error e;
  char ptx_path[] = "/tmp/vc-inline-XXXXXX";
  int fd = mkstemp(ptx_path);
  assert_true(fd >= 0);
  close(fd);
  setenv("FAKE_CUDA_PTX_OUT", ptx_path, 1);
  assert_int_equal(native_compile(dev, &n, &e), 0);
  unsetenv("FAKE_CUDA_PTX_OUT");
  assert_non_null(n.kern);
  /* NVRTC passes inline assembly through unchecked: ptxas checks it */
  FILE *pf = fopen(ptx_path, "r");
  assert_non_null(pf);
  static char ptx[1 << 20];
  size_t np = fread(ptx, 1, sizeof ptx - 1, pf);
  fclose(pf);
  ptx[np] = '\0';
  assert_non_null(strstr(ptx, "atom.acq_rel.gpu.global.add.u32"));
  assert_non_null(strstr(ptx, "ld.acquire.gpu.global.u32"));
  if (VC_PTXAS[0]) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s -arch=sm_90 %s -o /dev/null", VC_PTXAS, ptx_path);
    assert_int_equal(system(cmd), 0);
  } else {
    print_message("no ptxas found at build time: the PTX is not assembled\n");
  }
  unlink(ptx_path);
  vc_kernel_desc k = {.kind = VC_KERNEL_NATIVE, .prog = n.prog, .native = &n.nd,
                      .label = "native"};
  char *src = NULL;
  assert_int_equal(be->emit(&k, dev, &src, &e), 0);
  assert_null(strstr(src, "cooperative_groups"));
  assert_non_null(strstr(src, "atom.acq_rel.gpu.global.add.u32"));
  assert_non_null(strstr(src, "ld.acquire.gpu.global.u32"));
  free(src);
  vc_dev *def = open_dev("include=/nonexistent/include");
  assert_int_equal(be->emit(&k, def, &src, &e), 0);
  assert_null(strstr(src, "cooperative_groups"));
  assert_non_null(strstr(src, "atom.add.release.gpu.u32"));
  assert_non_null(strstr(src, "ld.acquire.gpu.u32"));
  assert_null(strstr(src, "__threadfence()"));
  free(src);
  native_run dn;
  assert_int_equal(native_compile(def, &dn, &e), 0); /* no header needed */
  native_free(def, &dn);
  be->close(def);
  vc_dev *cg = open_dev("barrier=cg");
  assert_int_equal(be->emit(&k, cg, &src, &e), 0);
  assert_non_null(strstr(src, "cooperative_groups::this_grid().sync()"));
  free(src);
  be->close(cg);
  native_free(dev, &n);
  be->close(dev);
  assert_int_equal(be->open(0, "barrier=spin", &dev, &e), VC_ERR_USAGE);
  assert_non_null(strstr(e.msg, "barrier=spin: expected cg or inline"));
}

/* cache=DIR: the second compile of a kernel is a hit, a damaged entry a
   miss that is rewritten. */
static void kernel_cache(void **state) {
  (void)state;
  char dir[] = "/tmp/vc-cuda-kc-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char opts[128];
  snprintf(opts, sizeof opts, "cache=%s", dir);
  vc_dev *dev = open_dev(opts);
  vc_program *p = parse("(program c (workgroup 4) (grid 1) (buffer o u32 4 write)\n"
                        "  (entry (store o (global_id x) 7u)))");
  vc_kernel_desc k = {.kind = VC_KERNEL_SEGMENT, .prog = p, .label = "segment 0"};
  bool hits[3];
  for (int i = 0; i < 3; i++) {
    vc_kern *kern = NULL;
    vc_compile_info ci = {0, NULL, false};
    vc_error e;
    assert_int_equal(be->compile(dev, &k, &kern, &ci, &e), 0);
    hits[i] = ci.cache_hit;
    free(ci.log);
    be->free_kernel(dev, kern);
    if (i == 1) { /* damage the one entry: its last byte */
      char cmd[300];
      snprintf(cmd, sizeof cmd,
               "f=$(find %s -name '*.vck'); test $(echo \"$f\" | wc -l) = 1 && "
               "printf 'X' | dd of=\"$f\" bs=1 seek=$(($(stat -c %%s \"$f\") - 2)) "
               "conv=notrunc 2>/dev/null",
               dir);
      assert_int_equal(system(cmd), 0);
    }
  }
  assert_false(hits[0]);
  assert_true(hits[1]);
  assert_false(hits[2]);
  vc_kern *kern = NULL;
  vc_compile_info ci = {0, NULL, false};
  vc_error e;
  assert_int_equal(be->compile(dev, &k, &kern, &ci, &e), 0);
  assert_true(ci.cache_hit); /* rewritten */
  free(ci.log);
  be->free_kernel(dev, kern);
  be->close(dev);
  vc_program_free(p);
  char cmd[200];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  assert_int_equal(system(cmd), 0);
}

/* The form cached is the form loaded: a cubin for the device's own
   architecture by default, PTX with module=ptx; each under its own key, so
   neither is taken for the other, and a warm compile of either loads what
   the cold one made. */
static void kernel_cache_forms(void **state) {
  (void)state;
  char dir[] = "/tmp/vc-cuda-kf-XXXXXX";
  assert_non_null(mkdtemp(dir));
  vc_program *p = parse("(program c (workgroup 4) (grid 1) (buffer o u32 4 write)\n"
                        "  (entry (store o (global_id x) 7u)))");
  vc_kernel_desc k = {.kind = VC_KERNEL_SEGMENT, .prog = p, .label = "segment 0"};
  /* form, expected hit, expected loader */
  static const struct {
    const char *module;
    bool hit, cubin;
  } steps[] = {{"ptx", false, false}, {"cubin", false, true}, {"cubin", true, true},
               {"ptx", true, false}};
  for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
    char opts[128];
    snprintf(opts, sizeof opts, "cache=%s,module=%s", dir, steps[i].module);
    vc_dev *dev = open_dev(opts);
    fake_cuda_stats before, after;
    stats_of(&before);
    vc_kern *kern = NULL;
    vc_compile_info ci = {0, NULL, false};
    vc_error e;
    assert_int_equal(be->compile(dev, &k, &kern, &ci, &e), 0);
    stats_of(&after);
    if (ci.cache_hit != steps[i].hit) fail_msg("step %zu: hit %d", i, ci.cache_hit);
    assert_int_equal(after.cubin_loads - before.cubin_loads, steps[i].cubin ? 1 : 0);
    assert_int_equal(after.ptx_loads - before.ptx_loads, steps[i].cubin ? 0 : 1);
    assert_string_equal(after.last_ptx_entry, ".entry vc_main");
    free(ci.log);
    be->free_kernel(dev, kern);
    be->close(dev);
  }
  char cmd[200];
  snprintf(cmd, sizeof cmd, "test $(find %s -name '*.vck' | wc -l) = 2", dir);
  assert_int_equal(system(cmd), 0);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  assert_int_equal(system(cmd), 0);
  assert_int_equal(be->open(0, "module=sass", &(vc_dev *){NULL}, &(vc_error){0}), VC_ERR_USAGE);
  vc_program_free(p);
}

/* A cubin compiled cold in one process (a run's worker) is what a warm
   compile in another loads: a hit, and a cubin loaded, no PTX. */
static void cubin_warm_in_another_process(void **state) {
  (void)state;
  char dir[] = "/tmp/vc-cuda-kp-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char opts[128];
  snprintf(opts, sizeof opts, "cache=%s", dir);
  vc_program *p = parse("(program w (workgroup 8) (grid 2) (buffer o u32 16 write)\n"
                        "  (entry (store o (global_id x) 9u)))");
  vc_kernel_desc k = {.kind = VC_KERNEL_SEGMENT, .prog = p, .label = "segment 0"};
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) { /* exit 0: compiled cold */
    vc_dev *dev = NULL;
    vc_error e;
    vc_kern *kern = NULL;
    vc_compile_info ci = {0, NULL, false};
    int bad = be->open(0, opts, &dev, &e) != 0 || be->compile(dev, &k, &kern, &ci, &e) != 0 ||
              ci.cache_hit;
    free(ci.log);
    if (kern) be->free_kernel(dev, kern);
    if (dev) be->close(dev);
    _exit(bad);
  }
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  vc_dev *dev = open_dev(opts);
  fake_cuda_stats before, after;
  stats_of(&before);
  vc_kern *kern = NULL;
  vc_compile_info ci = {0, NULL, false};
  vc_error e;
  assert_int_equal(be->compile(dev, &k, &kern, &ci, &e), 0);
  stats_of(&after);
  assert_true(ci.cache_hit);
  assert_int_equal(after.cubin_loads - before.cubin_loads, 1);
  assert_int_equal(after.ptx_loads, before.ptx_loads);
  free(ci.log);
  be->free_kernel(dev, kern);
  be->close(dev);
  vc_program_free(p);
  char cmd[200];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  assert_int_equal(system(cmd), 0);
}

/* A cubin the driver refuses is an error naming the form, the
   architecture and both versions. */
static void cubin_load_error(void **state) {
  (void)state;
  vc_dev *dev = open_dev(NULL);
  vc_program *p = parse("(program c (workgroup 4) (grid 1) (buffer o u32 4 write)\n"
                        "  (entry (store o (global_id x) 7u)))");
  vc_kernel_desc k = {.kind = VC_KERNEL_SEGMENT, .prog = p, .label = "segment 0"};
  vc_kern *kern = NULL;
  vc_error e;
  fail_next("cuModuleLoadDataEx", 1, CUDA_ERROR_NO_BINARY_FOR_GPU);
  assert_int_not_equal(be->compile(dev, &k, &kern, NULL, &e), 0);
  assert_null(kern);
  if (!strstr(e.msg, "cuModuleLoadDataEx on") || !strstr(e.msg, "(cubin for sm_90 from NVRTC ") ||
      !strstr(e.msg, "driver CUDA 13.0)"))
    fail_msg("%s", e.msg);
  be->close(dev);
  vc_program_free(p);
}

static void native_refusals(void **state) {
  (void)state;
  vc_dev *dev = open_dev(NULL);
  native_run n;
  vc_error e;
  fake_cuda_stats st;
  set_attr(CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, 0);
  assert_int_equal(native_compile(dev, &n, &e), VC_ERR_UNSUPPORTED);
  assert_null(n.kern);
  assert_string_equal(e.msg, "kernel nat (native): Fake GPU (CUDA device 0) cannot launch "
                             "cooperatively (CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH is 0), and "
                             "native mode needs its grid sync");
  native_free(dev, &n);
  set_attr(CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, 1);
  set_occupancy(0);
  assert_int_equal(native_compile(dev, &n, &e), VC_ERR_LIMIT);
  assert_null(n.kern);
  assert_non_null(strstr(e.msg, "kernel nat (native): no block of 64 threads"));
  assert_non_null(strstr(e.msg, "(occupancy 0 per SM, 132 SMs)"));
  native_free(dev, &n);
  set_occupancy(-1);
  stats_of(&st);
  assert_int_equal(st.modules, 0);
  assert_int_equal(st.device_allocs, 0);
  assert_int_equal(st.host_allocs, 1); /* the staging buffer only */
  be->close(dev);
  dev = open_dev("barrier=cg,include=/nonexistent/include");
  assert_int_equal(native_compile(dev, &n, &e), VC_ERR_USAGE);
  assert_string_equal(e.msg, "kernel nat (native): CUDA include folder /nonexistent/include (the "
                             "include option) has no cooperative_groups.h");
  native_free(dev, &n);
  be->close(dev);
}

static void no_device(void **state) {
  (void)state;
  vc_dev *dev = NULL;
  vc_error e;
  assert_int_equal(be->open(3, NULL, &dev, &e), VC_ERR_NO_DEVICE);
  assert_string_equal(e.msg, "CUDA device 3 does not exist: the driver shows 1");
  set_devices(0);
  uint32_t n = 9;
  assert_int_equal(be->device_count(&n, &e), VC_ERR_NO_DEVICE);
  assert_int_equal(n, 0);
  assert_non_null(strstr(e.msg, "shows no device"));
  assert_int_equal(be->open(0, NULL, &dev, &e), VC_ERR_NO_DEVICE);
  assert_null(dev);
  set_devices(1);
  fail_next("cuDevicePrimaryCtxRetain", 1, CUDA_ERROR_OUT_OF_MEMORY);
  assert_int_equal(be->open(0, NULL, &dev, &e), VC_ERR_LIMIT);
  assert_non_null(strstr(e.msg, "cuDevicePrimaryCtxRetain on Fake GPU (CUDA device 0)"));
  assert_null(dev);
}

/* After every test's close: nothing the plugin took is left. */
static void everything_given_back(void **state) {
  (void)state;
  fake_cuda_stats st;
  stats_of(&st);
  assert_int_equal(st.device_allocs, 0);
  assert_int_equal(st.host_allocs, 0);
  assert_int_equal(st.events, 0);
  assert_int_equal(st.streams, 0);
  assert_int_equal(st.modules, 0);
  assert_int_equal(st.ctx_retains, 0);
  assert_int_equal(st.ctx_current, 0);
  assert_int_equal(st.graphs, 0);
  assert_int_equal(st.graph_execs, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(identity),
      cmocka_unit_test(staging_round_trips),
      cmocka_unit_test(partial_and_oversized),
      cmocka_unit_test(host_memory_direct),
      cmocka_unit_test(host_memory_malloc_option),
      cmocka_unit_test(host_memory_failures),
      cmocka_unit_test(host_split_copies_direct),
      cmocka_unit_test(compile_launch_finish),
      cmocka_unit_test(launches_without_timing),
      cmocka_unit_test(launch_limits),
      cmocka_unit_test(driver_failures),
      cmocka_unit_test(native_launch),
      cmocka_unit_test(native_after_graph),
      cmocka_unit_test(native_blocks_and_deadline),
      cmocka_unit_test(native_over_is_refused),
      cmocka_unit_test(native_refusals),
      cmocka_unit_test(native_inline_barrier),
      cmocka_unit_test(kernel_cache),
      cmocka_unit_test(kernel_cache_forms),
      cmocka_unit_test(cubin_load_error),
      cmocka_unit_test(cubin_warm_in_another_process),
      cmocka_unit_test(no_device),
      cmocka_unit_test(everything_given_back),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
