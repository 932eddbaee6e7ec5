/* The kernel cache on Vulkan (harness/base/kcache.h): the SPIR-V glslang
 * made from a kernel's GLSL, and the driver's pipeline cache.
 *
 * SPIR-V is keyed by glslang's version (it is linked in), the target asked
 * for and the GLSL; it does not depend on the driver. The pipeline cache is
 * keyed by the device as the driver names it (vendor, device, driver
 * version, pipelineCacheUUID): it is loaded when the device opens and
 * stored when it closes, so a warm run skips the driver's compile too. The
 * driver checks the data it is given as well (its header holds the same
 * UUID); data it refuses is dropped and the cache starts empty. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glslang/build_info.h>

#include "backends/vulkan/vk_internal.h"

static void key_u32(vc_kcache_key *k, uint32_t v) { vc_kcache_key_bytes(k, &v, sizeof v); }

void vk_cache_spirv_key(const char *glsl, const vk_target *t, vc_kcache_key *k) {
  vc_kcache_key_begin(k, "vulkan-spirv");
  key_u32(k, GLSLANG_VERSION_MAJOR);
  key_u32(k, GLSLANG_VERSION_MINOR);
  key_u32(k, GLSLANG_VERSION_PATCH);
  vc_kcache_key_str(k, GLSLANG_VERSION_FLAVOR);
  key_u32(k, t->client);
  key_u32(k, t->spirv);
  key_u32(k, t->denorm_preserve);
  key_u32(k, t->memory_model);
  vc_kcache_key_str(k, glsl);
  vc_kcache_key_end(k);
}

int vk_cache_spirv_get(const vc_dev *dev, const vc_kcache_key *k, uint32_t **words,
                       size_t *nwords) {
  void *p = NULL;
  size_t n = 0;
  *words = NULL;
  *nwords = 0;
  if (vc_kcache_get(dev->opt.cache_dir, k, &p, &n) != 1) return 0;
  /* SPIR-V: whole words, starting with its magic number */
  if (n < 20 || n % 4 != 0 || ((uint32_t *)p)[0] != 0x07230203u) {
    free(p);
    return 0;
  }
  *words = p;
  *nwords = n / 4;
  return 1;
}

static void pipeline_key(const vc_dev *dev, vc_kcache_key *k) {
  vc_kcache_key_begin(k, "vulkan-pipeline-cache");
  key_u32(k, dev->props.vendorID);
  key_u32(k, dev->props.deviceID);
  key_u32(k, dev->props.driverVersion);
  vc_kcache_key_bytes(k, dev->props.pipelineCacheUUID, VK_UUID_SIZE);
  vc_kcache_key_str(k, dev->props.deviceName);
  vc_kcache_key_end(k);
}

VkResult vk_cache_pipeline_create(vc_dev *dev) {
  void *data = NULL;
  size_t n = 0;
  vc_kcache_key k;
  if (dev->opt.cache_dir[0]) {
    pipeline_key(dev, &k);
    vc_kcache_get(dev->opt.cache_dir, &k, &data, &n);
  }
  VkPipelineCacheCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO,
                                   .initialDataSize = n,
                                   .pInitialData = data};
  VkResult r = vkCreatePipelineCache(dev->device, &pci, NULL, &dev->cache);
  if (r != VK_SUCCESS && data) {
    pci.initialDataSize = 0;
    pci.pInitialData = NULL;
    r = vkCreatePipelineCache(dev->device, &pci, NULL, &dev->cache);
  }
  free(data);
  return r;
}

void vk_cache_pipeline_store(vc_dev *dev) {
  if (!dev->opt.cache_dir[0] || !dev->cache || !dev->new_pipelines) return;
  size_t n = 0;
  if (vkGetPipelineCacheData(dev->device, dev->cache, &n, NULL) != VK_SUCCESS || n == 0) return;
  void *data = malloc(n);
  if (data && vkGetPipelineCacheData(dev->device, dev->cache, &n, data) == VK_SUCCESS) {
    vc_kcache_key k;
    pipeline_key(dev, &k);
    vc_error ignored; /* at close nobody is left to tell; the next run compiles */
    vc_kcache_put(dev->opt.cache_dir, &k, data, n, &ignored);
  }
  free(data);
}
