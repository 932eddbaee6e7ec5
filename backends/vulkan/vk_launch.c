/* launch records one dispatch into the open command buffer (no submit);
 * finish submits, waits until the deadline and returns one device time per
 * dispatch. */
#include <stdio.h>
#include <string.h>

#include "backends/vulkan/vk_internal.h"
#include "harness/base/mutant.h"

static int check_bindings(const vc_dev *dev, const vc_kern *kern, vc_buf *const *bufs,
                          uint32_t nbufs, vc_error *err) {
  if (nbufs != kern->nbuffers)
    return vc_fail(err, VC_ERR_USAGE, "Vulkan device %u: kernel %s binds %u buffers, %u given",
                   dev->index, kern->label, kern->nbuffers, nbufs);
  for (uint32_t i = 0; i < nbufs; i++) {
    if (!bufs[i])
      return vc_fail(err, VC_ERR_USAGE, "Vulkan device %u: kernel %s: buffer %u is NULL",
                     dev->index, kern->label, i);
    if (bufs[i]->size < kern->buffer_bytes[i])
      return vc_fail(err, VC_ERR_USAGE,
                     "Vulkan device %u: kernel %s: binding %u needs %llu bytes, the buffer has "
                     "%llu",
                     dev->index, kern->label, i, (unsigned long long)kern->buffer_bytes[i],
                     (unsigned long long)bufs[i]->size);
  }
  return 0;
}

/* Makes room in the batch: a full one is submitted (and waited for) first. */
static int reserve_batch(vc_dev *dev, uint32_t ndesc, vc_error *err) {
  if (dev->recording &&
      (dev->ndispatch == VK_BATCH_DISPATCHES || dev->ndescriptors + ndesc > VK_BATCH_DESCRIPTORS)) {
    int rc = vk_flush(dev, err);
    if (rc) return rc;
  }
  return vk_begin(dev, err);
}

/* Binding k is bufs[k]; a native kernel's control buffer follows them. */
static int bind_buffers(vc_dev *dev, vc_kern *kern, vc_buf *const *bufs, uint32_t nbufs,
                        vc_error *err) {
  VkDescriptorSetAllocateInfo ai = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
      .descriptorPool = dev->dpool,
      .descriptorSetCount = 1,
      .pSetLayouts = &kern->set_layout,
  };
  VkDescriptorSet set;
  VkResult r = vkAllocateDescriptorSets(dev->device, &ai, &set);
  if (r != VK_SUCCESS) return vk_fail_call(err, dev, "vkAllocateDescriptorSets", r);
  uint32_t n = nbufs + (kern->native ? 1u : 0u);
  dev->ndescriptors += n;
  VkDescriptorBufferInfo info[VK_MAX_BINDINGS];
  VkWriteDescriptorSet w[VK_MAX_BINDINGS];
  for (uint32_t i = 0; i < n; i++) {
    /* The declared size, which compile checked against maxStorageBufferRange. */
    if (i < nbufs)
      info[i] = (VkDescriptorBufferInfo){bufs[i]->buffer, 0, kern->buffer_bytes[i]};
    else
      info[i] = (VkDescriptorBufferInfo){kern->ctrl->buffer, 0, VK_WHOLE_SIZE};
    w[i] = (VkWriteDescriptorSet){
        .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
        .dstSet = set,
        .dstBinding = i,
        .descriptorCount = 1,
        .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
        .pBufferInfo = &info[i],
    };
  }
  if (n) vkUpdateDescriptorSets(dev->device, n, w, 0, NULL);
  vkCmdBindDescriptorSets(dev->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, kern->layout, 0, 1, &set, 0,
                          NULL);
  return 0;
}

/* Orders this dispatch after the previous one in the command buffer and
   makes the previous dispatch's buffer writes visible to it. */
static void barrier_after_previous(vc_dev *dev) {
  VkBufferMemoryBarrier b[VK_MAX_BINDINGS];
  for (uint32_t i = 0; i < dev->nprev; i++)
    b[i] = (VkBufferMemoryBarrier){
        .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
        .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .buffer = dev->prev[i],
        .offset = 0,
        .size = VK_WHOLE_SIZE,
    };
  vkCmdPipelineBarrier(dev->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 0, NULL, dev->nprev, b, 0, NULL);
}

int vk_launch(vc_dev *dev, vc_kern *kern, vc_buf *const *bufs, uint32_t nbufs, vc_error *err) {
  int rc = check_bindings(dev, kern, bufs, nbufs, err);
  if (!rc) rc = reserve_batch(dev, nbufs + (kern->native ? 1u : 0u), err);
  if (rc) return rc;
  if (dev->ndispatch > 0 && !VC_MUTANT(NO_DISPATCH_BARRIER)) barrier_after_previous(dev);
  if (kern->native) vk_native_record_reset(dev, kern);
  vkCmdBindPipeline(dev->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, kern->pipeline);
  rc = bind_buffers(dev, kern, bufs, nbufs, err);
  if (rc) return vc_fail_wrap(err, "launch of kernel %s", kern->label);
  uint32_t q = 2 * dev->ndispatch;
  /* BOTTOM_OF_PIPE: each stamp waits for all earlier work, so the pair
     brackets this dispatch alone. */
  if (dev->qpool)
    vkCmdWriteTimestamp(dev->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, dev->qpool, q);
  vkCmdDispatch(dev->cmd, kern->grid[0], kern->grid[1], kern->grid[2]);
  if (dev->qpool)
    vkCmdWriteTimestamp(dev->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, dev->qpool, q + 1);
  for (uint32_t i = 0; i < nbufs; i++) dev->prev[i] = bufs[i]->buffer;
  dev->nprev = nbufs;
  if (kern->native) dev->prev[dev->nprev++] = kern->ctrl->buffer;
  dev->ndispatch++;
  snprintf(dev->last_label, sizeof dev->last_label, "%s", kern->label);
  return 0;
}

int vk_finish(vc_dev *dev, uint64_t *device_ns, uint32_t cap, uint32_t *count, vc_error *err) {
  *count = 0;
  int rc = vk_flush_deadline(dev, err);
  uint32_t n = dev->ntimes < cap ? dev->ntimes : cap;
  if (!rc && device_ns && n) memcpy(device_ns, dev->times, n * sizeof *device_ns);
  if (!rc) *count = device_ns ? n : 0;
  dev->ntimes = 0;
  return rc;
}
