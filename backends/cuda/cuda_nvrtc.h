/* NVRTC, opened at run time: CUDA C source to PTX, or to a cubin for a real
 * architecture.
 *
 * libnvrtc is about 100 MB and each machine has its own, matching its
 * toolkit, so the plugin opens whichever the machine has. Search order:
 * $VYRE_CONFORM_NVRTC alone when it is set (an explicit choice does not fall
 * back), else libnvrtc.so.13, libnvrtc.so, the toolkit's library directory
 * found at build time, then /usr/local/cuda's. The library stays loaded
 * once found. */
#ifndef VC_CUDA_NVRTC_H
#define VC_CUDA_NVRTC_H

#include <stddef.h>

#include "harness/base/error.h"

#define VC_CUDA_NVRTC_ENV "VYRE_CONFORM_NVRTC"
/* The folder holding cooperative_groups.h, for native kernels. */
#define VC_CUDA_INCLUDE_ENV "VYRE_CONFORM_CUDA_INCLUDE"

/* Compiles source to PTX for a virtual architecture ("compute_90"), with the
   options the semantics need (no contraction, no flushing, IEEE division).
   include (NULL for none) is a folder from vc_nvrtc_include_dir: -I it, and
   -I its cccl/ where it has one. label names the kernel in messages. *ptx
   (NUL-terminated) and *log (NULL when NVRTC said nothing) are malloc'ed;
   *log is filled on failure too. Errors: VC_ERR_NO_DRIVER without NVRTC,
   VC_ERR_COMPILE with NVRTC's log. */
/* The options of docs/semantics.md that every compile gives, as text (part
   of the kernel cache's key). */
#define VC_NVRTC_SEMANTIC_OPTIONS "--fmad=false --prec-div=true --prec-sqrt=true -ftz=false"
int vc_nvrtc_compile(const char *source, const char *arch, const char *include, const char *label,
                     char **ptx, char **log, vc_error *err);

/* The same for a real architecture ("sm_90", from vc_nvrtc_cubin_arch): a
   cubin (an ELF image, *size bytes) that the driver loads without its PTX
   JIT. VC_ERR_UNSUPPORTED when this NVRTC cannot give one. */
int vc_nvrtc_compile_cubin(const char *source, const char *arch, const char *include,
                           const char *label, void **cubin, size_t *size, char **log,
                           vc_error *err);

/* 1 with arch "sm_MN" when this NVRTC makes cubins (nvrtcGetCUBIN) and
   knows compute capability major.minor itself; 0 otherwise (no NVRTC, an
   older one, or a device newer than it: then only PTX can run there). */
int vc_nvrtc_cubin_arch(int major, int minor, char *arch, size_t n);

/* The include folder native kernels need: NVRTC 13 has no built-in
   cooperative_groups.h. given (the device's include option) alone when set,
   else $VYRE_CONFORM_CUDA_INCLUDE alone when set (VC_ERR_USAGE when either
   lacks the header), else the toolkit NVRTC was loaded from
   (<its folder>/../include, also after resolving links), the toolkit found
   at build time, /usr/local/cuda/include. VC_ERR_NO_DRIVER, naming every
   folder tried, when none has it. */
int vc_nvrtc_include_dir(const char *given, char *dir, size_t n, vc_error *err);

/* The virtual architecture to compile for a device of compute capability
   major.minor: the newest one this NVRTC supports that is not newer than the
   device (PTX is compiled forward by the driver). VC_ERR_UNSUPPORTED when the
   device is older than every architecture NVRTC knows. */
int vc_nvrtc_arch_for(int major, int minor, char *arch, size_t n, vc_error *err);

/* NVRTC's version, and the file the dynamic linker loaded for it. */
int vc_nvrtc_version(int *major, int *minor, const char **path, vc_error *err);

#endif
