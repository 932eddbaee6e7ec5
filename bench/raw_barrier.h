/* vc-raw-barrier-bench: a hand-written grid barrier on Vulkan and OpenCL,
 * through the APIs themselves (no plugin of the harness), to show how much
 * of the native kernel's barrier cost is the driver's and how much ours
 * (issue 19, goal 4; docs/performance.md, "A raw grid barrier"). What the
 * API files share: the variants, the options, one run's result and its
 * check, the kernel texts. */
#ifndef VC_RAW_BARRIER_H
#define VC_RAW_BARRIER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "harness/base/error.h"

/* vc-cuda-bench's chain program: each invocation below 1024 adds 1 to its
   word of a 4 KiB buffer per segment. */
#define RB_WORDS 1024u
#define RB_WORKGROUP 256u
/* control words: the arrival counter, the waits that gave up, the first
   barrier (1-based) at which one did */
#define RB_CTRL_WORDS 4u
#define RB_COUNT 0u
#define RB_GAVE_UP 1u
#define RB_GAVE_UP_AT 2u

/* The kernels, one table: the key printed and the definition. */
#define RB_VARIANTS(X)                                                                             \
  X(NONE, "none", "one segment, no barrier: the API's launch with the chain's work")               \
  X(ACQREL, "acqrel",                                                                              \
    "workgroup barrier; invocation 0 adds 1 to one counter (acq_rel, device scope) and polls "     \
    "it with relaxed loads until all G arrived, then an acquire fence; workgroup barrier")         \
  X(RELAXED, "relaxed",                                                                            \
    "acqrel with the add relaxed and no fence (not a correct barrier in general: the floor of "    \
    "the atomics and the spin)")                                                                   \
  X(ALLPOLL, "allpoll",                                                                            \
    "acqrel's add by invocation 0, then every invocation polls the counter and fences itself "     \
    "(no second workgroup barrier)")                                                               \
  X(DEVBAR, "devbar",                                                                              \
    "acqrel with device-scope workgroup barriers (the structure of the native kernel's "           \
    "gridbar=flip)")

typedef enum rb_variant {
#define RB_ENUM(e, key, what) RB_##e,
  RB_VARIANTS(RB_ENUM)
#undef RB_ENUM
      RB_NVARIANTS
} rb_variant;

const char *rb_variant_key(rb_variant v);
const char *rb_variant_what(rb_variant v);

/* OpenCL's atomics: what the device has (auto), or forced. */
typedef enum rb_cl_atomics { RB_CL_AUTO, RB_CL_12, RB_CL_DEVICE } rb_cl_atomics;

typedef struct rb_opts {
  uint32_t grid, barriers, repeat;
  uint32_t spin;                                   /* polls before a wait gives up */
  uint32_t deadline_s;                             /* the host's wait for one run */
  const char *vk_device, *cl_platform, *cl_device; /* index or name substring; NULL: first GPU */
  rb_cl_atomics cl_atomics;
} rb_opts;

/* One run: its device time and what it left in the buffers. */
typedef struct rb_run {
  uint64_t ns;
  uint32_t words[RB_WORDS];
  uint32_t ctrl[RB_CTRL_WORDS];
} rb_run;

/* NULL when run r of variant v with B barriers on G workgroups left the
   right words; else why not, in msg. */
const char *rb_check(const rb_run *r, rb_variant v, uint32_t barriers, uint32_t grid, char *msg,
                     size_t n);

/* One API. open picks the device (o's selectors), builds every variant and
   fills ident with what was picked (device, driver, ordering); run
   launches variant v once (B barriers, 0 for none) and waits at most the
   deadline: VC_ERR_TIMEOUT then, and the device is not to be used again. */
typedef struct rb_api {
  const char *name;
  int (*open)(const rb_opts *o, void **ctx, char *ident, size_t n, vc_error *err);
  int (*run)(void *ctx, rb_variant v, uint32_t barriers, rb_run *out, vc_error *err);
  void (*close)(void *ctx);
} rb_api;

#ifdef VC_RB_VULKAN
extern const rb_api rb_vulkan;
#endif
#ifdef VC_RB_OPENCL
extern const rb_api rb_opencl;
#endif

/* True when sel (a decimal index or a case-insensitive name substring)
   picks the device at index i named name. */
bool rb_selects(const char *sel, uint32_t i, const char *name);

/* The kernels' text. GLSL for Vulkan (memory model, device scope; push
   constants: barriers, spin); OpenCL C with device-scope atomics
   (device_scope) or the 1.2 built-ins and mem_fence (kernel arguments:
   o, ctrl, barriers, spin). Static text, never freed. */
const char *rb_glsl(rb_variant v);
const char *rb_opencl_c(rb_variant v, bool device_scope);

#endif
