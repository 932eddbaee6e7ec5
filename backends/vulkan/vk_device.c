/* Opening and closing a device: instance, physical device, a compute queue,
 * the pipeline cache and the command machinery. */
#include <stdlib.h>

#include "backends/vulkan/vk_internal.h"

static int pick_queue_family(vc_dev *dev, vc_error *err) {
  uint32_t n = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(dev->phys, &n, NULL);
  VkQueueFamilyProperties *q = calloc(n ? n : 1, sizeof *q);
  if (!q) return vc_fail(err, VC_ERR_NOMEM, "Vulkan: out of memory listing queue families");
  vkGetPhysicalDeviceQueueFamilyProperties(dev->phys, &n, q);
  uint32_t found = UINT32_MAX;
  for (uint32_t i = 0; i < n && found == UINT32_MAX; i++)
    if (q[i].queueFlags & VK_QUEUE_COMPUTE_BIT) found = i;
  if (found != UINT32_MAX) {
    dev->queue_family = found;
    dev->timestamp_bits = q[found].timestampValidBits;
  }
  free(q);
  if (found == UINT32_MAX)
    return vc_fail(err, VC_ERR_NO_DEVICE,
                   "Vulkan device %u (%s) has no queue family with VK_QUEUE_COMPUTE_BIT",
                   dev->index, dev->props.deviceName);
  return 0;
}

static void read_properties(vc_dev *dev, bool want_float_controls) {
  vk_props p;
  vk_props_query(dev->phys, &p);
  dev->props = p.p2.properties;
  dev->lavapipe = p.has_driver && p.driver.driverID == VK_DRIVER_ID_MESA_LLVMPIPE;
  dev->subgroup_size = p.subgroup.subgroupSize;
  dev->cores = vk_cores_of(&p);
  dev->vmm_available = vk_memory_model_query(dev->phys, &dev->vmm_ext, &dev->vmm_chains);
  vk_int64_query(dev->phys, &dev->int64);
  vkGetPhysicalDeviceMemoryProperties(dev->phys, &dev->mem);
  dev->max_alloc = p.maint3.maxMemoryAllocationSize;
  if (dev->max_alloc == 0) dev->max_alloc = UINT64_MAX; /* 1.0 device: not reported */
  if (p.has_fc) {
    dev->fc.known = true;
    dev->fc.preserve32 = p.fc.shaderDenormPreserveFloat32;
    dev->fc.ftz32 = p.fc.shaderDenormFlushToZeroFloat32;
    dev->fc.rte32 = p.fc.shaderRoundingModeRTEFloat32;
    dev->fc.rtz32 = p.fc.shaderRoundingModeRTZFloat32;
    dev->fc.denorm_indep = p.fc.denormBehaviorIndependence;
    dev->fc.round_indep = p.fc.roundingModeIndependence;
  }
  dev->denorm_preserve = want_float_controls && dev->fc.preserve32;
  dev->float_controls_ext = dev->denorm_preserve && dev->props.apiVersion < VK_API_VERSION_1_2;
}

