/* The device's command buffer: opened on demand, submitted and waited for
 * by vk_flush, which also turns the batch's timestamps into device times.
 * A wait that times out leaves the submission pending; vk_settle waits
 * for it before the command buffer or anything it uses is touched again. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/vulkan/vk_internal.h"

int vk_commands_create(vc_dev *dev, vc_error *err) {
  VkCommandPoolCreateInfo pci = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
      .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
      .queueFamilyIndex = dev->queue_family,
  };
  VkResult r = vkCreateCommandPool(dev->device, &pci, NULL, &dev->pool);
  if (r != VK_SUCCESS) return vk_fail_call(err, dev, "vkCreateCommandPool", r);
  VkCommandBufferAllocateInfo cai = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
      .commandPool = dev->pool,
      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
      .commandBufferCount = 1,
  };
  r = vkAllocateCommandBuffers(dev->device, &cai, &dev->cmd);
  if (r != VK_SUCCESS) return vk_fail_call(err, dev, "vkAllocateCommandBuffers", r);
  VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  r = vkCreateFence(dev->device, &fci, NULL, &dev->fence);
  if (r != VK_SUCCESS) return vk_fail_call(err, dev, "vkCreateFence", r);

  VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_BATCH_DESCRIPTORS};
  VkDescriptorPoolCreateInfo dci = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
      .maxSets = VK_BATCH_DISPATCHES,
      .poolSizeCount = 1,
      .pPoolSizes = &size,
  };
  r = vkCreateDescriptorPool(dev->device, &dci, NULL, &dev->dpool);
  if (r != VK_SUCCESS) return vk_fail_call(err, dev, "vkCreateDescriptorPool", r);

  if (dev->timestamp_bits == 0) return 0;
  VkQueryPoolCreateInfo qci = {
      .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
      .queryType = VK_QUERY_TYPE_TIMESTAMP,
      .queryCount = 2 * VK_BATCH_DISPATCHES,
  };
  r = vkCreateQueryPool(dev->device, &qci, NULL, &dev->qpool);
  if (r != VK_SUCCESS) return vk_fail_call(err, dev, "vkCreateQueryPool", r);
  return 0;
}

void vk_commands_destroy(vc_dev *dev) {
  if (dev->qpool) vkDestroyQueryPool(dev->device, dev->qpool, NULL);
  if (dev->dpool) vkDestroyDescriptorPool(dev->device, dev->dpool, NULL);
  if (dev->fence) vkDestroyFence(dev->device, dev->fence, NULL);
  if (dev->pool) vkDestroyCommandPool(dev->device, dev->pool, NULL); /* frees cmd */
  dev->qpool = VK_NULL_HANDLE;
  dev->dpool = VK_NULL_HANDLE;
  dev->fence = VK_NULL_HANDLE;
  dev->pool = VK_NULL_HANDLE;
}

int vk_begin(vc_dev *dev, vc_error *err) {
  if (dev->recording) return 0;
  vk_settle(dev);
  VkCommandBufferBeginInfo bi = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
  };
  VkResult r = vkBeginCommandBuffer(dev->cmd, &bi);
  if (r != VK_SUCCESS) return vk_fail_call(err, dev, "vkBeginCommandBuffer", r);
  if (dev->qpool) vkCmdResetQueryPool(dev->cmd, dev->qpool, 0, 2 * VK_BATCH_DISPATCHES);
  /* A fence wait makes nothing visible to later submissions: whatever
     earlier submissions wrote is made visible to this one here. */
  VkMemoryBarrier mb = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
      .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
      .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                       VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
  };
  VkPipelineStageFlags stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  vkCmdPipelineBarrier(dev->cmd, stages, stages, 0, 1, &mb, 0, NULL, 0, NULL);
  dev->recording = true;
  dev->ndispatch = 0;
  dev->ndescriptors = 0;
  dev->nprev = 0;
  return 0;
}

static int push_time(vc_dev *dev, uint64_t ns, vc_error *err) {
  if (dev->ntimes == dev->times_cap) {
    uint32_t cap = dev->times_cap ? dev->times_cap * 2 : 256;
    uint64_t *t = realloc(dev->times, cap * sizeof *t);
    if (!t) return vc_fail(err, VC_ERR_NOMEM, "Vulkan: out of memory for %u device times", cap);
    dev->times = t;
    dev->times_cap = cap;
  }
  dev->times[dev->ntimes++] = ns;
  return 0;
}

/* Two timestamps per dispatch: the difference, masked to the valid bits,
   in units of timestampPeriod nanoseconds. */
