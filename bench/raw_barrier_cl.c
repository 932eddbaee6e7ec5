/* The raw grid barrier on OpenCL, through the ICD loader directly: one
 * device, a profiling in-order queue, the two buffers, one kernel per
 * variant built with device-scope atomics where the device has them
 * (OpenCL C 2.x, or 3.0 with __opencl_c_atomic_scope_device and
 * __opencl_c_atomic_order_acq_rel) and the 1.2 built-ins with mem_fence
 * otherwise. A run zeroes the buffers, launches (its event's
 * CL_PROFILING_COMMAND_START to _END is the time, as the plugin's), waits
 * with the deadline and reads the buffers back. */
#define CL_TARGET_OPENCL_VERSION 300
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <CL/cl.h>

#include "bench/raw_barrier.h"

typedef struct cl_ctx {
  const rb_opts *o;
  cl_device_id dev;
  cl_context ctx;
  cl_command_queue q;
  cl_mem buf[2]; /* o, c */
  cl_program prog[RB_NVARIANTS];
  cl_kernel kern[RB_NVARIANTS];
} cl_ctx;

static int cl_failed(vc_error *err, const char *what, cl_int st) {
  return vc_fail(err, VC_ERR_DEVICE, "%s: OpenCL status %d", what, (int)st);
}

/* The device: o's selectors over the platforms in order, else the first
   GPU of any platform. */
static int pick(cl_ctx *c, char *name, size_t n, char *plat, size_t pn, vc_error *err) {
  cl_platform_id ps[16];
  cl_uint np = 0;
  cl_int st = clGetPlatformIDs(16, ps, &np);
  if (st != CL_SUCCESS || np == 0)
    return vc_fail(err, VC_ERR_NO_DRIVER, "no OpenCL platform (clGetPlatformIDs: %d)", (int)st);
  if (np > 16) np = 16;
  uint32_t index = 0; /* over the devices of the platforms selected */
  for (cl_uint p = 0; p < np; p++) {
    char pname[256] = "";
    clGetPlatformInfo(ps[p], CL_PLATFORM_NAME, sizeof pname - 1, pname, NULL);
    if (c->o->cl_platform && !rb_selects(c->o->cl_platform, p, pname)) continue;
    cl_device_id ds[64];
    cl_uint nd = 0;
    if (clGetDeviceIDs(ps[p], CL_DEVICE_TYPE_ALL, 64, ds, &nd) != CL_SUCCESS) continue;
    if (nd > 64) nd = 64;
    for (cl_uint d = 0; d < nd; d++, index++) {
      char dname[256] = "";
      cl_device_type type = 0;
      clGetDeviceInfo(ds[d], CL_DEVICE_NAME, sizeof dname - 1, dname, NULL);
      clGetDeviceInfo(ds[d], CL_DEVICE_TYPE, sizeof type, &type, NULL);
      bool ok = c->o->cl_device ? rb_selects(c->o->cl_device, index, dname)
                                : (type & CL_DEVICE_TYPE_GPU) != 0;
      if (ok) {
        c->dev = ds[d];
        snprintf(name, n, "%s", dname);
        snprintf(plat, pn, "%s", pname);
        return 0;
      }
    }
  }
  return vc_fail(err, VC_ERR_NO_DEVICE, "no OpenCL device %s%s%s%s",
                 c->o->cl_device ? "matches " : "is a GPU", c->o->cl_device ? c->o->cl_device : "",
                 c->o->cl_platform ? " on platform " : "",
                 c->o->cl_platform ? c->o->cl_platform : "");
}

static bool has_feature(cl_device_id d, const char *want) {
  size_t size = 0;
  if (clGetDeviceInfo(d, CL_DEVICE_OPENCL_C_FEATURES, 0, NULL, &size) != CL_SUCCESS || !size)
    return false;
  cl_name_version *f = malloc(size);
  bool found = false;
  if (f && clGetDeviceInfo(d, CL_DEVICE_OPENCL_C_FEATURES, size, f, NULL) == CL_SUCCESS)
    for (size_t i = 0; i < size / sizeof *f && !found; i++)
      found = strncmp(f[i].name, want, CL_NAME_VERSION_MAX_NAME_SIZE) == 0;
  free(f);
  return found;
}

