/* Platforms and devices: the devices of all platforms, in platform order,
 * numbered from 0; opening one makes a context and an in-order profiling
 * queue; describing one records what the device reports. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/opencl/ocl_internal.h"

/* Why there is no platform, in words a user can act on. */
static int no_driver(vc_error *err, cl_int status) {
  const char *env = getenv("OCL_ICD_VENDORS");
  return vc_fail(err, VC_ERR_NO_DRIVER,
                 "OpenCL: no platform (clGetPlatformIDs: %s): the ICD loader found no driver; "
                 "install one (e.g. pocl-opencl-icd) or check OCL_ICD_VENDORS (%s%s%s) and "
                 "the .icd files in /etc/OpenCL/vendors",
                 vc_ocl_status_name(status), env ? "set to \"" : "unset", env ? env : "",
                 env ? "\"" : "");
}

/* The platforms, malloc'ed into *out. */
static int platforms(cl_platform_id **out, cl_uint *n, vc_error *err) {
  *out = NULL;
  *n = 0;
  cl_int st = clGetPlatformIDs(0, NULL, n);
  if (st == CL_PLATFORM_NOT_FOUND_KHR || (st == CL_SUCCESS && *n == 0)) return no_driver(err, st);
  if (st != CL_SUCCESS) return vc_ocl_fail(err, VC_ERR_NO_DRIVER, NULL, "clGetPlatformIDs", st);
  *out = calloc(*n, sizeof **out);
  if (!*out) return vc_fail(err, VC_ERR_NOMEM, "OpenCL: out of memory listing platforms");
  st = clGetPlatformIDs(*n, *out, NULL);
  if (st != CL_SUCCESS) {
    free(*out);
    *out = NULL;
    return vc_ocl_fail(err, VC_ERR_NO_DRIVER, NULL, "clGetPlatformIDs", st);
  }
  return 0;
}

static cl_uint devices_of(cl_platform_id p) {
  cl_uint n = 0;
  if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, NULL, &n) != CL_SUCCESS) return 0;
  return n;
}

int vc_ocl_device_count(uint32_t *count, vc_error *err) {
  cl_platform_id *ps;
  cl_uint np;
  *count = 0;
  int rc = platforms(&ps, &np, err);
  if (rc) return rc;
  for (cl_uint i = 0; i < np; i++) *count += devices_of(ps[i]);
  free(ps);
  if (*count == 0)
    return vc_fail(err, VC_ERR_NO_DEVICE, "OpenCL: %u platform(s) but no device", (unsigned)np);
  return 0;
}

/* Finds device `index` counting over all platforms. */
static int find_device(uint32_t index, cl_platform_id *pp, cl_device_id *dp, vc_error *err) {
  cl_platform_id *ps;
  cl_uint np;
  int rc = platforms(&ps, &np, err);
  if (rc) return rc;
  uint32_t seen = 0;
  for (cl_uint i = 0; i < np; i++) {
    cl_uint nd = devices_of(ps[i]);
    if (index < seen + nd) {
      cl_device_id *ds = calloc(nd, sizeof *ds);
      cl_int st = CL_OUT_OF_HOST_MEMORY;
      if (ds) st = clGetDeviceIDs(ps[i], CL_DEVICE_TYPE_ALL, nd, ds, NULL);
      if (st == CL_SUCCESS) {
        *pp = ps[i];
        *dp = ds[index - seen];
      }
      free(ds);
      free(ps);
      return st == CL_SUCCESS ? 0 : vc_ocl_fail(err, VC_ERR_NO_DEVICE, NULL, "clGetDeviceIDs", st);
    }
    seen += nd;
  }
  free(ps);
  if (seen == 0)
    return vc_fail(err, VC_ERR_NO_DEVICE, "OpenCL: %u platform(s) but no device", (unsigned)np);
  return vc_fail(err, VC_ERR_NO_DEVICE, "OpenCL: no device %u (there are %u)", index, seen);
}

/* Copies a property string; newlines become spaces so that the value fits a
   "key=value" line, and a value too long is cut. */
static void clean_copy(char *out, size_t n, const char *src) {
  snprintf(out, n, "%s", src);
  for (char *c = out; *c; c++)
    if (*c == '\n' || *c == '\r') *c = ' ';
}

/* A string property of a device or (d NULL) a platform; "" when the query fails. */
static void info_str(cl_device_id d, cl_platform_id p, cl_uint what, char *out, size_t n) {
  size_t size = 0;
  out[0] = '\0';
  cl_int st = d ? clGetDeviceInfo(d, what, 0, NULL, &size)
                : clGetPlatformInfo(p, what, 0, NULL, &size);
  if (st != CL_SUCCESS || size == 0) return;
  char *tmp = malloc(size + 1);
  if (!tmp) return;
  st = d ? clGetDeviceInfo(d, what, size, tmp, NULL) : clGetPlatformInfo(p, what, size, tmp, NULL);
  if (st == CL_SUCCESS) {
    tmp[size] = '\0';
    clean_copy(out, n, tmp);
  }
  free(tmp);
}