static int create_device(vc_dev *dev, vc_error *err) {
  float priority = 1.0f;
  VkDeviceQueueCreateInfo qci = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
      .queueFamilyIndex = dev->queue_family,
      .queueCount = 1,
      .pQueuePriorities = &priority,
  };
  const char *ext[3];
  uint32_t next = 0;
  if (dev->float_controls_ext) ext[next++] = VK_KHR_SHADER_FLOAT_CONTROLS_EXTENSION_NAME;
  if (dev->vmm_available && dev->vmm_ext) ext[next++] = VK_KHR_VULKAN_MEMORY_MODEL_EXTENSION_NAME;
  if (dev->int64.ext) ext[next++] = VK_KHR_SHADER_ATOMIC_INT64_EXTENSION_NAME;
  /* 64-bit integers and atomics for the programs that use them, where the
     device has them (vk_limits.c refuses the programs otherwise). */
  VkPhysicalDeviceFeatures base = {.shaderInt64 = dev->int64.ints};
  VkPhysicalDeviceShaderAtomicInt64Features a64 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_INT64_FEATURES,
      .shaderBufferInt64Atomics = dev->int64.buffer_atomics,
      .shaderSharedInt64Atomics = dev->int64.shared_atomics,
  };
  bool atomics64 = dev->int64.buffer_atomics || dev->int64.shared_atomics;
  /* Native kernels may use the memory model: both features on where the
     device has them. */
  VkPhysicalDeviceVulkanMemoryModelFeatures vmm = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES,
      .vulkanMemoryModel = VK_TRUE,
      .vulkanMemoryModelDeviceScope = VK_TRUE,
      /* gridbar=lead's chains: workgroup, then device scope */
      .vulkanMemoryModelAvailabilityVisibilityChains = dev->vmm_chains,
  };
  void *chain = NULL;
  if (atomics64) {
    a64.pNext = chain;
    chain = &a64;
  }
  if (dev->vmm_available) {
    vmm.pNext = chain;
    chain = &vmm;
  }
  VkDeviceCreateInfo dci = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
      .pNext = chain,
      .pEnabledFeatures = &base,
      .queueCreateInfoCount = 1,
      .pQueueCreateInfos = &qci,
      .enabledExtensionCount = next,
      .ppEnabledExtensionNames = ext,
  };
  VkResult r = vkCreateDevice(dev->phys, &dci, NULL, &dev->device);
  if (r != VK_SUCCESS) return vk_fail_call(err, dev, "vkCreateDevice", r);
  vkGetDeviceQueue(dev->device, dev->queue_family, 0, &dev->queue);
  r = vk_cache_pipeline_create(dev);
  if (r != VK_SUCCESS) return vk_fail_call(err, dev, "vkCreatePipelineCache", r);
  return 0;
}

static int open_physical(vc_dev *dev, uint32_t index, vc_error *err) {
  int rc = vk_instance_create(&dev->instance, &dev->instance_version, err);
  if (rc) return rc;
  VkPhysicalDevice *list;
  uint32_t n;
  rc = vk_physical_devices(dev->instance, &list, &n, err);
  if (rc) return rc;
  if (index >= n) {
    free(list);
    return vc_fail(err, VC_ERR_NO_DEVICE, "Vulkan device %u requested, the loader shows %u",
                   index, n);
  }
  dev->phys = list[index];
  free(list);
  return 0;
}

int vk_open(uint32_t index, const char *options, vc_dev **out, vc_error *err) {
  *out = NULL;
  vk_options opt;
  int rc = vk_options_parse(options, &opt, err);
  if (rc) return rc;
  vc_dev *dev = calloc(1, sizeof *dev);
  if (!dev) return vc_fail(err, VC_ERR_NOMEM, "Vulkan: out of memory opening device %u", index);
  dev->index = index;
  dev->opt = opt;
  rc = vk_glslang_acquire(err);
  if (rc) {
    free(dev);
    return rc;
  }
  rc = open_physical(dev, index, err);
  if (!rc) {
    read_properties(dev, opt.float_controls);
    vk_native_caps(dev);
    rc = pick_queue_family(dev, err);
  }
  if (!rc) rc = create_device(dev, err);
  if (!rc) rc = vk_commands_create(dev, err);
  if (rc) {
    vk_close(dev);
    return rc;
  }
  *out = dev;
  return 0;
}

void vk_close(vc_dev *dev) {
  if (!dev) return;
  if (dev->device) {
    vk_settle(dev);
    vkDeviceWaitIdle(dev->device);
    vk_commands_destroy(dev);
    vk_staging_free(dev);
    vk_host_free_all(dev);
    if (dev->cache) vkDestroyPipelineCache(dev->device, dev->cache, NULL);
    vkDestroyDevice(dev->device, NULL);
  }
  if (dev->instance) vkDestroyInstance(dev->instance, NULL);
  free(dev->times);
  free(dev->hosts);
  free(dev);
  vk_glslang_release();
}
