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

/* A target's options after its name, each after a '+'. */
static bool apply_suffix(const char *s, size_t n, vk_target *t) {
  if (n == 15 && strncmp(s, "denorm-preserve", n) == 0)
    t->denorm_preserve = true;
  else if (n == 12 && strncmp(s, "memory-model", n) == 0)
    t->memory_model = true;
  else
    return false;
  return true;
}

/* "vulkan1.1", "spirv1.3", "vulkan1.2", "spirv1.5", each optionally followed
   by "+denorm-preserve" (the float-controls request a device that supports
   it gets) and "+memory-model" (native kernels: the Vulkan memory model
   ordering). NULL is the default, vulkan1.1: what every Vulkan 1.1 device
   takes. */
int vk_target_parse(const char *name, vk_target *t, vc_error *err) {
  memset(t, 0, sizeof *t);
  if (!name) name = "vulkan1.1";
  size_t n = strcspn(name, "+");
  bool ok = false;
  for (size_t i = 0; i < sizeof targets / sizeof targets[0] && !ok; i++)
    if (strlen(targets[i].name) == n && strncmp(targets[i].name, name, n) == 0) {
      t->client = targets[i].client;
      t->spirv = targets[i].spirv;
      ok = true;
    }
  for (const char *s = name + n; ok && *s == '+';) {
    size_t len = strcspn(s + 1, "+");
    ok = apply_suffix(s + 1, len, t);
    s += 1 + len;
  }
  if (ok) return 0;
  return vc_fail(err, VC_ERR_USAGE,
                 "Vulkan: unknown offline target '%s' (known: vulkan1.1, spirv1.3, vulkan1.2, "
                 "spirv1.5, each optionally with +denorm-preserve and +memory-model)",
                 name);
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
  rc = vk_kernel_glsl(k, &t, &glsl, err);
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
