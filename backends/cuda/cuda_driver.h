/* The CUDA driver API, opened at run time.
 *
 * The plugin must load on a machine without an NVIDIA driver (CI compiles
 * with NVRTC there), so libcuda.so.1 is dlopen'ed on first use instead of
 * being linked. Prototypes and symbol names both come from the toolkit's
 * cuda.h: it maps e.g. cuMemAlloc to cuMemAlloc_v2, and the table below
 * resolves exactly the name whose prototype the header declares. */
#ifndef VC_CUDA_DRIVER_H
#define VC_CUDA_DRIVER_H

#include <cuda.h>

#include "harness/base/error.h"

/* Every driver entry point the plugin calls. */
#define VC_CU_FUNCS(X)                                                                      \
  X(cuInit) X(cuDriverGetVersion) X(cuGetErrorName) X(cuGetErrorString)                     \
  X(cuDeviceGetCount) X(cuDeviceGet) X(cuDeviceGetName) X(cuDeviceGetAttribute)             \
  X(cuDeviceTotalMem) X(cuDeviceGetUuid) X(cuDeviceGetPCIBusId)                             \
  X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease) X(cuCtxSetCurrent)               \
  X(cuStreamCreate) X(cuStreamDestroy) X(cuStreamSynchronize)                               \
  X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord) X(cuEventSynchronize)                 \
  X(cuEventQuery) X(cuEventElapsedTime)                                                     \
  X(cuMemAlloc) X(cuMemFree) X(cuMemHostAlloc) X(cuMemFreeHost)                             \
  X(cuMemHostGetDevicePointer)                                                              \
  X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync) X(cuMemsetD32Async) X(cuMemsetD8Async)         \
  X(cuModuleLoadDataEx) X(cuModuleUnload) X(cuModuleGetFunction) X(cuFuncGetAttribute)      \
  X(cuLaunchKernel) X(cuLaunchCooperativeKernel) X(cuOccupancyMaxActiveBlocksPerMultiprocessor)

/* CUDA graphs (launch=graph, cuda_graph.c), all of CUDA 12.0: optional. A
   driver without one of them opens with these left NULL and graph_missing
   naming the first absent one; the plugin then launches on the stream. */
#define VC_CU_GRAPH_FUNCS(X)                                                                \
  X(cuGraphCreate) X(cuGraphDestroy) X(cuGraphAddKernelNode) X(cuGraphAddEventRecordNode)    \
  X(cuGraphInstantiateWithParams) X(cuGraphExecKernelNodeSetParams)                          \
  X(cuGraphExecEventRecordNodeSetEvent) X(cuGraphLaunch) X(cuGraphExecDestroy)

/* __typeof__ of the header's declaration keeps each pointer's type in step
   with cuda.h (C23 spells it typeof). A field named cuMemAlloc is really
   cuMemAlloc_v2 after macro expansion, in the struct and at every call. */
typedef struct vc_cu {
#define VC_CU_FIELD(f) __typeof__(f) *f;
  VC_CU_FUNCS(VC_CU_FIELD)
  VC_CU_GRAPH_FUNCS(VC_CU_FIELD)
#undef VC_CU_FIELD
  char graph_missing[64]; /* "" when every VC_CU_GRAPH_FUNCS entry resolved */
  int driver_version; /* cuDriverGetVersion: 1000 * major + 10 * minor */
  char path[256];     /* the library that was opened */
} vc_cu;

/* Environment variable naming the driver library to open instead of
   libcuda.so.1 (a compat driver, or a test's stub). */
#define VC_CUDA_LIBCUDA_ENV "VYRE_CONFORM_LIBCUDA"

/* The driver, opened and initialised (cuInit) once per process and kept
   loaded: the driver starts threads that must not outlive its code. Until a
   load succeeds every call tries again. Without a driver: VC_ERR_NO_DRIVER
   "no CUDA driver (libcuda.so.1: <dlerror>)". */
int vc_cu_get(const vc_cu **out, vc_error *err);

/* The spelling of a CUresult ("CUDA_ERROR_OUT_OF_MEMORY"), also when the
   driver cannot say (the toolkit's stub library). */
const char *vc_cu_result_name(const vc_cu *cu, CUresult r);

/* Fills err for a failed driver call: "<context>: NAME (description)", with
   the vc_errcode that fits r. Returns that code. */
int vc_cu_fail(const vc_cu *cu, vc_error *err, CUresult r, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
