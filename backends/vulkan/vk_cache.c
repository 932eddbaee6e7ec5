/* The kernel cache on Vulkan (harness/base/kcache.h): the SPIR-V glslang
 * made from a kernel's GLSL, and the driver's pipeline cache data of each
 * pipeline.
 *
 * SPIR-V is keyed by glslang's version (it is linked in), the target asked
 * for and the GLSL; it does not depend on the driver. Pipeline cache data
 * is content-addressed per pipeline: keyed by the device as the driver
 * names it (vendor, device, driver version, pipelineCacheUUID, name), the
 * SPIR-V and what else creation takes (stage, entry point, flags, layout,
 * no specialisation). A compile creates its pipeline with a VkPipelineCache
 * made from its entry, and after a miss stores that cache's data under the
 * key: one entry per pipeline, each written whole (temporary file, rename),
 * so concurrent workers and runs never lose each other's pipelines as one
 * blob per device, stored at close with the last writer winning, did. Data
 * whose header names another device is a miss; the driver checks it too
 * and may still refuse it (then its cache starts empty). */
#include <stdbool.h>
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

void vk_cache_pipeline_key(const vc_dev *dev, const uint32_t *words, size_t nwords,
                           uint32_t nbindings, vc_kcache_key *k) {
  vc_kcache_key_begin(k, "vulkan-pipeline");
  key_u32(k, dev->props.vendorID);
  key_u32(k, dev->props.deviceID);
  key_u32(k, dev->props.driverVersion);
  vc_kcache_key_bytes(k, dev->props.pipelineCacheUUID, VK_UUID_SIZE);
  vc_kcache_key_str(k, dev->props.deviceName);
  /* what make_pipeline (vk_kernel.c) creates: a compute stage "main", no
     flags, no specialisation, nbindings storage buffers in set 0 */
  key_u32(k, VK_SHADER_STAGE_COMPUTE_BIT);
  vc_kcache_key_str(k, "main");
  key_u32(k, 0);
  key_u32(k, 0);
  key_u32(k, nbindings);
  key_u32(k, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER);
  vc_kcache_key_bytes(k, words, nwords * sizeof *words);
  vc_kcache_key_end(k);
}

/* The header every pipeline cache's data starts with (the Vulkan spec's
   VkPipelineCacheHeaderVersionOne): it must name this device. */
static bool header_matches(const vc_dev *dev, const void *data, size_t n) {
  VkPipelineCacheHeaderVersionOne h;
  if (n < sizeof h) return false;
  memcpy(&h, data, sizeof h);
  return h.headerSize >= sizeof h && h.headerSize <= n &&
         h.headerVersion == VK_PIPELINE_CACHE_HEADER_VERSION_ONE &&
         h.vendorID == dev->props.vendorID && h.deviceID == dev->props.deviceID &&
         memcmp(h.pipelineCacheUUID, dev->props.pipelineCacheUUID, VK_UUID_SIZE) == 0;
}

VkResult vk_cache_pipeline_open(vc_dev *dev, const vc_kcache_key *k, VkPipelineCache *out,
                                bool *hit) {
  void *data = NULL;
  size_t n = 0;
  *hit = false;
  if (vc_kcache_get(dev->opt.cache_dir, k, &data, &n) == 1 && header_matches(dev, data, n))
    *hit = true;
  VkPipelineCacheCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO,
                                   .initialDataSize = *hit ? n : 0,
                                   .pInitialData = *hit ? data : NULL};
  VkResult r = vkCreatePipelineCache(dev->device, &pci, NULL, out);
  if (r != VK_SUCCESS && *hit) { /* refused: compile from nothing, rewrite the entry */
    *hit = false;
    pci.initialDataSize = 0;
    pci.pInitialData = NULL;
    r = vkCreatePipelineCache(dev->device, &pci, NULL, out);
  }
  free(data);
  return r;
}

int vk_cache_pipeline_put(vc_dev *dev, VkPipelineCache c, const vc_kcache_key *k, vc_error *err) {
  size_t n = 0;
  VkResult r = vkGetPipelineCacheData(dev->device, c, &n, NULL);
  if (r != VK_SUCCESS) return vk_fail_call(err, dev, "vkGetPipelineCacheData", r);
  void *data = malloc(n ? n : 1);
  if (!data) return vc_fail(err, VC_ERR_NOMEM, "Vulkan: %zu bytes of pipeline cache data", n);
  r = vkGetPipelineCacheData(dev->device, c, &n, data);
  int rc = r == VK_SUCCESS ? vc_kcache_put(dev->opt.cache_dir, k, data, n, err)
                           : vk_fail_call(err, dev, "vkGetPipelineCacheData", r);
  free(data);
  return rc;
}

VkResult vk_cache_pipeline_create(vc_dev *dev) {
  VkPipelineCacheCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  return vkCreatePipelineCache(dev->device, &pci, NULL, &dev->cache);
}
