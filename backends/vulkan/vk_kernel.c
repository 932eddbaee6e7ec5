/* Kernels: generated GLSL, SPIR-V from glslang, and a compute pipeline with
 * one storage buffer per kernel buffer (binding k; native kernels: the plan
 * buffers, then the control buffer), built through the kernel cache's
 * pipeline cache data for that pipeline (vk_cache.c), or the device's
 * in-memory pipeline cache without a kernel cache. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glslang/Include/glslang_c_interface.h>

#include "backends/vulkan/vk_internal.h"
#include "harness/base/clock.h"

/* SPIR-V 1.3 for Vulkan 1.1 devices and newer; 1.0 devices get SPIR-V 1.0.
   Native kernels: what the ordering needs (vk_native.c). */
static vk_target device_target(const vc_dev *dev, const vc_kernel_desc *k) {
  if (k->kind == VC_KERNEL_NATIVE) return vk_native_target(dev);
  vk_target t = {GLSLANG_TARGET_VULKAN_1_1, GLSLANG_TARGET_SPV_1_3, dev->denorm_preserve, false, 0,
                 false, false};
  if (dev->props.apiVersion < VK_API_VERSION_1_1) {
    t.client = GLSLANG_TARGET_VULKAN_1_0;
    t.spirv = GLSLANG_TARGET_SPV_1_0;
  }
  return t;
}

/* Without a device: the portable ordering, no float-controls request. */
int vk_emit(const vc_kernel_desc *k, vc_dev *dev, char **source, vc_error *err) {
  vk_target t = {0};
  if (dev) t = device_target(dev, k);
  return vk_kernel_glsl(k, &t, source, err);
}

/* Bindings the kernel's layout has: its buffers, and a native kernel's
   control buffer. */
static uint32_t nbindings(const vc_kern *kern) { return kern->nbuffers + (kern->native ? 1u : 0u); }

