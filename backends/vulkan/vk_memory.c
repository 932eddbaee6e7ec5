/* Device buffers (device-local where possible) and the host-visible staging
 * buffer that uploads and downloads go through. */
#include <stdlib.h>

#include "backends/vulkan/vk_internal.h"

int vk_memory_type(const vc_dev *dev, uint32_t bits, VkMemoryPropertyFlags want,
                   VkMemoryPropertyFlags prefer, uint32_t *type) {
  int fallback = -1;
  for (uint32_t i = 0; i < dev->mem.memoryTypeCount; i++) {
    VkMemoryPropertyFlags f = dev->mem.memoryTypes[i].propertyFlags;
    if (!(bits & (1u << i)) || (f & want) != want) continue;
    if ((f & prefer) == prefer) {
      *type = i;
      return 0;
    }
    if (fallback < 0) fallback = (int)i;
  }
  if (fallback < 0) return -1;
  *type = (uint32_t)fallback;
  return 0;
}

/* A buffer with its own memory allocation. */
static int make_buffer(vc_dev *dev, uint64_t bytes, VkBufferUsageFlags usage,
                       VkMemoryPropertyFlags want, VkMemoryPropertyFlags prefer, VkBuffer *buf,
                       VkDeviceMemory *mem, vc_error *err) {
  VkBufferCreateInfo bci = {
      .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
      .size = bytes,
      .usage = usage,
      .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
  };
  VkResult r = vkCreateBuffer(dev->device, &bci, NULL, buf);
  if (r != VK_SUCCESS) return vk_fail_call(err, dev, "vkCreateBuffer", r);
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(dev->device, *buf, &req);
  uint32_t type;
  if (vk_memory_type(dev, req.memoryTypeBits, want, prefer, &type) != 0) {
    vkDestroyBuffer(dev->device, *buf, NULL);
    *buf = VK_NULL_HANDLE;
    return vc_fail(err, VC_ERR_DEVICE,
                   "Vulkan device %u (%s): no memory type with flags 0x%x for a buffer of %llu "
                   "bytes (allowed types 0x%x)",
                   dev->index, dev->props.deviceName, (unsigned)want,
                   (unsigned long long)bytes, req.memoryTypeBits);
  }
  VkMemoryAllocateInfo mai = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
      .allocationSize = req.size,
      .memoryTypeIndex = type,
  };
  r = vkAllocateMemory(dev->device, &mai, NULL, mem);
  if (r == VK_SUCCESS) r = vkBindBufferMemory(dev->device, *buf, *mem, 0);
  if (r != VK_SUCCESS) {
    if (*mem) vkFreeMemory(dev->device, *mem, NULL);
    vkDestroyBuffer(dev->device, *buf, NULL);
    *buf = VK_NULL_HANDLE;
    *mem = VK_NULL_HANDLE;
    vk_fail_call(err, dev, "vkAllocateMemory/vkBindBufferMemory", r);
    return vc_fail_wrap(err, "buffer of %llu bytes", (unsigned long long)bytes);
  }
  return 0;
}

int vk_alloc(vc_dev *dev, uint64_t bytes, vc_buf **out, vc_error *err) {
  *out = NULL;
  if (bytes == 0)
    return vc_fail(err, VC_ERR_USAGE, "Vulkan device %u: a buffer of 0 bytes was requested",
                   dev->index);
  if (bytes > dev->max_alloc)
    return vc_fail(err, VC_ERR_LIMIT,
                   "Vulkan device %u (%s): a buffer of %llu bytes is above "
                   "maxMemoryAllocationSize %llu",
                   dev->index, dev->props.deviceName, (unsigned long long)bytes,
                   (unsigned long long)dev->max_alloc);
  vc_buf *b = calloc(1, sizeof *b);
  if (!b) return vc_fail(err, VC_ERR_NOMEM, "Vulkan: out of memory for a buffer handle");
  /* Rounded up to whole words so that vkCmdFillBuffer covers every byte. */
  int rc = make_buffer(dev, (bytes + 3) & ~3ull,
                       VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                           VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                       0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &b->buffer, &b->memory, err);
  if (rc) {
    free(b);
    return rc;
  }
  b->size = bytes;
  *out = b;
  return 0;
}

void vk_free_buffer(vc_dev *dev, vc_buf *buf) {
  if (!buf) return;
  /* Recorded work may still name the buffer: run it first. */
  vc_error ignored;
  if (dev->recording) vk_flush(dev, &ignored);
  vk_settle(dev);
  vkDestroyBuffer(dev->device, buf->buffer, NULL);
  vkFreeMemory(dev->device, buf->memory, NULL);
  free(buf);
}

void vk_staging_free(vc_dev *dev) {
  if (dev->staging_map) vkUnmapMemory(dev->device, dev->staging_mem);
  if (dev->staging) vkDestroyBuffer(dev->device, dev->staging, NULL);
  if (dev->staging_mem) vkFreeMemory(dev->device, dev->staging_mem, NULL);
  dev->staging_map = NULL;
  dev->staging = VK_NULL_HANDLE;
  dev->staging_mem = VK_NULL_HANDLE;
  dev->staging_size = 0;
}

/* Makes the staging buffer at least min(bytes, VK_STAGING_MAX) large. */
int vk_staging_reserve(vc_dev *dev, uint64_t bytes, vc_error *err) {
  if (bytes > VK_STAGING_MAX) bytes = VK_STAGING_MAX;
  if (dev->staging_size >= bytes) return 0;
  vk_staging_free(dev);
  /* Coherent memory needs no flush or invalidate; cached reads back faster. */
  int rc = make_buffer(dev, bytes,
                       VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                       VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                       VK_MEMORY_PROPERTY_HOST_CACHED_BIT, &dev->staging, &dev->staging_mem, err);
  if (rc) return vc_fail_wrap(err, "staging buffer");
  VkResult r = vkMapMemory(dev->device, dev->staging_mem, 0, VK_WHOLE_SIZE, 0, &dev->staging_map);
  if (r != VK_SUCCESS) {
    vk_staging_free(dev);
    return vk_fail_call(err, dev, "vkMapMemory (staging)", r);
  }
  dev->staging_size = bytes;
  return 0;
}
