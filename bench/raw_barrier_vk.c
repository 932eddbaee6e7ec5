/* The raw grid barrier on Vulkan: the loader and glslang directly. One
 * device (Vulkan 1.2, the memory model with device scope enabled), the
 * two buffers in device memory, a host-visible copy for the check, one
 * pipeline per variant; each run is one command buffer that zeroes the
 * buffers, dispatches between two timestamps (BOTTOM_OF_PIPE, as the
 * plugin times a launch) and copies the buffers out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glslang/Include/glslang_c_interface.h>
#include <glslang/Public/resource_limits_c.h>
#include <vulkan/vulkan.h>

#include "bench/raw_barrier.h"

#define O_BYTES (RB_WORDS * 4u)
#define C_BYTES (RB_CTRL_WORDS * 4u)

typedef struct vk_ctx {
  const rb_opts *o;
  VkInstance inst;
  VkPhysicalDevice pd;
  VkPhysicalDeviceProperties props;
  VkDevice dev;
  VkQueue queue;
  uint32_t family, ts_bits;
  bool glslang;
  VkBuffer buf[3]; /* o, c (device), staging (host) */
  VkDeviceMemory mem[3];
  void *host;
  VkDescriptorSetLayout dsl;
  VkPipelineLayout layout;
  VkDescriptorPool dpool;
  VkDescriptorSet set;
  VkPipeline pipe[RB_NVARIANTS];
  VkQueryPool qpool;
  VkCommandPool cpool;
  VkCommandBuffer cmd;
  VkFence fence;
} vk_ctx;

static int vk_failed(vc_error *err, const char *what, VkResult r) {
  return vc_fail(err,
                 r == VK_ERROR_INITIALIZATION_FAILED || r == VK_ERROR_INCOMPATIBLE_DRIVER
                     ? VC_ERR_NO_DRIVER
                     : VC_ERR_DEVICE,
                 "%s: VkResult %d", what, (int)r);
}

#define VK(call, what)                                                                             \
  do {                                                                                             \
    VkResult r_ = (call);                                                                          \
    if (r_ != VK_SUCCESS) return vk_failed(err, what, r_);                                         \
  } while (0)

static int spirv(const char *glsl, uint32_t **words, size_t *n, vc_error *err) {
  glslang_resource_t limits = *glslang_default_resource();
  glslang_input_t in = {
      .language = GLSLANG_SOURCE_GLSL,
      .stage = GLSLANG_STAGE_COMPUTE,
      .client = GLSLANG_CLIENT_VULKAN,
      .client_version = GLSLANG_TARGET_VULKAN_1_2,
      .target_language = GLSLANG_TARGET_SPV,
      .target_language_version = GLSLANG_TARGET_SPV_1_5,
      .code = glsl,
      .default_version = 450,
      .default_profile = GLSLANG_NO_PROFILE,
      .messages = (glslang_messages_t)(GLSLANG_MSG_SPV_RULES_BIT | GLSLANG_MSG_VULKAN_RULES_BIT),
      .resource = &limits,
  };
  glslang_shader_t *sh = glslang_shader_create(&in);
  if (!sh) return vc_fail(err, VC_ERR_NOMEM, "glslang_shader_create failed");
  int rc = 0;
  glslang_program_t *prog = NULL;
  if (!glslang_shader_preprocess(sh, &in) || !glslang_shader_parse(sh, &in)) {
    rc = vc_fail(err, VC_ERR_COMPILE, "glslang: %s", glslang_shader_get_info_log(sh));
  } else {
    prog = glslang_program_create();
    glslang_program_add_shader(prog, sh);
    if (!glslang_program_link(prog, in.messages)) {
      rc = vc_fail(err, VC_ERR_COMPILE, "glslang link: %s", glslang_program_get_info_log(prog));
    } else {
      glslang_program_SPIRV_generate(prog, GLSLANG_STAGE_COMPUTE);
      *n = glslang_program_SPIRV_get_size(prog);
      *words = *n ? malloc(*n * sizeof **words) : NULL;
      if (!*words)
        rc = vc_fail(err, VC_ERR_COMPILE, "glslang produced no SPIR-V");
      else
        glslang_program_SPIRV_get(prog, *words);
    }
    glslang_program_delete(prog);
  }
  glslang_shader_delete(sh);
  return rc;
}

