/* Device limits a kernel must fit, checked before the driver sees it: past a
 * limit Vulkan's behaviour is undefined, so it is refused with both figures. */
#include <stdio.h>

#include "backends/vulkan/vk_internal.h"

static const char axis_name[3] = {'x', 'y', 'z'};

static int over(vc_error *err, const vc_dev *dev, const char *label, const char *what,
                uint64_t value, const char *limit, uint64_t max) {
  return vc_fail(err, VC_ERR_LIMIT,
                 "Vulkan device %u (%s): kernel %s: %s is %llu, above the device's %s %llu",
                 dev->index, dev->props.deviceName, label, what, (unsigned long long)value,
                 limit, (unsigned long long)max);
}

static int check_shape(const vc_dev *dev, const vc_program *p, const char *label, vc_error *err) {
  const VkPhysicalDeviceLimits *l = &dev->props.limits;
  char what[64];
  for (int a = 0; a < 3; a++) {
    if (p->workgroup[a] > l->maxComputeWorkGroupSize[a]) {
      snprintf(what, sizeof what, "workgroup size %c", axis_name[a]);
      return over(err, dev, label, what, p->workgroup[a], "maxComputeWorkGroupSize",
                  l->maxComputeWorkGroupSize[a]);
    }
    if (p->grid[a] > l->maxComputeWorkGroupCount[a]) {
      snprintf(what, sizeof what, "grid %c", axis_name[a]);
      return over(err, dev, label, what, p->grid[a], "maxComputeWorkGroupCount",
                  l->maxComputeWorkGroupCount[a]);
    }
  }
  uint64_t inv = vc_program_workgroup_size(p);
  if (inv > l->maxComputeWorkGroupInvocations)
    return over(err, dev, label, "workgroup invocations", inv, "maxComputeWorkGroupInvocations",
                l->maxComputeWorkGroupInvocations);
  return 0;
}

int vk_check_program_limits(const vc_dev *dev, const vc_program *p, const char *label,
                            vc_error *err) {
  const VkPhysicalDeviceLimits *l = &dev->props.limits;
  int rc = check_shape(dev, p, label, err);
  if (rc) return rc;
  uint64_t shared = 0;
  for (uint32_t i = 0; i < p->nshared; i++) shared += (uint64_t)p->shared[i].count * 4u;
  if (shared > l->maxComputeSharedMemorySize)
    return over(err, dev, label, "shared memory (bytes)", shared, "maxComputeSharedMemorySize",
                l->maxComputeSharedMemorySize);
  if (p->nbuffers > VK_MAX_BINDINGS)
    return vc_fail(err, VC_ERR_LIMIT,
                   "Vulkan device %u (%s): kernel %s: the number of buffers is %u, above the "
                   "plugin's limit of %u bindings per kernel",
                   dev->index, dev->props.deviceName, label, p->nbuffers, VK_MAX_BINDINGS);
  if (p->nbuffers > l->maxPerStageDescriptorStorageBuffers)
    return over(err, dev, label, "the number of buffers", p->nbuffers,
                "maxPerStageDescriptorStorageBuffers", l->maxPerStageDescriptorStorageBuffers);
  if (p->nbuffers > l->maxDescriptorSetStorageBuffers)
    return over(err, dev, label, "the number of buffers", p->nbuffers,
                "maxDescriptorSetStorageBuffers", l->maxDescriptorSetStorageBuffers);
  for (uint32_t i = 0; i < p->nbuffers; i++) {
    uint64_t bytes = vc_buffer_bytes(&p->buffers[i]);
    if (bytes > l->maxStorageBufferRange) {
      char what[160];
      snprintf(what, sizeof what, "buffer '%s' (bytes)", p->buffers[i].name);
      return over(err, dev, label, what, bytes, "maxStorageBufferRange",
                  l->maxStorageBufferRange);
    }
  }
  return 0;
}