static int make_layout(vc_dev *dev, vc_kern *kern, vc_error *err) {
  uint32_t n = nbindings(kern);
  VkDescriptorSetLayoutBinding *b = calloc(n ? n : 1, sizeof *b);
  if (!b) return vc_fail(err, VC_ERR_NOMEM, "Vulkan: out of memory for %u bindings", n);
  for (uint32_t i = 0; i < n; i++) {
    b[i].binding = i;
    b[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    b[i].descriptorCount = 1;
    b[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo sci = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
      .bindingCount = n,
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

static void vk_log_note(char **log, const char *msg);

/* *hit: the kernel cache held this pipeline's cache data and the driver
   took it; after a miss the data is stored (a failure to store is noted in
   the log: the next compile misses again). */
static int make_pipeline(vc_dev *dev, vc_kern *kern, const uint32_t *words, size_t nwords,
                         bool *hit, char **log, vc_error *err) {
  *hit = false;
  VkPipelineCache pc = dev->cache;
  vc_kcache_key pkey;
  bool own = dev->opt.cache_dir[0] != '\0';
  if (own) {
    vk_cache_pipeline_key(dev, words, nwords, nbindings(kern), &pkey);
    VkResult cr = vk_cache_pipeline_open(dev, &pkey, &pc, hit);
    if (cr != VK_SUCCESS) return vk_fail_call(err, dev, "vkCreatePipelineCache", cr);
  }
  VkShaderModuleCreateInfo mci = {
      .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
      .codeSize = nwords * sizeof *words,
      .pCode = words,
  };
  VkShaderModule module;
  VkResult r = vkCreateShaderModule(dev->device, &mci, NULL, &module);
  if (r != VK_SUCCESS) {
    if (own) vkDestroyPipelineCache(dev->device, pc, NULL);
    return vk_fail_call(err, dev, "vkCreateShaderModule", r);
  }
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
  r = vkCreateComputePipelines(dev->device, pc, 1, &pci, NULL, &kern->pipeline);
  vkDestroyShaderModule(dev->device, module, NULL);
  vc_error e;
  vc_error_clear(&e);
  if (own && r == VK_SUCCESS && !*hit && vk_cache_pipeline_put(dev, pc, &pkey, &e))
    vk_log_note(log, e.msg);
  if (own) vkDestroyPipelineCache(dev->device, pc, NULL);
  if (r != VK_SUCCESS) return vk_fail_call(err, dev, "vkCreateComputePipelines", r);
  return 0;
}

/* The kernel's buffer table: the segment program's, or the native plan's. */
static int new_kernel(const vc_kernel_desc *k, const char *label, vc_kern **out, vc_error *err) {
  bool native = k->kind == VC_KERNEL_NATIVE;
  const vc_buffer *table = native ? k->native->buffers : k->prog->buffers;
  uint32_t n = native ? k->native->nbuffers : k->prog->nbuffers;
  vc_kern *kern = calloc(1, sizeof *kern);
  uint64_t *bytes = calloc(n ? n : 1, sizeof *bytes);
  if (!kern || !bytes) {
    free(kern);
    free(bytes);
    return vc_fail(err, VC_ERR_NOMEM, "Vulkan: out of memory for kernel %s", label);
  }
  for (uint32_t i = 0; i < n; i++) bytes[i] = vc_buffer_bytes(&table[i]);
  kern->buffer_bytes = bytes;
  kern->nbuffers = n;
  kern->native = native;
  memcpy(kern->grid, k->prog->grid, sizeof kern->grid);
  snprintf(kern->label, sizeof kern->label, "%s", label);
  *out = kern;
  return 0;
}

/* Appends msg to a compile log. */
static void vk_log_note(char **log, const char *msg) {
  size_t a = *log ? strlen(*log) : 0, b = strlen(msg);
  char *s = malloc(a + b + 2);
  if (!s) return;
  if (a) memcpy(s, *log, a), s[a++] = '\n';
  memcpy(s + a, msg, b + 1);
  free(*log);
  *log = s;
}

/* GLSL (SPIR-V from the kernel cache when it holds it) to pipeline; the
   kernel's handles are filled as they are made. A hit: both the SPIR-V and
   the pipeline's cache data came from the kernel cache. */
static int build(vc_dev *dev, const vc_kernel_desc *k, vc_kern *kern, char **log, bool *hit,
                 vc_error *err) {
  char *glsl;
  vk_target t = device_target(dev, k);
  int rc = vk_kernel_glsl(k, &t, &glsl, err);
  if (rc) return rc;
  uint32_t *words = NULL;
  size_t nwords = 0;
  vc_kcache_key key;
  memset(&key, 0, sizeof key);
  if (dev->opt.cache_dir[0]) {
    vk_cache_spirv_key(glsl, &t, &key);
    *hit = vk_cache_spirv_get(dev, &key, &words, &nwords) == 1;
  }
  if (!*hit) {
    rc = vk_glsl_to_spirv(glsl, &t, kern->label, &words, &nwords, log, err); /* names the kernel */
    vc_error e;
    vc_error_clear(&e);
    if (!rc && dev->opt.cache_dir[0] &&
        vc_kcache_put(dev->opt.cache_dir, &key, words, nwords * sizeof *words, &e))
      vk_log_note(log, e.msg);
  }
  free(glsl);
  if (rc) return rc;
  bool pipeline_hit = false;
  rc = make_layout(dev, kern, err);
  if (!rc) rc = make_pipeline(dev, kern, words, nwords, &pipeline_hit, log, err);
  *hit = *hit && pipeline_hit;
  free(words);
  return rc ? vc_fail_wrap(err, "compiling kernel %s", kern->label) : 0;
}

int vk_compile(vc_dev *dev, const vc_kernel_desc *k, vc_kern **out, vc_compile_info *info,
               vc_error *err) {
  *out = NULL;
  if (info) {
    info->compile_ns = 0;
    info->log = NULL;
    info->cache_hit = false;
  }
  const char *label = k->label ? k->label : "(unnamed)";
  bool native = k->kind == VC_KERNEL_NATIVE;
  if (native && !k->native)
    return vc_fail(err, VC_ERR_USAGE, "Vulkan device %u: kernel %s: native without a description",
                   dev->index, label);
  int rc = native ? vk_native_check(dev, label, err) : 0;
  if (!rc)
    rc = native ? vk_check_native_limits(dev, k, label, err)
                : vk_check_program_limits(dev, k->prog, label, err);
  vc_kern *kern = NULL;
  if (!rc) rc = new_kernel(k, label, &kern, err);
  if (rc) return rc;
  uint64_t t0 = vc_now_ns();
  char *log = NULL;
  bool hit = false;
  rc = build(dev, k, kern, &log, &hit, err);
  if (!rc && native) rc = vk_native_setup(dev, k, kern, err);
  uint64_t t1 = vc_now_ns();
  if (rc) {
    free(log);
    vk_free_kernel(dev, kern);
    return rc;
  }
  if (info) {
    info->compile_ns = t1 - t0;
    info->log = log;
    info->cache_hit = hit;
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
  vk_settle(dev);
  if (kern->ctrl) vk_free_buffer(dev, kern->ctrl);
  if (kern->pipeline) vkDestroyPipeline(dev->device, kern->pipeline, NULL);
  if (kern->layout) vkDestroyPipelineLayout(dev->device, kern->layout, NULL);
  if (kern->set_layout) vkDestroyDescriptorSetLayout(dev->device, kern->set_layout, NULL);
  free(kern->buffer_bytes);
  free(kern);
}
