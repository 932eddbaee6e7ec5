/* Device buffers: allocation, blocking copies, zeroing on the device; host
 * memory for the copies (host_alloc): a CL_MEM_ALLOC_HOST_PTR buffer mapped
 * once, which drivers back with pinned memory, so that a copy from or to it
 * is one DMA instead of a copy through the driver's own staging. */
#include <stdlib.h>

#include "backends/opencl/ocl_internal.h"

int vc_ocl_alloc(vc_dev *d, uint64_t bytes, vc_buf **out, vc_error *err) {
  *out = NULL;
  if (bytes == 0 || bytes > SIZE_MAX)
    return vc_fail(err, VC_ERR_USAGE, "%s: cannot allocate a buffer of %llu bytes", d->label,
                   (unsigned long long)bytes);
  vc_buf *b = calloc(1, sizeof *b);
  if (!b) return vc_fail(err, VC_ERR_NOMEM, "%s: out of host memory for a buffer", d->label);
  cl_int st;
  b->mem = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, (size_t)bytes, NULL, &st);
  if (st != CL_SUCCESS) {
    free(b);
    return vc_fail(err, st == CL_INVALID_BUFFER_SIZE ? VC_ERR_LIMIT : VC_ERR_DEVICE,
                   "%s: clCreateBuffer(%llu bytes): %s", d->label, (unsigned long long)bytes,
                   vc_ocl_status_name(st));
  }
  b->bytes = bytes;
  *out = b;
  return 0;
}

void vc_ocl_free_buffer(vc_dev *d, vc_buf *b) {
  (void)d;
  if (!b) return;
  clReleaseMemObject(b->mem);
  free(b);
}

static int check_size(const vc_dev *d, const vc_buf *b, uint64_t bytes, const char *what,
                      vc_error *err) {
  if (bytes <= b->bytes) return 0;
  return vc_fail(err, VC_ERR_USAGE, "%s: %s of %llu bytes into a buffer of %llu bytes", d->label,
                 what, (unsigned long long)bytes, (unsigned long long)b->bytes);
}

int vc_ocl_upload(vc_dev *d, vc_buf *b, const void *src, uint64_t bytes, vc_error *err) {
  int rc = check_size(d, b, bytes, "upload", err);
  if (rc || bytes == 0) return rc;
  cl_int st = clEnqueueWriteBuffer(d->queue, b->mem, CL_TRUE, 0, (size_t)bytes, src, 0, NULL, NULL);
  return st == CL_SUCCESS ? 0 : vc_ocl_fail(err, VC_ERR_DEVICE, d, "clEnqueueWriteBuffer", st);
}

int vc_ocl_download(vc_dev *d, vc_buf *b, void *dst, uint64_t bytes, vc_error *err) {
  int rc = check_size(d, b, bytes, "download", err);
  if (rc || bytes == 0) return rc;
  cl_int st = clEnqueueReadBuffer(d->queue, b->mem, CL_TRUE, 0, (size_t)bytes, dst, 0, NULL, NULL);
  return st == CL_SUCCESS ? 0 : vc_ocl_fail(err, VC_ERR_DEVICE, d, "clEnqueueReadBuffer", st);
}

/* On the device, in queue order; completes with the next blocking call or finish. */
int vc_ocl_zero(vc_dev *d, vc_buf *b, vc_error *err) {
  const cl_uchar zero = 0;
  cl_int st = clEnqueueFillBuffer(d->queue, b->mem, &zero, sizeof zero, 0, (size_t)b->bytes, 0,
                                  NULL, NULL);
  return st == CL_SUCCESS ? 0 : vc_ocl_fail(err, VC_ERR_DEVICE, d, "clEnqueueFillBuffer", st);
}

int vc_ocl_host_alloc(vc_dev *d, uint64_t bytes, void **out, vc_error *err) {
  *out = NULL;
  uint64_t size = bytes ? (bytes + 3) & ~3ull : 4;
  if (size > SIZE_MAX)
    return vc_fail(err, VC_ERR_LIMIT, "%s: host memory of %llu bytes is above SIZE_MAX",
                   d->label, (unsigned long long)bytes);
  if (d->nhosts == d->host_cap) {
    uint32_t cap = d->host_cap ? 2 * d->host_cap : 16;
    vc_ocl_host *h = realloc(d->hosts, cap * sizeof *h);
    if (!h) return vc_fail(err, VC_ERR_NOMEM, "%s: out of host memory for a record", d->label);
    d->hosts = h;
    d->host_cap = cap;
  }
  vc_ocl_host h = {NULL, NULL};
  if (d->malloc_host) {
    h.p = malloc((size_t)size);
    if (!h.p)
      return vc_fail(err, VC_ERR_NOMEM, "%s: no host memory for %llu bytes", d->label,
                     (unsigned long long)bytes);
  } else {
    cl_int st;
    h.mem = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, (size_t)size, NULL,
                           &st);
    if (st != CL_SUCCESS)
      return vc_fail(err, st == CL_INVALID_BUFFER_SIZE ? VC_ERR_LIMIT : VC_ERR_DEVICE,
                     "%s: clCreateBuffer(CL_MEM_ALLOC_HOST_PTR, %llu bytes of host memory): %s",
                     d->label, (unsigned long long)bytes, vc_ocl_status_name(st));
    h.p = clEnqueueMapBuffer(d->queue, h.mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                             (size_t)size, 0, NULL, NULL, &st);
    if (st != CL_SUCCESS) {
      clReleaseMemObject(h.mem);
      return vc_ocl_fail(err, VC_ERR_DEVICE, d, "clEnqueueMapBuffer (host memory)", st);
    }
  }
  d->hosts[d->nhosts++] = h;
  *out = h.p;
  return 0;
}

static void host_release(vc_dev *d, const vc_ocl_host *h) {
  if (!h->mem) {
    free(h->p);
    return;
  }
  clEnqueueUnmapMemObject(d->queue, h->mem, h->p, 0, NULL, NULL);
  clFinish(d->queue);
  clReleaseMemObject(h->mem);
}

void vc_ocl_host_free(vc_dev *d, void *p) {
  if (!p) return;
  for (uint32_t i = 0; i < d->nhosts; i++)
    if (d->hosts[i].p == p) {
      host_release(d, &d->hosts[i]);
      d->hosts[i] = d->hosts[--d->nhosts];
      return;
    }
}

void vc_ocl_host_free_all(vc_dev *d) {
  for (uint32_t i = 0; i < d->nhosts; i++) host_release(d, &d->hosts[i]);
  free(d->hosts);
  d->hosts = NULL;
  d->nhosts = d->host_cap = 0;
}
