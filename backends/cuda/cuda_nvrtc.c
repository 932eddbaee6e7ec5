/* dladdr: which file the dynamic linker found for "libnvrtc.so.13" */
#define _GNU_SOURCE
#include "backends/cuda/cuda_nvrtc.h"

#include <dlfcn.h>
#include <limits.h>
#include <nvrtc.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness/base/mutant.h"
#include "harness/base/strbuf.h"

#ifndef VC_CUDA_NVRTC_DIR
#define VC_CUDA_NVRTC_DIR "/usr/local/cuda/lib64"
#endif
#ifndef VC_CUDA_INCLUDE_DIR
#define VC_CUDA_INCLUDE_DIR "/usr/local/cuda/include"
#endif

#define VC_NVRTC_FUNCS(X)                                                                   \
  X(nvrtcGetErrorString) X(nvrtcVersion) X(nvrtcGetNumSupportedArchs)                       \
  X(nvrtcGetSupportedArchs) X(nvrtcCreateProgram) X(nvrtcDestroyProgram)                    \
  X(nvrtcCompileProgram) X(nvrtcGetPTXSize) X(nvrtcGetPTX) X(nvrtcGetProgramLogSize)        \
  X(nvrtcGetProgramLog)

typedef struct nvrtc_api {
#define VC_NVRTC_FIELD(f) __typeof__(f) *f;
  VC_NVRTC_FUNCS(VC_NVRTC_FIELD)
#undef VC_NVRTC_FIELD
  /* NVRTC 11.1 and newer: a cubin for a real architecture (NULL before) */
  __typeof__(nvrtcGetCUBINSize) *nvrtcGetCUBINSize;
  __typeof__(nvrtcGetCUBIN) *nvrtcGetCUBIN;
  int major, minor;
  int archs[64]; /* supported virtual architectures, 10 * major + minor, ascending */
  int narchs;
  char path[512];     /* what was opened */
  char file[PATH_MAX]; /* the file the dynamic linker loaded for it */
} nvrtc_api;

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static nvrtc_api the_api;
static bool loaded;

