/* Device limits a kernel must fit, checked before the driver sees it: past a
 * limit Vulkan's behaviour is undefined, so it is refused with both figures.
 * Native kernels bind the plan's buffers and a control buffer. */
#include <stdio.h>

#include "backends/common/cgen/cgen_dialect.h"
#include "backends/vulkan/vk_internal.h"

static const char axis_name[3] = {'x', 'y', 'z'};

static int over(vc_error *err, const vc_dev *dev, const char *label, const char *what,
                uint64_t value, const char *limit, uint64_t max) {
  return vc_fail(err, VC_ERR_LIMIT,
                 "Vulkan device %u (%s): kernel %s: %s is %llu, above the device's %s %llu",
                 dev->index, dev->props.deviceName, label, what, (unsigned long long)value,
                 limit, (unsigned long long)max);
}

static int check_workgroup(const vc_dev *dev, const vc_program *p, const char *label,
                           vc_error *err) {
  const VkPhysicalDeviceLimits *l = &dev->props.limits;
  char what[64];
  for (int a = 0; a < 3; a++)
    if (p->workgroup[a] > l->maxComputeWorkGroupSize[a]) {
      snprintf(what, sizeof what, "workgroup size %c", axis_name[a]);
      return over(err, dev, label, what, p->workgroup[a], "maxComputeWorkGroupSize",
                  l->maxComputeWorkGroupSize[a]);
    }
  uint64_t inv = vc_program_workgroup_size(p);
  if (inv > l->maxComputeWorkGroupInvocations)
    return over(err, dev, label, "workgroup invocations", inv, "maxComputeWorkGroupInvocations",
                l->maxComputeWorkGroupInvocations);
  return 0;
}

static int check_grid(const vc_dev *dev, const vc_program *p, const char *label, vc_error *err) {
  const VkPhysicalDeviceLimits *l = &dev->props.limits;
  char what[64];
  for (int a = 0; a < 3; a++)
    if (p->grid[a] > l->maxComputeWorkGroupCount[a]) {
      snprintf(what, sizeof what, "grid %c", axis_name[a]);
      return over(err, dev, label, what, p->grid[a], "maxComputeWorkGroupCount",
                  l->maxComputeWorkGroupCount[a]);
    }
  return 0;
}

static int check_shared(const vc_dev *dev, const vc_shared *sh, uint32_t n, const char *label,
                        vc_error *err) {
  uint64_t bytes = 0;
  for (uint32_t i = 0; i < n; i++) bytes += (uint64_t)sh[i].count * 4u * vc_type_words(sh[i].type);
  uint64_t max = dev->props.limits.maxComputeSharedMemorySize;
  if (bytes > max)
    return over(err, dev, label, "shared memory (bytes)", bytes, "maxComputeSharedMemorySize", max);
  return 0;
}

/* n buffers from table, bound with `bindings` bindings in all. */
static int check_buffers(const vc_dev *dev, const vc_buffer *table, uint32_t n, uint32_t bindings,
                         const char *label, vc_error *err) {
  const VkPhysicalDeviceLimits *l = &dev->props.limits;
  if (bindings > VK_MAX_BINDINGS)
    return vc_fail(err, VC_ERR_LIMIT,
                   "Vulkan device %u (%s): kernel %s: the number of buffers is %u, above the "
                   "plugin's limit of %u bindings per kernel",
                   dev->index, dev->props.deviceName, label, bindings, VK_MAX_BINDINGS);
  if (bindings > l->maxPerStageDescriptorStorageBuffers)
    return over(err, dev, label, "the number of buffers", bindings,
                "maxPerStageDescriptorStorageBuffers", l->maxPerStageDescriptorStorageBuffers);
  if (bindings > l->maxDescriptorSetStorageBuffers)
    return over(err, dev, label, "the number of buffers", bindings,
                "maxDescriptorSetStorageBuffers", l->maxDescriptorSetStorageBuffers);
  for (uint32_t i = 0; i < n; i++) {
    uint64_t bytes = vc_buffer_bytes(&table[i]);
    if (bytes > l->maxStorageBufferRange) {
      char what[160];
      snprintf(what, sizeof what, "buffer '%s' (bytes)", table[i].name);
      return over(err, dev, label, what, bytes, "maxStorageBufferRange",
                  l->maxStorageBufferRange);
    }
  }
  return 0;
}

/* Atomics on 64-bit memory under n: bit 0 on a buffer, bit 1 on a shared array. */
static unsigned atomics_64(const vc_program *p, const vc_node *n) {
  unsigned m = 0;
  if ((n->kind == VC_E_ATOMIC || n->kind == VC_S_ATOMIC) && vc_type_is_64(vc_node_mem_type(p, n)))
    m |= n->space == VC_SPACE_SHARED ? 2u : 1u;
  for (uint32_t i = 0; i < n->nkids; i++) m |= atomics_64(p, n->kids[i]);
  return m;
}

static int unsupported(vc_error *err, const vc_dev *dev, const char *label, const char *feature,
                       const char *what) {
  return vc_fail(err, VC_ERR_UNSUPPORTED,
                 "Vulkan device %u (%s): kernel %s uses %s, and the device lacks %s",
                 dev->index, dev->props.deviceName, label, what, feature);
}

/* 64-bit integers need shaderInt64, their atomics the buffer or shared
   int64 atomics: decided here, before the driver sees the shader. */
static int check_int64(const vc_dev *dev, const vc_program *p, const char *label, vc_error *err) {
  if (!vc_cgen_uses_64(p)) return 0;
  if (!dev->int64.ints) return unsupported(err, dev, label, "shaderInt64", "64-bit integers");
  unsigned a = atomics_64(p, p->entry);
  if ((a & 1u) && !dev->int64.buffer_atomics)
    return unsupported(err, dev, label, "shaderBufferInt64Atomics", "64-bit atomics on a buffer");
  if ((a & 2u) && !dev->int64.shared_atomics)
    return unsupported(err, dev, label, "shaderSharedInt64Atomics",
                       "64-bit atomics on a shared array");
  return 0;
}

int vk_check_program_limits(const vc_dev *dev, const vc_program *p, const char *label,
                            vc_error *err) {
  int rc = check_int64(dev, p, label, err);
  if (!rc) rc = check_workgroup(dev, p, label, err);
  if (!rc) rc = check_grid(dev, p, label, err);
  if (!rc) rc = check_shared(dev, p->shared, p->nshared, label, err);
  if (!rc) rc = check_buffers(dev, p->buffers, p->nbuffers, p->nbuffers, label, err);
  return rc;
}

/* The program's grid is virtual (the dispatch is one-dimensional and capped
   by vk_native.c); the kernel declares every shared array of the program
   and none of its own (its control words live in the control buffer),
   and binds the control buffer too. */
int vk_check_native_limits(const vc_dev *dev, const vc_kernel_desc *k, const char *label,
                           vc_error *err) {
  const vc_native_desc *d = k->native;
  int rc = check_int64(dev, k->prog, label, err);
  if (!rc) rc = check_workgroup(dev, k->prog, label, err);
  if (!rc) rc = check_shared(dev, d->shared, d->nshared, label, err);
  if (!rc) rc = check_buffers(dev, d->buffers, d->nbuffers, d->nbuffers + 1, label, err);
  return rc;
}
