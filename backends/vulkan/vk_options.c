/* The device options: "key=value,..." from --device-options
 * (docs/backend-vulkan.md), through the shared parser (harness/base/kvopts.h).
 * Defaults that depend on the device (the native settings not given) are
 * filled at open by vk_native_caps. */
#include <string.h>

#include "backends/vulkan/vk_internal.h"
#include "harness/base/kvopts.h"

#define U32(name, field, given)                                                      \
  {name, VC_KV_U32, offsetof(vk_options, field), 0, UINT32_MAX, "N", NULL, 0, given}

static const vc_kv_choice float_controls[] = {{"auto", 1}, {"off", 0}, {NULL, 0}};
static const vc_kv_choice memory_model[] = {
    {"auto", VK_VMM_AUTO}, {"off", VK_VMM_OFF}, {"on", VK_VMM_ON}, {NULL, 0}};
static const vc_kv_choice host_memory[] = {{"backend", 0}, {"malloc", 1}, {NULL, 0}};

static const vc_kv_key keys[] = {
    {"float-controls", VC_KV_CHOICE, offsetof(vk_options, float_controls), 0, 0, NULL,
     float_controls, 0, 0},
    {"deadline", VC_KV_U32, offsetof(vk_options, deadline_s), 1, 86400, "SECONDS", NULL, 0, 0},
    U32("native-wgs", native_wgs, 0),
    U32("native-cap", ctrl.cap, VC_KV_GIVEN(vk_options, cap_given)),
    U32("native-window", ctrl.window, VC_KV_GIVEN(vk_options, window_given)),
    U32("native-expect", ctrl.expect, VC_KV_GIVEN(vk_options, expect_given)),
    U32("native-spin", ctrl.spin_limit, VC_KV_GIVEN(vk_options, spin_given)),
    U32("native-phantoms", ctrl.phantoms, 0),
    {"native-memory-model", VC_KV_CHOICE, offsetof(vk_options, vmm), 0, 0, NULL, memory_model, 0,
     0},
    {"host-memory", VC_KV_CHOICE, offsetof(vk_options, malloc_host), 0, 0, NULL, host_memory, 0,
     0},
    {"gridbar", VC_KV_CHOICE, offsetof(vk_options, gridbar), 0, 0, NULL, vc_gridbar_choices, 0,
     0},
    {"native-segments", VC_KV_CHOICE, offsetof(vk_options, loop_segments), 0, 0, NULL,
     vc_native_segments_choices,
     0, 0},
    {"native-discovery", VC_KV_CHOICE, offsetof(vk_options, discover_cas), 0, 0, NULL,
     vc_native_discovery_choices,
     0, 0},
    VC_KCACHE_KV_KEY(vk_options, cache_dir),
};

int vk_options_parse(const char *s, vk_options *o, vc_error *err) {
  memset(o, 0, sizeof *o);
  o->float_controls = 1;
  o->deadline_s = VK_DEADLINE_DEFAULT_S;
  o->vmm = VK_VMM_AUTO;
  int rc = vc_kv_parse("Vulkan", s, keys, sizeof keys / sizeof keys[0], o, err);
  vc_kcache_option_done(o->cache_dir);
  return rc;
}
