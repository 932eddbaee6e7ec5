/* Extended physical-device properties (one pNext chain, built from what the
 * device's API version and extensions allow) and the memory-model features. */
#include <stdlib.h>
#include <string.h>

#include "backends/vulkan/vk_internal.h"

bool vk_device_has_extension(VkPhysicalDevice pd, const char *name) {
  uint32_t n = 0;
  if (vkEnumerateDeviceExtensionProperties(pd, NULL, &n, NULL) != VK_SUCCESS || n == 0)
    return false;
  VkExtensionProperties *ext = calloc(n, sizeof *ext);
  if (!ext) return false;
  bool found = false;
  if (vkEnumerateDeviceExtensionProperties(pd, NULL, &n, ext) == VK_SUCCESS)
    for (uint32_t i = 0; i < n && !found; i++) found = strcmp(ext[i].extensionName, name) == 0;
  free(ext);
  return found;
}

/* Appends s to the chain that ends at *tail. */
static void chain(void ***tail, void *s, void **next_field) {
  **tail = s;
  *tail = next_field;
}

void vk_props_query(VkPhysicalDevice pd, vk_props *p) {
  memset(p, 0, sizeof *p);
  VkPhysicalDeviceProperties base;
  vkGetPhysicalDeviceProperties(pd, &base);
  p->p2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  if (base.apiVersion < VK_API_VERSION_1_1) {
    /* 1.1 structures may not be chained on a 1.0 device. */
    p->p2.properties = base;
    return;
  }
  p->id.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES;
  p->subgroup.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
  p->maint3.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES;
  p->driver.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
  p->fc.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES;
  bool v12 = base.apiVersion >= VK_API_VERSION_1_2;
  p->has_driver = v12 || vk_device_has_extension(pd, VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME);
  p->has_fc = v12 || vk_device_has_extension(pd, VK_KHR_SHADER_FLOAT_CONTROLS_EXTENSION_NAME);

  void **tail = &p->p2.pNext;
  chain(&tail, &p->id, &p->id.pNext);
  chain(&tail, &p->subgroup, &p->subgroup.pNext);
  chain(&tail, &p->maint3, &p->maint3.pNext);
  if (p->has_driver) chain(&tail, &p->driver, &p->driver.pNext);
  if (p->has_fc) chain(&tail, &p->fc, &p->fc.pNext);
  p->sm.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV;
  p->amd.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_PROPERTIES_AMD;
  p->arm.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_BUILTINS_PROPERTIES_ARM;
  p->has_sm = vk_device_has_extension(pd, VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME);
  p->has_amd = vk_device_has_extension(pd, VK_AMD_SHADER_CORE_PROPERTIES_EXTENSION_NAME);
  p->has_arm = vk_device_has_extension(pd, VK_ARM_SHADER_CORE_BUILTINS_EXTENSION_NAME);
  if (p->has_sm) chain(&tail, &p->sm, &p->sm.pNext);
  if (p->has_amd) chain(&tail, &p->amd, &p->amd.pNext);
  if (p->has_arm) chain(&tail, &p->arm, &p->arm.pNext);
  vkGetPhysicalDeviceProperties2(pd, &p->p2);
}

vk_cores vk_cores_of(const vk_props *p) {
  vk_cores c = {0, 0, p->subgroup.subgroupSize, "none"};
  if (p->has_sm && p->sm.shaderSMCount) {
    c.units = p->sm.shaderSMCount;
    c.threads_per_unit = p->sm.shaderWarpsPerSM;
    c.source = VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME;
  } else if (p->has_amd && p->amd.computeUnitsPerShaderArray) {
    const VkPhysicalDeviceShaderCorePropertiesAMD *a = &p->amd;
    c.units = a->shaderEngineCount * a->shaderArraysPerEngineCount * a->computeUnitsPerShaderArray;
    c.threads_per_unit = a->simdPerComputeUnit * a->wavefrontsPerSimd;
    c.thread_width = a->wavefrontSize;
    c.source = VK_AMD_SHADER_CORE_PROPERTIES_EXTENSION_NAME;
  } else if (p->has_arm && p->arm.shaderCoreCount) {
    c.units = p->arm.shaderCoreCount;
    c.threads_per_unit = p->arm.shaderWarpsPerCore;
    c.source = VK_ARM_SHADER_CORE_BUILTINS_EXTENSION_NAME;
  }
  return c;
}

void vk_int64_query(VkPhysicalDevice pd, vk_int64_caps *c) {
  memset(c, 0, sizeof *c);
  VkPhysicalDeviceProperties base;
  vkGetPhysicalDeviceProperties(pd, &base);
  VkPhysicalDeviceFeatures f0;
  vkGetPhysicalDeviceFeatures(pd, &f0);
  c->ints = f0.shaderInt64;
  if (base.apiVersion < VK_API_VERSION_1_1) return;
  if (base.apiVersion < VK_API_VERSION_1_2) {
    if (!vk_device_has_extension(pd, VK_KHR_SHADER_ATOMIC_INT64_EXTENSION_NAME)) return;
    c->ext = true;
  }
  VkPhysicalDeviceShaderAtomicInt64Features a = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_INT64_FEATURES};
  VkPhysicalDeviceFeatures2 f = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                 .pNext = &a};
  vkGetPhysicalDeviceFeatures2(pd, &f);
  c->buffer_atomics = a.shaderBufferInt64Atomics;
  c->shared_atomics = a.shaderSharedInt64Atomics;
  if (!c->buffer_atomics && !c->shared_atomics) c->ext = false;
}

bool vk_memory_model_query(VkPhysicalDevice pd, bool *ext, bool *chains) {
  VkPhysicalDeviceProperties base;
  vkGetPhysicalDeviceProperties(pd, &base);
  *ext = false;
  *chains = false;
  if (base.apiVersion < VK_API_VERSION_1_1) return false;
  if (base.apiVersion < VK_API_VERSION_1_2) {
    if (!vk_device_has_extension(pd, VK_KHR_VULKAN_MEMORY_MODEL_EXTENSION_NAME)) return false;
    *ext = true;
  }
  VkPhysicalDeviceVulkanMemoryModelFeatures m = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES};
  VkPhysicalDeviceFeatures2 f = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                 .pNext = &m};
  vkGetPhysicalDeviceFeatures2(pd, &f);
  *chains = m.vulkanMemoryModelAvailabilityVisibilityChains;
  return m.vulkanMemoryModel && m.vulkanMemoryModelDeviceScope;
}
