/* Kernels: CUDA C from the shared generator, a cubin (or PTX) from NVRTC, a
 * module and its vc_main from the driver.
 *
 * A cubin for the device's own architecture is what the driver runs as it
 * is; PTX goes through the driver's JIT at every load, warm ones too. So a
 * device gets a cubin where NVRTC can make one for it: NVRTC knows its
 * compute capability, and NVRTC is not newer than the driver (whose loader
 * may not read a newer toolkit's cubin). Otherwise, and with module=ptx,
 * PTX for the newest virtual architecture the device runs. */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/common/cgen/cgen.h"
#include "backends/common/native/cgen_native.h"
#include "backends/cuda/cuda_internal.h"
#include "backends/cuda/cuda_nvrtc.h"
#include "harness/base/clock.h"
#include "harness/base/strbuf.h"

#define VC_JIT_LOG_BYTES 8192

/* "kernel accumulate (segment 2)": what messages call the kernel. */
static void kernel_label(const vc_kernel_desc *k, char *out, size_t n) {
  const char *name = k->prog && k->prog->name ? k->prog->name : "?";
  if (k->label && *k->label) snprintf(out, n, "kernel %s (%s)", name, k->label);
  else snprintf(out, n, "kernel %s", name);
}

int vc_cuda_target_arch(const char *target, char *arch, size_t n, vc_error *err) {
  const char *digits = NULL;
  if (target && strncmp(target, "sm_", 3) == 0) digits = target + 3;
  else if (target && strncmp(target, "compute_", 8) == 0) digits = target + 8;
  const char *p = digits;
  while (p && isdigit((unsigned char)*p)) p++;
  /* an optional feature suffix: sm_90a, sm_100f */
  bool ok = p && p - digits >= 2 && p - digits <= 3 &&
            (*p == '\0' || ((*p == 'a' || *p == 'f') && p[1] == '\0'));
  if (!ok)
    return vc_fail(err, VC_ERR_USAGE,
                   "CUDA target '%s': expected sm_NN or compute_NN, e.g. sm_90",
                   target ? target : "(null)");
  snprintf(arch, n, "compute_%s", digits);
  return 0;
}

static bool is_native(const vc_kernel_desc *k) { return k->kind == VC_KERNEL_NATIVE; }

/* The kernel's CUDA C: a segment kernel, or a native kernel (its grid
   barrier cooperative_groups' grid sync, or written out with
   inline_barrier; neither depends on the device). */
static int generate(const vc_kernel_desc *k, const char *label, bool inline_barrier,
                    int inline_order, char **source, vc_error *err) {
  *source = NULL;
  if (!k || !k->prog) return vc_fail(err, VC_ERR_USAGE, "CUDA: a kernel without a program");
  if (is_native(k) && !k->native)
    return vc_fail(err, VC_ERR_USAGE, "%s: a native kernel without its description", label);
  vc_strbuf sb;
  vc_sb_init(&sb);
  int rc;
  if (is_native(k)) {
    vc_native_opts o;
    vc_native_opts_default(VC_DIALECT_CUDA, &o);
    o.cuda_inline_barrier = inline_barrier;
    o.cuda_inline = (vc_cuda_inline)inline_order;
    rc = vc_cgen_native(k, &o, &sb, err);
  } else {
    rc = vc_cgen_kernel(k, VC_DIALECT_CUDA, &sb, err);
  }
  if (rc != 0) {
    vc_sb_free(&sb);
    return vc_fail_wrap(err, "%s", label);
  }
  *source = vc_sb_take(&sb);
  return 0;
}

/* Native kernels with grid.sync() include cooperative_groups.h; given: the
   device's include option, or NULL. */
static int include_for(const vc_kernel_desc *k, bool inline_barrier, const char *given, char *dir,
                       size_t n, vc_error *err) {
  dir[0] = '\0';
  return is_native(k) && !inline_barrier ? vc_nvrtc_include_dir(given, dir, n, err) : 0;
}

