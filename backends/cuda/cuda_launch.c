/* Launches on the device's stream, each bracketed by a pair of events, and
 * finish, which waits and reads each launch's device time. */
#include <stdlib.h>

#include "backends/cuda/cuda_internal.h"

/* The event pair for the next launch, creating it the first time. */
static int next_timing(vc_dev *dev, vc_cuda_timing **t, vc_error *err) {
  const vc_cu *cu = dev->cu;
  if (dev->pending == dev->cap) {
    uint32_t cap = dev->cap ? 2 * dev->cap : 64;
    vc_cuda_timing *n = realloc(dev->timings, cap * sizeof *n);
    if (!n) return vc_fail(err, VC_ERR_NOMEM, "launch on %s: no memory for events", dev->label);
    dev->timings = n;
    dev->cap = cap;
  }
  if (dev->pending == dev->created) {
    vc_cuda_timing *c = &dev->timings[dev->created];
    CUresult r = cu->cuEventCreate(&c->start, CU_EVENT_DEFAULT);
    if (r != CUDA_SUCCESS) return vc_cu_fail(cu, err, r, "launch: cuEventCreate on %s", dev->label);
    r = cu->cuEventCreate(&c->end, CU_EVENT_DEFAULT);
    if (r != CUDA_SUCCESS) {
      cu->cuEventDestroy(c->start);
      return vc_cu_fail(cu, err, r, "launch: cuEventCreate on %s", dev->label);
    }
    dev->created++;
  }
  *t = &dev->timings[dev->pending];
  return 0;
}

int vc_cuda_launch(vc_dev *dev, vc_kern *kern, vc_buf *const *bufs, uint32_t nbufs,
                   vc_error *err) {
  if (nbufs != kern->nbufs || nbufs > VC_MAX_BUFFERS)
    return vc_fail(err, VC_ERR_USAGE, "%s on %s: %u buffers bound, the kernel has %u",
                   kern->label, dev->label, nbufs, kern->nbufs);
  int rc = vc_cuda_check_limits(&dev->limits, &kern->shape, kern->label, dev->label, err);
  if (rc == 0) rc = vc_cuda_enter(dev, "launch", err);
  vc_cuda_timing *t = NULL;
  if (rc == 0) rc = next_timing(dev, &t, err);
  if (rc != 0) return rc;
  /* kernel parameter k is buffer k's device address (backends/common/cgen.h) */
  CUdeviceptr ptrs[VC_MAX_BUFFERS];
  void *params[VC_MAX_BUFFERS];
  for (uint32_t i = 0; i < nbufs; i++) {
    ptrs[i] = bufs[i]->ptr;
    params[i] = &ptrs[i];
  }
  const vc_cu *cu = dev->cu;
  const uint32_t *g = kern->shape.grid, *b = kern->shape.block;
  CUresult r = cu->cuEventRecord(t->start, dev->stream);
  if (r == CUDA_SUCCESS)
    r = cu->cuLaunchKernel(kern->fn, g[0], g[1], g[2], b[0], b[1], b[2], 0, dev->stream,
                           nbufs ? params : NULL, NULL);
  if (r != CUDA_SUCCESS)
    return vc_cu_fail(cu, err, r, "%s: cuLaunchKernel (grid %ux%ux%u, block %ux%ux%u) on %s",
                      kern->label, g[0], g[1], g[2], b[0], b[1], b[2], dev->label);
  r = cu->cuEventRecord(t->end, dev->stream);
  if (r != CUDA_SUCCESS)
    return vc_cu_fail(cu, err, r, "%s: cuEventRecord on %s", kern->label, dev->label);
  dev->pending++;
  return 0;
}

int vc_cuda_finish(vc_dev *dev, uint64_t *device_ns, uint32_t cap, uint32_t *count,
                   vc_error *err) {
  *count = 0;
  uint32_t n = dev->pending;
  dev->pending = 0; /* the events are free again, whatever happens below */
  int rc = vc_cuda_enter(dev, "finish", err);
  if (rc != 0) return rc;
  const vc_cu *cu = dev->cu;
  CUresult r = cu->cuStreamSynchronize(dev->stream);
  if (r != CUDA_SUCCESS)
    return vc_cu_fail(cu, err, r, "finish: cuStreamSynchronize after %u launches on %s", n,
                      dev->label);
  for (uint32_t i = 0; i < n && i < cap; i++) {
    float ms = 0;
    r = cu->cuEventElapsedTime(&ms, dev->timings[i].start, dev->timings[i].end);
    if (r != CUDA_SUCCESS)
      return vc_cu_fail(cu, err, r, "finish: cuEventElapsedTime of launch %u on %s", i,
                        dev->label);
    device_ns[i] = ms > 0 ? (uint64_t)((double)ms * 1e6 + 0.5) : 0;
    *count = i + 1;
  }
  return 0;
}

int vc_cuda_native_stats(vc_dev *dev, vc_kern *kern, vc_native_stats *stats, vc_error *err) {
  (void)stats;
  return vc_fail(err, VC_ERR_UNSUPPORTED, "%s on %s: native mode is not implemented for CUDA yet",
                 kern ? kern->label : "kernel", dev->label);
}
