/* Devices: counting, opening (primary context, stream, pinned staging) and
 * closing. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/common/native/cgen_native.h"
#include "backends/cuda/cuda_internal.h"
#include "harness/base/kvopts.h"

static const vc_kv_choice host_memory[] = {{"backend", 0}, {"malloc", 1}, {NULL, 0}};
static const vc_kv_choice timing[] = {
#define TIMING_CHOICE(n, s) {s, VC_CUDA_TIMING_##n},
    VC_CUDA_TIMING_LIST(TIMING_CHOICE)
#undef TIMING_CHOICE
    {NULL, 0}};
static const vc_kv_choice stamp_memory[] = {
#define STAMP_MEMORY_CHOICE(n, s) {s, VC_CUDA_STAMP_##n},
    VC_CUDA_STAMP_MEMORY_LIST(STAMP_MEMORY_CHOICE)
#undef STAMP_MEMORY_CHOICE
    {NULL, 0}};
static const vc_kv_choice barrier[] = {{"cg", 0}, {"inline", 1}, {NULL, 0}};
static const vc_kv_choice launch[] = {{"graph", 0}, {"stream", 1}, {NULL, 0}};
static const vc_kv_choice module[] = {{"cubin", 0}, {"ptx", 1}, {NULL, 0}};
static const vc_kv_choice graph_update[] = {{"nodes", 0}, {"instantiate", 1}, {NULL, 0}};
static const vc_kv_choice inline_order[] = {
#define INLINE_CHOICE(n, s) {s, VC_CUDA_INLINE_##n},
    VC_CUDA_INLINE_LIST(INLINE_CHOICE)
#undef INLINE_CHOICE
    {NULL, 0}};

/* open's options, through the shared parser (harness/base/kvopts.h). */
static const vc_kv_key keys[] = {
    {"staging", VC_KV_BYTES, offsetof(vc_cuda_options, staging), VC_CUDA_MIN_STAGING, UINT64_MAX,
     "BYTES", NULL, 0, 0},
    {"deadline", VC_KV_U32, offsetof(vc_cuda_options, deadline_ms), 1, VC_CUDA_MAX_DEADLINE_S,
     "SECONDS", NULL, 1000, 0},
    {"native-blocks", VC_KV_U32, offsetof(vc_cuda_options, native_blocks), 1, INT32_MAX, "N",
     NULL, 0, 0},
    {"native-over", VC_KV_U32, offsetof(vc_cuda_options, native_over), 0, 1024, "N", NULL, 0,
     0},
    {"include", VC_KV_TEXT, offsetof(vc_cuda_options, include), 1,
     sizeof(((vc_cuda_options *)0)->include) - 1, "DIR", NULL, 0, 0},
    {"timing", VC_KV_CHOICE, offsetof(vc_cuda_options, timing), 0, 0, NULL, timing, 0, 0},
    {"barrier", VC_KV_CHOICE, offsetof(vc_cuda_options, inline_barrier), 0, 0, NULL, barrier, 0,
     0},
    {"host-memory", VC_KV_CHOICE, offsetof(vc_cuda_options, malloc_host), 0, 0, NULL,
     host_memory, 0, 0},
    {"inline-order", VC_KV_CHOICE, offsetof(vc_cuda_options, inline_order), 0, 0, NULL,
     inline_order, 0, 0},
    VC_KCACHE_KV_KEY(vc_cuda_options, cache_dir),
    {"launch", VC_KV_CHOICE, offsetof(vc_cuda_options, launch_stream), 0, 0, NULL, launch, 0, 0},
    {"graph-min", VC_KV_U32, offsetof(vc_cuda_options, graph_min), 1, INT32_MAX, "N", NULL, 0,
     0},
    {"graph-update", VC_KV_CHOICE, offsetof(vc_cuda_options, graph_instantiate), 0, 0, NULL,
     graph_update, 0, 0},
    {"module", VC_KV_CHOICE, offsetof(vc_cuda_options, module_ptx), 0, 0, NULL, module, 0, 0},
    {"stamp-memory", VC_KV_CHOICE, offsetof(vc_cuda_options, stamp_memory), 0, 0, NULL,
     stamp_memory, 0, 0},
};