static void dev_str(cl_device_id d, cl_device_info what, char *out, size_t n) {
  info_str(d, NULL, what, out, n);
}

static cl_ulong dev_ulong(cl_device_id d, cl_device_info what) {
  cl_ulong v = 0;
  if (clGetDeviceInfo(d, what, sizeof v, &v, NULL) != CL_SUCCESS) v = 0;
  return v;
}

static cl_uint dev_uint(cl_device_id d, cl_device_info what) {
  cl_uint v = 0;
  if (clGetDeviceInfo(d, what, sizeof v, &v, NULL) != CL_SUCCESS) v = 0;
  return v;
}

static size_t dev_size(cl_device_id d, cl_device_info what) {
  size_t v = 0;
  if (clGetDeviceInfo(d, what, sizeof v, &v, NULL) != CL_SUCCESS) v = 0;
  return v;
}

/* "-cl-std" from "OpenCL C <major>.<minor> ...": the generated code needs 1.2
   at most, but a newer device compiles for its own version. */
static void pick_cl_std(cl_device_id d, char *out, size_t n) {
  char v[128];
  unsigned major = 1, minor = 2;
  dev_str(d, CL_DEVICE_OPENCL_C_VERSION, v, sizeof v);
  if (sscanf(v, "OpenCL C %u.%u", &major, &minor) != 2) major = 1, minor = 2;
  snprintf(out, n, "CL%u.%u", major, minor);
}

int vc_ocl_open(uint32_t index, const char *options, vc_dev **out, vc_error *err) {
  *out = NULL;
  vc_dev *d = calloc(1, sizeof *d);
  if (!d) return vc_fail(err, VC_ERR_NOMEM, "OpenCL: out of memory opening device %u", index);
  int rc = find_device(index, &d->platform, &d->device, err);
  if (rc) {
    free(d);
    return rc;
  }
  char name[256];
  dev_str(d->device, CL_DEVICE_NAME, name, sizeof name);
  snprintf(d->label, sizeof d->label, "OpenCL device %u (%s)", index, name);
  pick_cl_std(d->device, d->cl_std, sizeof d->cl_std);
  d->max_wg = dev_size(d->device, CL_DEVICE_MAX_WORK_GROUP_SIZE);
  if (clGetDeviceInfo(d->device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof d->max_items,
                      d->max_items, NULL) != CL_SUCCESS)
    d->max_items[0] = d->max_items[1] = d->max_items[2] = d->max_wg;
  d->local_mem = dev_ulong(d->device, CL_DEVICE_LOCAL_MEM_SIZE);
  d->compute_units = dev_uint(d->device, CL_DEVICE_MAX_COMPUTE_UNITS);
  {
    char ext[8192];
    dev_str(d->device, CL_DEVICE_EXTENSIONS, ext, sizeof ext);
    d->int64_base_atomics = strstr(ext, "cl_khr_int64_base_atomics") != NULL;
    d->int64_extended_atomics = strstr(ext, "cl_khr_int64_extended_atomics") != NULL;
  }
  rc = vc_ocl_parse_options(d, options, err);
  if (rc) {
    free(d);
    return rc;
  }
  vc_ocl_native_caps(d);
  cl_int st;
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)d->platform, 0};
  d->ctx = clCreateContext(props, 1, &d->device, NULL, NULL, &st);
  if (st != CL_SUCCESS) {
    rc = vc_ocl_fail(err, VC_ERR_DEVICE, d, "clCreateContext", st);
    free(d);
    return rc;
  }
  d->queue = clCreateCommandQueue(d->ctx, d->device, CL_QUEUE_PROFILING_ENABLE, &st);
  if (st != CL_SUCCESS) {
    rc = vc_ocl_fail(err, VC_ERR_DEVICE, d, "clCreateCommandQueue", st);
    clReleaseContext(d->ctx);
    free(d);
    return rc;
  }
  *out = d;
  return 0;
}

void vc_ocl_close(vc_dev *d) {
  if (!d) return;
  clFinish(d->queue);
  vc_ocl_drop_events(d);
  vc_ocl_host_free_all(d);
  free(d->events);
  clReleaseCommandQueue(d->queue);
  clReleaseContext(d->ctx);
  free(d);
}

static void extra_line(vc_device_info *info, const char *key, const char *val) {
  size_t len = strlen(info->extra);
  snprintf(info->extra + len, sizeof info->extra - len, "%s=%s\n", key, val);
}

static void extra_u64(vc_device_info *info, const char *key, unsigned long long v) {
  char s[32];
  snprintf(s, sizeof s, "%llu", v);
  extra_line(info, key, s);
}

static void uuid(cl_device_id d, char *out, size_t n) {
  cl_uchar u[CL_UUID_SIZE_KHR];
  out[0] = '\0';
  if (clGetDeviceInfo(d, CL_DEVICE_UUID_KHR, sizeof u, u, NULL) != CL_SUCCESS) return;
  for (size_t i = 0; i < sizeof u && 2 * i + 2 < n; i++) snprintf(out + 2 * i, 3, "%02x", u[i]);
}

