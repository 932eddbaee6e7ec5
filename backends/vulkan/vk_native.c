/* Native kernels on Vulkan (docs/native.md): the ordering the device allows,
 * the defaults of the control words, the persistent dispatch's size, the
 * control buffer reset in the command buffer before every dispatch and
 * judged after it. */
#include <string.h>

#include <glslang/Include/glslang_c_interface.h>

#include "backends/vulkan/vk_internal.h"

/* Polls of the discovery window: a GPU starts its workgroups together. */
#define WINDOW_DEFAULT 4096u
/* Rounds of 1024 polls before a wait gives up: a backstop for a wait that
   can never end; the deadline answers long before on a GPU. */
#define SPIN_DEFAULT (1u << 25)
/* Workgroups of a native dispatch at most where the device reports no
   compute-unit count to size it by (core Vulkan does not); late workgroups
   cost one pass through the kernel. */
#define WGS_DEFAULT 1024u

/* lavapipe gives every invocation 65,535 loop iterations in all, then runs
   each loop once (docs/backend-vulkan.md): a wait of two participants, or
   a window, spends the budget and later loops are cut. One participant,
   whose barriers never wait, and no window keep every iteration for the
   program. */
void vk_native_caps(vc_dev *dev) {
  vk_options *o = &dev->opt;
  if (!o->cap_given) o->ctrl.cap = dev->lavapipe ? 1u : 0u;
  if (!o->window_given) o->ctrl.window = dev->lavapipe ? 0u : WINDOW_DEFAULT;
  if (!o->spin_given) o->ctrl.spin_limit = SPIN_DEFAULT;
  uint32_t max = dev->props.limits.maxComputeWorkGroupCount[0];
  o->wgs_default = o->native_wgs == 0;
  if (o->native_wgs == 0) o->native_wgs = WGS_DEFAULT;
  if (o->native_wgs > max) o->native_wgs = max;
  dev->native_vmm = dev->vmm_available && o->vmm != VK_VMM_OFF;
}

/* The memory model is core in Vulkan 1.2 (SPIR-V 1.5); a 1.1 device with
   VK_KHR_vulkan_memory_model takes it in SPIR-V 1.3 with the extension. */
vk_target vk_native_target(const vc_dev *dev) {
  vk_target t = {GLSLANG_TARGET_VULKAN_1_1, GLSLANG_TARGET_SPV_1_3, dev->denorm_preserve,
                 dev->native_vmm, dev->opt.gridbar, dev->opt.loop_segments != 0,
                 dev->opt.discover_cas != 0};
  if (dev->native_vmm && dev->props.apiVersion >= VK_API_VERSION_1_2) {
    t.client = GLSLANG_TARGET_VULKAN_1_2;
    t.spirv = GLSLANG_TARGET_SPV_1_5;
  } else if (dev->props.apiVersion < VK_API_VERSION_1_1) {
    t.client = GLSLANG_TARGET_VULKAN_1_0;
    t.spirv = GLSLANG_TARGET_SPV_1_0;
  }
  return t;
}

const char *vk_native_ordering(const vc_dev *dev) {
  return dev->native_vmm ? "vulkan-memory-model device-scope acquire/release"
                         : "coherent buffers, memoryBarrierBuffer and atomics";
}

/* W of vkCmdDispatch(W, 1, 1): the program's workgroups, at most the
   native-wgs option (capped at open by the device's grid limit); without
   the option, at most what the compute units can hold at once where the
   device says (vk_native_expect), else WGS_DEFAULT. */
static uint32_t dispatch_size(const vc_dev *dev, uint32_t virtual_wgs, uint64_t invocations) {
  uint32_t most = dev->opt.native_wgs, max = dev->props.limits.maxComputeWorkGroupCount[0];
  if (dev->opt.wgs_default && dev->cores.units)
    most = vk_native_expect(&dev->cores, invocations, max);
  uint32_t w = most < virtual_wgs ? most : virtual_wgs;
  return w ? w : 1u;
}