int vc_cuda_parse_options(const char *text, vc_cuda_options *opts, vc_error *err) {
  memset(opts, 0, sizeof *opts);
  opts->staging = VC_CUDA_DEFAULT_STAGING;
  opts->deadline_ms = VC_CUDA_DEFAULT_DEADLINE_S * 1000u;
  opts->graph_min = VC_CUDA_DEFAULT_GRAPH_MIN;
  opts->inline_barrier = VC_CUDA_DEFAULT_INLINE_BARRIER;
  opts->inline_order = VC_CUDA_DEFAULT_INLINE_ORDER;
  opts->timing = VC_CUDA_DEFAULT_TIMING;
  opts->stamp_memory = VC_CUDA_DEFAULT_STAMP_MEMORY;
  int rc = vc_kv_parse("CUDA", text, keys, sizeof keys / sizeof keys[0], opts, err);
  vc_kcache_option_done(opts->cache_dir);
  return rc;
}

int vc_cuda_device_count(uint32_t *count, vc_error *err) {
  *count = 0;
  const vc_cu *cu;
  int rc = vc_cu_get(&cu, err);
  if (rc != 0) return rc;
  int n = 0;
  CUresult r = cu->cuDeviceGetCount(&n);
  if (r != CUDA_SUCCESS) return vc_cu_fail(cu, err, r, "cuDeviceGetCount");
  if (n <= 0)
    return vc_fail(err, VC_ERR_NO_DEVICE, "the CUDA driver (%s, CUDA %d.%d) shows no device",
                   cu->path, cu->driver_version / 1000, cu->driver_version % 1000 / 10);
  *count = (uint32_t)n;
  return 0;
}

int vc_cuda_attr(vc_dev *dev, CUdevice_attribute a, const char *name, int *value,
                 vc_error *err) {
  CUresult r = dev->cu->cuDeviceGetAttribute(value, a, dev->device);
  if (r != CUDA_SUCCESS)
    return vc_cu_fail(dev->cu, err, r, "cuDeviceGetAttribute(%s) on %s", name, dev->label);
  return 0;
}

int vc_cuda_enter(vc_dev *dev, const char *op, vc_error *err) {
  CUresult r = dev->cu->cuCtxSetCurrent(dev->ctx);
  if (r != CUDA_SUCCESS)
    return vc_cu_fail(dev->cu, err, r, "%s: cuCtxSetCurrent on %s", op, dev->label);
  if (dev->nbatch == 0) return 0;
  /* a close or a free has no error to give: the launches are sent anyway */
  vc_error mine;
  int rc = vc_cuda_flush(dev, err ? err : &mine);
  /* the operation enqueues something of its own after the batch */
  vc_cuda_unchain(dev);
  if (rc != 0 && err) vc_fail_wrap(err, "%s", op);
  return rc;
}

static int read_limits(vc_dev *dev, vc_error *err) {
  vc_cuda_limits *l = &dev->limits;
  int v[8], rc = 0;
  rc = rc ? rc : VC_CUDA_ATTR(dev, COMPUTE_CAPABILITY_MAJOR, &dev->cc_major, err);
  rc = rc ? rc : VC_CUDA_ATTR(dev, COMPUTE_CAPABILITY_MINOR, &dev->cc_minor, err);
  rc = rc ? rc : VC_CUDA_ATTR(dev, MAX_THREADS_PER_BLOCK, &v[0], err);
  rc = rc ? rc : VC_CUDA_ATTR(dev, MAX_BLOCK_DIM_X, &v[1], err);
  rc = rc ? rc : VC_CUDA_ATTR(dev, MAX_BLOCK_DIM_Y, &v[2], err);
  rc = rc ? rc : VC_CUDA_ATTR(dev, MAX_BLOCK_DIM_Z, &v[3], err);
  rc = rc ? rc : VC_CUDA_ATTR(dev, MAX_GRID_DIM_X, &v[4], err);
  rc = rc ? rc : VC_CUDA_ATTR(dev, MAX_GRID_DIM_Y, &v[5], err);
  rc = rc ? rc : VC_CUDA_ATTR(dev, MAX_GRID_DIM_Z, &v[6], err);
  rc = rc ? rc : VC_CUDA_ATTR(dev, MAX_SHARED_MEMORY_PER_BLOCK, &v[7], err);
  if (rc != 0) return rc;
  l->max_threads_per_block = (uint32_t)v[0];
  for (int a = 0; a < 3; a++) {
    l->max_block[a] = (uint32_t)v[1 + a];
    l->max_grid[a] = (uint32_t)v[4 + a];
  }
  l->max_shared_per_block = (uint64_t)v[7];
  return 0;
}

