/* compile_offline: a kernel to SPIR-V words without a device, for checking
 * the generated code (spirv-val) on machines without a Vulkan driver. */
#include <stdlib.h>
#include <string.h>

#include <glslang/Include/glslang_c_interface.h>

#include "backends/vulkan/vk_internal.h"

static const struct {
  const char *name;
  glslang_target_client_version_t client;
  glslang_target_language_version_t spirv;
} targets[] = {
    {"vulkan1.1", GLSLANG_TARGET_VULKAN_1_1, GLSLANG_TARGET_SPV_1_3},
    {"spirv1.3", GLSLANG_TARGET_VULKAN_1_1, GLSLANG_TARGET_SPV_1_3},
    {"vulkan1.2", GLSLANG_TARGET_VULKAN_1_2, GLSLANG_TARGET_SPV_1_5},
    {"spirv1.5", GLSLANG_TARGET_VULKAN_1_2, GLSLANG_TARGET_SPV_1_5},
};

#define DENORM_SUFFIX "+denorm-preserve"

/* "vulkan1.1", "spirv1.3", "vulkan1.2", "spirv1.5", each optionally followed
   by "+denorm-preserve" (the float-controls request a device that supports
   it gets). NULL is the default, vulkan1.1: what every Vulkan 1.1 device takes. */
int vk_target_parse(const char *name, vk_target *t, vc_error *err) {
  memset(t, 0, sizeof *t);
  if (!name) name = "vulkan1.1";
  size_t n = name ? strlen(name) : 0;
  size_t sl = strlen(DENORM_SUFFIX);
  if (n > sl && strcmp(name + n - sl, DENORM_SUFFIX) == 0) {
    t->denorm_preserve = true;
    n -= sl;
  }
  for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
    if (strlen(targets[i].name) == n && strncmp(targets[i].name, name, n) == 0) {
      t->client = targets[i].client;
      t->spirv = targets[i].spirv;
      return 0;
    }
  return vc_fail(err, VC_ERR_USAGE,
                 "Vulkan: unknown offline target '%s' (known: vulkan1.1, spirv1.3, vulkan1.2, "
                 "spirv1.5, each optionally with " DENORM_SUFFIX ")",
                 name ? name : "(null)");
}

int vk_compile_offline(const vc_kernel_desc *k, const char *target, void **binary, size_t *size,
                       char **log, vc_error *err) {
  *binary = NULL;
  *size = 0;
  if (log) *log = NULL;
  vk_target t;
  int rc = vk_target_parse(target, &t, err);
  if (rc) return rc;
  char *glsl;
  rc = vk_kernel_glsl(k, t.denorm_preserve, &glsl, err);
  if (rc) return rc;
  uint32_t *words;
  size_t nwords;
  char *msgs;
  rc = vk_glslang_hold_offline(err);
  if (!rc)
    rc = vk_glsl_to_spirv(glsl, &t, k->label ? k->label : "(unnamed)", &words, &nwords, &msgs,
                          err);
  free(glsl);
  if (rc) return rc;
  *binary = words;
  *size = nwords * sizeof *words;
  if (log)
    *log = msgs;
  else
    free(msgs);
  return 0;
}
