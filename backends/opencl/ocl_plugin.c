/* The OpenCL backend plugin: its operations table and the one symbol it
 * exports (everything else in the plugin is hidden). */
#include "backends/opencl/ocl_internal.h"

static const vc_backend ocl_backend = {
    .abi_version = VC_BACKEND_ABI_VERSION,
    .struct_size = sizeof(vc_backend),
    .name = "opencl",
    .device_count = vc_ocl_device_count,
    .open = vc_ocl_open,
    .describe = vc_ocl_describe,
    .close = vc_ocl_close,
    .emit = vc_ocl_emit,
    .compile_offline = NULL, /* OpenCL cannot compile without a device */
    .compile = vc_ocl_compile,
    .free_kernel = vc_ocl_free_kernel,
    .alloc = vc_ocl_alloc,
    .free_buffer = vc_ocl_free_buffer,
    .upload = vc_ocl_upload,
    .download = vc_ocl_download,
    .zero = vc_ocl_zero,
    .launch = vc_ocl_launch,
    .finish = vc_ocl_finish,
    .native_stats = vc_ocl_native_stats,
    .host_alloc = vc_ocl_host_alloc,
    .host_free = vc_ocl_host_free,
};

__attribute__((visibility("default"))) const vc_backend *vyre_conform_backend(void);

const vc_backend *vyre_conform_backend(void) { return &ocl_backend; }