int vk_native_check(const vc_dev *dev, const char *label, vc_error *err) {
  if (dev->opt.vmm == VK_VMM_ON && !dev->native_vmm)
    return vc_fail(err, VC_ERR_UNSUPPORTED,
                   "Vulkan device %u (%s): kernel %s: native-memory-model=on, but the device "
                   "lacks vulkanMemoryModel or vulkanMemoryModelDeviceScope",
                   dev->index, dev->props.deviceName, label);
  /* gridbar=lead's order crosses workgroups through chains of two
     elements, which the memory model promises only with this feature
     (docs/native.md); without the memory model nothing promises it. */
  if (dev->opt.gridbar == VC_GRIDBAR_LEAD && !(dev->native_vmm && dev->vmm_chains))
    return vc_fail(err, VC_ERR_UNSUPPORTED,
                   "Vulkan device %u (%s): kernel %s: gridbar=lead needs the memory model with "
                   "vulkanMemoryModelAvailabilityVisibilityChains, which %s",
                   dev->index, dev->props.deviceName, label,
                   !dev->native_vmm ? "native kernels do not use here" : "the device lacks");
  return 0;
}

uint32_t vk_native_expect(const vk_cores *c, uint64_t invocations, uint32_t launched) {
  if (!c->units || !c->threads_per_unit || !c->thread_width || !invocations) return launched;
  uint64_t threads = (invocations + c->thread_width - 1) / c->thread_width;
  uint64_t bound = (uint64_t)c->units * (c->threads_per_unit / threads);
  return bound && bound < launched ? (uint32_t)bound : launched;
}

int vk_native_setup(vc_dev *dev, const vc_kernel_desc *k, vc_kern *kern, vc_error *err) {
  vc_native_shape_of(k, false, &kern->shape);
  const uint32_t *wg = k->prog->workgroup;
  kern->grid[0] = dispatch_size(dev, kern->shape.virtual_wgs, (uint64_t)wg[0] * wg[1] * wg[2]);
  kern->grid[1] = 1;
  kern->grid[2] = 1;
  kern->ctrl_opts = dev->opt.ctrl;
  if (!dev->opt.expect_given)
    kern->ctrl_opts.expect =
        vk_native_expect(&dev->cores, (uint64_t)wg[0] * wg[1] * wg[2], kern->grid[0]);
  int rc = vk_alloc(dev, vc_native_ctrl_words(kern->grid[0]) * sizeof(uint32_t), &kern->ctrl, err);
  return rc ? vc_fail_wrap(err, "kernel %s: control buffer", kern->label) : 0;
}

static void barrier(vc_dev *dev, VkPipelineStageFlags src_stage, VkAccessFlags src,
                    VkPipelineStageFlags dst_stage, VkAccessFlags dst) {
  VkMemoryBarrier mb = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = src, .dstAccessMask = dst};
  vkCmdPipelineBarrier(dev->cmd, src_stage, dst_stage, 0, 1, &mb, 0, NULL, 0, NULL);
}

/* In the command buffer, so that a dispatch recorded after another of the
   same kernel gets fresh words too: the earlier dispatch's accesses end
   before the update, the update before the dispatch. */
void vk_native_record_reset(vc_dev *dev, vc_kern *kern) {
  uint32_t words[VC_NC_WORDS];
  vc_native_ctrl_init(words, &kern->ctrl_opts);
  VkAccessFlags rw = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
  barrier(dev, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, rw, VK_PIPELINE_STAGE_TRANSFER_BIT,
          VK_ACCESS_TRANSFER_WRITE_BIT);
  vkCmdUpdateBuffer(dev->cmd, kern->ctrl->buffer, 0, sizeof words, words);
  barrier(dev, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, rw);
  kern->ran = true;
}

int vk_native_stats(vc_dev *dev, vc_kern *kern, vc_native_stats *stats, vc_error *err) {
  if (!kern || !kern->native)
    return vc_fail(err, VC_ERR_USAGE, "Vulkan device %u: native_stats of a kernel that is not native",
                   dev->index);
  if (!kern->ran)
    return vc_fail(err, VC_ERR_USAGE, "Vulkan device %u: kernel %s: native_stats before any launch",
                   dev->index, kern->label);
  uint32_t words[VC_NC_WORDS];
  int rc = vk_download(dev, kern->ctrl, words, sizeof words, err);
  if (rc) return vc_fail_wrap(err, "kernel %s: reading the control buffer", kern->label);
  vc_native_ctrl_stats(words, &kern->shape, kern->grid[0], stats);
  return 0;
}
