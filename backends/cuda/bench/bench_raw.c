/* The driver as the raw baselines use it: opened by this program (the
 * plugin keeps its own table), the device's primary context, which the
 * plugin retains too, and a stream of the baselines' own. */
#include <stdio.h>
#include <string.h>

#include "backends/cuda/cuda_nvrtc.h"
#include "backends/cuda/bench/bench.h"

int bench_raw_fail(bench *b, vc_error *err, CUresult r, const char *call) {
  return vc_cu_fail(b->cu, err, r, "raw baseline: %s", call);
}

/* NVRTC's architecture for the device, and the same as a target name. */
static int pick_arch(bench *b, vc_error *err) {
  int major = 0, minor = 0;
  CUresult r = b->cu->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                           b->device);
  if (r == CUDA_SUCCESS)
    r = b->cu->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                    b->device);
  if (r != CUDA_SUCCESS) return bench_raw_fail(b, err, r, "cuDeviceGetAttribute");
  int rc = vc_nvrtc_arch_for(major, minor, b->arch, sizeof b->arch, err);
  if (rc == 0) snprintf(b->target, sizeof b->target, "sm_%s", b->arch + strlen("compute_"));
  return rc;
}

int bench_raw_open(bench *b, uint32_t index, vc_error *err) {
  int rc = vc_cu_get(&b->cu, err);
  if (rc != 0) return rc;
  CUresult r = b->cu->cuDeviceGet(&b->device, (int)index);
  if (r != CUDA_SUCCESS) return bench_raw_fail(b, err, r, "cuDeviceGet");
  r = b->cu->cuDevicePrimaryCtxRetain(&b->ctx, b->device);
  if (r != CUDA_SUCCESS) {
    b->ctx = NULL;
    return bench_raw_fail(b, err, r, "cuDevicePrimaryCtxRetain");
  }
  r = b->cu->cuCtxSetCurrent(b->ctx);
  if (r == CUDA_SUCCESS) r = b->cu->cuStreamCreate(&b->stream, CU_STREAM_NON_BLOCKING);
  if (r != CUDA_SUCCESS) {
    b->stream = NULL;
    return bench_raw_fail(b, err, r, "cuStreamCreate");
  }
  return pick_arch(b, err);
}

void bench_raw_close(bench *b) {
  if (!b->cu || !b->ctx) return;
  b->cu->cuCtxSetCurrent(b->ctx);
  if (b->stream) {
    b->cu->cuStreamSynchronize(b->stream);
    b->cu->cuStreamDestroy(b->stream);
  }
  b->cu->cuCtxSetCurrent(NULL);
  b->cu->cuDevicePrimaryCtxRelease(b->device);
  b->ctx = NULL;
}

int bench_raw_module(bench *b, const char *ptx, const char *name, CUmodule *mod, CUfunction *fn,
                     vc_error *err) {
  *mod = NULL;
  CUresult r = b->cu->cuCtxSetCurrent(b->ctx);
  if (r == CUDA_SUCCESS) r = b->cu->cuModuleLoadDataEx(mod, ptx, 0, NULL, NULL);
  if (r != CUDA_SUCCESS) {
    *mod = NULL;
    return bench_raw_fail(b, err, r, "cuModuleLoadDataEx");
  }
  r = b->cu->cuModuleGetFunction(fn, *mod, name ? name : "vc_main");
  if (r != CUDA_SUCCESS) return bench_raw_fail(b, err, r, "cuModuleGetFunction");
  return 0;
}

int bench_raw_read(bench *b, CUdeviceptr src, void *dst, size_t n, vc_error *err) {
  CUresult r = b->cu->cuMemcpyDtoHAsync(dst, src, n, b->stream);
  if (r == CUDA_SUCCESS) r = b->cu->cuStreamSynchronize(b->stream);
  return r == CUDA_SUCCESS ? 0 : bench_raw_fail(b, err, r, "cuMemcpyDtoHAsync");
}
