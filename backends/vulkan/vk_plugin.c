/* The plugin's entry point: the vc_backend table of backends/backend.h. */
#include "backends/vulkan/vk_internal.h"

static const vc_backend vulkan_backend = {
    .abi_version = VC_BACKEND_ABI_VERSION,
    .struct_size = sizeof(vc_backend),
    .name = "vulkan",
    .device_count = vk_device_count,
    .open = vk_open,
    .describe = vk_describe,
    .close = vk_close,
    .emit = vk_emit,
    .compile_offline = vk_compile_offline,
    .compile = vk_compile,
    .free_kernel = vk_free_kernel,
    .alloc = vk_alloc,
    .free_buffer = vk_free_buffer,
    .upload = vk_upload,
    .download = vk_download,
    .zero = vk_zero,
    .launch = vk_launch,
    .finish = vk_finish,
    .native_stats = vk_native_stats,
    .offline_ext = "spv",
    .host_alloc = vk_host_alloc,
    .host_free = vk_host_free,
};

__attribute__((visibility("default"))) const vc_backend *vyre_conform_backend(void);
const vc_backend *vyre_conform_backend(void) { return &vulkan_backend; }
