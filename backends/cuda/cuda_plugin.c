/* The CUDA backend's table: the only symbol the plugin exports. */
#include "backends/cuda/cuda_internal.h"

static const vc_backend cuda_backend = {
    .abi_version = VC_BACKEND_ABI_VERSION,
    .struct_size = sizeof(vc_backend),
    .name = "cuda",
    .device_count = vc_cuda_device_count,
    .open = vc_cuda_open,
    .describe = vc_cuda_describe,
    .close = vc_cuda_close,
    .emit = vc_cuda_emit,
    .compile_offline = vc_cuda_compile_offline,
    .compile = vc_cuda_compile,
    .free_kernel = vc_cuda_free_kernel,
    .alloc = vc_cuda_alloc,
    .free_buffer = vc_cuda_free_buffer,
    .upload = vc_cuda_upload,
    .download = vc_cuda_download,
    .zero = vc_cuda_zero,
    .launch = vc_cuda_launch,
    .finish = vc_cuda_finish,
    .native_stats = vc_cuda_native_stats,
    .offline_ext = "ptx",
    .host_alloc = vc_cuda_host_alloc,
    .host_free = vc_cuda_host_free,
};

const vc_backend *vyre_conform_backend(void);

__attribute__((visibility("default"))) const vc_backend *vyre_conform_backend(void) {
  return &cuda_backend;
}
