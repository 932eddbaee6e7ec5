/* Opening and closing a device: instance, physical device, a compute queue,
 * the pipeline cache and the command machinery. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/vulkan/vk_internal.h"

typedef struct vk_options {
  bool float_controls; /* request DenormPreserve where the device supports it */
} vk_options;

static bool option_is(const char *s, size_t n, const char *opt) {
  return n == strlen(opt) && strncmp(s, opt, n) == 0;
}

/* options: "key=value,..."; known keys: float-controls=auto|off. */
static int parse_options(const char *s, vk_options *o, vc_error *err) {
  o->float_controls = true;
  while (s && *s) {
    const char *end = strchr(s, ',');
    size_t n = end ? (size_t)(end - s) : strlen(s);
    if (option_is(s, n, "float-controls=auto"))
      o->float_controls = true;
    else if (option_is(s, n, "float-controls=off"))
      o->float_controls = false;
    else if (n > 0)
      return vc_fail(err, VC_ERR_USAGE,
                     "Vulkan: unknown option '%.*s' (known: float-controls=auto|off)", (int)n,
                     s);
    s = end ? end + 1 : s + n;
  }
  return 0;
}

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
  const char *ext[] = {VK_KHR_SHADER_FLOAT_CONTROLS_EXTENSION_NAME};
  VkDeviceCreateInfo dci = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
      .queueCreateInfoCount = 1,
      .pQueueCreateInfos = &qci,
      .enabledExtensionCount = dev->float_controls_ext ? 1u : 0u,
      .ppEnabledExtensionNames = ext,
  };
  VkResult r = vkCreateDevice(dev->phys, &dci, NULL, &dev->device);
  if (r != VK_SUCCESS) return vk_fail_call(err, dev, "vkCreateDevice", r);
  vkGetDeviceQueue(dev->device, dev->queue_family, 0, &dev->queue);
  VkPipelineCacheCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  r = vkCreatePipelineCache(dev->device, &pci, NULL, &dev->cache);
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
  int rc = parse_options(options, &opt, err);
  if (rc) return rc;
  vc_dev *dev = calloc(1, sizeof *dev);
  if (!dev) return vc_fail(err, VC_ERR_NOMEM, "Vulkan: out of memory opening device %u", index);
  dev->index = index;
  rc = vk_glslang_acquire(err);
  if (rc) {
    free(dev);
    return rc;
  }
  rc = open_physical(dev, index, err);
  if (!rc) {
    read_properties(dev, opt.float_controls);
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
    vkDeviceWaitIdle(dev->device);
    vk_commands_destroy(dev);
    vk_staging_free(dev);
    if (dev->cache) vkDestroyPipelineCache(dev->device, dev->cache, NULL);
    vkDestroyDevice(dev->device, NULL);
  }
  if (dev->instance) vkDestroyInstance(dev->instance, NULL);
  free(dev->times);
  free(dev);
  vk_glslang_release();
}
