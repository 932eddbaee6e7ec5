/* NVRTC, opened at run time: CUDA C source to PTX.
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

#include "harness/error.h"

#define VC_CUDA_NVRTC_ENV "VYRE_CONFORM_NVRTC"

/* Compiles source to PTX for a virtual architecture ("compute_90"), with the
   options the semantics need (no contraction, no flushing, IEEE division).
   label names the kernel in messages. *ptx (NUL-terminated) and *log (NULL
   when NVRTC said nothing) are malloc'ed; *log is filled on failure too.
   Errors: VC_ERR_NO_DRIVER without NVRTC, VC_ERR_COMPILE with NVRTC's log. */
int vc_nvrtc_compile(const char *source, const char *arch, const char *label, char **ptx,
                     char **log, vc_error *err);

/* The virtual architecture to compile for a device of compute capability
   major.minor: the newest one this NVRTC supports that is not newer than the
   device (PTX is compiled forward by the driver). VC_ERR_UNSUPPORTED when the
   device is older than every architecture NVRTC knows. */
int vc_nvrtc_arch_for(int major, int minor, char *arch, size_t n, vc_error *err);

/* NVRTC's version, and the file it was loaded from. */
int vc_nvrtc_version(int *major, int *minor, const char **path, vc_error *err);

#endif
