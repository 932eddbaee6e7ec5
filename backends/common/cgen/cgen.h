/* backends/common/cgen: the core of the C-family code generator (what the core decides). */
/* The C-family code generator shared by the OpenCL C, GLSL and CUDA C
 * backends. The three languages differ in spelling (kernel signature,
 * builtins, atomics, barriers, bit casts), not in the semantics the
 * generated code must have, so one generator with a dialect table keeps the
 * rules of docs/semantics.md in one place.
 *
 * Conventions of the generated code:
 *  - entry point "vc_main";
 *  - buffer k of the kernel's table is OpenCL kernel argument k, CUDA kernel
 *    parameter k, GLSL `layout(std430, set = 0, binding = k)`;
 *  - GLSL sets local_size from the program's workgroup; OpenCL and CUDA
 *    launch with it. */
#ifndef VC_CGEN_H
#define VC_CGEN_H

#include "backends/backend.h"
#include "harness/base/strbuf.h"

typedef enum vc_dialect { VC_DIALECT_OPENCL_C = 0, VC_DIALECT_GLSL, VC_DIALECT_CUDA } vc_dialect;

/* Appends the complete source of kernel k to out. */
int vc_cgen_kernel(const vc_kernel_desc *k, vc_dialect d, vc_strbuf *out, vc_error *err);

#endif
