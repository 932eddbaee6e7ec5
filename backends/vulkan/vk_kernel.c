/* Kernels: generated GLSL, SPIR-V from glslang, and a compute pipeline with
 * one storage buffer per kernel buffer (binding k), built through the
 * device's pipeline cache. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <glslang/Include/glslang_c_interface.h>

#include "backends/vulkan/vk_internal.h"

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int vk_emit(const vc_kernel_desc *k, vc_dev *dev, char **source, vc_error *err) {
  return vk_kernel_glsl(k, dev ? dev->denorm_preserve : false, source, err);
}

/* SPIR-V 1.3 for Vulkan 1.1 devices and newer; 1.0 devices get SPIR-V 1.0. */
static vk_target device_target(const vc_dev *dev) {
  vk_target t = {GLSLANG_TARGET_VULKAN_1_1, GLSLANG_TARGET_SPV_1_3, dev->denorm_preserve};
  if (dev->props.apiVersion < VK_API_VERSION_1_1) {
    t.client = GLSLANG_TARGET_VULKAN_1_0;
    t.spirv = GLSLANG_TARGET_SPV_1_0;
  }
  return t;
}

static int make_layout(vc_dev *dev, vc_kern *kern, vc_error *err) {
  VkDescriptorSetLayoutBinding *b = calloc(kern->nbuffers ? kern->nbuffers : 1, sizeof *b);
  if (!b) return vc_fail(err, VC_ERR_NOMEM, "Vulkan: out of memory for %u bindings", kern->nbuffers);
  for (uint32_t i = 0; i < kern->nbuffers; i++) {
    b[i].binding = i;
    b[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    b[i].descriptorCount = 1;
    b[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo sci = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
      .bindingCount = kern->nbuffers,
      .pBindings = b,
  };
  VkResult r = vkCreateDescriptorSetLayout(dev->device, &sci, NULL, &kern->set_layout);
  free(b);
  if (r != VK_SUCCESS) return vk_fail_call(err, dev, "vkCreateDescriptorSetLayout", r);
  VkPipelineLayoutCreateInfo lci = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
      .setLayoutCount = 1,
      .pSetLayouts = &kern->set_layout,
  };
  r = vkCreatePipelineLayout(dev->device, &lci, NULL, &kern->layout);
  if (r != VK_SUCCESS) return vk_fail_call(err, dev, "vkCreatePipelineLayout", r);
  return 0;
}

static int make_pipeline(vc_dev *dev, vc_kern *kern, const uint32_t *words, size_t nwords,
                         vc_error *err) {
  VkShaderModuleCreateInfo mci = {
      .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
      .codeSize = nwords * sizeof *words,
      .pCode = words,
  };
  VkShaderModule module;
  VkResult r = vkCreateShaderModule(dev->device, &mci, NULL, &module);
  if (r != VK_SUCCESS) return vk_fail_call(err, dev, "vkCreateShaderModule", r);
  VkComputePipelineCreateInfo pci = {
      .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
      .stage =
          {
              .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
              .stage = VK_SHADER_STAGE_COMPUTE_BIT,
              .module = module,
              .pName = "main",
          },
      .layout = kern->layout,
  };
  r = vkCreateComputePipelines(dev->device, dev->cache, 1, &pci, NULL, &kern->pipeline);
  vkDestroyShaderModule(dev->device, module, NULL);
  if (r != VK_SUCCESS) return vk_fail_call(err, dev, "vkCreateComputePipelines", r);
  return 0;
}

static int new_kernel(const vc_kernel_desc *k, const char *label, vc_kern **out, vc_error *err) {
  const vc_program *p = k->prog;
  vc_kern *kern = calloc(1, sizeof *kern);
  uint64_t *bytes = calloc(p->nbuffers ? p->nbuffers : 1, sizeof *bytes);
  if (!kern || !bytes) {
    free(kern);
    free(bytes);
    return vc_fail(err, VC_ERR_NOMEM, "Vulkan: out of memory for kernel %s", label);
  }
  for (uint32_t i = 0; i < p->nbuffers; i++) bytes[i] = vc_buffer_bytes(&p->buffers[i]);
  kern->buffer_bytes = bytes;
  kern->nbuffers = p->nbuffers;
  memcpy(kern->grid, p->grid, sizeof kern->grid);
  snprintf(kern->label, sizeof kern->label, "%s", label);
  *out = kern;
  return 0;
}

/* GLSL to pipeline; the kernel's handles are filled as they are made. */
static int build(vc_dev *dev, const vc_kernel_desc *k, vc_kern *kern, char **log, vc_error *err) {
  char *glsl;
  int rc = vk_kernel_glsl(k, dev->denorm_preserve, &glsl, err);
  if (rc) return rc;
  vk_target t = device_target(dev);
  uint32_t *words = NULL;
  size_t nwords = 0;
  rc = vk_glsl_to_spirv(glsl, &t, kern->label, &words, &nwords, log, err); /* names the kernel */
  free(glsl);
  if (rc) return rc;
  rc = make_layout(dev, kern, err);
  if (!rc) rc = make_pipeline(dev, kern, words, nwords, err);
  free(words);
  return rc ? vc_fail_wrap(err, "compiling kernel %s", kern->label) : 0;
}

int vk_compile(vc_dev *dev, const vc_kernel_desc *k, vc_kern **out, vc_compile_info *info,
               vc_error *err) {
  *out = NULL;
  if (info) {
    info->compile_ns = 0;
    info->log = NULL;
  }
  const char *label = k->label ? k->label : "(unnamed)";
  if (k->kind == VC_KERNEL_NATIVE)
    return vc_fail(err, VC_ERR_UNSUPPORTED,
                   "kernel %s: native mode is not implemented for Vulkan yet", label);
  int rc = vk_check_program_limits(dev, k->prog, label, err);
  vc_kern *kern = NULL;
  if (!rc) rc = new_kernel(k, label, &kern, err);
  if (rc) return rc;
  uint64_t t0 = now_ns();
  char *log = NULL;
  rc = build(dev, k, kern, &log, err);
  uint64_t t1 = now_ns();
  if (rc) {
    free(log);
    vk_free_kernel(dev, kern);
    return rc;
  }
  if (info) {
    info->compile_ns = t1 - t0;
    info->log = log;
  } else {
    free(log);
  }
  *out = kern;
  return 0;
}

void vk_free_kernel(vc_dev *dev, vc_kern *kern) {
  if (!kern) return;
  /* Recorded dispatches may still use the pipeline: run them first. */
  vc_error ignored;
  if (dev->recording) vk_flush(dev, &ignored);
  if (kern->pipeline) vkDestroyPipeline(dev->device, kern->pipeline, NULL);
  if (kern->layout) vkDestroyPipelineLayout(dev->device, kern->layout, NULL);
  if (kern->set_layout) vkDestroyDescriptorSetLayout(dev->device, kern->set_layout, NULL);
  free(kern->buffer_bytes);
  free(kern);
}
