/* Blocking transfers: upload and download of host_alloc's memory straight
 * from or to its mapped buffer, of other memory through the staging buffer;
 * zero with vkCmdFillBuffer. Each records after whatever launches are
 * pending, then submits and waits, so it sees (and is seen by) them in
 * order. */
#include <string.h>

#include "backends/vulkan/vk_internal.h"

#define VK_ANY_WRITE (VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT)
#define VK_ANY_ACCESS                                                                  \
  (VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT | \
   VK_ACCESS_TRANSFER_WRITE_BIT)
#define VK_WORK_STAGES (VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT)

static void barrier(vc_dev *dev, VkPipelineStageFlags src_stage, VkAccessFlags src,
                    VkPipelineStageFlags dst_stage, VkAccessFlags dst) {
  VkMemoryBarrier mb = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = src, .dstAccessMask = dst};
  vkCmdPipelineBarrier(dev->cmd, src_stage, dst_stage, 0, 1, &mb, 0, NULL, 0, NULL);
}

static int check_size(const vc_dev *dev, const vc_buf *buf, uint64_t bytes, const char *what,
                      vc_error *err) {
  if (bytes <= buf->size) return 0;
  return vc_fail(err, VC_ERR_USAGE,
                 "Vulkan device %u: %s of %llu bytes into a buffer of %llu bytes", dev->index,
                 what, (unsigned long long)bytes, (unsigned long long)buf->size);
}

/* One copy between a mapped host_alloc buffer at offset off and buf, waited
   for. Host writes to the coherent mapping become visible to the device at
   submission; the device's writes, to the host after the fence wait. */
static int direct(vc_dev *dev, vc_buf *buf, const vk_host *h, uint64_t off, uint64_t bytes,
                  bool up, vc_error *err) {
  int rc = vk_begin(dev, err);
  if (rc) return rc;
  if (up) {
    barrier(dev, VK_WORK_STAGES, VK_ANY_ACCESS, VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_TRANSFER_WRITE_BIT);
    VkBufferCopy copy = {.srcOffset = off, .dstOffset = 0, .size = bytes};
    vkCmdCopyBuffer(dev->cmd, h->buffer, buf->buffer, 1, &copy);
    barrier(dev, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_WORK_STAGES,
            VK_ANY_ACCESS);
  } else {
    barrier(dev, VK_WORK_STAGES, VK_ANY_WRITE, VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_TRANSFER_READ_BIT);
    VkBufferCopy copy = {.srcOffset = 0, .dstOffset = off, .size = bytes};
    vkCmdCopyBuffer(dev->cmd, buf->buffer, h->buffer, 1, &copy);
    barrier(dev, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
            VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  }
  return vk_flush(dev, err);
}

int vk_upload(vc_dev *dev, vc_buf *buf, const void *src, uint64_t bytes, vc_error *err) {
  int rc = check_size(dev, buf, bytes, "upload", err);
  const vk_host *h = rc || !bytes ? NULL : vk_host_find(dev, src, bytes);
  if (h) {
    rc = direct(dev, buf, h, (uint64_t)((const unsigned char *)src - h->p), bytes, true, err);
    return rc ? vc_fail_wrap(err, "upload of %llu bytes", (unsigned long long)bytes) : 0;
  }
  if (!rc) rc = vk_staging_reserve(dev, bytes, err);
  const unsigned char *p = src;
  for (uint64_t off = 0; !rc && off < bytes; off += dev->staging_size) {
    uint64_t n = bytes - off < dev->staging_size ? bytes - off : dev->staging_size;
    rc = vk_begin(dev, err);
    if (rc) break;
    /* The host writes of memcpy become visible to the device at submission. */
    memcpy(dev->staging_map, p + off, n);
    barrier(dev, VK_WORK_STAGES, VK_ANY_ACCESS, VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_TRANSFER_WRITE_BIT);
    VkBufferCopy copy = {.srcOffset = 0, .dstOffset = off, .size = n};
    vkCmdCopyBuffer(dev->cmd, dev->staging, buf->buffer, 1, &copy);
    barrier(dev, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_WORK_STAGES,
            VK_ANY_ACCESS);
    rc = vk_flush(dev, err);
  }
  return rc ? vc_fail_wrap(err, "upload of %llu bytes", (unsigned long long)bytes) : 0;
}

int vk_download(vc_dev *dev, vc_buf *buf, void *dst, uint64_t bytes, vc_error *err) {
  int rc = check_size(dev, buf, bytes, "download", err);
  const vk_host *h = rc || !bytes ? NULL : vk_host_find(dev, dst, bytes);
  if (h) {
    rc = direct(dev, buf, h, (uint64_t)((unsigned char *)dst - h->p), bytes, false, err);
    return rc ? vc_fail_wrap(err, "download of %llu bytes", (unsigned long long)bytes) : 0;
  }
  if (!rc) rc = vk_staging_reserve(dev, bytes, err);
  unsigned char *p = dst;
  for (uint64_t off = 0; !rc && off < bytes; off += dev->staging_size) {
    uint64_t n = bytes - off < dev->staging_size ? bytes - off : dev->staging_size;
    rc = vk_begin(dev, err);
    if (rc) break;
    barrier(dev, VK_WORK_STAGES, VK_ANY_WRITE, VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_TRANSFER_READ_BIT);
    VkBufferCopy copy = {.srcOffset = off, .dstOffset = 0, .size = n};
    vkCmdCopyBuffer(dev->cmd, buf->buffer, dev->staging, 1, &copy);
    barrier(dev, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
            VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    rc = vk_flush(dev, err);
    if (!rc) memcpy(p + off, dev->staging_map, n);
  }
  return rc ? vc_fail_wrap(err, "download of %llu bytes", (unsigned long long)bytes) : 0;
}

int vk_zero(vc_dev *dev, vc_buf *buf, vc_error *err) {
  int rc = vk_begin(dev, err);
  if (rc) return rc;
  barrier(dev, VK_WORK_STAGES, VK_ANY_ACCESS, VK_PIPELINE_STAGE_TRANSFER_BIT,
          VK_ACCESS_TRANSFER_WRITE_BIT);
  vkCmdFillBuffer(dev->cmd, buf->buffer, 0, VK_WHOLE_SIZE, 0);
  barrier(dev, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_WORK_STAGES,
          VK_ANY_ACCESS);
  rc = vk_flush(dev, err);
  return rc ? vc_fail_wrap(err, "zero of %llu bytes", (unsigned long long)buf->size) : 0;
}
