/* The Vulkan instance and the physical devices it shows. */
#include <stdio.h>
#include <stdlib.h>

#include "backends/vulkan/vk_internal.h"

/* The newest API the plugin asks for; older loaders and devices are fine
   down to 1.1 (vkGetPhysicalDeviceProperties2 and friends are core there). */
#define VK_WANT_API VK_API_VERSION_1_3

static const char *env_or_unset(const char *name) {
  const char *v = getenv(name);
  return v && *v ? v : "unset";
}

/* The loader found no ICD, or none that loads: say where it looked. */
static int no_driver(vc_error *err, const char *call, VkResult r) {
  return vc_fail(err, VC_ERR_NO_DRIVER,
                 "no Vulkan driver: %s returned %s: the Vulkan loader found no usable ICD. "
                 "It reads ICD manifests from VK_DRIVER_FILES (%s) or VK_ICD_FILENAMES (%s) "
                 "when set, otherwise from the icd.d directories /etc/vulkan/icd.d, "
                 "/usr/local/share/vulkan/icd.d and /usr/share/vulkan/icd.d (and those under "
                 "XDG_CONFIG_DIRS and XDG_DATA_DIRS); install a driver (Mesa lavapipe: "
                 "mesa-vulkan-drivers) or point VK_DRIVER_FILES at its manifest",
                 call, vk_result_name(r), env_or_unset("VK_DRIVER_FILES"),
                 env_or_unset("VK_ICD_FILENAMES"));
}

int vk_instance_create(VkInstance *inst, uint32_t *version, vc_error *err) {
  uint32_t loader = VK_API_VERSION_1_0;
  VkResult r = vkEnumerateInstanceVersion(&loader);
  if (r != VK_SUCCESS) return vk_fail_call(err, NULL, "vkEnumerateInstanceVersion", r);
  if (loader < VK_API_VERSION_1_1)
    return vc_fail(err, VC_ERR_NO_DRIVER,
                   "the Vulkan loader supports API %u.%u only; vyre-conform needs 1.1 or newer",
                   VK_API_VERSION_MAJOR(loader), VK_API_VERSION_MINOR(loader));
  uint32_t api = loader < VK_WANT_API ? loader : VK_WANT_API;
  VkApplicationInfo app = {
      .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
      .pApplicationName = "vyre-conform",
      .pEngineName = "vyre-conform",
      .apiVersion = api,
  };
  VkInstanceCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
      .pApplicationInfo = &app,
  };
  r = vkCreateInstance(&ci, NULL, inst);
  if (r == VK_ERROR_INCOMPATIBLE_DRIVER || r == VK_ERROR_INITIALIZATION_FAILED)
    return no_driver(err, "vkCreateInstance", r);
  if (r != VK_SUCCESS) return vk_fail_call(err, NULL, "vkCreateInstance", r);
  *version = api;
  return 0;
}

int vk_physical_devices(VkInstance inst, VkPhysicalDevice **devs, uint32_t *count,
                        vc_error *err) {
  *devs = NULL;
  *count = 0;
  uint32_t n = 0;
  VkResult r = vkEnumeratePhysicalDevices(inst, &n, NULL);
  if (r == VK_ERROR_INITIALIZATION_FAILED || r == VK_ERROR_INCOMPATIBLE_DRIVER)
    return no_driver(err, "vkEnumeratePhysicalDevices", r);
  if (r != VK_SUCCESS) return vk_fail_call(err, NULL, "vkEnumeratePhysicalDevices", r);
  if (n == 0)
    return vc_fail(err, VC_ERR_NO_DEVICE,
                   "no Vulkan device: the loader found a driver (VK_DRIVER_FILES=%s, "
                   "VK_ICD_FILENAMES=%s) but vkEnumeratePhysicalDevices lists no device",
                   env_or_unset("VK_DRIVER_FILES"), env_or_unset("VK_ICD_FILENAMES"));
  VkPhysicalDevice *list = calloc(n, sizeof *list);
  if (!list) return vc_fail(err, VC_ERR_NOMEM, "Vulkan: out of memory listing %u devices", n);
  r = vkEnumeratePhysicalDevices(inst, &n, list);
  if (r != VK_SUCCESS && r != VK_INCOMPLETE) {
    free(list);
    return vk_fail_call(err, NULL, "vkEnumeratePhysicalDevices", r);
  }
  *devs = list;
  *count = n;
  return 0;
}

int vk_device_count(uint32_t *count, vc_error *err) {
  *count = 0;
  VkInstance inst;
  uint32_t version;
  int rc = vk_instance_create(&inst, &version, err);
  if (rc) return rc;
  VkPhysicalDevice *devs;
  rc = vk_physical_devices(inst, &devs, count, err);
  free(devs);
  vkDestroyInstance(inst, NULL);
  return rc;
}
