/* timing=stamps: device times of graph batches from the device's own clock.
 *
 * An event node between two kernel nodes costs the device about 2 us a
 * launch on the H200 (docs/performance.md). Instead, every segment kernel
 * reads %globaltimer (ns) in its first thread before its body and stores
 * it to a slot the launch names (the kernel's last parameter); a
 * one-thread stamp kernel after the batch's last launch writes one slot
 * more. Launch i's device time is slot i + 1 - slot i: from its start to
 * the next launch's start, the span an event between them measures.
 *
 * The slots of the batches sent since the last finish lie one after the
 * other; they are zeroed before their batch, so a stamp a kernel did not
 * write reads as 0. They live in pinned host memory mapped for the device
 * (read in place once the batch's event completed) or, with
 * stamp-memory=device, in device memory copied back once per finish. */
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/cuda_internal.h"

#define VC_STAMP_MIN_SLOTS 256u

/* The end stamp: one thread, one store. PTX for the oldest target with
   %globaltimer that this driver still compiles, so any device loads it
   (the driver's JIT, once per device). */
static const char stamp_ptx[] =
    ".version 6.0\n"
    ".target sm_50\n"
    ".address_size 64\n"
    ".visible .entry vc_stamp(\n"
    "  .param .u64 vc_stamp_param_0\n"
    ")\n"
    "{\n"
    "  .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [vc_stamp_param_0];\n"
    "  cvta.to.global.u64 %rd2, %rd1;\n"
    "  mov.u64 %rd3, %globaltimer;\n"
    "  st.global.u64 [%rd2], %rd3;\n"
    "  ret;\n"
    "}\n";

static int load_kernel(vc_dev *dev, vc_error *err) {
  vc_cuda_stamps *s = &dev->stamps;
  const vc_cu *cu = dev->cu;
  CUresult r = cu->cuModuleLoadDataEx(&s->mod, stamp_ptx, 0, NULL, NULL);
  if (r != CUDA_SUCCESS) {
    s->mod = NULL;
    return vc_cu_fail(cu, err, r, "timing=stamps: cuModuleLoadDataEx(the stamp kernel) on %s",
                      dev->label);
  }
  r = cu->cuModuleGetFunction(&s->fn, s->mod, "vc_stamp");
  if (r != CUDA_SUCCESS)
    return vc_cu_fail(cu, err, r, "timing=stamps: cuModuleGetFunction(vc_stamp) on %s",
                      dev->label);
  return 0;
}

static void free_slots(vc_dev *dev, const vc_cuda_stamp_slots *m) {
  if (m->host) dev->cu->cuMemFreeHost(m->host);
  if (m->dmem) dev->cu->cuMemFree(m->dmem);
}

/* New slots of cap entries, zeroed. */
static int alloc_slots(vc_dev *dev, uint32_t cap, vc_cuda_stamp_slots *m, vc_error *err) {
  const vc_cu *cu = dev->cu;
  bool device = dev->opts.stamp_memory == VC_CUDA_STAMP_DEVICE;
  memset(m, 0, sizeof *m);
  void *p = NULL;
  size_t bytes = (size_t)cap * 8u;
  CUresult r = cu->cuMemHostAlloc(&p, bytes, device ? 0 : CU_MEMHOSTALLOC_DEVICEMAP);
  const char *call = "cuMemHostAlloc";
  if (r == CUDA_SUCCESS) {
    m->host = p;
    memset(p, 0, bytes);
    if (device) {
      call = "cuMemAlloc";
      r = cu->cuMemAlloc(&m->dmem, bytes);
      if (r != CUDA_SUCCESS) m->dmem = 0;
      m->dptr = m->dmem;
    } else {
      call = "cuMemHostGetDevicePointer";
      r = cu->cuMemHostGetDevicePointer(&m->dptr, p, 0);
    }
  }
  if (r != CUDA_SUCCESS) {
    free_slots(dev, m);
    return vc_cu_fail(cu, err, r, "timing=stamps: %s(%zu bytes of stamp slots, %s memory) on %s",
                      call, bytes, device ? "device" : "mapped host", dev->label);
  }
  return 0;
}

/* Room for `need` more slots. Batches already sent may still write the
   old slots, so the stream is waited for before they are copied over. */
