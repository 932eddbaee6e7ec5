/* Device buffers (device-local where possible), the host-visible staging
 * buffer that uploads and downloads of other memory go through, and the
 * host memory host_alloc hands out: mapped host-visible buffers that copies
 * use directly. */
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

const vk_host *vk_host_find(const vc_dev *dev, const void *p, uint64_t bytes) {
  const unsigned char *c = p;
  for (uint32_t i = 0; i < dev->nhosts; i++) {
    const vk_host *h = &dev->hosts[i];
    if (h->buffer && c >= h->p && bytes <= h->bytes && (uint64_t)(c - h->p) <= h->bytes - bytes)
      return h;
  }
  return NULL;
}

/* Coherent, like the staging buffer, so that no flush or invalidate is
   needed; cached, where there is such a type, because the harness reads
   its host copies too. */
int vk_host_alloc(vc_dev *dev, uint64_t bytes, void **out, vc_error *err) {
  *out = NULL;
  uint64_t size = bytes ? (bytes + 3) & ~3ull : 4;
  if (size > dev->max_alloc || size > SIZE_MAX)
    return vc_fail(err, VC_ERR_LIMIT,
                   "Vulkan device %u (%s): host memory of %llu bytes is above "
                   "maxMemoryAllocationSize %llu",
                   dev->index, dev->props.deviceName, (unsigned long long)bytes,
                   (unsigned long long)dev->max_alloc);
  if (dev->nhosts == dev->host_cap) {
    uint32_t cap = dev->host_cap ? 2 * dev->host_cap : 16;
    vk_host *h = realloc(dev->hosts, cap * sizeof *h);
    if (!h) return vc_fail(err, VC_ERR_NOMEM, "Vulkan: out of memory for a host memory record");
    dev->hosts = h;
    dev->host_cap = cap;
  }
  vk_host h = {NULL, bytes, VK_NULL_HANDLE, VK_NULL_HANDLE};
  if (dev->opt.malloc_host) {
    h.p = malloc((size_t)size);
    if (!h.p)
      return vc_fail(err, VC_ERR_NOMEM, "Vulkan device %u: no host memory for %llu bytes",
                     dev->index, (unsigned long long)bytes);
  } else {
    int rc = make_buffer(
        dev, size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
        VK_MEMORY_PROPERTY_HOST_CACHED_BIT, &h.buffer, &h.memory, err);
    if (rc) return vc_fail_wrap(err, "host memory");
    void *map = NULL;
    VkResult r = vkMapMemory(dev->device, h.memory, 0, VK_WHOLE_SIZE, 0, &map);
    if (r != VK_SUCCESS) {
      vkDestroyBuffer(dev->device, h.buffer, NULL);
      vkFreeMemory(dev->device, h.memory, NULL);
      vk_fail_call(err, dev, "vkMapMemory", r);
      return vc_fail_wrap(err, "host memory of %llu bytes", (unsigned long long)bytes);
    }
    h.p = map;
  }
  dev->hosts[dev->nhosts++] = h;
  *out = h.p;
  return 0;
}

static void host_release(vc_dev *dev, const vk_host *h) {
  if (!h->buffer) {
    free(h->p);
    return;
  }
  vkUnmapMemory(dev->device, h->memory);
  vkDestroyBuffer(dev->device, h->buffer, NULL);
  vkFreeMemory(dev->device, h->memory, NULL);
}

void vk_host_free(vc_dev *dev, void *p) {
  if (!p) return;
  for (uint32_t i = 0; i < dev->nhosts; i++) {
    if (dev->hosts[i].p != p) continue;
    /* Recorded or timed-out work may still name the buffer: run it first. */
    vc_error ignored;
    if (dev->recording) vk_flush(dev, &ignored);
    vk_settle(dev);
    host_release(dev, &dev->hosts[i]);
    dev->hosts[i] = dev->hosts[--dev->nhosts];
    return;
  }
}

void vk_host_free_all(vc_dev *dev) {
  for (uint32_t i = 0; i < dev->nhosts; i++) host_release(dev, &dev->hosts[i]);
  dev->nhosts = 0;
}
