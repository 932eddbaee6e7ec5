/* backends/common/native: the native kernel (one launch, device-side grid barrier) and its control buffer. */
/* The native kernel generator: the splitter's segments of one program as one
 * persistent kernel with a device-side grid barrier (docs/native.md).
 *
 * The kernel binds the plan buffers (desc->native->buffers, in order) and
 * then one control buffer (backends/common/native/native_ctrl.h). OpenCL C and GLSL
 * kernels find their participants by occupancy discovery and synchronise
 * with a counter barrier in the control buffer; CUDA C kernels are launched
 * cooperatively and use cooperative_groups grid sync.
 *
 * What depends on the device comes in vc_native_opts, filled by the plugin:
 * the generator never guesses it. */
#ifndef VC_CGEN_NATIVE_H
#define VC_CGEN_NATIVE_H

#include <stdbool.h>

#include "backends/backend.h"
#include "backends/common/cgen/cgen.h"
#include "harness/base/kvopts.h"
#include "harness/base/strbuf.h"

/* OpenCL C and GLSL: the grid barrier among the participants
   (docs/native.md, "The grid barrier"). X(name, option text):
   - FLIP: one word, one atomic add per participant per barrier (participant
     0 adds 2^31 - (np - 1), every other 1, so each barrier flips the top
     bit and leaves the rest as it was); waiters poll with relaxed loads and
     acquire once the bit has flipped;
   - COUNTER: an arrival count reset by the last arriver, which then moves a
     generation word on; waiters poll the generation with acquire loads;
   - LEAD: the flip barrier with grid.sync()'s structure: the workgroup
     barriers on either side order memory at workgroup scope only, and the
     device-scope release (the add) and acquire (after the poll) are the
     lead invocation's alone. On Vulkan it needs the memory model with
     vulkanMemoryModelAvailabilityVisibilityChains (docs/native.md, "Why
     gridbar=lead is enough"). */
#define VC_GRIDBAR_LIST(X) \
  X(FLIP, "flip")          \
  X(COUNTER, "counter")    \
  X(LEAD, "lead")

typedef enum vc_gridbar {
#define VC_GRIDBAR_ENUM(n, s) VC_GRIDBAR_##n,
  VC_GRIDBAR_LIST(VC_GRIDBAR_ENUM)
#undef VC_GRIDBAR_ENUM
} vc_gridbar;

/* CUDA barrier=inline (the plugin's default): the memory orders of the
   written-out grid barrier (docs/native.md). X(name, option text):
   - FENCED (the first inline barrier): __threadfence()
     before an atom.add.acq_rel.gpu, polls by ld.acquire.gpu,
     __threadfence() after;
   - RELEASE (the CUDA plugin's default, VC_CUDA_DEFAULT_INLINE_ORDER):
     grid.sync()'s own on sm_70+ (cooperative_groups/details/sync.h):
     atom.add.release.gpu, polls by ld.acquire.gpu, no fence;
   - RELAXED: atom.add.release.gpu, polls by ld.relaxed.gpu, one
     fence.acq_rel.gpu once the bit has flipped. */
#define VC_CUDA_INLINE_LIST(X) \
  X(FENCED, "fenced")          \
  X(RELEASE, "release")        \
  X(RELAXED, "relaxed")

typedef enum vc_cuda_inline {
#define VC_CUDA_INLINE_ENUM(n, s) VC_CUDA_INLINE_##n,
  VC_CUDA_INLINE_LIST(VC_CUDA_INLINE_ENUM)
#undef VC_CUDA_INLINE_ENUM
} vc_cuda_inline;

typedef struct vc_native_opts {
  vc_dialect dialect;
  /* OpenCL C: the version the plugin builds with (-cl-std): 120, 200, 300. */
  unsigned opencl_c_version;
  /* OpenCL C: atomics and fences with memory_scope_device and
     acquire/release orders (OpenCL C 2.0; 3.0 with the features
     __opencl_c_atomic_scope_device and __opencl_c_atomic_order_acq_rel).
     Without it: OpenCL 1.2 atomics, mem_fence and volatile buffers. */
  bool opencl_device_scope;
  /* GLSL: the device has vulkanMemoryModel and vulkanMemoryModelDeviceScope;
     the kernel uses GL_KHR_memory_scope_semantics (device scope,
     acquire/release). Without it: coherent buffers, memoryBarrierBuffer()
     and atomics. */
  bool vulkan_memory_model;
  /* CUDA: the grid barrier written out (a counter in the control buffer,
     acquire/release at gpu scope) instead of cooperative_groups' grid sync,
     so that NVRTC does not parse cooperative_groups.h. */
  bool cuda_inline_barrier;
  vc_cuda_inline cuda_inline; /* its orders (with cuda_inline_barrier) */
  /* OpenCL C and GLSL: which grid barrier (default FLIP). */
  vc_gridbar gridbar;
  /* OpenCL C and GLSL, a kernel without a grid barrier: every invocation
     works out its own participant number from the words written before
     the launch, instead of the lead invocation handing it on through its
     slot and a workgroup barrier (docs/native.md, "Participants"). Off by
     default; the OpenCL plugin turns it on (native-join=direct). */
  bool join_direct;
  /* OpenCL C and GLSL: a pass is one loop over the segments with a switch
     into their calls, so that the grid barrier's code is one copy (CUDA
     always has it), instead of one straight block per segment, where every
     barrier is followed by code never run before (native-segments=loop). */
  bool loop_segments;
  /* OpenCL C and GLSL: discovery's tickets by compare-and-swap on the poll
     word, as at first, instead of by fetch-and-add on their own word
     (native-discovery=cas). */
  bool discover_cas;
} vc_native_opts;

/* The option text of a grid barrier ("flip", "counter", "lead"; "?" out of
   range). */
const char *vc_gridbar_name(vc_gridbar g);

/* The same names as a plugin option's choices (`gridbar=`), NULL-ended. */
extern const vc_kv_choice vc_gridbar_choices[];

/* The choices of `native-segments=` (unrolled 0, loop 1: loop_segments)
   and `native-discovery=` (add 0, cas 1: discover_cas), for the OpenCL and
   Vulkan plugins' options and descriptions. */
extern const vc_kv_choice vc_native_segments_choices[];
extern const vc_kv_choice vc_native_discovery_choices[];

/* The most portable options for a dialect: OpenCL C 1.2, GLSL without the
   memory model. */
void vc_native_opts_default(vc_dialect d, vc_native_opts *o);

/* Appends the complete source of native kernel k (k->kind VC_KERNEL_NATIVE,
   k->native set). Errors: VC_ERR_USAGE for a descriptor that does not hold
   together, whatever the dialect's check returns for a segment. */
int vc_cgen_native(const vc_kernel_desc *k, const vc_native_opts *o, vc_strbuf *out,
                   vc_error *err);

#endif