static int grow(vc_dev *dev, uint32_t need, vc_error *err) {
  vc_cuda_stamps *s = &dev->stamps;
  if (s->used + need <= s->cap) return 0;
  uint32_t cap = s->cap ? 2 * s->cap : VC_STAMP_MIN_SLOTS;
  while (cap < s->used + need) cap *= 2;
  int rc = 0;
  if (s->used) {
    CUresult r = dev->cu->cuStreamSynchronize(dev->stream);
    if (r != CUDA_SUCCESS)
      return vc_cu_fail(dev->cu, err, r, "timing=stamps: cuStreamSynchronize on %s", dev->label);
    rc = vc_cuda_stamps_collect(dev, err);
  }
  vc_cuda_stamp_slots m;
  if (rc == 0) rc = alloc_slots(dev, cap, &m, err);
  if (rc != 0) return rc;
  if (s->used) memcpy(m.host, s->mem.host, (size_t)s->used * 8u);
  free_slots(dev, &s->mem);
  s->mem = m;
  s->cap = cap;
  s->read = s->used; /* device: what was copied back is in host already */
  return 0;
}

int vc_cuda_stamps_take(vc_dev *dev, uint32_t n, uint32_t *first, vc_error *err) {
  vc_cuda_stamps *s = &dev->stamps;
  int rc = s->fn ? 0 : load_kernel(dev, err);
  if (rc == 0) rc = grow(dev, n, err);
  if (rc != 0) return rc;
  *first = s->used;
  if (s->mem.dmem) {
    CUresult r = dev->cu->cuMemsetD8Async(vc_cuda_stamp_addr(dev, s->used), 0, (size_t)n * 8u,
                                          dev->stream);
    if (r != CUDA_SUCCESS)
      return vc_cu_fail(dev->cu, err, r, "timing=stamps: cuMemsetD8Async on %s", dev->label);
  } else {
    /* these slots belong to no batch still in flight */
    memset(s->mem.host + s->used, 0, (size_t)n * 8u);
  }
  s->used += n;
  return 0;
}

int vc_cuda_stamps_collect(vc_dev *dev, vc_error *err) {
  vc_cuda_stamps *s = &dev->stamps;
  if (!s->mem.dmem || s->read == s->used) return 0;
  const vc_cu *cu = dev->cu;
  uint32_t n = s->used - s->read;
  CUresult r = cu->cuMemcpyDtoHAsync(s->mem.host + s->read, vc_cuda_stamp_addr(dev, s->read),
                                     (size_t)n * 8u, dev->stream);
  if (r == CUDA_SUCCESS) r = cu->cuStreamSynchronize(dev->stream);
  if (r != CUDA_SUCCESS)
    return vc_cu_fail(cu, err, r, "timing=stamps: copying %u stamps back from %s", n,
                      dev->label);
  s->read = s->used;
  return 0;
}

/* Every slot of a finish's batches was written in stream order, so the
   written ones must rise strictly. Slot j is trusted when written and in
   order with its written neighbours: a stamp out of order cannot tell
   which of the two is wrong, so neither is used. */
static bool trusted(const vc_cuda_stamps *s, uint32_t j) {
  const uint64_t *v = s->mem.host;
  if (v[j] == 0) return false;
  if (j > 0 && v[j - 1] && v[j] <= v[j - 1]) return false;
  return !(j + 1 < s->used && v[j + 1] && v[j] >= v[j + 1]);
}

uint64_t vc_cuda_stamp_ns(vc_dev *dev, const vc_cuda_timing *t) {
  vc_cuda_stamps *s = &dev->stamps;
  if (t->stamp == VC_CUDA_NO_SLOT || t->stamp + 1 >= s->used) return 0;
  if (!trusted(s, t->stamp) || !trusted(s, t->stamp + 1)) {
    s->untimed++;
    return 0;
  }
  return s->mem.host[t->stamp + 1] - s->mem.host[t->stamp];
}

bool vc_cuda_stamp_done(const vc_dev *dev, const vc_cuda_timing *t) {
  const vc_cuda_stamps *s = &dev->stamps;
  if (s->mem.dmem || t->stamp == VC_CUDA_NO_SLOT || t->stamp + 1 >= s->used) return false;
  /* the device writes it while the host looks */
  return ((volatile const uint64_t *)s->mem.host)[t->stamp + 1] != 0;
}

void vc_cuda_stamps_free(vc_dev *dev) {
  vc_cuda_stamps *s = &dev->stamps;
  free_slots(dev, &s->mem);
  if (s->mod) dev->cu->cuModuleUnload(s->mod);
  memset(s, 0, sizeof *s);
}
