/* Device buffers and the blocking copies through pinned staging.
 *
 * Copies go through the device's pinned buffer in two halves: while the DMA
 * engine moves one half, the host fills or drains the other. Every copy is
 * ordered on the device's one stream, after the launches enqueued before it. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/cuda_internal.h"

int vc_cuda_alloc(vc_dev *dev, uint64_t bytes, vc_buf **out, vc_error *err) {
  *out = NULL;
  int rc = vc_cuda_enter(dev, "alloc", err);
  if (rc != 0) return rc;
  vc_buf *b = calloc(1, sizeof *b);
  if (!b) return vc_fail(err, VC_ERR_NOMEM, "alloc on %s: no host memory", dev->label);
  /* whole 4-byte words, so that zero is one cuMemsetD32 */
  uint64_t words = bytes ? (bytes + 3) / 4 : 1;
  CUresult r = dev->cu->cuMemAlloc(&b->ptr, (size_t)(words * 4));
  if (r != CUDA_SUCCESS) {
    free(b);
    return vc_cu_fail(dev->cu, err, r, "cuMemAlloc(%" PRIu64 " bytes) on %s", bytes, dev->label);
  }
  b->bytes = bytes;
  *out = b;
  return 0;
}

/* Work still queued may use the buffer: it finishes first. */
void vc_cuda_free_buffer(vc_dev *dev, vc_buf *buf) {
  if (!buf) return;
  if (vc_cuda_enter(dev, "free_buffer", NULL) == 0) {
    dev->cu->cuStreamSynchronize(dev->stream);
    dev->cu->cuMemFree(buf->ptr);
  }
  free(buf);
}

static int check_size(vc_dev *dev, const char *op, vc_buf *buf, uint64_t bytes, vc_error *err) {
  vc_cuda_unchain(dev);
  if (bytes > buf->bytes)
    return vc_fail(err, VC_ERR_USAGE,
                   "%s of %" PRIu64 " bytes on %s: the buffer has only %" PRIu64 " bytes", op,
                   bytes, dev->label, buf->bytes);
  return vc_cuda_enter(dev, op, err);
}

/* After a failed copy in flight, the staging halves may still be read or
   written by the device: wait before anyone touches them again. */
static int drain(vc_dev *dev, int rc) {
  dev->cu->cuStreamSynchronize(dev->stream);
  return rc;
}

static size_t chunk_size(const vc_dev *dev, uint64_t bytes, uint64_t off) {
  uint64_t left = bytes - off;
  return left < dev->stage_half ? (size_t)left : dev->stage_half;
}

int vc_cuda_upload(vc_dev *dev, vc_buf *buf, const void *src, uint64_t bytes, vc_error *err) {
  int rc = check_size(dev, "upload", buf, bytes, err);
  if (rc != 0) return rc;
  const vc_cu *cu = dev->cu;
  const unsigned char *in = src;
  int last = 0;
  for (uint64_t off = 0, i = 0; off < bytes; off += chunk_size(dev, bytes, off), i++) {
    int h = (int)(i & 1);
    size_t n = chunk_size(dev, bytes, off);
    unsigned char *stage = dev->stage + (size_t)h * dev->stage_half;
    CUresult r = i >= 2 ? cu->cuEventSynchronize(dev->stage_done[h]) : CUDA_SUCCESS;
    if (r != CUDA_SUCCESS)
      return drain(dev, vc_cu_fail(cu, err, r, "upload to %s: cuEventSynchronize", dev->label));
    memcpy(stage, in + off, n);
    r = cu->cuMemcpyHtoDAsync(buf->ptr + off, stage, n, dev->stream);
    if (r == CUDA_SUCCESS) r = cu->cuEventRecord(dev->stage_done[h], dev->stream);
    if (r != CUDA_SUCCESS)
      return drain(dev, vc_cu_fail(cu, err, r,
                                   "upload of %" PRIu64 " bytes at offset %" PRIu64
                                   " to %s: cuMemcpyHtoDAsync",
                                   bytes, off, dev->label));
    last = h;
  }
  if (bytes == 0) return 0;
  CUresult r = cu->cuEventSynchronize(dev->stage_done[last]);
  if (r != CUDA_SUCCESS)
    return drain(dev, vc_cu_fail(cu, err, r, "upload to %s: cuEventSynchronize", dev->label));
  return 0;
}

/* Enqueues the copy of the chunk at off into staging half h. */
static int fetch(vc_dev *dev, vc_buf *buf, uint64_t bytes, uint64_t off, int h, vc_error *err) {
  const vc_cu *cu = dev->cu;
  size_t n = chunk_size(dev, bytes, off);
  CUresult r = cu->cuMemcpyDtoHAsync(dev->stage + (size_t)h * dev->stage_half, buf->ptr + off, n,
                                     dev->stream);
  if (r == CUDA_SUCCESS) r = cu->cuEventRecord(dev->stage_done[h], dev->stream);
  if (r != CUDA_SUCCESS)
    return vc_cu_fail(cu, err, r,
                      "download of %" PRIu64 " bytes at offset %" PRIu64
                      " from %s: cuMemcpyDtoHAsync",
                      bytes, off, dev->label);
  return 0;
}

int vc_cuda_download(vc_dev *dev, vc_buf *buf, void *dst, uint64_t bytes, vc_error *err) {
  int rc = check_size(dev, "download", buf, bytes, err);
  if (rc != 0 || bytes == 0) return rc;
  const vc_cu *cu = dev->cu;
  unsigned char *out = dst;
  rc = fetch(dev, buf, bytes, 0, 0, err);
  for (uint64_t off = 0, i = 0; rc == 0 && off < bytes; i++) {
    int h = (int)(i & 1);
    size_t n = chunk_size(dev, bytes, off);
    /* the other half was drained in the previous round: refill it now */
    if (off + n < bytes) rc = fetch(dev, buf, bytes, off + n, h ^ 1, err);
    if (rc != 0) break;
    CUresult r = cu->cuEventSynchronize(dev->stage_done[h]);
    if (r != CUDA_SUCCESS) {
      rc = vc_cu_fail(cu, err, r,
                      "download of %" PRIu64 " bytes from %s: cuEventSynchronize (a launch "
                      "before it may have failed)",
                      bytes, dev->label);
      break;
    }
    memcpy(out + off, dev->stage + (size_t)h * dev->stage_half, n);
    off += n;
  }
  return rc != 0 ? drain(dev, rc) : 0;
}

int vc_cuda_zero(vc_dev *dev, vc_buf *buf, vc_error *err) {
  vc_cuda_unchain(dev);
  int rc = vc_cuda_enter(dev, "zero", err);
  if (rc != 0) return rc;
  /* alloc rounded the allocation up to whole words */
  size_t words = (size_t)((buf->bytes + 3) / 4);
  CUresult r = words ? dev->cu->cuMemsetD32Async(buf->ptr, 0, words, dev->stream) : CUDA_SUCCESS;
  if (r != CUDA_SUCCESS)
    return vc_cu_fail(dev->cu, err, r, "zero of %" PRIu64 " bytes on %s: cuMemsetD32Async",
                      buf->bytes, dev->label);
  return 0;
}
