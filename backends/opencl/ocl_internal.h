/* Internal interface of the OpenCL backend plugin (vc-backend-opencl.so).
 *
 * ocl_device.c  platforms and devices: count, open, describe, close
 * ocl_kernel.c  emit, compile (generated OpenCL C built for the device), limits
 * ocl_memory.c  buffers: alloc, free, upload, download, zero; host memory for copies
 * ocl_launch.c  launch, finish with a deadline and profiling times
 * ocl_native.c  native kernels: ordering the device allows, control buffer, stats
 * ocl_options.c the device options (--device-options key=value,...)
 * ocl_error.c   OpenCL status codes by name, failures as vc_error
 * ocl_plugin.c  the vc_backend table, the plugin's one exported symbol */
#ifndef VC_OCL_INTERNAL_H
#define VC_OCL_INTERNAL_H

/* 3.0 for the queries native mode makes (CL_DEVICE_OPENCL_C_FEATURES);
   the 1.2 calls the plugin makes everywhere stay allowed. */
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <CL/cl_ext.h>

#include "backends/backend.h"
#include "harness/base/kcache.h"
#include "backends/common/native/cgen_native.h"
#include "backends/common/native/native_ctrl.h"

/* Native-mode settings (device options, docs/native.md). */
typedef struct vc_ocl_native_cfg {
  uint32_t max_wgs;      /* physical workgroups launched at most; 0 = compute units x 16 */
  vc_native_ctrl_opts ctrl;
  bool window_given;     /* native-window was set; else a default by device type */
  bool expect_given;     /* native-expect was set; else what can be resident at most */
  bool spin_given;       /* native-spin was set; else a default by ordering */
  int atomics;           /* VC_OCL_ATOMICS_* */
  int gridbar;           /* vc_gridbar: the grid barrier (gridbar option) */
  int join_direct;       /* native-join=direct: barrier-free kernels join with no slot */
  int loop_segments;     /* native-segments=loop: a pass as one loop over the segments */
  int discover_cas;      /* native-discovery=cas: tickets by compare-and-swap, as at first */
} vc_ocl_native_cfg;

enum { VC_OCL_ATOMICS_AUTO = 0, VC_OCL_ATOMICS_CL12, VC_OCL_ATOMICS_DEVICE };

/* Host memory host_alloc handed out: a CL_MEM_ALLOC_HOST_PTR buffer mapped
   once (pinned where the driver pins such memory), whose pointer the
   ordinary copies take; with host-memory=malloc, malloc memory (mem NULL). */
typedef struct vc_ocl_host {
  void *p;
  cl_mem mem;
} vc_ocl_host;

/* What one launch waits for at finish. */
typedef struct vc_ocl_launch_rec {
  cl_event ev;
  char label[128];
} vc_ocl_launch_rec;

struct vc_dev {
  cl_platform_id platform;
  cl_device_id device;
  cl_context ctx;
  cl_command_queue queue; /* in order, profiling enabled */
  char label[320];        /* "OpenCL device 0 (name)", for messages */
  char cl_std[16];        /* "CL1.2": from the device's OpenCL C version */
  char build_extra[256];  /* the `build` option, appended to the build flags */
  char cache_dir[VC_KCACHE_DIR_MAX]; /* the `cache` option: program binaries; "" = none */
  size_t max_wg;          /* CL_DEVICE_MAX_WORK_GROUP_SIZE */
  size_t max_items[3];    /* CL_DEVICE_MAX_WORK_ITEM_SIZES */
  cl_ulong local_mem;     /* CL_DEVICE_LOCAL_MEM_SIZE */
  uint32_t compute_units; /* CL_DEVICE_MAX_COMPUTE_UNITS */
  bool int64_base_atomics;     /* cl_khr_int64_base_atomics */
  bool int64_extended_atomics; /* cl_khr_int64_extended_atomics */
  uint32_t deadline_ms;   /* finish gives up after this long (the `deadline` option) */
  vc_ocl_native_cfg native;
  bool scope_available;      /* the device has device-scope acquire/release atomics */
  unsigned scope_c_version;  /* the OpenCL C version that has them: 200 or 300 */
  bool native_device_scope;  /* native kernels use them (native-atomics, default: if available) */
  vc_ocl_launch_rec *events; /* launches since the last finish, in order */
  uint32_t nevents, cap;
  int malloc_host;           /* host-memory=malloc: host_alloc gives malloc memory */
  vc_ocl_host *hosts;        /* what host_alloc gave and host_free has not taken back */
  uint32_t nhosts, host_cap;
};