int vc_cuda_emit(const vc_kernel_desc *k, vc_dev *dev, char **source, vc_error *err) {
  (void)dev; /* the source does not depend on the device */
  char label[192];
  if (k) kernel_label(k, label, sizeof label);
  bool inl = dev ? dev->opts.inline_barrier : VC_CUDA_DEFAULT_INLINE_BARRIER;
  int order = dev ? dev->opts.inline_order : VC_CUDA_DEFAULT_INLINE_ORDER;
  return generate(k, k ? label : "kernel", inl, order, source, err);
}

int vc_cuda_compile_offline(const vc_kernel_desc *k, const char *target, void **binary,
                            size_t *size, char **log, vc_error *err) {
  *binary = NULL;
  *size = 0;
  if (log) *log = NULL;
  char arch[32], label[192];
  int rc = vc_cuda_target_arch(target ? target : VC_CUDA_DEFAULT_TARGET, arch, sizeof arch, err);
  if (rc != 0) return rc;
  if (k) kernel_label(k, label, sizeof label);
  char *src, inc[512];
  rc = generate(k, k ? label : "kernel", false, 0, &src, err);
  if (rc != 0) return rc;
  rc = include_for(k, false, NULL, inc, sizeof inc, err);
  if (rc != 0) {
    free(src);
    return vc_fail_wrap(err, "%s", label);
  }
  char *ptx, *nvlog;
  rc = vc_nvrtc_compile(src, arch, inc[0] ? inc : NULL, label, &ptx, &nvlog, err);
  free(src);
  if (log) *log = nvlog;
  else free(nvlog);
  if (rc != 0) return rc;
  *binary = ptx;
  *size = strlen(ptx);
  return 0;
}

/* NVRTC's log, then the driver's (prefix: what it did), as one text for
   vc_compile_info. */
static char *join_logs(char *nvrtc_log, const char *prefix, const char *jit_log) {
  if (!jit_log || !*jit_log) return nvrtc_log;
  vc_strbuf sb;
  vc_sb_init(&sb);
  if (nvrtc_log) vc_sb_printf(&sb, "%s\n", nvrtc_log);
  vc_sb_printf(&sb, "%s: %s", prefix, jit_log);
  free(nvrtc_log);
  return vc_sb_take(&sb);
}

static int func_attr(vc_dev *dev, vc_kern *kern, CUfunction_attribute a, const char *name,
                     int *v, vc_error *err) {
  CUresult r = dev->cu->cuFuncGetAttribute(v, a, kern->fn);
  if (r != CUDA_SUCCESS)
    return vc_cu_fail(dev->cu, err, r, "%s: cuFuncGetAttribute(%s) on %s", kern->label, name,
                      dev->label);
  return 0;
}

/* What NVRTC made for a device: a cubin for arch (sm_NN) or PTX (arch
   compute_NN, image NUL-terminated). */
typedef struct image {
  bool cubin;
  char arch[32];
  void *data;
  size_t size;
} image;

/* The image to a module and its vc_main; the figures the launch checks. */
static int load_module(vc_dev *dev, vc_kern *kern, const image *img, char *jit_log,
                       vc_error *err) {
  const vc_cu *cu = dev->cu;
  char jit_err[VC_JIT_LOG_BYTES] = "";
  /* verbose: the info log then records registers and spills per kernel */
  CUjit_option opt[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                        CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                        CU_JIT_LOG_VERBOSE};
  void *val[] = {jit_err, (void *)(uintptr_t)sizeof jit_err, jit_log,
                 (void *)(uintptr_t)VC_JIT_LOG_BYTES, (void *)(uintptr_t)1};
  CUresult r = cu->cuModuleLoadDataEx(&kern->module, img->data, 5, opt, val);
  if (r != CUDA_SUCCESS) {
    /* both versions: PTX from a newer NVRTC than the driver is refused */
    int major = 0, minor = 0;
    vc_nvrtc_version(&major, &minor, NULL, NULL);
    kern->module = NULL;
    return vc_cu_fail(cu, err, r,
                      "%s: cuModuleLoadDataEx on %s (%s for %s from NVRTC %d.%d, driver CUDA "
                      "%d.%d)%s%s",
                      kern->label, dev->label, img->cubin ? "cubin" : "PTX", img->arch, major,
                      minor, cu->driver_version / 1000, cu->driver_version % 1000 / 10,
                      jit_err[0] ? ": " : "", jit_err);
  }
  r = cu->cuModuleGetFunction(&kern->fn, kern->module, "vc_main");
  if (r != CUDA_SUCCESS)
    return vc_cu_fail(cu, err, r, "%s: cuModuleGetFunction(vc_main) on %s", kern->label,
                      dev->label);
  int threads = 0, shared = 0;
  int rc = func_attr(dev, kern, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                     "MAX_THREADS_PER_BLOCK", &threads, err);
  if (rc == 0)
    rc = func_attr(dev, kern, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "SHARED_SIZE_BYTES", &shared,
                   err);
  kern->shape.kernel_max_threads = (uint32_t)threads;
  kern->shape.shared_bytes = (uint64_t)shared;
  return rc;
}