static int make_staging(vc_dev *dev, uint64_t bytes, vc_error *err) {
  const vc_cu *cu = dev->cu;
  dev->stage_half = (size_t)(bytes / 2);
  void *p = NULL;
  CUresult r = cu->cuMemHostAlloc(&p, 2 * dev->stage_half, 0);
  if (r != CUDA_SUCCESS)
    return vc_cu_fail(cu, err, r, "cuMemHostAlloc(%zu bytes of pinned staging) for %s",
                      2 * dev->stage_half, dev->label);
  dev->stage = p;
  for (int h = 0; h < 2; h++) {
    r = cu->cuEventCreate(&dev->stage_done[h], CU_EVENT_DISABLE_TIMING);
    if (r != CUDA_SUCCESS) return vc_cu_fail(cu, err, r, "cuEventCreate on %s", dev->label);
  }
  return 0;
}

static int setup(vc_dev *dev, const vc_cuda_options *opts, vc_error *err) {
  const vc_cu *cu = dev->cu;
  snprintf(dev->label, sizeof dev->label, "CUDA device %u", dev->index);
  CUresult r = cu->cuDeviceGet(&dev->device, (int)dev->index);
  if (r != CUDA_SUCCESS) return vc_cu_fail(cu, err, r, "cuDeviceGet(%u)", dev->index);
  r = cu->cuDeviceGetName(dev->name, (int)sizeof dev->name, dev->device);
  if (r != CUDA_SUCCESS) return vc_cu_fail(cu, err, r, "cuDeviceGetName on %s", dev->label);
  snprintf(dev->label, sizeof dev->label, "%s (CUDA device %u)", dev->name, dev->index);
  int rc = read_limits(dev, err);
  if (rc != 0) return rc;
  r = cu->cuDevicePrimaryCtxRetain(&dev->ctx, dev->device);
  if (r != CUDA_SUCCESS) {
    dev->ctx = NULL;
    return vc_cu_fail(cu, err, r, "cuDevicePrimaryCtxRetain on %s", dev->label);
  }
  rc = vc_cuda_enter(dev, "open", err);
  if (rc != 0) return rc;
  r = cu->cuStreamCreate(&dev->stream, CU_STREAM_NON_BLOCKING);
  if (r != CUDA_SUCCESS) {
    dev->stream = NULL;
    return vc_cu_fail(cu, err, r, "cuStreamCreate on %s", dev->label);
  }
  return make_staging(dev, opts->staging, err);
}

int vc_cuda_open(uint32_t index, const char *options, vc_dev **out, vc_error *err) {
  *out = NULL;
  vc_cuda_options opts;
  int rc = vc_cuda_parse_options(options, &opts, err);
  if (rc != 0) return rc;
  uint32_t count;
  rc = vc_cuda_device_count(&count, err);
  if (rc != 0) return rc;
  if (index >= count)
    return vc_fail(err, VC_ERR_NO_DEVICE, "CUDA device %u does not exist: the driver shows %u",
                   index, count);
  vc_dev *dev = calloc(1, sizeof *dev);
  if (!dev) return vc_fail(err, VC_ERR_NOMEM, "CUDA device %u: no memory", index);
  rc = vc_cu_get(&dev->cu, err);
  dev->index = index;
  dev->opts = opts;
  dev->use_graph = rc == 0 && !opts.launch_stream && !dev->cu->graph_missing[0];
  if (rc == 0) rc = setup(dev, &opts, err);
  if (rc != 0) {
    vc_cuda_close(dev);
    return rc;
  }
  *out = dev;
  return 0;
}

/* Also takes apart a device that setup left half made. */
void vc_cuda_close(vc_dev *dev) {
  if (!dev) return;
  const vc_cu *cu = dev->cu;
  if (dev->ctx) {
    cu->cuCtxSetCurrent(dev->ctx);
    if (dev->stream) {
      vc_cuda_flush(dev, NULL); /* never leaves launches unsent */
      cu->cuStreamSynchronize(dev->stream);
    }
    vc_cuda_graph_forget(dev, NULL);
    vc_cuda_stamps_free(dev);
    for (uint32_t i = 0; i < dev->created_events; i++) cu->cuEventDestroy(dev->events[i]);
    vc_cuda_host_free_all(dev);
    for (int h = 0; h < 2; h++)
      if (dev->stage_done[h]) cu->cuEventDestroy(dev->stage_done[h]);
    if (dev->stage) cu->cuMemFreeHost(dev->stage);
    if (dev->stream) cu->cuStreamDestroy(dev->stream);
    cu->cuCtxSetCurrent(NULL);
    cu->cuDevicePrimaryCtxRelease(dev->device);
  }
  free(dev->hosts);
  free(dev->timings);
  free(dev->events);
  free(dev->batch);
  free(dev);
}