static int collect_times(vc_dev *dev, uint32_t n, vc_error *err) {
  if (!dev->qpool || n == 0) return 0;
  uint64_t *raw = malloc(2 * (size_t)n * sizeof *raw);
  if (!raw) return vc_fail(err, VC_ERR_NOMEM, "Vulkan: out of memory for %u timestamps", 2 * n);
  VkResult r = vkGetQueryPoolResults(dev->device, dev->qpool, 0, 2 * n, 2 * (size_t)n * sizeof *raw,
                                     raw, sizeof *raw,
                                     VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
  int rc = 0;
  if (r != VK_SUCCESS) rc = vk_fail_call(err, dev, "vkGetQueryPoolResults", r);
  uint64_t mask = dev->timestamp_bits >= 64 ? UINT64_MAX : (1ull << dev->timestamp_bits) - 1;
  for (uint32_t i = 0; i < n && !rc; i++) {
    uint64_t ticks = (raw[2 * i + 1] - raw[2 * i]) & mask;
    rc = push_time(dev, (uint64_t)((double)ticks * (double)dev->props.limits.timestampPeriod), err);
  }
  free(raw);
  return rc;
}

static int submit(vc_dev *dev, vc_error *err) {
  VkResult r = vkEndCommandBuffer(dev->cmd);
  if (r != VK_SUCCESS) return vk_fail_call(err, dev, "vkEndCommandBuffer", r);
  VkSubmitInfo si = {
      .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
      .commandBufferCount = 1,
      .pCommandBuffers = &dev->cmd,
  };
  r = vkQueueSubmit(dev->queue, 1, &si, dev->fence);
  if (r != VK_SUCCESS) return vk_fail_call(err, dev, "vkQueueSubmit", r);
  return 0;
}

/* Names what did not finish: the one dispatch, or the batch and its last. */
static int timed_out(vc_dev *dev, uint32_t ndispatch, uint64_t timeout_ns, bool deadline,
                     vc_error *err) {
  char what[192];
  if (ndispatch == 1)
    snprintf(what, sizeof what, "kernel %s", dev->last_label);
  else if (ndispatch > 1)
    snprintf(what, sizeof what, "a batch of %u dispatches (the last: kernel %s)", ndispatch,
             dev->last_label);
  else
    snprintf(what, sizeof what, "a transfer");
  return vc_fail(err, VC_ERR_TIMEOUT,
                 "Vulkan device %u (%s): %s did not finish within %llu s%s; it may still be "
                 "running",
                 dev->index, dev->props.deviceName, what,
                 (unsigned long long)(timeout_ns / 1000000000ull),
                 deadline ? " (the deadline option)" : "");
}

/* The command buffer, its descriptors and the fence are free again. */
static void recycle(vc_dev *dev) {
  dev->recording = false;
  dev->pending = false;
  dev->ndispatch = 0;
  dev->ndescriptors = 0;
  dev->nprev = 0;
  vkResetFences(dev->device, 1, &dev->fence);
  vkResetCommandBuffer(dev->cmd, 0);
  vkResetDescriptorPool(dev->device, dev->dpool, 0);
}

static int flush(vc_dev *dev, uint64_t timeout_ns, bool deadline, vc_error *err) {
  if (!dev->recording) return 0;
  uint32_t n = dev->ndispatch;
  int rc = submit(dev, err);
  if (rc) {
    recycle(dev);
    return rc;
  }
  VkResult r = vkWaitForFences(dev->device, 1, &dev->fence, VK_TRUE, timeout_ns);
  if (r == VK_TIMEOUT) {
    dev->recording = false;
    dev->pending = true; /* vk_settle waits for it */
    return timed_out(dev, n, timeout_ns, deadline, err);
  }
  if (r != VK_SUCCESS) rc = vk_fail_call(err, dev, "vkWaitForFences", r);
  if (!rc) rc = collect_times(dev, n, err);
  recycle(dev);
  return rc;
}

int vk_flush(vc_dev *dev, vc_error *err) { return flush(dev, VK_FENCE_TIMEOUT_NS, false, err); }

int vk_flush_deadline(vc_dev *dev, vc_error *err) {
  return flush(dev, (uint64_t)dev->opt.deadline_s * 1000000000ull, true, err);
}

/* No limit: a native kernel's waits end at their spin limit. Its device
   times are lost with the timed-out finish. */
void vk_settle(vc_dev *dev) {
  if (!dev->pending) return;
  vkWaitForFences(dev->device, 1, &dev->fence, VK_TRUE, UINT64_MAX);
  recycle(dev);
}
