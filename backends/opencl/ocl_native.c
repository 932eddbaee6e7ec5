/* Native kernels on OpenCL (docs/native.md): which ordering the device
 * allows, the persistent grid's shape, the control buffer written before
 * every launch and judged after it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/opencl/ocl_internal.h"

/* An array property of cl_name_version entries, malloc'ed; NULL when the
   device does not answer (OpenCL before 3.0). */
static cl_name_version *name_versions(cl_device_id d, cl_device_info what, size_t *n) {
  size_t size = 0;
  *n = 0;
  if (clGetDeviceInfo(d, what, 0, NULL, &size) != CL_SUCCESS || size < sizeof(cl_name_version))
    return NULL;
  cl_name_version *v = malloc(size);
  if (!v) return NULL;
  if (clGetDeviceInfo(d, what, size, v, NULL) != CL_SUCCESS) {
    free(v);
    return NULL;
  }
  *n = size / sizeof *v;
  return v;
}

static bool has_feature(const cl_name_version *f, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (strncmp(f[i].name, name, CL_NAME_VERSION_MAX_NAME_SIZE) == 0) return true;
  return false;
}

/* The highest OpenCL C version the device compiles: 3.0 devices list them
   all; older ones give one string. */
static unsigned max_c_version(cl_device_id d) {
  size_t n = 0;
  cl_name_version *v = name_versions(d, CL_DEVICE_OPENCL_C_ALL_VERSIONS, &n);
  unsigned best = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned ver = CL_VERSION_MAJOR(v[i].version) * 100u + CL_VERSION_MINOR(v[i].version) * 10u;
    if (ver > best) best = ver;
  }
  free(v);
  if (best) return best;
  char s[128] = "";
  unsigned major = 1, minor = 2;
  clGetDeviceInfo(d, CL_DEVICE_OPENCL_C_VERSION, sizeof s - 1, s, NULL);
  if (sscanf(s, "OpenCL C %u.%u", &major, &minor) != 2) major = 1, minor = 2;
  return major * 100u + minor * 10u;
}

/* Polls of the discovery window: a GPU starts its workgroups together; a
   CPU device's worker threads start milliseconds apart (PoCL 3.1 on two
   cores: 2^24 polls, about 10 ms, nearly always see the second one). */
#define WINDOW_GPU 4096u
#define WINDOW_CPU (1u << 24)
/* Rounds of 1024 polls before a wait gives up: a backstop for a wait that
   can never end, tens of seconds on PoCL 3.1 (a device-scope poll took
   0.5 ns there, an OpenCL 1.2 one, an atomic read-modify-write, 34 ns). */
#define SPIN_DEVICE_SCOPE (1u << 25)
#define SPIN_CL12 (1u << 20)

void vc_ocl_native_caps(vc_dev *d) {
  if (!d->native.window_given) {
    cl_device_type type = 0;
    clGetDeviceInfo(d->device, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    d->native.ctrl.window = (type & CL_DEVICE_TYPE_CPU) ? WINDOW_CPU : WINDOW_GPU;
  }
  unsigned ver = max_c_version(d->device);
  d->scope_available = false;
  if (ver >= 300) {
    size_t n = 0;
    cl_name_version *f = name_versions(d->device, CL_DEVICE_OPENCL_C_FEATURES, &n);
    d->scope_available = has_feature(f, n, "__opencl_c_atomic_scope_device") &&
                         has_feature(f, n, "__opencl_c_atomic_order_acq_rel");
    free(f);
    d->scope_c_version = 300;
  } else if (ver >= 200) {
    d->scope_available = true; /* core in OpenCL C 2.x */
    d->scope_c_version = 200;
  }
  d->native_device_scope = d->native.atomics == VC_OCL_ATOMICS_CL12 ? false : d->scope_available;
  if (!d->native.spin_given)
    d->native.ctrl.spin_limit = d->native_device_scope ? SPIN_DEVICE_SCOPE : SPIN_CL12;
}

void vc_ocl_native_opts(const vc_dev *d, vc_native_opts *o) {
  vc_native_opts_default(VC_DIALECT_OPENCL_C, o);
  if (d) o->gridbar = (vc_gridbar)d->native.gridbar;
  /* a kernel without a grid barrier: no slot, no workgroup barrier at the
     join (native-join=direct); on the H200 it was slower than the slot's
     (22.9 against 20.7 us, 19.8 against 22.3 us the other way round), so
     not the default */
  o->join_direct = d && d->native.join_direct;
  o->loop_segments = d && d->native.loop_segments;
  o->discover_cas = d && d->native.discover_cas;
  if (d && d->native_device_scope) {
    o->opencl_device_scope = true;
    o->opencl_c_version = d->scope_c_version;
  }
}

void vc_ocl_native_std(const vc_dev *d, char *out, size_t n) {
  if (d->native_device_scope)
    snprintf(out, n, "CL%u.%u", d->scope_c_version / 100, d->scope_c_version / 10 % 10);
  else
    snprintf(out, n, "%s", d->cl_std);
}

/* One launch of one workgroup that finds the poll closed and so touches
   nothing but the control buffer: drivers that finish compiling at the
   first launch (PoCL builds its workgroup function then, which for a
   kernel with many barriers in loops takes tens of seconds) do it here,
   counted as compile time and not under finish's deadline. */
static int warm_up(vc_dev *d, vc_kern *kern, vc_error *err) {
  cl_int st;
  cl_mem dummy = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, sizeof(uint32_t), NULL, &st);
  if (st != CL_SUCCESS) return vc_ocl_fail(err, VC_ERR_DEVICE, d, "clCreateBuffer(warm-up)", st);
  for (uint32_t i = 0; i < kern->nbufs && st == CL_SUCCESS; i++)
    st = clSetKernelArg(kern->kernel, i, sizeof dummy, &dummy);
  uint32_t words[VC_NC_WORDS];
  vc_native_ctrl_init(words, &kern->ctrl_opts);
  words[VC_NC_POLL] = VC_NC_CLOSED;
  if (st == CL_SUCCESS) st = clSetKernelArg(kern->kernel, kern->nbufs, sizeof kern->ctrl, &kern->ctrl);
  if (st == CL_SUCCESS)
    st = clEnqueueWriteBuffer(d->queue, kern->ctrl, CL_TRUE, 0, sizeof words, words, 0, NULL, NULL);
  if (st == CL_SUCCESS)
    st = clEnqueueNDRangeKernel(d->queue, kern->kernel, 3, NULL, kern->local, kern->local, 0, NULL,
                                NULL);
  if (st == CL_SUCCESS) st = clFinish(d->queue);
  clReleaseMemObject(dummy);
  if (st != CL_SUCCESS)
    return vc_fail(err, VC_ERR_DEVICE, "%s: %s: first launch (warm-up): %s", d->label, kern->label,
                   vc_ocl_status_name(st));
  return 0;
}