static const char *type_name(VkPhysicalDeviceType t) {
  switch (t) {
  case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
    return "discrete GPU";
  case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
    return "integrated GPU";
  case VK_PHYSICAL_DEVICE_TYPE_CPU:
    return "CPU";
  default:
    return "other";
  }
}

static int pick(vk_ctx *c, vc_error *err) {
  VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                           .pApplicationName = "vc-raw-barrier-bench",
                           .apiVersion = VK_API_VERSION_1_2};
  VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                              .pApplicationInfo = &app};
  VK(vkCreateInstance(&ici, NULL, &c->inst), "vkCreateInstance");
  uint32_t n = 0;
  VK(vkEnumeratePhysicalDevices(c->inst, &n, NULL), "vkEnumeratePhysicalDevices");
  VkPhysicalDevice pds[64];
  if (n > 64) n = 64;
  if (n) VK(vkEnumeratePhysicalDevices(c->inst, &n, pds), "vkEnumeratePhysicalDevices");
  for (uint32_t i = 0; i < n && !c->pd; i++) {
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(pds[i], &p);
    bool gpu = p.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU ||
               p.deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU;
    if (c->o->vk_device ? rb_selects(c->o->vk_device, i, p.deviceName) : gpu) {
      c->pd = pds[i];
      c->props = p;
    }
  }
  if (!c->pd)
    return vc_fail(err, VC_ERR_NO_DEVICE, "no Vulkan device %s%s among %u",
                   c->o->vk_device ? "matches " : "is a GPU",
                   c->o->vk_device ? c->o->vk_device : "", n);
  if (c->props.apiVersion < VK_API_VERSION_1_2)
    return vc_fail(err, VC_ERR_UNSUPPORTED, "%s: Vulkan 1.2 needed for the memory model",
                   c->props.deviceName);
  return 0;
}

static int make_device(vk_ctx *c, bool *chains, vc_error *err) {
  VkPhysicalDeviceVulkanMemoryModelFeatures mm = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES};
  VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                  .pNext = &mm};
  vkGetPhysicalDeviceFeatures2(c->pd, &f2);
  if (!mm.vulkanMemoryModel || !mm.vulkanMemoryModelDeviceScope)
    return vc_fail(err, VC_ERR_UNSUPPORTED,
                   "%s lacks vulkanMemoryModel or vulkanMemoryModelDeviceScope",
                   c->props.deviceName);
  *chains = mm.vulkanMemoryModelAvailabilityVisibilityChains;
  VkPhysicalDeviceVulkanMemoryModelFeatures want = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES,
      .vulkanMemoryModel = VK_TRUE,
      .vulkanMemoryModelDeviceScope = VK_TRUE,
      .vulkanMemoryModelAvailabilityVisibilityChains = *chains};
  uint32_t nq = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(c->pd, &nq, NULL);
  VkQueueFamilyProperties q[32];
  if (nq > 32) nq = 32;
  vkGetPhysicalDeviceQueueFamilyProperties(c->pd, &nq, q);
  c->family = UINT32_MAX;
  for (uint32_t i = 0; i < nq && c->family == UINT32_MAX; i++)
    if ((q[i].queueFlags & VK_QUEUE_COMPUTE_BIT) && q[i].timestampValidBits) {
      c->family = i;
      c->ts_bits = q[i].timestampValidBits;
    }
  if (c->family == UINT32_MAX)
    return vc_fail(err, VC_ERR_UNSUPPORTED, "%s: no compute queue with timestamps",
                   c->props.deviceName);
  float prio = 1.0f;
  VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                 .queueFamilyIndex = c->family,
                                 .queueCount = 1,
                                 .pQueuePriorities = &prio};
  VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                            .pNext = &want,
                            .queueCreateInfoCount = 1,
                            .pQueueCreateInfos = &qci};
  VK(vkCreateDevice(c->pd, &dci, NULL, &c->dev), "vkCreateDevice");
  vkGetDeviceQueue(c->dev, c->family, 0, &c->queue);
  return 0;
}

