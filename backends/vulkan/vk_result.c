/* VkResult spellings and the error helpers of the plugin. */
#include "backends/vulkan/vk_internal.h"

const char *vk_result_name(VkResult r) {
  switch (r) {
#define VK_NAME(x) case x: return #x;
    VK_NAME(VK_SUCCESS)
    VK_NAME(VK_NOT_READY)
    VK_NAME(VK_TIMEOUT)
    VK_NAME(VK_EVENT_SET)
    VK_NAME(VK_EVENT_RESET)
    VK_NAME(VK_INCOMPLETE)
    VK_NAME(VK_ERROR_OUT_OF_HOST_MEMORY)
    VK_NAME(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    VK_NAME(VK_ERROR_INITIALIZATION_FAILED)
    VK_NAME(VK_ERROR_DEVICE_LOST)
    VK_NAME(VK_ERROR_MEMORY_MAP_FAILED)
    VK_NAME(VK_ERROR_LAYER_NOT_PRESENT)
    VK_NAME(VK_ERROR_EXTENSION_NOT_PRESENT)
    VK_NAME(VK_ERROR_FEATURE_NOT_PRESENT)
    VK_NAME(VK_ERROR_INCOMPATIBLE_DRIVER)
    VK_NAME(VK_ERROR_TOO_MANY_OBJECTS)
    VK_NAME(VK_ERROR_FORMAT_NOT_SUPPORTED)
    VK_NAME(VK_ERROR_FRAGMENTED_POOL)
    VK_NAME(VK_ERROR_UNKNOWN)
    VK_NAME(VK_ERROR_OUT_OF_POOL_MEMORY)
    VK_NAME(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    VK_NAME(VK_ERROR_FRAGMENTATION)
    VK_NAME(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
    VK_NAME(VK_PIPELINE_COMPILE_REQUIRED)
    VK_NAME(VK_ERROR_INVALID_SHADER_NV)
#undef VK_NAME
  default: return "VK_ERROR_(unnamed)";
  }
}

vc_errcode vk_result_code(VkResult r) {
  switch (r) {
  case VK_ERROR_OUT_OF_HOST_MEMORY:
  case VK_ERROR_OUT_OF_DEVICE_MEMORY:
  case VK_ERROR_OUT_OF_POOL_MEMORY:
    return VC_ERR_NOMEM;
  case VK_TIMEOUT: return VC_ERR_TIMEOUT;
  case VK_ERROR_INCOMPATIBLE_DRIVER: return VC_ERR_NO_DRIVER;
  default: return VC_ERR_DEVICE;
  }
}

int vk_fail_call(vc_error *err, const vc_dev *dev, const char *call, VkResult r) {
  if (!dev)
    return vc_fail(err, vk_result_code(r), "Vulkan: %s: %s (%d)", call, vk_result_name(r),
                   (int)r);
  return vc_fail(err, vk_result_code(r), "Vulkan device %u (%s): %s: %s (%d)", dev->index,
                 dev->props.deviceName, call, vk_result_name(r), (int)r);
}
