/* Internal interface of the OpenCL backend plugin (vc-backend-opencl.so).
 *
 * ocl_device.c  platforms and devices: count, open, describe, close
 * ocl_kernel.c  emit, compile (generated OpenCL C built for the device), limits
 * ocl_memory.c  buffers: alloc, free, upload, download, zero
 * ocl_launch.c  launch, finish with profiling times, native stats
 * ocl_error.c   OpenCL status codes by name, failures as vc_error
 * ocl_plugin.c  the vc_backend table, the plugin's one exported symbol */
#ifndef VC_OCL_H
#define VC_OCL_H

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <CL/cl_ext.h>

#include "backends/backend.h"

struct vc_dev {
  cl_platform_id platform;
  cl_device_id device;
  cl_context ctx;
  cl_command_queue queue; /* in order, profiling enabled */
  char label[320];        /* "OpenCL device 0 (name)", for messages */
  char cl_std[16];        /* "CL1.2": from the device's OpenCL C version */
  char build_extra[256];  /* the `build` option, appended to the build flags */
  size_t max_wg;          /* CL_DEVICE_MAX_WORK_GROUP_SIZE */
  size_t max_items[3];    /* CL_DEVICE_MAX_WORK_ITEM_SIZES */
  cl_ulong local_mem;     /* CL_DEVICE_LOCAL_MEM_SIZE */
  cl_event *events;       /* launches since the last finish, in order */
  uint32_t nevents, cap;
};

struct vc_kern {
  cl_program program;
  cl_kernel kernel;
  uint32_t nbufs;        /* buffers the kernel binds */
  size_t local[3];       /* workgroup */
  size_t global[3];      /* grid x workgroup */
  char label[128];
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

int vc_ocl_launch(vc_dev *dev, vc_kern *kern, vc_buf *const *bufs, uint32_t nbufs,
                  vc_error *err);
int vc_ocl_finish(vc_dev *dev, uint64_t *device_ns, uint32_t cap, uint32_t *count,
                  vc_error *err);
int vc_ocl_native_stats(vc_dev *dev, vc_kern *kern, vc_native_stats *stats, vc_error *err);
/* Releases the events of unfinished launches (close, failed finish). */
void vc_ocl_drop_events(vc_dev *dev);

#endif