static int make_buffer(vk_ctx *c, uint32_t i, VkDeviceSize size, VkBufferUsageFlags use,
                       VkMemoryPropertyFlags want, vc_error *err) {
  VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                            .size = size,
                            .usage = use,
                            .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
  VK(vkCreateBuffer(c->dev, &bci, NULL, &c->buf[i]), "vkCreateBuffer");
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(c->dev, c->buf[i], &req);
  VkPhysicalDeviceMemoryProperties mp;
  vkGetPhysicalDeviceMemoryProperties(c->pd, &mp);
  uint32_t type = UINT32_MAX;
  for (uint32_t t = 0; t < mp.memoryTypeCount && type == UINT32_MAX; t++)
    if ((req.memoryTypeBits & (1u << t)) && (mp.memoryTypes[t].propertyFlags & want) == want)
      type = t;
  if (type == UINT32_MAX)
    return vc_fail(err, VC_ERR_DEVICE, "%s: no memory type for a buffer", c->props.deviceName);
  VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                              .allocationSize = req.size,
                              .memoryTypeIndex = type};
  VK(vkAllocateMemory(c->dev, &mai, NULL, &c->mem[i]), "vkAllocateMemory");
  VK(vkBindBufferMemory(c->dev, c->buf[i], c->mem[i], 0), "vkBindBufferMemory");
  return 0;
}

static int make_layout(vk_ctx *c, vc_error *err) {
  VkDescriptorSetLayoutBinding b[2] = {
      {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL},
      {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL}};
  VkDescriptorSetLayoutCreateInfo dl = {.sType =
                                            VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                        .bindingCount = 2,
                                        .pBindings = b};
  VK(vkCreateDescriptorSetLayout(c->dev, &dl, NULL, &c->dsl), "vkCreateDescriptorSetLayout");
  VkPushConstantRange pc = {VK_SHADER_STAGE_COMPUTE_BIT, 0, 8};
  VkPipelineLayoutCreateInfo pl = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                   .setLayoutCount = 1,
                                   .pSetLayouts = &c->dsl,
                                   .pushConstantRangeCount = 1,
                                   .pPushConstantRanges = &pc};
  VK(vkCreatePipelineLayout(c->dev, &pl, NULL, &c->layout), "vkCreatePipelineLayout");
  VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2};
  VkDescriptorPoolCreateInfo dp = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                   .maxSets = 1,
                                   .poolSizeCount = 1,
                                   .pPoolSizes = &ps};
  VK(vkCreateDescriptorPool(c->dev, &dp, NULL, &c->dpool), "vkCreateDescriptorPool");
  VkDescriptorSetAllocateInfo da = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                    .descriptorPool = c->dpool,
                                    .descriptorSetCount = 1,
                                    .pSetLayouts = &c->dsl};
  VK(vkAllocateDescriptorSets(c->dev, &da, &c->set), "vkAllocateDescriptorSets");
  VkDescriptorBufferInfo bi[2] = {{c->buf[0], 0, O_BYTES}, {c->buf[1], 0, C_BYTES}};
  VkWriteDescriptorSet w[2];
  for (uint32_t i = 0; i < 2; i++)
    w[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                  .dstSet = c->set,
                                  .dstBinding = i,
                                  .descriptorCount = 1,
                                  .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                  .pBufferInfo = &bi[i]};
  vkUpdateDescriptorSets(c->dev, 2, w, 0, NULL);
  return 0;
}

static int make_pipeline(vk_ctx *c, rb_variant v, vc_error *err) {
  uint32_t *words = NULL;
  size_t n = 0;
  int rc = spirv(rb_glsl(v), &words, &n, err);
  if (rc) return vc_fail_wrap(err, "variant %s", rb_variant_key(v));
  VkShaderModuleCreateInfo smi = {
      .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = n * 4, .pCode = words};
  VkShaderModule sm;
  VkResult r = vkCreateShaderModule(c->dev, &smi, NULL, &sm);
  free(words);
  if (r != VK_SUCCESS) return vk_failed(err, "vkCreateShaderModule", r);
  VkComputePipelineCreateInfo cpi = {
      .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
      .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                .module = sm,
                .pName = "main"},
      .layout = c->layout};
  r = vkCreateComputePipelines(c->dev, VK_NULL_HANDLE, 1, &cpi, NULL, &c->pipe[v]);
  vkDestroyShaderModule(c->dev, sm, NULL);
  if (r != VK_SUCCESS) return vk_failed(err, "vkCreateComputePipelines", r);
  return 0;
}

