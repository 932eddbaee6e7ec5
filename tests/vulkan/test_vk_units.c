/* The Vulkan plugin's parts, without a device: driver-version decoding,
 * offline targets, glslang errors, the float-controls request. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backends/vulkan/vk_internal.h"
#include "harness/diag.h"
#include "harness/parse.h"

#define NVIDIA 0x10DEu

static void driver_versions(void **state) {
  (void)state;
  char buf[64];
  /* NVIDIA: 10.8.8.6 bits, e.g. driver 580.159.04. */
  vk_driver_version_string(NVIDIA, (580u << 22) | (159u << 14) | (4u << 6) | 0u, buf, sizeof buf);
  assert_string_equal(buf, "580.159.4.0");
  vk_driver_version_string(NVIDIA, (535u << 22) | (54u << 14) | (3u << 6) | 63u, buf, sizeof buf);
  assert_string_equal(buf, "535.54.3.63");
  /* Everyone else (Mesa 22.3.6, AMD): Vulkan's 10.10.12 bits. */
  vk_driver_version_string(0x10005, VK_MAKE_VERSION(22, 3, 6), buf, sizeof buf);
  assert_string_equal(buf, "22.3.6");
  vk_driver_version_string(0x1002, VK_MAKE_VERSION(2, 0, 4095), buf, sizeof buf);
  assert_string_equal(buf, "2.0.4095");
}

static void targets(void **state) {
  (void)state;
  vk_target t;
  vc_error e;
  assert_int_equal(vk_target_parse("vulkan1.1", &t, &e), 0);
  assert_false(t.denorm_preserve);
  vk_target s;
  assert_int_equal(vk_target_parse("spirv1.3", &s, &e), 0);
  assert_memory_equal(&t, &s, sizeof t);
  assert_int_equal(vk_target_parse("vulkan1.2+denorm-preserve", &t, &e), 0);
  assert_true(t.denorm_preserve);
  assert_int_not_equal(t.spirv, s.spirv);
  assert_int_equal(vk_target_parse("vulkan9", &t, &e), VC_ERR_USAGE);
  assert_non_null(strstr(e.msg, "unknown offline target 'vulkan9'"));
  assert_int_equal(vk_target_parse("+denorm-preserve", &t, &e), VC_ERR_USAGE);
  assert_int_equal(vk_target_parse(NULL, &t, &e), VC_ERR_USAGE);
}

/* A glslang error names the kernel and carries glslang's log. */
static void glslang_errors(void **state) {
  (void)state;
  vc_error e;
  assert_int_equal(vk_glslang_acquire(&e), 0);
  vk_target t;
  assert_int_equal(vk_target_parse("vulkan1.1", &t, &e), 0);
  uint32_t *words = NULL;
  size_t n = 0;
  char *log = NULL;
  const char *bad = "#version 450\nlayout(local_size_x = 1) in;\nvoid main() { undeclared = 1u; }\n";
  assert_int_equal(vk_glsl_to_spirv(bad, &t, "segment 3", &words, &n, &log, &e), VC_ERR_COMPILE);
  assert_null(words);
  assert_null(log);
  assert_non_null(strstr(e.msg, "kernel segment 3: glslang compile failed: "));
  assert_non_null(strstr(e.msg, "undeclared"));
  const char *good = "#version 450\nlayout(local_size_x = 1) in;\nvoid main() { }\n";
  assert_int_equal(vk_glsl_to_spirv(good, &t, "ok", &words, &n, &log, &e), 0);
  assert_true(n > 5);
  assert_int_equal(words[0], 0x07230203u); /* the SPIR-V magic number */
  free(words);
  free(log);
  vk_glslang_release();
}

static vc_program *parse(const char *text) {
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = vc_parse("unit.vyre", text, strlen(text), &d);
  if (!p) vc_diags_print(&d, stderr);
  vc_diags_free(&d);
  assert_non_null(p);
  return p;
}

/* Does the module declare OpExecutionMode <entry> DenormPreserve 32? */
static bool has_denorm_preserve(const uint32_t *w, size_t n) {
  for (size_t i = 5; i < n;) {
    uint32_t len = w[i] >> 16, op = w[i] & 0xffffu;
    if (len == 0) return false;
    if (op == 16 /* OpExecutionMode */ && len == 4 && w[i + 2] == 4459 && w[i + 3] == 32)
      return true;
    i += len;
  }
  return false;
}

/* The request is inserted after #version, and reaches the SPIR-V. */
static void float_controls(void **state) {
  (void)state;
  vc_program *p = parse("(program fc (buffer b f32 4 read_write)\n"
                        "  (entry (store b 0u (mul (load b 1u) (load b 2u)))))\n");
  vc_kernel_desc k = {.kind = VC_KERNEL_SEGMENT, .prog = p, .label = "fc"};
  char *glsl;
  vc_error e;
  assert_int_equal(vk_kernel_glsl(&k, true, &glsl, &e), 0);
  const char *v = strstr(glsl, "#version 450\n");
  const char *x = strstr(glsl, "#extension GL_EXT_spirv_intrinsics : require\n");
  assert_non_null(v);
  assert_ptr_equal(x, v + strlen("#version 450\n"));
  free(glsl);
  void *bin;
  size_t size;
  char *log;
  assert_int_equal(vk_compile_offline(&k, "vulkan1.1+denorm-preserve", &bin, &size, &log, &e), 0);
  assert_true(has_denorm_preserve(bin, size / 4));
  free(bin);
  free(log);
  assert_int_equal(vk_compile_offline(&k, "vulkan1.1", &bin, &size, &log, &e), 0);
  assert_false(has_denorm_preserve(bin, size / 4));
  free(bin);
  free(log);
  k.kind = VC_KERNEL_NATIVE;
  assert_int_equal(vk_compile_offline(&k, "vulkan1.1", &bin, &size, &log, &e), VC_ERR_UNSUPPORTED);
  vc_program_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(driver_versions),
      cmocka_unit_test(targets),
      cmocka_unit_test(glslang_errors),
      cmocka_unit_test(float_controls),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