static int resolve(void *lib, nvrtc_api *a, const char *path, vc_error *err) {
#define VC_NVRTC_SYM(f)                                                                     \
  {                                                                                         \
    void *fn = dlsym(lib, #f);                                                              \
    if (!fn) return vc_fail(err, VC_ERR_NO_DRIVER, "NVRTC %s has no %s", path, #f);        \
    memcpy(&a->f, &fn, sizeof fn);                                                          \
  }
  VC_NVRTC_FUNCS(VC_NVRTC_SYM)
#undef VC_NVRTC_SYM
  void *get_size = dlsym(lib, "nvrtcGetCUBINSize"), *get = dlsym(lib, "nvrtcGetCUBIN");
  if (get_size && get) {
    memcpy(&a->nvrtcGetCUBINSize, &get_size, sizeof get_size);
    memcpy(&a->nvrtcGetCUBIN, &get, sizeof get);
  }
  return 0;
}

static int query(nvrtc_api *a, vc_error *err) {
  int n = 0;
  if (a->nvrtcVersion(&a->major, &a->minor) != NVRTC_SUCCESS ||
      a->nvrtcGetNumSupportedArchs(&n) != NVRTC_SUCCESS || n < 1)
    return vc_fail(err, VC_ERR_NO_DRIVER, "NVRTC %s does not report its version", a->path);
  int all[256];
  if (n > 256 || a->nvrtcGetSupportedArchs(all) != NVRTC_SUCCESS)
    return vc_fail(err, VC_ERR_NO_DRIVER, "NVRTC %s: nvrtcGetSupportedArchs failed", a->path);
  /* keep the first 64 (NVRTC lists them ascending) */
  a->narchs = n < 64 ? n : 64;
  memcpy(a->archs, all, (size_t)a->narchs * sizeof all[0]);
  return 0;
}

/* Tries one file; on failure appends "path: why" to tried. */
static bool try_open(const char *path, nvrtc_api *a, vc_strbuf *tried) {
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *why = dlerror();
    vc_sb_printf(tried, "%s%s", tried->len ? "; " : "", why ? why : path);
    return false;
  }
  memset(a, 0, sizeof *a);
  snprintf(a->path, sizeof a->path, "%s", path);
  vc_error e;
  if (resolve(lib, a, path, &e) != 0 || query(a, &e) != 0) {
    vc_sb_printf(tried, "%s%s", tried->len ? "; " : "", e.msg);
    dlclose(lib);
    return false;
  }
  Dl_info info;
  void *fn;
  memcpy(&fn, &a->nvrtcVersion, sizeof fn);
  if (dladdr(fn, &info) && info.dli_fname) snprintf(a->file, sizeof a->file, "%s", info.dli_fname);
  else snprintf(a->file, sizeof a->file, "%s", path);
  return true;
}

static int load(nvrtc_api *a, vc_error *err) {
  vc_strbuf tried;
  vc_sb_init(&tried);
  const char *env = getenv(VC_CUDA_NVRTC_ENV);
  bool ok = false;
  if (env && *env) {
    ok = try_open(env, a, &tried);
  } else {
    /* the build machine's toolkit, then where toolkits usually live when
       the library search path does not know them */
    const char *names[] = {"libnvrtc.so.13", "libnvrtc.so", VC_CUDA_NVRTC_DIR "/libnvrtc.so.13",
                           VC_CUDA_NVRTC_DIR "/libnvrtc.so", "/usr/local/cuda/lib64/libnvrtc.so.13",
                           "/usr/local/cuda/targets/x86_64-linux/lib/libnvrtc.so.13"};
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !ok; i++)
      ok = try_open(names[i], a, &tried);
  }
  int rc = 0;
  if (!ok)
    rc = vc_fail(err, VC_ERR_NO_DRIVER,
                 "no NVRTC, cannot compile CUDA C (%s); install the CUDA toolkit's NVRTC or set "
                 "%s to libnvrtc's path",
                 vc_sb_str(&tried), VC_CUDA_NVRTC_ENV);
  vc_sb_free(&tried);
  return rc;
}

static int get_api(const nvrtc_api **out, vc_error *err) {
  int rc = 0;
  pthread_mutex_lock(&load_lock);
  if (!loaded) {
    rc = load(&the_api, err);
    loaded = rc == 0;
  }
  pthread_mutex_unlock(&load_lock);
  *out = rc == 0 ? &the_api : NULL;
  return rc;
}

int vc_nvrtc_version(int *major, int *minor, const char **path, vc_error *err) {
  const nvrtc_api *a;
  int rc = get_api(&a, err);
  if (rc != 0) return rc;
  *major = a->major;
  *minor = a->minor;
  if (path) *path = a->file;
  return 0;
}

int vc_nvrtc_arch_for(int major, int minor, char *arch, size_t n, vc_error *err) {
  const nvrtc_api *a;
  int rc = get_api(&a, err);
  if (rc != 0) return rc;
  int cc = 10 * major + minor, best = 0;
  for (int i = 0; i < a->narchs; i++)
    if (a->archs[i] <= cc && a->archs[i] > best) best = a->archs[i];
  if (best == 0)
    return vc_fail(err, VC_ERR_UNSUPPORTED,
                   "NVRTC %d.%d (%s) compiles for compute capability %d.%d and newer; the device "
                   "is %d.%d",
                   a->major, a->minor, a->path, a->archs[0] / 10, a->archs[0] % 10, major, minor);
  snprintf(arch, n, "compute_%d", best);
  return 0;
}