static void vk_close(void *p) {
  vk_ctx *c = p;
  if (!c) return;
  if (c->dev) {
    vkDeviceWaitIdle(c->dev);
    if (c->fence) vkDestroyFence(c->dev, c->fence, NULL);
    if (c->cpool) vkDestroyCommandPool(c->dev, c->cpool, NULL);
    if (c->qpool) vkDestroyQueryPool(c->dev, c->qpool, NULL);
    for (uint32_t v = 0; v < RB_NVARIANTS; v++)
      if (c->pipe[v]) vkDestroyPipeline(c->dev, c->pipe[v], NULL);
    if (c->dpool) vkDestroyDescriptorPool(c->dev, c->dpool, NULL);
    if (c->layout) vkDestroyPipelineLayout(c->dev, c->layout, NULL);
    if (c->dsl) vkDestroyDescriptorSetLayout(c->dev, c->dsl, NULL);
    for (uint32_t i = 0; i < 3; i++) {
      if (c->buf[i]) vkDestroyBuffer(c->dev, c->buf[i], NULL);
      if (c->mem[i]) vkFreeMemory(c->dev, c->mem[i], NULL);
    }
    vkDestroyDevice(c->dev, NULL);
  }
  /* The instance lives until exit, on purpose: lavapipe 22.3 leaks 128
     bytes when its last instance goes and the loader unloads it, which
     LeakSanitizer can neither attribute (an unloaded module) nor suppress;
     alive, the driver's memory stays reachable. One instance a process. */
  if (c->glslang) glslang_finalize_process();
  free(c);
}

static int setup(vk_ctx *c, char *ident, size_t n, vc_error *err) {
  int rc = pick(c, err);
  bool chains = false;
  if (rc == 0) rc = make_device(c, &chains, err);
  const VkBufferUsageFlags dev_use = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                     VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                     VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
  if (rc == 0) rc = make_buffer(c, 0, O_BYTES, dev_use, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, err);
  if (rc == 0) rc = make_buffer(c, 1, C_BYTES, dev_use, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, err);
  if (rc == 0)
    rc = make_buffer(c, 2, O_BYTES + C_BYTES, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                     VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                     err);
  if (rc == 0) VK(vkMapMemory(c->dev, c->mem[2], 0, VK_WHOLE_SIZE, 0, &c->host), "vkMapMemory");
  if (rc == 0) rc = make_layout(c, err);
  if (rc == 0) {
    c->glslang = glslang_initialize_process() != 0;
    if (!c->glslang) rc = vc_fail(err, VC_ERR_INTERNAL, "glslang_initialize_process failed");
  }
  for (uint32_t v = 0; rc == 0 && v < RB_NVARIANTS; v++) rc = make_pipeline(c, (rb_variant)v, err);
  if (rc) return rc;
  VkQueryPoolCreateInfo qp = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                              .queryType = VK_QUERY_TYPE_TIMESTAMP,
                              .queryCount = 2};
  VK(vkCreateQueryPool(c->dev, &qp, NULL, &c->qpool), "vkCreateQueryPool");
  VkCommandPoolCreateInfo cp = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                .queueFamilyIndex = c->family};
  VK(vkCreateCommandPool(c->dev, &cp, NULL, &c->cpool), "vkCreateCommandPool");
  VkCommandBufferAllocateInfo ca = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                    .commandPool = c->cpool,
                                    .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                    .commandBufferCount = 1};
  VK(vkAllocateCommandBuffers(c->dev, &ca, &c->cmd), "vkAllocateCommandBuffers");
  VkFenceCreateInfo fc = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VK(vkCreateFence(c->dev, &fc, NULL, &c->fence), "vkCreateFence");
  snprintf(ident, n,
           "%s (%s, Vulkan %u.%u.%u, driver %u), ordering: Vulkan memory model, device scope%s; "
           "timestamp period %.3f ns",
           c->props.deviceName, type_name(c->props.deviceType),
           VK_API_VERSION_MAJOR(c->props.apiVersion), VK_API_VERSION_MINOR(c->props.apiVersion),
           VK_API_VERSION_PATCH(c->props.apiVersion), c->props.driverVersion,
           chains ? ", availability/visibility chains" : " (no availability/visibility chains)",
           (double)c->props.limits.timestampPeriod);
  return 0;
}

