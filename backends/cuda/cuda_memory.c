/* Device buffers, host memory for copies, and the blocking copies.
 *
 * Host memory from host_alloc is pinned (cuMemHostAlloc): a copy from or to
 * it is one DMA, with no host copy beside it. Other host memory goes through
 * the device's pinned staging buffer in two halves: while the DMA engine
 * moves one half, the host fills or drains the other. Every copy is ordered
 * on the device's one stream, after the launches enqueued before it. */
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

/* Is [p, p + bytes) inside pinned memory host_alloc gave? */
static bool pinned(const vc_dev *dev, const void *p, uint64_t bytes) {
  const unsigned char *c = p;
  for (uint32_t i = 0; i < dev->nhosts; i++) {
    const vc_cuda_host *h = &dev->hosts[i];
    if (h->pinned && c >= h->p && bytes <= h->bytes && (uint64_t)(c - h->p) <= h->bytes - bytes)
      return true;
  }
  return false;
}

int vc_cuda_host_alloc(vc_dev *dev, uint64_t bytes, void **out, vc_error *err) {
  *out = NULL;
  if (bytes > SIZE_MAX - 4)
    return vc_fail(err, VC_ERR_LIMIT, "host_alloc of %" PRIu64 " bytes on %s: above SIZE_MAX",
                   bytes, dev->label);
  if (dev->nhosts == dev->host_cap) {
    uint32_t cap = dev->host_cap ? 2 * dev->host_cap : 16;
    vc_cuda_host *h = realloc(dev->hosts, cap * sizeof *h);
    if (!h) return vc_fail(err, VC_ERR_NOMEM, "host_alloc on %s: no host memory", dev->label);
    dev->hosts = h;
    dev->host_cap = cap;
  }
  size_t n = bytes ? (size_t)bytes : 4;
  vc_cuda_host h = {NULL, bytes, !dev->opts.malloc_host};
  if (!h.pinned) {
    h.p = malloc(n);
    if (!h.p)
      return vc_fail(err, VC_ERR_NOMEM, "host_alloc of %" PRIu64 " bytes on %s: no host memory",
                     bytes, dev->label);
  } else {
    int rc = vc_cuda_enter(dev, "host_alloc", err);
    if (rc != 0) return rc;
    void *p = NULL;
    CUresult r = dev->cu->cuMemHostAlloc(&p, n, 0);
    if (r != CUDA_SUCCESS)
      return vc_cu_fail(dev->cu, err, r, "cuMemHostAlloc(%" PRIu64 " bytes of host memory) for %s",
                        bytes, dev->label);
    h.p = p;
  }
  dev->hosts[dev->nhosts++] = h;
  *out = h.p;
  return 0;
}

static void release(vc_dev *dev, const vc_cuda_host *h) {
  if (h->pinned) dev->cu->cuMemFreeHost(h->p);
  else free(h->p);
}

/* A failed copy in flight may still use the memory: the stream drains first. */
void vc_cuda_host_free(vc_dev *dev, void *p) {
  if (!p) return;
  for (uint32_t i = 0; i < dev->nhosts; i++) {
    if (dev->hosts[i].p != p) continue;
    if (dev->hosts[i].pinned) {
      if (vc_cuda_enter(dev, "host_free", NULL) != 0) return;
      dev->cu->cuStreamSynchronize(dev->stream);
    }
    release(dev, &dev->hosts[i]);
    dev->hosts[i] = dev->hosts[--dev->nhosts];
    return;
  }
}

void vc_cuda_host_free_all(vc_dev *dev) {
  for (uint32_t i = 0; i < dev->nhosts; i++) release(dev, &dev->hosts[i]);
  dev->nhosts = 0;
}

/* One DMA between pinned host memory and the buffer, waited for: up from
   src, else down to dst. */
static int direct(vc_dev *dev, vc_buf *buf, const void *src, void *dst, uint64_t bytes,
                  vc_error *err) {
  const vc_cu *cu = dev->cu;
  bool up = src != NULL;
  CUresult r = up ? cu->cuMemcpyHtoDAsync(buf->ptr, src, (size_t)bytes, dev->stream)
                  : cu->cuMemcpyDtoHAsync(dst, buf->ptr, (size_t)bytes, dev->stream);
  if (r == CUDA_SUCCESS) r = cu->cuEventRecord(dev->stage_done[0], dev->stream);
  if (r != CUDA_SUCCESS)
    return drain(dev, vc_cu_fail(cu, err, r, "%s of %" PRIu64 " bytes %s %s: %s",
                                 up ? "upload" : "download", bytes, up ? "to" : "from",
                                 dev->label, up ? "cuMemcpyHtoDAsync" : "cuMemcpyDtoHAsync"));
  r = cu->cuEventSynchronize(dev->stage_done[0]);
  if (r != CUDA_SUCCESS)
    return drain(dev, vc_cu_fail(cu, err, r,
                                 "%s of %" PRIu64 " bytes %s %s: cuEventSynchronize (a launch "
                                 "before it may have failed)",
                                 up ? "upload" : "download", bytes, up ? "to" : "from",
                                 dev->label));
  return 0;
}

static size_t chunk_size(const vc_dev *dev, uint64_t bytes, uint64_t off) {
  uint64_t left = bytes - off;
  return left < dev->stage_half ? (size_t)left : dev->stage_half;
}

int vc_cuda_upload(vc_dev *dev, vc_buf *buf, const void *src, uint64_t bytes, vc_error *err) {
  int rc = check_size(dev, "upload", buf, bytes, err);
  if (rc != 0) return rc;
  if (bytes && pinned(dev, src, bytes)) return direct(dev, buf, src, NULL, bytes, err);
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
  if (pinned(dev, dst, bytes)) return direct(dev, buf, NULL, dst, bytes, err);
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
