/* Native kernels on CUDA (docs/native.md): a cooperative launch promises
 * that every block is resident at once, so the kernel's grid barrier is
 * cooperative_groups' grid sync and every block participates. This file
 * sizes the grid from the occupancy API, owns the control buffer (reset on
 * the stream before every launch, judged after it) and the parameters. */
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/cuda_internal.h"

int vc_cuda_native_check(vc_dev *dev, const char *label, vc_error *err) {
  int coop = 0;
  int rc = VC_CUDA_ATTR(dev, COOPERATIVE_LAUNCH, &coop, err);
  if (rc == 0 && !coop)
    rc = vc_fail(err, VC_ERR_UNSUPPORTED,
                 "%s: %s cannot launch cooperatively (CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH is "
                 "0), and native mode needs its grid sync",
                 label, dev->label);
  return rc;
}

/* Blocks resident at once: the occupancy of this kernel at the program's
   workgroup (static shared memory only) times the SMs. */
static int coresident(vc_dev *dev, vc_kern *kern, uint64_t *blocks, vc_error *err) {
  const uint32_t *b = kern->shape.block;
  int threads = (int)(b[0] * b[1] * b[2]), per_sm = 0, sms = 0;
  CUresult r = dev->cu->cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kern->fn, threads, 0);
  if (r != CUDA_SUCCESS)
    return vc_cu_fail(dev->cu, err, r,
                      "%s: cuOccupancyMaxActiveBlocksPerMultiprocessor(%d threads) on %s",
                      kern->label, threads, dev->label);
  int rc = VC_CUDA_ATTR(dev, MULTIPROCESSOR_COUNT, &sms, err);
  if (rc != 0) return rc;
  if (per_sm <= 0 || sms <= 0)
    return vc_fail(err, VC_ERR_LIMIT,
                   "%s: no block of %d threads (%llu bytes of shared memory) can be resident on "
                   "%s (occupancy %d per SM, %d SMs), so no cooperative launch",
                   kern->label, threads, (unsigned long long)kern->shape.shared_bytes, dev->label,
                   per_sm, sms);
  *blocks = (uint64_t)per_sm * (uint64_t)sms;
  return 0;
}

static int make_ctrl(vc_dev *dev, vc_kern *kern, vc_error *err) {
  const vc_cu *cu = dev->cu;
  const size_t bytes = VC_NC_WORDS * sizeof(uint32_t);
  CUresult r = cu->cuMemAlloc(&kern->ctrl.ptr, bytes);
  if (r != CUDA_SUCCESS) {
    kern->ctrl.ptr = 0;
    return vc_cu_fail(cu, err, r, "%s: cuMemAlloc(control buffer) on %s", kern->label,
                      dev->label);
  }
  kern->ctrl.bytes = bytes;
  void *p = NULL;
  /* pinned: the reset is an asynchronous copy queued behind earlier work */
  r = cu->cuMemHostAlloc(&p, bytes, 0);
  if (r != CUDA_SUCCESS)
    return vc_cu_fail(cu, err, r, "%s: cuMemHostAlloc(control words) for %s", kern->label,
                      dev->label);
  kern->ctrl_init = p;
  /* the CUDA kernel reads none of the settings: zeros */
  const vc_native_ctrl_opts none = {0};
  vc_native_ctrl_init(kern->ctrl_init, &none);
  return 0;
}

int vc_cuda_native_setup(vc_dev *dev, const vc_kernel_desc *k, vc_kern *kern, vc_error *err) {
  kern->native = true;
  vc_native_shape_of(k, true, &kern->nshape);
  uint64_t blocks = 0;
  int rc = coresident(dev, kern, &blocks, err);
  if (rc != 0) return rc;
  if (blocks > kern->nshape.virtual_wgs) blocks = kern->nshape.virtual_wgs;
  if (dev->opts.native_blocks && blocks > dev->opts.native_blocks)
    blocks = dev->opts.native_blocks;
  /* the forward-progress check: a grid the driver must refuse, since its
     blocks cannot all be resident and grid.sync() would wait forever */
  if (dev->opts.native_over) {
    rc = coresident(dev, kern, &blocks, err);
    if (rc != 0) return rc;
    blocks += dev->opts.native_over;
  }
  kern->shape.grid[0] = (uint32_t)blocks;
  kern->shape.grid[1] = kern->shape.grid[2] = 1;
  kern->ptrs = calloc(kern->nbufs + 1u, sizeof *kern->ptrs);
  kern->params = calloc(kern->nbufs + 1u, sizeof *kern->params);
  if (!kern->ptrs || !kern->params)
    return vc_fail(err, VC_ERR_NOMEM, "%s: no memory for %u parameters", kern->label,
                   kern->nbufs + 1u);
  for (uint32_t i = 0; i <= kern->nbufs; i++) kern->params[i] = &kern->ptrs[i];
  return make_ctrl(dev, kern, err);
}

int vc_cuda_native_prepare(vc_dev *dev, vc_kern *kern, vc_buf *const *bufs, vc_error *err) {
  for (uint32_t i = 0; i < kern->nbufs; i++) kern->ptrs[i] = bufs[i]->ptr;
  kern->ptrs[kern->nbufs] = kern->ctrl.ptr;
  CUresult r = dev->cu->cuMemcpyHtoDAsync(kern->ctrl.ptr, kern->ctrl_init, kern->ctrl.bytes,
                                          dev->stream);
  vc_cuda_unchain(dev);
  if (r != CUDA_SUCCESS)
    return vc_cu_fail(dev->cu, err, r, "%s: resetting the control buffer on %s", kern->label,
                      dev->label);
  kern->ran = true;
  return 0;
}

void vc_cuda_native_free(vc_dev *dev, vc_kern *kern, bool entered) {
  if (entered && kern->ctrl.ptr) dev->cu->cuMemFree(kern->ctrl.ptr);
  if (entered && kern->ctrl_init) dev->cu->cuMemFreeHost(kern->ctrl_init);
  free(kern->ptrs);
  free(kern->params);
}

int vc_cuda_native_stats(vc_dev *dev, vc_kern *kern, vc_native_stats *stats, vc_error *err) {
  if (!kern || !kern->native)
    return vc_fail(err, VC_ERR_USAGE, "native_stats on %s of a kernel that is not native",
                   dev->label);
  if (!kern->ran)
    return vc_fail(err, VC_ERR_USAGE, "%s on %s: native_stats before any launch", kern->label,
                   dev->label);
  uint32_t words[VC_NC_WORDS];
  int rc = vc_cuda_download(dev, &kern->ctrl, words, sizeof words, err);
  if (rc != 0) return vc_fail_wrap(err, "%s: reading the control buffer", kern->label);
  vc_native_ctrl_stats(words, &kern->nshape, kern->shape.grid[0], stats);
  return 0;
}
