/* Kernels: the generated OpenCL C, built for the device with the device's
 * OpenCL C version and no fast-math flags, checked against the device's
 * workgroup and local-memory limits. Native kernels come from the native
 * generator with the ordering the device allows (ocl_native.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/common/cgen/cgen.h"
#include "backends/common/cgen/cgen_dialect.h"
#include "backends/opencl/ocl_internal.h"
#include "harness/base/clock.h"

static const char *label_of(const vc_kernel_desc *k) { return k->label ? k->label : "kernel"; }

/* Without a device, native kernels get the portable OpenCL 1.2 ordering. */
int vc_ocl_emit(const vc_kernel_desc *k, vc_dev *dev, char **source, vc_error *err) {
  vc_strbuf sb;
  vc_sb_init(&sb);
  *source = NULL;
  int rc;
  if (k && k->kind == VC_KERNEL_NATIVE) {
    vc_native_opts o;
    vc_ocl_native_opts(dev, &o);
    rc = vc_cgen_native(k, &o, &sb, err);
  } else {
    rc = vc_cgen_kernel(k, VC_DIALECT_OPENCL_C, &sb, err);
  }
  if (rc) {
    vc_sb_free(&sb);
    return rc;
  }
  *source = vc_sb_take(&sb);
  return 0;
}

static uint64_t shared_bytes(const vc_program *p) {
  uint64_t n = 0;
  for (uint32_t i = 0; i < p->nshared; i++)
    n += (uint64_t)p->shared[i].count * 4u * vc_type_words(p->shared[i].type);
  return n;
}

/* The device limits a launch of p would exceed, before the driver sees it. */
static int check_limits(const vc_dev *d, const vc_kernel_desc *k, vc_error *err) {
  const vc_program *p = k->prog;
  uint64_t wg = (uint64_t)p->workgroup[0] * p->workgroup[1] * p->workgroup[2];
  if (wg > d->max_wg)
    return vc_fail(err, VC_ERR_LIMIT,
                   "%s: %s: workgroup of %llu invocations exceeds the device's maximum of %zu "
                   "(CL_DEVICE_MAX_WORK_GROUP_SIZE)",
                   d->label, label_of(k), (unsigned long long)wg, d->max_wg);
  for (int a = 0; a < 3; a++)
    if (p->workgroup[a] > d->max_items[a])
      return vc_fail(err, VC_ERR_LIMIT,
                     "%s: %s: workgroup size %u on axis %c exceeds the device's maximum of %zu "
                     "(CL_DEVICE_MAX_WORK_ITEM_SIZES)",
                     d->label, label_of(k), p->workgroup[a], "xyz"[a], d->max_items[a]);
  /* long and ulong are core; their atomics are extensions (both pragmas are
     enabled by the generated code) */
  if (vc_cgen_uses_atomic_64(p) && (!d->int64_base_atomics || !d->int64_extended_atomics))
    return vc_fail(err, VC_ERR_UNSUPPORTED,
                   "%s: %s uses 64-bit atomics, and the device lacks %s", d->label, label_of(k),
                   !d->int64_base_atomics ? "cl_khr_int64_base_atomics"
                                          : "cl_khr_int64_extended_atomics");
  uint64_t sh = shared_bytes(p);
  if (sh > d->local_mem)
    return vc_fail(err, VC_ERR_LIMIT,
                   "%s: %s: %llu bytes of shared memory exceed the device's local memory of %llu "
                   "bytes (CL_DEVICE_LOCAL_MEM_SIZE)",
                   d->label, label_of(k), (unsigned long long)sh, (unsigned long long)d->local_mem);
  return 0;
}

/* The build log, malloc'ed; NULL when empty. */
static char *build_log(const vc_dev *d, cl_program prog) {
  size_t size = 0;
  if (clGetProgramBuildInfo(prog, d->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) != CL_SUCCESS ||
      size <= 1)
    return NULL;
  char *log = malloc(size + 1);
  if (!log) return NULL;
  if (clGetProgramBuildInfo(prog, d->device, CL_PROGRAM_BUILD_LOG, size, log, NULL) != CL_SUCCESS) {
    free(log);
    return NULL;
  }
  log[size] = '\0';
  size_t n = strlen(log);
  while (n && (log[n - 1] == '\n' || log[n - 1] == ' ')) log[--n] = '\0';
  if (!n) {
    free(log);
    return NULL;
  }
  return log;
}

/* The program from the kernel cache when it holds it, else built from
   source (and then cached). */
static int build(vc_dev *d, const vc_kernel_desc *k, const char *src, vc_kern *kern, char **log,
                 bool *hit, vc_error *err) {
  cl_int st;
  char std[16], opts[320];
  if (k->kind == VC_KERNEL_NATIVE)
    vc_ocl_native_std(d, std, sizeof std);
  else
    snprintf(std, sizeof std, "%s", d->cl_std);
  snprintf(opts, sizeof opts, "-cl-std=%s %s", std, d->build_extra);
  vc_kcache_key key;
  memset(&key, 0, sizeof key);
  if (d->cache_dir[0]) {
    vc_ocl_cache_key(d, src, opts, &key);
    kern->program = vc_ocl_cache_load(d, &key, opts);
  }
  *hit = kern->program != NULL;
  if (!*hit) {
    kern->program = clCreateProgramWithSource(d->ctx, 1, &src, NULL, &st);
    if (st != CL_SUCCESS)
      return vc_ocl_fail(err, VC_ERR_COMPILE, d, "clCreateProgramWithSource", st);
    st = clBuildProgram(kern->program, 1, &d->device, opts, NULL, NULL);
    *log = build_log(d, kern->program);
    if (st != CL_SUCCESS)
      return vc_fail(err, VC_ERR_COMPILE, "%s: %s: clBuildProgram (%s): %s\n%s", d->label,
                     label_of(k), opts, vc_ocl_status_name(st), *log ? *log : "(no build log)");
    kern->cache_pending = d->cache_dir[0] != '\0';
    kern->cache_key = key;
  }
  kern->kernel = clCreateKernel(kern->program, "vc_main", &st);
  if (st != CL_SUCCESS) return vc_ocl_fail(err, VC_ERR_COMPILE, d, "clCreateKernel(vc_main)", st);
  return 0;
}

