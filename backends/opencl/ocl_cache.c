/* OpenCL program binaries in the kernel cache (harness/base/kcache.h).
 * The key holds what the binary depends on: the generated source, the
 * build options, and the platform, device and driver as the ICD names
 * them (a driver update changes CL_DRIVER_VERSION, so its binaries are
 * never reused). A binary the driver refuses is a miss: the caller builds
 * from source and the entry is rewritten.
 *
 * A binary is read from the driver after the kernel's first launch, not
 * after its build: PoCL compiles the work-group function specialised for
 * the launch's local size at that launch (for a native kernel with many
 * barriers in loops, most of its compile time) and puts it in a binary
 * only when the binary is first asked for after it (it keeps the answer).
 * A native kernel's first launch is its warm-up at compile (ocl_native.c),
 * and its binary is stored then; a segment kernel's first launch is the
 * device phase's (it gets none at compile: ocl_kernel.c), and its binary
 * is stored when it is freed.
 * A binary taken after the launch makes a warm kernel's launch find that
 * code instead of compiling it again. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/opencl/ocl_internal.h"
#include "harness/base/strbuf.h"

static void key_platform(vc_kcache_key *k, cl_platform_id p, cl_platform_info what) {
  char buf[512] = "";
  clGetPlatformInfo(p, what, sizeof buf - 1, buf, NULL);
  vc_kcache_key_str(k, buf);
}

static void key_device(vc_kcache_key *k, cl_device_id d, cl_device_info what) {
  char buf[512] = "";
  clGetDeviceInfo(d, what, sizeof buf - 1, buf, NULL);
  vc_kcache_key_str(k, buf);
}

void vc_ocl_cache_key(const vc_dev *dev, const char *src, const char *opts, vc_kcache_key *k) {
  vc_kcache_key_begin(k, "opencl-binary");
  key_platform(k, dev->platform, CL_PLATFORM_NAME);
  key_platform(k, dev->platform, CL_PLATFORM_VERSION);
  key_device(k, dev->device, CL_DEVICE_NAME);
  key_device(k, dev->device, CL_DEVICE_VERSION);
  key_device(k, dev->device, CL_DRIVER_VERSION);
  vc_kcache_key_str(k, opts);
  vc_kcache_key_str(k, src);
  vc_kcache_key_end(k);
}

cl_program vc_ocl_cache_load(vc_dev *dev, const vc_kcache_key *k, const char *opts) {
  void *bin = NULL;
  size_t size = 0;
  if (vc_kcache_get(dev->cache_dir, k, &bin, &size) != 1) return NULL;
  const unsigned char *bins[1] = {bin};
  cl_int st, bst = CL_SUCCESS;
  cl_program prog =
      clCreateProgramWithBinary(dev->ctx, 1, &dev->device, &size, bins, &bst, &st);
  free(bin);
  if (st != CL_SUCCESS || bst != CL_SUCCESS) {
    if (prog) clReleaseProgram(prog);
    return NULL;
  }
  if (clBuildProgram(prog, 1, &dev->device, opts, NULL, NULL) != CL_SUCCESS) {
    clReleaseProgram(prog);
    return NULL;
  }
  return prog;
}

static void note(char **log, const char *msg) {
  if (!log) return;
  vc_strbuf sb;
  vc_sb_init(&sb);
  if (*log) vc_sb_printf(&sb, "%s\n", *log);
  vc_sb_printf(&sb, "%s", msg);
  free(*log);
  *log = vc_sb_take(&sb);
}

void vc_ocl_cache_flush(vc_dev *dev, vc_kern *kern, char **log) {
  kern->cache_pending = false;
  if (!dev->cache_dir[0]) return;
  cl_program prog = kern->program;
  const vc_kcache_key *k = &kern->cache_key;
  size_t size = 0;
  if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) != CL_SUCCESS ||
      size == 0) {
    note(log, "kernel cache: the driver gives no program binary; not cached");
    return;
  }
  unsigned char *bin = malloc(size);
  unsigned char *bins[1] = {bin};
  vc_error e;
  vc_error_clear(&e);
  if (!bin)
    vc_fail(&e, VC_ERR_NOMEM, "kernel cache: no memory for a %zu-byte binary", size);
  else if (clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL) != CL_SUCCESS)
    vc_fail(&e, VC_ERR_DEVICE, "kernel cache: clGetProgramInfo(CL_PROGRAM_BINARIES) failed");
  else
    vc_kcache_put(dev->cache_dir, k, bin, size, &e);
  free(bin);
  if (e.code != VC_OK) note(log, e.msg);
}