/* The -cl-std with device-scope atomics, or "" when the device has none. */
static const char *scope_std(cl_device_id d) {
  size_t size = 0;
  unsigned best = 0;
  if (clGetDeviceInfo(d, CL_DEVICE_OPENCL_C_ALL_VERSIONS, 0, NULL, &size) == CL_SUCCESS && size) {
    cl_name_version *v = malloc(size);
    if (v && clGetDeviceInfo(d, CL_DEVICE_OPENCL_C_ALL_VERSIONS, size, v, NULL) == CL_SUCCESS)
      for (size_t i = 0; i < size / sizeof *v; i++) {
        unsigned ver = CL_VERSION_MAJOR(v[i].version) * 10u + CL_VERSION_MINOR(v[i].version);
        if (ver > best) best = ver;
      }
    free(v);
  }
  if (!best) {
    char s[128] = "";
    unsigned major = 1, minor = 2;
    clGetDeviceInfo(d, CL_DEVICE_OPENCL_C_VERSION, sizeof s - 1, s, NULL);
    if (sscanf(s, "OpenCL C %u.%u", &major, &minor) == 2) best = major * 10u + minor;
  }
  if (best >= 30)
    return has_feature(d, "__opencl_c_atomic_scope_device") &&
                   has_feature(d, "__opencl_c_atomic_order_acq_rel")
               ? "-cl-std=CL3.0"
               : "";
  return best >= 20 ? "-cl-std=CL2.0" : "";
}