/* What the compiled kernel can launch with may be less than the device's maximum. */
static int check_kernel_limits(const vc_dev *d, const vc_kernel_desc *k, const vc_kern *kern,
                               vc_error *err) {
  size_t kmax = 0;
  cl_ulong klocal = 0;
  if (clGetKernelWorkGroupInfo(kern->kernel, d->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kmax,
                               &kmax, NULL) != CL_SUCCESS)
    return 0;
  size_t wg = kern->local[0] * kern->local[1] * kern->local[2];
  if (kmax && wg > kmax)
    return vc_fail(err, VC_ERR_LIMIT,
                   "%s: %s: workgroup of %zu invocations exceeds the compiled kernel's maximum "
                   "of %zu (CL_KERNEL_WORK_GROUP_SIZE)",
                   d->label, label_of(k), wg, kmax);
  if (clGetKernelWorkGroupInfo(kern->kernel, d->device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof klocal,
                               &klocal, NULL) == CL_SUCCESS &&
      klocal > d->local_mem)
    return vc_fail(err, VC_ERR_LIMIT,
                   "%s: %s: the kernel uses %llu bytes of local memory, the device has %llu "
                   "(CL_DEVICE_LOCAL_MEM_SIZE)",
                   d->label, label_of(k), (unsigned long long)klocal,
                   (unsigned long long)d->local_mem);
  return 0;
}

int vc_ocl_compile(vc_dev *d, const vc_kernel_desc *k, vc_kern **out, vc_compile_info *info,
                   vc_error *err) {
  *out = NULL;
  if (info) {
    info->compile_ns = 0;
    info->log = NULL;
    info->cache_hit = false;
  }
  if (k->kind == VC_KERNEL_NATIVE && d->native.atomics == VC_OCL_ATOMICS_DEVICE &&
      !d->scope_available)
    return vc_fail(err, VC_ERR_UNSUPPORTED,
                   "%s: %s: native-atomics=device, but the device has no device-scope "
                   "acquire/release atomics (OpenCL C 2.0, or 3.0 with "
                   "__opencl_c_atomic_scope_device and __opencl_c_atomic_order_acq_rel)",
                   d->label, label_of(k));
  int rc = check_limits(d, k, err);
  if (rc) return rc;
  uint64_t t0 = vc_now_ns();
  char *src = NULL;
  rc = vc_ocl_emit(k, d, &src, err);
  if (rc) return vc_fail_wrap(err, "%s: %s", d->label, label_of(k));
  vc_kern *kern = calloc(1, sizeof *kern);
  if (!kern) {
    free(src);
    return vc_fail(err, VC_ERR_NOMEM, "%s: out of memory compiling %s", d->label, label_of(k));
  }
  snprintf(kern->label, sizeof kern->label, "%s", label_of(k));
  kern->nbufs = k->prog->nbuffers;
  for (int a = 0; a < 3; a++) {
    kern->local[a] = k->prog->workgroup[a];
    kern->global[a] = (size_t)k->prog->grid[a] * k->prog->workgroup[a];
  }
  char *log = NULL;
  bool hit = false;
  rc = build(d, k, src, kern, &log, &hit, err);
  free(src);
  if (!rc) rc = check_kernel_limits(d, k, kern, err);
  if (!rc && k->kind == VC_KERNEL_NATIVE) rc = vc_ocl_native_setup(d, k, kern, err);
  /* A native kernel has had its first launch (the warm-up); a segment
     kernel's binary is stored when it is freed, after its launches. A
     segment kernel gets no launch here: its source is the generator's,
     nothing added, so PoCL builds its work-group function at its first
     launch, in the device phase. PoCL 3.1 builds that function only when
     a launch executes (one that waits on a failed event builds nothing),
     and a guard that made a warm-up launch return at once (`if (!b0)
     return;`) was miscompiled in programs with a workgroup barrier then
     stores under `(if (local_id x) ...)` (corpus/control/barrier_then_*). */
  if (!rc && kern->native && kern->cache_pending) vc_ocl_cache_flush(d, kern, &log);
  if (info) {
    info->compile_ns = vc_now_ns() - t0;
    info->log = log;
    info->cache_hit = hit && rc == 0;
  } else {
    free(log);
  }
  if (rc) {
    vc_ocl_free_kernel(d, kern);
    return rc;
  }
  *out = kern;
  return 0;
}

void vc_ocl_free_kernel(vc_dev *d, vc_kern *kern) {
  if (!kern) return;
  if (kern->cache_pending) vc_ocl_cache_flush(d, kern, NULL);
  if (kern->ctrl) clReleaseMemObject(kern->ctrl);
  if (kern->kernel) clReleaseKernel(kern->kernel);
  if (kern->program) clReleaseProgram(kern->program);
  free(kern);
}
