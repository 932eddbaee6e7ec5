/* The device options: "key=value,..." from --device-options (docs/backend-opencl.md,
 * docs/native.md), through the shared parser (harness/base/kvopts.h). The
 * deadline's default is set here; the native defaults that depend on the
 * device come later (ocl_native.c). */
#include "backends/opencl/ocl_internal.h"
#include "harness/base/kvopts.h"

#define DEFAULT_DEADLINE_S 30u

#define U32(name, field, given)                                                  \
  {name, VC_KV_U32, offsetof(vc_dev, field), 0, UINT32_MAX, "N", NULL, 0, given}

static const vc_kv_choice atomics[] = {{"auto", VC_OCL_ATOMICS_AUTO},
                                       {"cl12", VC_OCL_ATOMICS_CL12},
                                       {"device", VC_OCL_ATOMICS_DEVICE},
                                       {NULL, 0}};
/* barrier-free native kernels: every invocation joins by itself (the
   default) or through its workgroup's slot and a workgroup barrier */
static const vc_kv_choice join[] = {{"slot", 0}, {"direct", 1}, {NULL, 0}};
static const vc_kv_choice host_memory[] = {{"backend", 0}, {"malloc", 1}, {NULL, 0}};

static const vc_kv_key keys[] = {
    {"cl-std", VC_KV_TEXT, offsetof(vc_dev, cl_std), 1, sizeof(((vc_dev *)0)->cl_std) - 1,
     "CLx.y", NULL, 0, 0},
    {"build", VC_KV_TEXT, offsetof(vc_dev, build_extra), 0,
     sizeof(((vc_dev *)0)->build_extra) - 1, "FLAGS", NULL, 0, 0},
    {"deadline", VC_KV_U32, offsetof(vc_dev, deadline_ms), 1, 86400, "SECONDS", NULL, 1000, 0},
    U32("native-wgs", native.max_wgs, 0),
    U32("native-cap", native.ctrl.cap, 0),
    U32("native-spin", native.ctrl.spin_limit, VC_KV_GIVEN(vc_dev, native.spin_given)),
    U32("native-window", native.ctrl.window, VC_KV_GIVEN(vc_dev, native.window_given)),
    U32("native-expect", native.ctrl.expect, VC_KV_GIVEN(vc_dev, native.expect_given)),
    U32("native-phantoms", native.ctrl.phantoms, 0),
    {"native-atomics", VC_KV_CHOICE, offsetof(vc_dev, native.atomics), 0, 0, NULL, atomics, 0, 0},
    {"host-memory", VC_KV_CHOICE, offsetof(vc_dev, malloc_host), 0, 0, NULL, host_memory, 0, 0},
    {"gridbar", VC_KV_CHOICE, offsetof(vc_dev, native.gridbar), 0, 0, NULL, vc_gridbar_choices, 0,
     0},
    {"native-join", VC_KV_CHOICE, offsetof(vc_dev, native.join_direct), 0, 0, NULL, join, 0, 0},
    {"native-segments", VC_KV_CHOICE, offsetof(vc_dev, native.loop_segments), 0, 0, NULL,
     vc_native_segments_choices, 0, 0},
    {"native-discovery", VC_KV_CHOICE, offsetof(vc_dev, native.discover_cas), 0, 0, NULL,
     vc_native_discovery_choices, 0, 0},
    VC_KCACHE_KV_KEY(vc_dev, cache_dir),
};

int vc_ocl_parse_options(vc_dev *d, const char *options, vc_error *err) {
  d->deadline_ms = DEFAULT_DEADLINE_S * 1000u;
  int rc = vc_kv_parse("OpenCL", options, keys, sizeof keys / sizeof keys[0], d, err);
  vc_kcache_option_done(d->cache_dir);
  return rc;
}
