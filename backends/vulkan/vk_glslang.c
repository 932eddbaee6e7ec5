/* GLSL to SPIR-V with glslang, in process, through its C interface. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glslang/Include/glslang_c_interface.h>
#include <glslang/Public/resource_limits_c.h>

#include "backends/vulkan/vk_internal.h"

/* glslang counts its clients itself; every open device holds one so that
   its built-in symbol tables are parsed once per run, not once per compile. */
int vk_glslang_acquire(vc_error *err) {
  if (!glslang_initialize_process())
    return vc_fail(err, VC_ERR_INTERNAL, "glslang_initialize_process failed");
  return 0;
}

void vk_glslang_release(void) { glslang_finalize_process(); }

/* Offline compiles have no device to hold glslang. The first one takes a
   reference for the life of the plugin (the symbol tables are then built
   once, not per kernel); unloading the plugin or exiting gives it back. */
static pthread_once_t offline_once = PTHREAD_ONCE_INIT;
static int offline_held;

static void take_offline(void) { offline_held = glslang_initialize_process() != 0; }

__attribute__((destructor)) static void give_back_offline(void) {
  if (offline_held) glslang_finalize_process();
  offline_held = 0;
}

int vk_glslang_hold_offline(vc_error *err) {
  pthread_once(&offline_once, take_offline);
  if (!offline_held) return vc_fail(err, VC_ERR_INTERNAL, "glslang_initialize_process failed");
  return 0;
}

static char *dup_log(const char *a, const char *b) {
  size_t na = a ? strlen(a) : 0, nb = b ? strlen(b) : 0;
  if (na + nb == 0) return NULL;
  char *s = malloc(na + nb + 1);
  if (!s) return NULL;
  if (na) memcpy(s, a, na);
  if (nb) memcpy(s + na, b, nb);
  s[na + nb] = '\0';
  return s;
}

static int glslang_failed(vc_error *err, const char *label, const char *step, const char *log) {
  return vc_fail(err, VC_ERR_COMPILE, "kernel %s: glslang %s failed: %s", label, step,
                 log && *log ? log : "(no log)");
}

/* The generator declares the local size from the program; the limits must
   not be glslang's defaults (z <= 64), the device's are checked elsewhere. */
static glslang_resource_t resource_limits(void) {
  glslang_resource_t r = *glslang_default_resource();
  r.max_compute_work_group_size_x = 1024;
  r.max_compute_work_group_size_y = 1024;
  r.max_compute_work_group_size_z = 1024;
  r.max_compute_work_group_count_x = 65535;
  r.max_compute_work_group_count_y = 65535;
  r.max_compute_work_group_count_z = 65535;
  return r;
}

static int link_and_generate(glslang_shader_t *shader, int messages, const char *label,
                             uint32_t **words, size_t *nwords, char **log, vc_error *err) {
  glslang_program_t *prog = glslang_program_create();
  glslang_program_add_shader(prog, shader);
  int rc = 0;
  if (!glslang_program_link(prog, messages)) {
    rc = glslang_failed(err, label, "link", glslang_program_get_info_log(prog));
  } else {
    glslang_spv_options_t opts = {.disable_optimizer = true};
    glslang_program_SPIRV_generate_with_options(prog, GLSLANG_STAGE_COMPUTE, &opts);
    size_t n = glslang_program_SPIRV_get_size(prog);
    uint32_t *w = n ? malloc(n * sizeof *w) : NULL;
    if (!w) {
      rc = vc_fail(err, n ? VC_ERR_NOMEM : VC_ERR_COMPILE,
                   "kernel %s: glslang produced %zu SPIR-V words", label, n);
    } else {
      glslang_program_SPIRV_get(prog, w);
      *words = w;
      *nwords = n;
      char *more = dup_log(*log, glslang_program_SPIRV_get_messages(prog));
      free(*log);
      *log = more;
    }
  }
  glslang_program_delete(prog);
  return rc;
}

int vk_glsl_to_spirv(const char *glsl, const vk_target *t, const char *label, uint32_t **words,
                     size_t *nwords, char **log, vc_error *err) {
  *words = NULL;
  *nwords = 0;
  *log = NULL;
  glslang_resource_t limits = resource_limits();
  int messages = GLSLANG_MSG_SPV_RULES_BIT | GLSLANG_MSG_VULKAN_RULES_BIT;
  glslang_input_t in = {
      .language = GLSLANG_SOURCE_GLSL,
      .stage = GLSLANG_STAGE_COMPUTE,
      .client = GLSLANG_CLIENT_VULKAN,
      .client_version = (glslang_target_client_version_t)t->client,
      .target_language = GLSLANG_TARGET_SPV,
      .target_language_version = (glslang_target_language_version_t)t->spirv,
      .code = glsl,
      .default_version = 450,
      .default_profile = GLSLANG_NO_PROFILE,
      .messages = (glslang_messages_t)messages,
      .resource = &limits,
  };
  glslang_shader_t *shader = glslang_shader_create(&in);
  if (!shader) return vc_fail(err, VC_ERR_NOMEM, "kernel %s: glslang_shader_create failed", label);
  int rc = 0;
  if (!glslang_shader_preprocess(shader, &in))
    rc = glslang_failed(err, label, "preprocessing", glslang_shader_get_info_log(shader));
  else if (!glslang_shader_parse(shader, &in))
    rc = glslang_failed(err, label, "compile", glslang_shader_get_info_log(shader));
  else {
    /* Warnings of a successful compile become the compile log. */
    *log = dup_log(glslang_shader_get_info_log(shader), NULL);
    rc = link_and_generate(shader, messages, label, words, nwords, log, err);
  }
  glslang_shader_delete(shader);
  if (rc) {
    free(*log);
    *log = NULL;
  }
  return rc;
}
