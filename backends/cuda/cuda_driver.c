#include "backends/cuda/cuda_driver.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VC_STR(x) #x
#define VC_XSTR(x) VC_STR(x) /* expands cuMemAlloc to "cuMemAlloc_v2" first */

typedef struct sym {
  const char *name;
  size_t offset;
} sym;

static const sym syms[] = {
#define VC_CU_SYM(f) {VC_XSTR(f), offsetof(vc_cu, f)},
    VC_CU_FUNCS(VC_CU_SYM)
};

static const sym graph_syms[] = {VC_CU_GRAPH_FUNCS(VC_CU_SYM)};
#undef VC_CU_SYM

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static vc_cu the_cu;
static bool loaded;

/* Names of the results seen before the driver can name them itself: cuInit's
   failures, and everything the toolkit's stub library answers. */
static const char *known_name(CUresult r) {
  switch (r) {
  case CUDA_SUCCESS: return "CUDA_SUCCESS";
  case CUDA_ERROR_OUT_OF_MEMORY: return "CUDA_ERROR_OUT_OF_MEMORY";
  case CUDA_ERROR_NOT_INITIALIZED: return "CUDA_ERROR_NOT_INITIALIZED";
  case CUDA_ERROR_STUB_LIBRARY: return "CUDA_ERROR_STUB_LIBRARY";
  case CUDA_ERROR_DEVICE_UNAVAILABLE: return "CUDA_ERROR_DEVICE_UNAVAILABLE";
  case CUDA_ERROR_NO_DEVICE: return "CUDA_ERROR_NO_DEVICE";
  case CUDA_ERROR_INVALID_DEVICE: return "CUDA_ERROR_INVALID_DEVICE";
  case CUDA_ERROR_OPERATING_SYSTEM: return "CUDA_ERROR_OPERATING_SYSTEM";
  case CUDA_ERROR_SYSTEM_NOT_READY: return "CUDA_ERROR_SYSTEM_NOT_READY";
  case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH: return "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH";
  case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
    return "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE";
  default: return NULL;
  }
}

const char *vc_cu_result_name(const vc_cu *cu, CUresult r) {
  const char *s = NULL;
  if (cu && cu->cuGetErrorName && cu->cuGetErrorName(r, &s) == CUDA_SUCCESS && s) return s;
  s = known_name(r);
  return s ? s : "CUDA_ERROR_(unnamed)";
}

static vc_errcode code_for(CUresult r) {
  switch (r) {
  case CUDA_ERROR_NO_DEVICE:
  case CUDA_ERROR_INVALID_DEVICE:
  case CUDA_ERROR_DEVICE_UNAVAILABLE:
  case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE: return VC_ERR_NO_DEVICE;
  case CUDA_ERROR_STUB_LIBRARY:
  case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
  case CUDA_ERROR_NOT_INITIALIZED: return VC_ERR_NO_DRIVER;
  case CUDA_ERROR_OUT_OF_MEMORY:
  case CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE: return VC_ERR_LIMIT;
  case CUDA_ERROR_INVALID_PTX:
  case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
  case CUDA_ERROR_JIT_COMPILER_NOT_FOUND:
  case CUDA_ERROR_INVALID_SOURCE: return VC_ERR_COMPILE;
  case CUDA_ERROR_LAUNCH_TIMEOUT: return VC_ERR_TIMEOUT;
  default: return VC_ERR_DEVICE;
  }
}