/* Tickets after which the discovery poll closes (VC_NC_EXPECT): what can
   be resident at once at most, so that closing then loses no one. Never
   more than the launched workgroups, each of which takes one ticket at
   most; on a CPU device a compute unit is a worker thread, which runs one
   workgroup at a time to its end. */
static uint32_t expect_of(const vc_dev *d, uint32_t launched) {
  cl_device_type type = 0;
  clGetDeviceInfo(d->device, CL_DEVICE_TYPE, sizeof type, &type, NULL);
  if ((type & CL_DEVICE_TYPE_CPU) && d->compute_units && d->compute_units < launched)
    return d->compute_units;
  return launched;
}

int vc_ocl_native_setup(vc_dev *d, const vc_kernel_desc *k, vc_kern *kern, vc_error *err) {
  kern->native = true;
  kern->nbufs = k->native->nbuffers;
  vc_native_shape_of(k, false, &kern->shape);
  uint32_t cap = d->native.max_wgs;
  if (cap == 0) cap = (d->compute_units ? d->compute_units : 1) * 16u;
  kern->launched = kern->shape.virtual_wgs < cap ? kern->shape.virtual_wgs : cap;
  kern->global[0] = (size_t)kern->launched * kern->local[0];
  kern->global[1] = kern->local[1];
  kern->global[2] = kern->local[2];
  kern->ctrl_opts = d->native.ctrl;
  if (!d->native.expect_given) kern->ctrl_opts.expect = expect_of(d, kern->launched);
  cl_int st;
  kern->ctrl = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE,
                              vc_native_ctrl_words(kern->launched) * sizeof(uint32_t), NULL, &st);
  if (st != CL_SUCCESS)
    return vc_fail(err, VC_ERR_DEVICE, "%s: %s: clCreateBuffer(control buffer): %s", d->label,
                   kern->label, vc_ocl_status_name(st));
  return warm_up(d, kern, err);
}

int vc_ocl_native_prepare(vc_dev *d, vc_kern *kern, vc_error *err) {
  cl_int st = clSetKernelArg(kern->kernel, kern->nbufs, sizeof(cl_mem), &kern->ctrl);
  if (st != CL_SUCCESS)
    return vc_fail(err, VC_ERR_DEVICE, "%s: %s: clSetKernelArg(control buffer): %s", d->label,
                   kern->label, vc_ocl_status_name(st));
  uint32_t words[VC_NC_WORDS];
  vc_native_ctrl_init(words, &kern->ctrl_opts);
  st = clEnqueueWriteBuffer(d->queue, kern->ctrl, CL_TRUE, 0, sizeof words, words, 0, NULL, NULL);
  if (st != CL_SUCCESS)
    return vc_fail(err, VC_ERR_DEVICE, "%s: %s: resetting the control buffer: %s", d->label,
                   kern->label, vc_ocl_status_name(st));
  kern->ran = true;
  return 0;
}

int vc_ocl_native_stats(vc_dev *d, vc_kern *kern, vc_native_stats *stats, vc_error *err) {
  if (!kern || !kern->native)
    return vc_fail(err, VC_ERR_USAGE, "%s: native_stats of a kernel that is not native", d->label);
  if (!kern->ran)
    return vc_fail(err, VC_ERR_USAGE, "%s: %s: native_stats before any launch", d->label,
                   kern->label);
  uint32_t words[VC_NC_WORDS];
  cl_int st =
      clEnqueueReadBuffer(d->queue, kern->ctrl, CL_TRUE, 0, sizeof words, words, 0, NULL, NULL);
  if (st != CL_SUCCESS)
    return vc_fail(err, VC_ERR_DEVICE, "%s: %s: reading the control buffer: %s", d->label,
                   kern->label, vc_ocl_status_name(st));
  vc_native_ctrl_stats(words, &kern->shape, kern->launched, stats);
  return 0;
}