static void float_env(cl_device_id d, char *out, size_t n) {
  cl_device_fp_config fp = 0;
  if (clGetDeviceInfo(d, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp, NULL) != CL_SUCCESS) fp = 0;
  snprintf(out, n, "denorm32=%s rounding32=%s fma32=%s", fp & CL_FP_DENORM ? "preserve" : "flush",
           fp & CL_FP_ROUND_TO_NEAREST ? "rte" : "other", fp & CL_FP_FMA ? "yes" : "no");
}

/* "OpenCL <major.minor>" from CL_DEVICE_VERSION; the vendor part that follows
   is recorded whole as device_version. */
static void api_version(cl_device_id d, char *out, size_t n) {
  char v[256];
  unsigned major = 0, minor = 0;
  dev_str(d, CL_DEVICE_VERSION, v, sizeof v);
  if (sscanf(v, "OpenCL %u.%u", &major, &minor) == 2)
    snprintf(out, n, "OpenCL %u.%u", major, minor);
  else
    snprintf(out, n, "%s", v);
}

/* String properties recorded verbatim in extra. */
static const struct {
  const char *key;
  bool platform;
  cl_uint what;
} strings[] = {
    {"platform_name", true, CL_PLATFORM_NAME},     {"platform_version", true, CL_PLATFORM_VERSION},
    {"platform_vendor", true, CL_PLATFORM_VENDOR}, {"device_vendor", false, CL_DEVICE_VENDOR},
    {"device_version", false, CL_DEVICE_VERSION},
    {"opencl_c_version", false, CL_DEVICE_OPENCL_C_VERSION},
};

int vc_ocl_describe(vc_dev *d, vc_device_info *info, vc_error *err) {
  (void)err;
  char s[1024];
  memset(info, 0, sizeof *info);
  snprintf(info->api, sizeof info->api, "opencl");
  api_version(d->device, info->api_version, sizeof info->api_version);
  info_str(NULL, d->platform, CL_PLATFORM_NAME, info->driver_name, sizeof info->driver_name);
  dev_str(d->device, CL_DRIVER_VERSION, info->driver_version, sizeof info->driver_version);
  info->vendor_id = dev_uint(d->device, CL_DEVICE_VENDOR_ID);
  dev_str(d->device, CL_DEVICE_NAME, info->device_name, sizeof info->device_name);
  uuid(d->device, info->uuid, sizeof info->uuid);
  info->compute_units = dev_uint(d->device, CL_DEVICE_MAX_COMPUTE_UNITS);
  info->max_workgroup_invocations = (uint32_t)d->max_wg;
  for (int i = 0; i < 3; i++) {
    info->max_workgroup_size[i] = (uint32_t)d->max_items[i];
    info->max_grid[i] = UINT32_MAX; /* OpenCL bounds only the global size (size_t) */
  }
  info->max_shared_bytes = d->local_mem;
  info->max_buffer_bytes = dev_ulong(d->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  info->global_mem_bytes = dev_ulong(d->device, CL_DEVICE_GLOBAL_MEM_SIZE);
  info->timestamps = true;
  info->cooperative = false; /* OpenCL promises no co-residency */
  float_env(d->device, info->float_env, sizeof info->float_env);

  for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++) {
    info_str(strings[i].platform ? NULL : d->device, d->platform, strings[i].what, s, sizeof s);
    extra_line(info, strings[i].key, s);
  }
  extra_line(info, "build_std", d->cl_std);
  char nstd[16];
  vc_ocl_native_std(d, nstd, sizeof nstd);
  extra_line(info, "native_build_std", nstd);
  extra_line(info, "native_ordering", d->native_device_scope ? "device-scope acquire/release"
                                                             : "opencl-1.2 atomics and fences");
  extra_line(info, "native_gridbar", vc_gridbar_name((vc_gridbar)d->native.gridbar));
  extra_line(info, "native_segments",
             vc_kv_choice_name(vc_native_segments_choices, d->native.loop_segments));
  extra_line(info, "native_discovery",
             vc_kv_choice_name(vc_native_discovery_choices, d->native.discover_cas));
  extra_line(info, "native_join", d->native.join_direct ? "direct" : "slot");
  extra_u64(info, "profiling_timer_resolution_ns",
            dev_size(d->device, CL_DEVICE_PROFILING_TIMER_RESOLUTION));
  extra_u64(info, "max_clock_mhz", dev_uint(d->device, CL_DEVICE_MAX_CLOCK_FREQUENCY));
  extra_u64(info, "local_mem_bytes", d->local_mem);
  cl_device_type type = 0;
  clGetDeviceInfo(d->device, CL_DEVICE_TYPE, sizeof type, &type, NULL);
  extra_line(info, "device_type", type & CL_DEVICE_TYPE_GPU   ? "gpu"
                                  : type & CL_DEVICE_TYPE_CPU ? "cpu"
                                                              : "other");
  dev_str(d->device, CL_DEVICE_EXTENSIONS, s, sizeof s);
  extra_line(info, "extensions", s); /* last: the longest, cut at the end of extra */
  return 0;
}
