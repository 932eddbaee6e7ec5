/* The CUDA plugin's objects and the operations each of its files provides.
 * Nothing here leaves the plugin: it exports only vyre_conform_backend. */
#ifndef VC_CUDA_INTERNAL_H
#define VC_CUDA_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/backend.h"
#include "harness/base/kcache.h"
#include "backends/common/native/native_ctrl.h"
#include "backends/cuda/cuda_driver.h"
#include "backends/cuda/cuda_limits.h"

#define VC_CUDA_DEFAULT_STAGING (32u << 20) /* pinned bytes, in two halves */
#define VC_CUDA_MIN_STAGING (8u << 10)
#define VC_CUDA_DEFAULT_TARGET "sm_90"      /* compile_offline without a target */
#define VC_CUDA_DEFAULT_DEADLINE_S 30u
#define VC_CUDA_MAX_DEADLINE_S 86400u

/* open's options ("key=value,..."). */
typedef struct vc_cuda_options {
  uint64_t staging;       /* "staging=BYTES": the pinned staging buffer */
  uint32_t deadline_ms;   /* "deadline=SECONDS": how long finish waits */
  uint32_t native_blocks; /* "native-blocks=N": most blocks of a native launch; 0 = no cap */
  char include[512];      /* "include=DIR": cooperative_groups.h for native kernels; "" = found */
  int no_timing;          /* "timing=none": no event per launch, no device times */
  char cache_dir[VC_KCACHE_DIR_MAX]; /* "cache=DIR": PTX from NVRTC; "" = none */
  int inline_barrier;     /* "barrier=inline": native kernels without cooperative_groups.h */
  int inline_order;       /* "inline-order=...": vc_cuda_inline, its memory orders */
} vc_cuda_options;

/* One launch: its bracketing events (indices into the device's pool) and
   its kernel, named when finish gives up. */
typedef struct vc_cuda_timing {
  uint32_t start, end;
  char label[128];
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
  vc_cuda_options opts;
  /* pinned staging: two halves, so that copying one half on the host
     overlaps the transfer of the other */
  unsigned char *stage;
  size_t stage_half;
  CUevent stage_done[2];
  /* launches since the last finish, and the events they use; events are
     created once and reused */
  vc_cuda_timing *timings;
  uint32_t pending, cap;
  CUevent *events;
  uint32_t used_events, created_events, event_cap;
  /* 1 + the event that ended the last launch while nothing else has been
     enqueued after it (the next launch starts there), else 0 */
  uint32_t chain;
};

struct vc_buf {
  CUdeviceptr ptr;
  uint64_t bytes;
};

struct vc_kern {
  CUmodule module;
  CUfunction fn;
  uint32_t nbufs;     /* buffers bound (native: the plan's, without the control buffer) */
  vc_cuda_shape shape; /* native: the grid is the blocks launched */
  char label[128];
  /* native kernels only (cuda_native.c) */
  bool native;
  bool ran;            /* launched since compile: native_stats has words to read */
  vc_native_shape nshape;
  vc_buf ctrl;         /* the control buffer */
  uint32_t *ctrl_init; /* pinned: the words written before every launch */
  CUdeviceptr *ptrs;   /* the launch's parameters: plan buffers, then ctrl */
  void **params;
};

/* cuda_device.c */
int vc_cuda_parse_options(const char *text, vc_cuda_options *opts, vc_error *err);
int vc_cuda_device_count(uint32_t *count, vc_error *err);
int vc_cuda_open(uint32_t index, const char *options, vc_dev **dev, vc_error *err);
void vc_cuda_close(vc_dev *dev);
/* Anything enqueued on the stream but a launch: the next launch records
   its own start event. */
static inline void vc_cuda_unchain(vc_dev *dev) { dev->chain = 0; }
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

/* cuda_native.c: native kernels, launched cooperatively (docs/native.md) */
/* VC_ERR_UNSUPPORTED when the device cannot launch cooperatively. */
int vc_cuda_native_check(vc_dev *dev, const char *label, vc_error *err);
/* After the module is loaded: the blocks each launch gets (co-resident, at
   most the program's workgroups and native-blocks), the control buffer, the
   parameter arrays. */
int vc_cuda_native_setup(vc_dev *dev, const vc_kernel_desc *k, vc_kern *kern, vc_error *err);
/* Before a launch: the control words reset on the stream, the parameters
   filled (bufs in plan order). */
int vc_cuda_native_prepare(vc_dev *dev, vc_kern *kern, vc_buf *const *bufs, vc_error *err);
/* Device objects only when entered (the context is current and the stream
   synchronised). */
void vc_cuda_native_free(vc_dev *dev, vc_kern *kern, bool entered);
int vc_cuda_native_stats(vc_dev *dev, vc_kern *kern, vc_native_stats *stats, vc_error *err);

#endif