static vc_kern *new_kernel(const vc_kernel_desc *k) {
  vc_kern *kern = calloc(1, sizeof *kern);
  if (!kern) return NULL;
  kernel_label(k, kern->label, sizeof kern->label);
  kern->nbufs = is_native(k) && k->native ? k->native->nbuffers : k->prog->nbuffers;
  memcpy(kern->shape.block, k->prog->workgroup, sizeof kern->shape.block);
  memcpy(kern->shape.grid, k->prog->grid, sizeof kern->shape.grid);
  return kern;
}

/* A cubin for the device when NVRTC can make one it loads (see the top). */
static bool cubin_arch(const vc_dev *dev, char *arch, size_t n) {
  int major = 0, minor = 0;
  if (dev->opts.module_ptx || vc_nvrtc_version(&major, &minor, NULL, NULL) != 0) return false;
  if (1000 * major + 10 * minor > dev->cu->driver_version) return false;
  return vc_nvrtc_cubin_arch(dev->cc_major, dev->cc_minor, arch, n) == 1;
}

/* The kernel cache's key: what NVRTC's output depends on (its version and
   file, the form and architecture, the options vc_nvrtc_compile always
   gives, the include folder, the source). */
static void image_key(const char *src, const image *img, const char *inc, vc_kcache_key *k) {
  int major = 0, minor = 0;
  const char *file = NULL;
  vc_nvrtc_version(&major, &minor, &file, NULL);
  char ver[32];
  snprintf(ver, sizeof ver, "%d.%d", major, minor);
  vc_kcache_key_begin(k, img->cubin ? "cuda-cubin" : "cuda-ptx");
  vc_kcache_key_str(k, ver);
  vc_kcache_key_str(k, file);
  vc_kcache_key_str(k, img->arch);
  vc_kcache_key_str(k, VC_NVRTC_SEMANTIC_OPTIONS);
  vc_kcache_key_str(k, inc);
  vc_kcache_key_str(k, src);
  vc_kcache_key_end(k);
}

/* A hit is of the form asked for: an ELF image (a cubin), or NUL-terminated
   PTX text. Anything else is a miss, rewritten by the compile. */
static bool cached_image(const char *dir, const vc_kcache_key *k, image *img) {
  void *p = NULL;
  size_t n = 0;
  if (vc_kcache_get(dir, k, &p, &n) != 1) return false;
  bool ok = img->cubin ? n >= 64 && memcmp(p, "\177ELF", 4) == 0
                       : n >= 2 && ((char *)p)[n - 1] == '\0' && strlen(p) == n - 1;
  if (!ok) {
    free(p);
    return false;
  }
  img->data = p;
  img->size = n;
  return true;
}

/* Source, include folder (native kernels) and the image for the device
   (from the kernel cache when it holds it). */