int vc_nvrtc_cubin_arch(int major, int minor, char *arch, size_t n) {
  const nvrtc_api *a;
  vc_error ignored;
  if (get_api(&a, &ignored) != 0 || !a->nvrtcGetCUBIN) return 0;
  int cc = 10 * major + minor;
  for (int i = 0; i < a->narchs; i++)
    if (a->archs[i] == cc) {
      snprintf(arch, n, "sm_%d", cc);
      return 1;
    }
  return 0;
}

static char *program_log(const nvrtc_api *a, nvrtcProgram prog) {
  size_t n = 0;
  if (a->nvrtcGetProgramLogSize(prog, &n) != NVRTC_SUCCESS || n <= 1) return NULL;
  char *log = malloc(n);
  if (!log) return NULL;
  if (a->nvrtcGetProgramLog(prog, log) != NVRTC_SUCCESS) {
    free(log);
    return NULL;
  }
  return log;
}

/* NVRTC's output: PTX (NUL-terminated, *size counts the NUL) or a cubin. */
static int take_output(const nvrtc_api *a, nvrtcProgram prog, const char *label, bool cubin,
                       void **out, size_t *size, vc_error *err) {
  const char *what = cubin ? "nvrtcGetCUBIN" : "nvrtcGetPTX";
  size_t n = 0;
  nvrtcResult r = cubin ? a->nvrtcGetCUBINSize(prog, &n) : a->nvrtcGetPTXSize(prog, &n);
  if (r != NVRTC_SUCCESS || n == 0)
    return vc_fail(err, VC_ERR_COMPILE, "%s: %sSize: %s", label, what,
                   a->nvrtcGetErrorString(r));
  char *p = malloc(n);
  if (!p) return vc_fail(err, VC_ERR_NOMEM, "%s: %zu bytes for %s", label, n, what + 8);
  r = cubin ? a->nvrtcGetCUBIN(prog, p) : a->nvrtcGetPTX(prog, p);
  if (r != NVRTC_SUCCESS) {
    free(p);
    return vc_fail(err, VC_ERR_COMPILE, "%s: %s: %s", label, what, a->nvrtcGetErrorString(r));
  }
  *out = p;
  *size = n;
  return 0;
}

/* A folder holding cooperative_groups.h. */
static bool has_cg(const char *dir) {
  char path[PATH_MAX + 32];
  struct stat st;
  snprintf(path, sizeof path, "%s/cooperative_groups.h", dir);
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool is_dir(const char *dir) {
  struct stat st;
  return stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

/* "<folder of file>/../include", tried and noted in tried. */
static bool beside(const char *file, char *dir, size_t n, vc_strbuf *tried) {
  const char *slash = strrchr(file, '/');
  if (!slash) return false;
  snprintf(dir, n, "%.*s/../include", (int)(slash - file), file);
  vc_sb_printf(tried, "%s%s", tried->len ? ", " : "", dir);
  return has_cg(dir);
}

static int explicit_dir(const char *dir, const char *what, char *out, size_t n, vc_error *err) {
  if (!has_cg(dir))
    return vc_fail(err, VC_ERR_USAGE, "CUDA include folder %s (%s) has no cooperative_groups.h",
                   dir, what);
  snprintf(out, n, "%s", dir);
  return 0;
}

int vc_nvrtc_include_dir(const char *given, char *out, size_t n, vc_error *err) {
  if (given && *given) return explicit_dir(given, "the include option", out, n, err);
  const char *env = getenv(VC_CUDA_INCLUDE_ENV);
  if (env && *env) return explicit_dir(env, VC_CUDA_INCLUDE_ENV, out, n, err);
  const nvrtc_api *a;
  int rc = get_api(&a, err);
  if (rc != 0) return rc;
  vc_strbuf tried;
  vc_sb_init(&tried);
  /* the toolkit NVRTC came from: its own folder, then the resolved one
     (lib64 is often a link into targets/<arch>/lib) */
  char real[PATH_MAX];
  bool ok = beside(a->file, out, n, &tried) ||
            (realpath(a->file, real) && beside(real, out, n, &tried));
  static const char *const fixed[] = {VC_CUDA_INCLUDE_DIR, "/usr/local/cuda/include"};
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0] && !ok; i++) {
    snprintf(out, n, "%s", fixed[i]);
    vc_sb_printf(&tried, ", %s", out);
    ok = has_cg(out);
  }
  if (!ok)
    rc = vc_fail(err, VC_ERR_NO_DRIVER,
                 "no cooperative_groups.h for native kernels beside NVRTC %s (tried %s); set the "
                 "include=DIR device option or %s",
                 a->file, vc_sb_str(&tried), VC_CUDA_INCLUDE_ENV);
  vc_sb_free(&tried);
  return rc;
}