int vc_cu_fail(const vc_cu *cu, vc_error *err, CUresult r, const char *fmt, ...) {
  char what[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  const char *desc = NULL;
  if (!cu || !cu->cuGetErrorString || cu->cuGetErrorString(r, &desc) != CUDA_SUCCESS || !desc)
    desc = NULL;
  if (desc)
    return vc_fail(err, code_for(r), "%s: %s (%s)", what, vc_cu_result_name(cu, r), desc);
  return vc_fail(err, code_for(r), "%s: %s (CUresult %d)", what, vc_cu_result_name(cu, r),
                 (int)r);
}

/* dlerror() usually starts with the file name; say it once. */
static int fail_open(vc_error *err, const char *path, const char *why) {
  if (!why) why = "unknown dlopen error";
  if (strncmp(why, path, strlen(path)) == 0)
    return vc_fail(err, VC_ERR_NO_DRIVER, "no CUDA driver (%s)", why);
  return vc_fail(err, VC_ERR_NO_DRIVER, "no CUDA driver (%s: %s)", path, why);
}

/* Entry points whose versioned name is newer than drivers the plugin can
   still use, with the older name of the same prototype: cuEventElapsedTime_v2
   came with CUDA 12.8, cuDeviceGetUuid_v2 with 11.4 (they differ only in
   corner cases the plugin does not meet). */
static const char *older_name(const char *name) {
  if (strcmp(name, "cuEventElapsedTime_v2") == 0) return "cuEventElapsedTime";
  if (strcmp(name, "cuDeviceGetUuid_v2") == 0) return "cuDeviceGetUuid";
  return NULL;
}

/* All of the graph entry points or none: a driver with only some of them
   is treated as one without graphs. */
static void resolve_graph(void *lib, vc_cu *cu) {
  cu->graph_missing[0] = '\0';
  for (size_t i = 0; i < sizeof graph_syms / sizeof graph_syms[0]; i++) {
    void *fn = dlsym(lib, graph_syms[i].name);
    if (!fn && !cu->graph_missing[0])
      snprintf(cu->graph_missing, sizeof cu->graph_missing, "%s", graph_syms[i].name);
    memcpy((char *)cu + graph_syms[i].offset, &fn, sizeof fn);
  }
  if (!cu->graph_missing[0]) return;
  for (size_t i = 0; i < sizeof graph_syms / sizeof graph_syms[0]; i++)
    memset((char *)cu + graph_syms[i].offset, 0, sizeof(void *));
}

static int resolve(void *lib, vc_cu *cu, vc_error *err) {
  for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
    void *fn = dlsym(lib, syms[i].name);
    const char *older = fn ? NULL : older_name(syms[i].name);
    if (older) fn = dlsym(lib, older);
    if (!fn)
      return vc_fail(err, VC_ERR_NO_DRIVER,
                     "CUDA driver %s has no %s: the driver is older than the CUDA %d.%d API this "
                     "plugin was built for",
                     cu->path, syms[i].name, CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10);
    /* POSIX: a dlsym result converts to a function pointer. */
    memcpy((char *)cu + syms[i].offset, &fn, sizeof fn);
  }
  resolve_graph(lib, cu);
  return 0;
}

/* Opens the library and resolves every entry point; nothing runs yet, so a
   failure may close it again. */
static int open_lib(vc_cu *cu, void **lib, vc_error *err) {
  const char *env = getenv(VC_CUDA_LIBCUDA_ENV);
  const char *path = env && *env ? env : "libcuda.so.1";
  memset(cu, 0, sizeof *cu);
  snprintf(cu->path, sizeof cu->path, "%s", path);
  *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!*lib) return fail_open(err, path, dlerror());
  int rc = resolve(*lib, cu, err);
  if (rc != 0) {
    dlclose(*lib);
    *lib = NULL;
  }
  return rc;
}

/* Once cuInit has run the library stays (even when it failed: the driver may
   have started threads); a later call tries cuInit again. */
static int load(vc_cu *cu, vc_error *err) {
  static void *lib;
  if (!lib) {
    int rc = open_lib(cu, &lib, err);
    if (rc != 0) return rc;
  }
  CUresult r = cu->cuInit(0);
  if (r != CUDA_SUCCESS) return vc_cu_fail(cu, err, r, "CUDA driver %s: cuInit", cu->path);
  r = cu->cuDriverGetVersion(&cu->driver_version);
  if (r != CUDA_SUCCESS)
    return vc_cu_fail(cu, err, r, "CUDA driver %s: cuDriverGetVersion", cu->path);
  return 0;
}

int vc_cu_get(const vc_cu **out, vc_error *err) {
  int rc = 0;
  pthread_mutex_lock(&load_lock);
  if (!loaded) {
    rc = load(&the_cu, err);
    loaded = rc == 0;
  }
  pthread_mutex_unlock(&load_lock);
  *out = rc == 0 ? &the_cu : NULL;
  return rc;
}