static int build(cl_ctx *c, rb_variant v, bool scope, const char *std, vc_error *err) {
  const char *src = rb_opencl_c(v, scope);
  cl_int st;
  c->prog[v] = clCreateProgramWithSource(c->ctx, 1, &src, NULL, &st);
  if (st != CL_SUCCESS) return cl_failed(err, "clCreateProgramWithSource", st);
  st = clBuildProgram(c->prog[v], 1, &c->dev, scope ? std : "", NULL, NULL);
  if (st != CL_SUCCESS) {
    char log[2048] = "";
    clGetProgramBuildInfo(c->prog[v], c->dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
    return vc_fail(err, VC_ERR_COMPILE, "variant %s: clBuildProgram: %d: %s", rb_variant_key(v),
                   (int)st, log);
  }
  c->kern[v] = clCreateKernel(c->prog[v], "rb_main", &st);
  if (st != CL_SUCCESS) return cl_failed(err, "clCreateKernel", st);
  return 0;
}

static void cl_close(void *p) {
  cl_ctx *c = p;
  if (!c) return;
  if (c->q) clFinish(c->q);
  for (uint32_t v = 0; v < RB_NVARIANTS; v++) {
    if (c->kern[v]) clReleaseKernel(c->kern[v]);
    if (c->prog[v]) clReleaseProgram(c->prog[v]);
  }
  for (uint32_t i = 0; i < 2; i++)
    if (c->buf[i]) clReleaseMemObject(c->buf[i]);
  if (c->q) clReleaseCommandQueue(c->q);
  if (c->ctx) clReleaseContext(c->ctx);
  free(c);
}

static int setup(cl_ctx *c, char *ident, size_t n, vc_error *err) {
  char name[256], plat[256];
  int rc = pick(c, name, sizeof name, plat, sizeof plat, err);
  if (rc) return rc;
  const char *std = scope_std(c->dev);
  bool scope = *std != '\0';
  if (c->o->cl_atomics == RB_CL_DEVICE && !scope)
    return vc_fail(err, VC_ERR_UNSUPPORTED,
                   "%s has no device-scope atomics (--opencl-atomics device)", name);
  if (c->o->cl_atomics == RB_CL_12) scope = false;
  cl_int st;
  c->ctx = clCreateContext(NULL, 1, &c->dev, NULL, NULL, &st);
  if (st != CL_SUCCESS) return cl_failed(err, "clCreateContext", st);
  cl_queue_properties qp[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  c->q = clCreateCommandQueueWithProperties(c->ctx, c->dev, qp, &st);
  if (st != CL_SUCCESS) return cl_failed(err, "clCreateCommandQueueWithProperties", st);
  c->buf[0] = clCreateBuffer(c->ctx, CL_MEM_READ_WRITE, RB_WORDS * 4u, NULL, &st);
  if (st == CL_SUCCESS)
    c->buf[1] = clCreateBuffer(c->ctx, CL_MEM_READ_WRITE, RB_CTRL_WORDS * 4u, NULL, &st);
  if (st != CL_SUCCESS) return cl_failed(err, "clCreateBuffer", st);
  for (uint32_t v = 0; rc == 0 && v < RB_NVARIANTS; v++)
    rc = build(c, (rb_variant)v, scope, std, err);
  if (rc) return rc;
  char drv[128] = "", ver[128] = "";
  cl_uint units = 0;
  clGetDeviceInfo(c->dev, CL_DRIVER_VERSION, sizeof drv - 1, drv, NULL);
  clGetDeviceInfo(c->dev, CL_DEVICE_VERSION, sizeof ver - 1, ver, NULL);
  clGetDeviceInfo(c->dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
  snprintf(ident, n, "%s on %s (%s, driver %s, %u compute units), ordering: %s", name, plat, ver,
           drv, units,
           scope ? "OpenCL C 2.0 atomics, acq_rel/relaxed, memory_scope_device"
                 : "OpenCL 1.2 atomics, mem_fence, volatile buffers");
  if (scope) snprintf(ident + strlen(ident), n - strlen(ident), " (%s)", std);
  return 0;
}

static int cl_open(const rb_opts *o, void **ctx, char *ident, size_t n, vc_error *err) {
  cl_ctx *c = calloc(1, sizeof *c);
  if (!c) return vc_fail(err, VC_ERR_NOMEM, "no memory");
  c->o = o;
  int rc = setup(c, ident, n, err);
  if (rc) {
    cl_close(c);
    return rc;
  }
  *ctx = c;
  return 0;
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Polls ev until it completes or the deadline passes: a barrier whose
   workgroups are not all resident never ends, and must not hang us. */
static int wait_for(cl_ctx *c, cl_event ev, rb_variant v, vc_error *err) {
  cl_int st = clFlush(c->q);
  if (st != CL_SUCCESS) return cl_failed(err, "clFlush", st);
  uint64_t end = now_ns() + (uint64_t)c->o->deadline_s * 1000000000u;
  for (;;) {
    cl_int status = CL_COMPLETE;
    st = clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
    if (st != CL_SUCCESS) return cl_failed(err, "clGetEventInfo", st);
    if (status < 0) return cl_failed(err, "the launch", status);
    if (status == CL_COMPLETE) return 0;
    if (now_ns() >= end)
      return vc_fail(err, VC_ERR_TIMEOUT,
                     "opencl %s: the run did not finish within %u s (--deadline); it may still be "
                     "running: were all %u workgroups resident?",
                     rb_variant_key(v), c->o->deadline_s, c->o->grid);
    struct timespec nap = {0, 50000};
    nanosleep(&nap, NULL);
  }
}

static int cl_run(void *p, rb_variant v, uint32_t barriers, rb_run *out, vc_error *err) {
  cl_ctx *c = p;
  cl_kernel k = c->kern[v];
  cl_uint zero = 0, spin = c->o->spin;
  cl_int st =
      clEnqueueFillBuffer(c->q, c->buf[0], &zero, sizeof zero, 0, RB_WORDS * 4u, 0, NULL, NULL);
  if (st == CL_SUCCESS)
    st = clEnqueueFillBuffer(c->q, c->buf[1], &zero, sizeof zero, 0, RB_CTRL_WORDS * 4u, 0, NULL,
                             NULL);
  if (st == CL_SUCCESS) st = clSetKernelArg(k, 0, sizeof(cl_mem), &c->buf[0]);
  if (st == CL_SUCCESS) st = clSetKernelArg(k, 1, sizeof(cl_mem), &c->buf[1]);
  if (st == CL_SUCCESS) st = clSetKernelArg(k, 2, sizeof(cl_uint), &barriers);
  if (st == CL_SUCCESS) st = clSetKernelArg(k, 3, sizeof(cl_uint), &spin);
  if (st != CL_SUCCESS) return cl_failed(err, "setting up a run", st);
  size_t global = (size_t)c->o->grid * RB_WORKGROUP, local = RB_WORKGROUP;
  cl_event ev;
  st = clEnqueueNDRangeKernel(c->q, k, 1, NULL, &global, &local, 0, NULL, &ev);
  if (st != CL_SUCCESS) return cl_failed(err, "clEnqueueNDRangeKernel", st);
  int rc = wait_for(c, ev, v, err);
  if (rc) return rc; /* the event stays: the kernel may still run */
  cl_ulong t0 = 0, t1 = 0;
  st = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
  if (st == CL_SUCCESS)
    st = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
  clReleaseEvent(ev);
  if (st != CL_SUCCESS) return cl_failed(err, "clGetEventProfilingInfo", st);
  out->ns = t1 >= t0 ? t1 - t0 : 0;
  st = clEnqueueReadBuffer(c->q, c->buf[0], CL_TRUE, 0, RB_WORDS * 4u, out->words, 0, NULL, NULL);
  if (st == CL_SUCCESS)
    st = clEnqueueReadBuffer(c->q, c->buf[1], CL_TRUE, 0, RB_CTRL_WORDS * 4u, out->ctrl, 0, NULL,
                             NULL);
  if (st != CL_SUCCESS) return cl_failed(err, "clEnqueueReadBuffer", st);
  return 0;
}

const rb_api rb_opencl = {"opencl", cl_open, cl_run, cl_close};