static int compile(const char *source, const char *arch, const char *include, const char *label,
                   bool cubin, void **out, size_t *size, char **log, vc_error *err) {
  *out = NULL;
  *size = 0;
  *log = NULL;
  const nvrtc_api *a;
  int rc = get_api(&a, err);
  if (rc != 0) return vc_fail_wrap(err, "%s", label);
  if (cubin && !a->nvrtcGetCUBIN)
    return vc_fail(err, VC_ERR_UNSUPPORTED, "%s: NVRTC %d.%d (%s) has no nvrtcGetCUBIN", label,
                   a->major, a->minor, a->path);
  char arch_opt[64], inc[PATH_MAX + 8], cccl[PATH_MAX + 16];
  snprintf(arch_opt, sizeof arch_opt, "--gpu-architecture=%s", arch);
  /* docs/semantics.md: no contraction (a*b+c rounds the product), denormals
     preserved, correctly rounded division and square root. NVRTC's defaults
     contract (--fmad=true); say all of it explicitly. */
  const char *opts[7] = {arch_opt, VC_MUTANT(CONTRACTION_ALLOWED) ? "--fmad=true" : "--fmad=false", "--prec-div=true", "--prec-sqrt=true",
                         "-ftz=false"};
  int nopts = 5;
  if (include) {
    /* cooperative_groups.h; CUDA 13 keeps the libcu++ it includes in cccl/ */
    snprintf(inc, sizeof inc, "-I%s", include);
    opts[nopts++] = inc;
    snprintf(cccl, sizeof cccl, "%s/cccl", include);
    if (is_dir(cccl)) {
      snprintf(cccl, sizeof cccl, "-I%s/cccl", include);
      opts[nopts++] = cccl;
    }
  }
  nvrtcProgram prog;
  nvrtcResult r = a->nvrtcCreateProgram(&prog, source, "vc_kernel.cu", 0, NULL, NULL);
  if (r != NVRTC_SUCCESS)
    return vc_fail(err, VC_ERR_COMPILE, "%s: nvrtcCreateProgram: %s", label,
                   a->nvrtcGetErrorString(r));
  r = a->nvrtcCompileProgram(prog, nopts, opts);
  *log = program_log(a, prog);
  if (r != NVRTC_SUCCESS)
    rc = vc_fail(err, VC_ERR_COMPILE, "%s: NVRTC %d.%d for %s: %s%s%s", label, a->major,
                 a->minor, arch, a->nvrtcGetErrorString(r), *log ? "\n" : "",
                 *log ? *log : "");
  else
    rc = take_output(a, prog, label, cubin, out, size, err);
  a->nvrtcDestroyProgram(&prog);
  return rc;
}

int vc_nvrtc_compile(const char *source, const char *arch, const char *include, const char *label,
                     char **ptx, char **log, vc_error *err) {
  void *out;
  size_t n;
  int rc = compile(source, arch, include, label, false, &out, &n, log, err);
  *ptx = out;
  return rc;
}

int vc_nvrtc_compile_cubin(const char *source, const char *arch, const char *include,
                           const char *label, void **cubin, size_t *size, char **log,
                           vc_error *err) {
  return compile(source, arch, include, label, true, cubin, size, log, err);
}