struct vc_kern {
  cl_program program;
  cl_kernel kernel;
  uint32_t nbufs;        /* buffers the kernel binds (native: the plan's, without ctrl) */
  size_t local[3];       /* workgroup */
  size_t global[3];      /* grid x workgroup; native: physical workgroups x workgroup */
  char label[128];
  /* native kernels only */
  bool native;
  cl_mem ctrl;           /* the control buffer, vc_native_ctrl_words(launched) words */
  vc_native_shape shape;
  uint32_t launched;     /* physical workgroups */
  vc_native_ctrl_opts ctrl_opts;
  bool ran;              /* launched since compile: native_stats has something to read */
  /* Built from source with a cache folder: its binary is stored once a
     launch has made the driver's final code (ocl_cache.c says why). */
  bool cache_pending;
  vc_kcache_key cache_key;
};

struct vc_buf {
  cl_mem mem;
  uint64_t bytes;
};

/* The name of a status code ("CL_OUT_OF_RESOURCES"), or "CL error <n>". */
const char *vc_ocl_status_name(cl_int status);
/* Fails with code: "<dev label>: <call>: <status name>" (dev may be NULL). */
int vc_ocl_fail(vc_error *err, vc_errcode code, const vc_dev *dev, const char *call,
                cl_int status);

int vc_ocl_device_count(uint32_t *count, vc_error *err);
int vc_ocl_open(uint32_t index, const char *options, vc_dev **dev, vc_error *err);
int vc_ocl_describe(vc_dev *dev, vc_device_info *info, vc_error *err);
void vc_ocl_close(vc_dev *dev);

int vc_ocl_emit(const vc_kernel_desc *k, vc_dev *dev, char **source, vc_error *err);
int vc_ocl_compile(vc_dev *dev, const vc_kernel_desc *k, vc_kern **kern, vc_compile_info *info,
                   vc_error *err);
void vc_ocl_free_kernel(vc_dev *dev, vc_kern *kern);

int vc_ocl_alloc(vc_dev *dev, uint64_t bytes, vc_buf **buf, vc_error *err);
void vc_ocl_free_buffer(vc_dev *dev, vc_buf *buf);
int vc_ocl_upload(vc_dev *dev, vc_buf *buf, const void *src, uint64_t bytes, vc_error *err);
int vc_ocl_download(vc_dev *dev, vc_buf *buf, void *dst, uint64_t bytes, vc_error *err);
int vc_ocl_zero(vc_dev *dev, vc_buf *buf, vc_error *err);
int vc_ocl_host_alloc(vc_dev *dev, uint64_t bytes, void **p, vc_error *err);
void vc_ocl_host_free(vc_dev *dev, void *p);
void vc_ocl_host_free_all(vc_dev *dev); /* at close */

int vc_ocl_launch(vc_dev *dev, vc_kern *kern, vc_buf *const *bufs, uint32_t nbufs,
                  vc_error *err);
int vc_ocl_finish(vc_dev *dev, uint64_t *device_ns, uint32_t cap, uint32_t *count,
                  vc_error *err);
int vc_ocl_native_stats(vc_dev *dev, vc_kern *kern, vc_native_stats *stats, vc_error *err);
/* Releases the events of unfinished launches (close, failed finish). */
void vc_ocl_drop_events(vc_dev *dev);
/* Records a launch's event for finish; releases it on failure. */
int vc_ocl_keep_event(vc_dev *dev, cl_event ev, const char *label, vc_error *err);

/* Parses options into dev (ocl_options.c). */
/* ocl_cache.c: program binaries in the kernel cache (harness/base/kcache.h),
   keyed by source, build options, platform, device and driver. */
void vc_ocl_cache_key(const vc_dev *dev, const char *src, const char *opts, vc_kcache_key *k);
/* On a hit, a program built from the cached binary; NULL on a miss. */
cl_program vc_ocl_cache_load(vc_dev *dev, const vc_kcache_key *k, const char *opts);
/* Stores the binary of a kernel built from source (cache_pending), once:
   a failure is only noted in *log (dropped when log is NULL). */
void vc_ocl_cache_flush(vc_dev *dev, vc_kern *kern, char **log);
int vc_ocl_parse_options(vc_dev *dev, const char *options, vc_error *err);

/* Native kernels (ocl_native.c). */
/* At open: the OpenCL C version and ordering native kernels get. */
void vc_ocl_native_caps(vc_dev *dev);
/* The generator options native kernels of dev get (dev NULL: portable). */
void vc_ocl_native_opts(const vc_dev *dev, vc_native_opts *o);
/* The -cl-std a native kernel is built with. */
void vc_ocl_native_std(const vc_dev *dev, char *out, size_t n);
/* After the build: control buffer, launch shape. */
int vc_ocl_native_setup(vc_dev *dev, const vc_kernel_desc *k, vc_kern *kern, vc_error *err);
/* Before the launch: binds the control buffer and resets it. */
int vc_ocl_native_prepare(vc_dev *dev, vc_kern *kern, vc_error *err);

#endif