static int vk_open(const rb_opts *o, void **ctx, char *ident, size_t n, vc_error *err) {
  vk_ctx *c = calloc(1, sizeof *c);
  if (!c) return vc_fail(err, VC_ERR_NOMEM, "no memory");
  c->o = o;
  int rc = setup(c, ident, n, err);
  if (rc) {
    vk_close(c);
    return rc;
  }
  *ctx = c;
  return 0;
}

static void stage_barrier(VkCommandBuffer cmd, VkPipelineStageFlags from, VkAccessFlags src,
                          VkPipelineStageFlags to, VkAccessFlags dst) {
  VkMemoryBarrier mb = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = src, .dstAccessMask = dst};
  vkCmdPipelineBarrier(cmd, from, to, 0, 1, &mb, 0, NULL, 0, NULL);
}

static int record(vk_ctx *c, rb_variant v, uint32_t barriers, vc_error *err) {
  VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                 .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
  VK(vkBeginCommandBuffer(c->cmd, &bi), "vkBeginCommandBuffer");
  VkCommandBuffer cmd = c->cmd;
  vkCmdResetQueryPool(cmd, c->qpool, 0, 2);
  vkCmdFillBuffer(cmd, c->buf[0], 0, O_BYTES, 0);
  vkCmdFillBuffer(cmd, c->buf[1], 0, C_BYTES, 0);
  stage_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, c->pipe[v]);
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, c->layout, 0, 1, &c->set, 0, NULL);
  uint32_t pc[2] = {barriers, c->o->spin};
  vkCmdPushConstants(cmd, c->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc, pc);
  vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, c->qpool, 0);
  vkCmdDispatch(cmd, c->o->grid, 1, 1);
  vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, c->qpool, 1);
  stage_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
  VkBufferCopy co = {0, 0, O_BYTES}, cc = {0, O_BYTES, C_BYTES};
  vkCmdCopyBuffer(cmd, c->buf[0], c->buf[2], 1, &co);
  vkCmdCopyBuffer(cmd, c->buf[1], c->buf[2], 1, &cc);
  stage_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  VK(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
  return 0;
}

static int vk_run(void *p, rb_variant v, uint32_t barriers, rb_run *out, vc_error *err) {
  vk_ctx *c = p;
  int rc = record(c, v, barriers, err);
  if (rc) return rc;
  VkSubmitInfo si = {
      .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &c->cmd};
  VK(vkQueueSubmit(c->queue, 1, &si, c->fence), "vkQueueSubmit");
  VkResult r =
      vkWaitForFences(c->dev, 1, &c->fence, VK_TRUE, (uint64_t)c->o->deadline_s * 1000000000u);
  if (r == VK_TIMEOUT)
    return vc_fail(err, VC_ERR_TIMEOUT,
                   "vulkan %s: the run did not finish within %u s (--deadline); it may still be "
                   "running: were all %u workgroups resident?",
                   rb_variant_key(v), c->o->deadline_s, c->o->grid);
  if (r != VK_SUCCESS) return vk_failed(err, "vkWaitForFences", r);
  VK(vkResetFences(c->dev, 1, &c->fence), "vkResetFences");
  uint64_t ts[2];
  VK(vkGetQueryPoolResults(c->dev, c->qpool, 0, 2, sizeof ts, ts, sizeof ts[0],
                           VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
     "vkGetQueryPoolResults");
  uint64_t mask = c->ts_bits >= 64 ? ~0ull : (1ull << c->ts_bits) - 1;
  uint64_t ticks = (ts[1] - ts[0]) & mask;
  out->ns = (uint64_t)((double)ticks * (double)c->props.limits.timestampPeriod);
  memcpy(out->words, c->host, O_BYTES);
  memcpy(out->ctrl, (const char *)c->host + O_BYTES, C_BYTES);
  return 0;
}

const rb_api rb_vulkan = {"vulkan", vk_open, vk_run, vk_close};
