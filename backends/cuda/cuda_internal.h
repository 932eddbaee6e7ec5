/* The CUDA plugin's objects and the operations each of its files provides.
 * Nothing here leaves the plugin: it exports only vyre_conform_backend. */
#ifndef VC_CUDA_INTERNAL_H
#define VC_CUDA_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "backends/backend.h"
#include "backends/cuda/cuda_driver.h"
#include "backends/cuda/cuda_limits.h"

#define VC_CUDA_DEFAULT_STAGING (32u << 20) /* pinned bytes, in two halves */
#define VC_CUDA_MIN_STAGING (8u << 10)
#define VC_CUDA_DEFAULT_TARGET "sm_90"      /* compile_offline without a target */

/* open's options ("key=value,..."). */
typedef struct vc_cuda_options {
  uint64_t staging; /* "staging=BYTES": the pinned staging buffer */
} vc_cuda_options;

/* One launch's bracketing events. */
typedef struct vc_cuda_timing {
  CUevent start, end;
} vc_cuda_timing;

struct vc_dev {
  const vc_cu *cu;
  uint32_t index;
  CUdevice device;
  CUcontext ctx; /* the primary context, retained */
  CUstream stream;
  char name[256];
  char label[300]; /* "NVIDIA H200 (CUDA device 0)", for messages */
  int cc_major, cc_minor;
  char arch[32];   /* NVRTC target, found at the first compile */
  vc_cuda_limits limits;
  /* pinned staging: two halves, so that copying one half on the host
     overlaps the transfer of the other */
  unsigned char *stage;
  size_t stage_half;
  CUevent stage_done[2];
  /* launches since the last finish; events are created once and reused */
  vc_cuda_timing *timings;
  uint32_t pending, created, cap;
};

struct vc_kern {
  CUmodule module;
  CUfunction fn;
  uint32_t nbufs;
  vc_cuda_shape shape;
  char label[128];
};

struct vc_buf {
  CUdeviceptr ptr;
  uint64_t bytes;
};

/* cuda_device.c */
int vc_cuda_parse_options(const char *text, vc_cuda_options *opts, vc_error *err);
int vc_cuda_device_count(uint32_t *count, vc_error *err);
int vc_cuda_open(uint32_t index, const char *options, vc_dev **dev, vc_error *err);
void vc_cuda_close(vc_dev *dev);
/* Makes dev's context current on the calling thread (every operation starts so). */
int vc_cuda_enter(vc_dev *dev, const char *op, vc_error *err);
/* One device attribute; VC_CUDA_ATTR(dev, MAX_THREADS_PER_BLOCK, &v, err). */
int vc_cuda_attr(vc_dev *dev, CUdevice_attribute a, const char *name, int *value, vc_error *err);
#define VC_CUDA_ATTR(dev, a, v, err) vc_cuda_attr(dev, CU_DEVICE_ATTRIBUTE_##a, #a, v, err)

/* cuda_describe.c */
int vc_cuda_describe(vc_dev *dev, vc_device_info *info, vc_error *err);
/* 16 UUID bytes as 32 lowercase hex digits. */
void vc_cuda_uuid_hex(const unsigned char bytes[16], char *out, size_t n);

/* cuda_memory.c */
int vc_cuda_alloc(vc_dev *dev, uint64_t bytes, vc_buf **buf, vc_error *err);
void vc_cuda_free_buffer(vc_dev *dev, vc_buf *buf);
int vc_cuda_upload(vc_dev *dev, vc_buf *buf, const void *src, uint64_t bytes, vc_error *err);
int vc_cuda_download(vc_dev *dev, vc_buf *buf, void *dst, uint64_t bytes, vc_error *err);
int vc_cuda_zero(vc_dev *dev, vc_buf *buf, vc_error *err);

/* cuda_kernel.c */
/* "sm_90", "sm_90a", "compute_90" → the NVRTC architecture ("compute_90"). */
int vc_cuda_target_arch(const char *target, char *arch, size_t n, vc_error *err);
int vc_cuda_emit(const vc_kernel_desc *k, vc_dev *dev, char **source, vc_error *err);
int vc_cuda_compile_offline(const vc_kernel_desc *k, const char *target, void **binary,
                            size_t *size, char **log, vc_error *err);
int vc_cuda_compile(vc_dev *dev, const vc_kernel_desc *k, vc_kern **kern, vc_compile_info *info,
                    vc_error *err);
void vc_cuda_free_kernel(vc_dev *dev, vc_kern *kern);

/* cuda_launch.c */
int vc_cuda_launch(vc_dev *dev, vc_kern *kern, vc_buf *const *bufs, uint32_t nbufs,
                   vc_error *err);
int vc_cuda_finish(vc_dev *dev, uint64_t *device_ns, uint32_t cap, uint32_t *count,
                   vc_error *err);
int vc_cuda_native_stats(vc_dev *dev, vc_kern *kern, vc_native_stats *stats, vc_error *err);

#endif