static int to_image(vc_dev *dev, const vc_kernel_desc *k, vc_kern *kern, image *img, char **log,
                    bool *hit, vc_error *err) {
  int rc = 0;
  if (!dev->arch[0])
    rc = vc_nvrtc_arch_for(dev->cc_major, dev->cc_minor, dev->arch, sizeof dev->arch, err);
  if (rc == 0) {
    img->cubin = cubin_arch(dev, img->arch, sizeof img->arch);
    if (!img->cubin) snprintf(img->arch, sizeof img->arch, "%s", dev->arch);
  }
  char *src = NULL, inc[512] = "";
  if (rc == 0)
    rc = generate(k, kern->label, dev->opts.inline_barrier, dev->opts.inline_order, &src, err);
  if (rc == 0 &&
      (rc = include_for(k, dev->opts.inline_barrier, dev->opts.include, inc, sizeof inc, err)) != 0)
    vc_fail_wrap(err, "%s", kern->label);
  vc_kcache_key key;
  memset(&key, 0, sizeof key);
  if (rc == 0 && dev->opts.cache_dir[0]) {
    image_key(src, img, inc, &key);
    *hit = cached_image(dev->opts.cache_dir, &key, img);
  }
  if (rc == 0 && !*hit) {
    const char *incp = inc[0] ? inc : NULL;
    if (img->cubin) {
      rc = vc_nvrtc_compile_cubin(src, img->arch, incp, kern->label, &img->data, &img->size, log,
                                  err);
    } else {
      char *ptx = NULL;
      rc = vc_nvrtc_compile(src, img->arch, incp, kern->label, &ptx, log, err);
      img->data = ptx;
      img->size = ptx ? strlen(ptx) + 1 : 0;
    }
    vc_error e;
    vc_error_clear(&e);
    if (rc == 0 && dev->opts.cache_dir[0] &&
        vc_kcache_put(dev->opts.cache_dir, &key, img->data, img->size, &e))
      *log = join_logs(*log, "kernel cache", e.msg);
  }
  free(src);
  return rc;
}

static int build(vc_dev *dev, const vc_kernel_desc *k, vc_kern *kern, char **log, bool *hit,
                 vc_error *err) {
  int rc = vc_cuda_enter(dev, "compile", err);
  /* before NVRTC's second of parsing cooperative_groups.h */
  if (rc == 0 && is_native(k)) rc = vc_cuda_native_check(dev, kern->label, err);
  image img = {false, "", NULL, 0};
  if (rc == 0) rc = to_image(dev, k, kern, &img, log, hit, err);
  if (rc != 0) {
    free(img.data);
    return rc;
  }
  char *jit_log = calloc(1, VC_JIT_LOG_BYTES);
  if (!jit_log) rc = vc_fail(err, VC_ERR_NOMEM, "%s: no memory for the JIT log", kern->label);
  if (rc == 0) rc = load_module(dev, kern, &img, jit_log, err);
  if (rc == 0 && is_native(k)) rc = vc_cuda_native_setup(dev, k, kern, err);
  *log = join_logs(*log, img.cubin ? "cubin load" : "ptx jit", jit_log);
  free(jit_log);
  free(img.data);
  return rc;
}

int vc_cuda_compile(vc_dev *dev, const vc_kernel_desc *k, vc_kern **out, vc_compile_info *info,
                    vc_error *err) {
  *out = NULL;
  if (info) {
    info->compile_ns = 0;
    info->log = NULL;
    info->cache_hit = false;
  }
  if (!k || !k->prog) return vc_fail(err, VC_ERR_USAGE, "compile on %s: no program", dev->label);
  uint64_t t0 = vc_now_ns();
  vc_kern *kern = new_kernel(k);
  if (!kern) return vc_fail(err, VC_ERR_NOMEM, "compile on %s: no memory", dev->label);
  char *log = NULL;
  bool hit = false;
  int rc = build(dev, k, kern, &log, &hit, err);
  if (info) {
    info->compile_ns = vc_now_ns() - t0;
    info->log = log;
    info->cache_hit = hit && rc == 0;
  } else {
    free(log);
  }
  if (rc != 0) {
    vc_cuda_free_kernel(dev, kern);
    return rc;
  }
  *out = kern;
  return 0;
}

/* Launches still queued may use the module and the control buffer: they
   finish first. */
void vc_cuda_free_kernel(vc_dev *dev, vc_kern *kern) {
  if (!kern) return;
  bool entered = vc_cuda_enter(dev, "free_kernel", NULL) == 0;
  if (entered) {
    dev->cu->cuStreamSynchronize(dev->stream);
    vc_cuda_graph_forget(dev, kern->fn); /* a kept graph must not outlive its kernels */
    if (kern->module) dev->cu->cuModuleUnload(kern->module);
  }
  if (kern->native) vc_cuda_native_free(dev, kern, entered);
  free(kern);
}
