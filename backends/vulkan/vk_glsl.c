/* The GLSL a kernel is compiled from: the shared generator's GLSL dialect
 * (segment kernels) or the native generator (native kernels), plus, where
 * the device preserves denormals on request, the request. */
#include <string.h>

#include "backends/common/cgen/cgen.h"
#include "backends/common/native/cgen_native.h"
#include "backends/vulkan/vk_internal.h"

/* GLSL has no float-controls syntax of its own: GL_EXT_spirv_intrinsics
   states the execution mode, its capability and its extension directly.
   4459 is the DenormPreserve execution mode, 4464 the DenormPreserve
   capability (SPV_KHR_float_controls); 32 is the bit width. */
static const char float_controls[] =
    "#extension GL_EXT_spirv_intrinsics : require\n"
    "spirv_execution_mode(extensions = [\"SPV_KHR_float_controls\"], capabilities = [4464], "
    "4459, 32);\n";

/* The first line that starts with `#version` (comments may precede it). */
static const char *version_line(const char *src) {
  for (const char *p = src; p && *p;) {
    if (strncmp(p, "#version", 8) == 0) return p;
    p = strchr(p, '\n');
    if (p) p++;
  }
  return NULL;
}

/* Where the request goes: after the #version line and the #extension lines
   that follow it (a directive must precede the code); NULL without one. */
static const char *request_place(const char *src) {
  const char *v = version_line(src);
  const char *p = v ? strchr(v, '\n') : NULL;
  if (!p) return NULL;
  p++;
  while (strncmp(p, "#extension", 10) == 0) {
    const char *nl = strchr(p, '\n');
    if (!nl) return NULL;
    p = nl + 1;
  }
  return p;
}

/* Inserts the request after the directives at the top. */
static int add_float_controls(vc_strbuf *sb, const char *label, vc_error *err) {
  const char *src = vc_sb_str(sb);
  const char *at = request_place(src);
  if (!at)
    return vc_fail(err, VC_ERR_INTERNAL, "kernel %s: the generated GLSL has no #version line",
                   label);
  size_t head = (size_t)(at - src);
  vc_strbuf out;
  vc_sb_init(&out);
  vc_sb_putn(&out, src, head);
  vc_sb_puts(&out, float_controls);
  vc_sb_puts(&out, src + head);
  vc_sb_free(sb);
  *sb = out;
  return 0;
}

static int generate(const vc_kernel_desc *k, const vk_target *t, vc_strbuf *sb, vc_error *err) {
  if (k->kind != VC_KERNEL_NATIVE) return vc_cgen_kernel(k, VC_DIALECT_GLSL, sb, err);
  vc_native_opts o;
  vc_native_opts_default(VC_DIALECT_GLSL, &o);
  o.vulkan_memory_model = t->memory_model;
  o.gridbar = (vc_gridbar)t->gridbar;
  o.loop_segments = t->loop_segments;
  o.discover_cas = t->discover_cas;
  return vc_cgen_native(k, &o, sb, err);
}

int vk_kernel_glsl(const vc_kernel_desc *k, const vk_target *t, char **glsl, vc_error *err) {
  *glsl = NULL;
  const char *label = k->label ? k->label : "(unnamed)";
  vc_strbuf sb;
  vc_sb_init(&sb);
  int rc = generate(k, t, &sb, err);
  if (!rc && t->denorm_preserve) rc = add_float_controls(&sb, label, err);
  if (rc) {
    vc_sb_free(&sb);
    return rc;
  }
  *glsl = vc_sb_take(&sb);
  return 0;
}
