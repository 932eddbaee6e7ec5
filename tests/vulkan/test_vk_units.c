/* The Vulkan plugin's parts, without a device: driver-version decoding,
 * offline targets, options, glslang errors, the float-controls request,
 * native kernels' GLSL and SPIR-V in both orderings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backends/vulkan/vk_internal.h"
#include "harness/lang/diag.h"
#include "harness/lang/parse.h"
#include "tests/native/native_util.h"

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
  /* NULL: the plugin's default, vulkan1.1 */
  assert_int_equal(vk_target_parse(NULL, &t, &e), 0);
  assert_memory_equal(&t, &s, sizeof t);
  /* options in either order */
  assert_int_equal(vk_target_parse("vulkan1.2+memory-model", &t, &e), 0);
  assert_true(t.memory_model);
  assert_false(t.denorm_preserve);
  assert_int_equal(vk_target_parse("spirv1.5+denorm-preserve+memory-model", &s, &e), 0);
  assert_true(s.memory_model && s.denorm_preserve);
  assert_int_equal(s.spirv, t.spirv);
  assert_int_equal(vk_target_parse("vulkan1.2+memory", &t, &e), VC_ERR_USAGE);
  assert_non_null(strstr(e.msg, "'vulkan1.2+memory'"));
  assert_int_equal(vk_target_parse("vulkan1.2+memory-model+", &t, &e), VC_ERR_USAGE);
}

static void options(void **state) {
  (void)state;
  vk_options o;
  vc_error e;
  assert_int_equal(vk_options_parse(NULL, &o, &e), 0);
  assert_true(o.float_controls);
  assert_int_equal(o.deadline_s, VK_DEADLINE_DEFAULT_S);
  assert_false(o.cap_given || o.window_given || o.spin_given);
  assert_int_equal(o.vmm, VK_VMM_AUTO);
  assert_int_equal(vk_options_parse("float-controls=off,,deadline=7,native-wgs=3,native-cap=0,"
                                    "native-window=9,native-spin=4294967295,native-phantoms=2,"
                                    "native-memory-model=off",
                                    &o, &e),
                   0);
  assert_false(o.float_controls);
  assert_int_equal(o.deadline_s, 7);
  assert_int_equal(o.native_wgs, 3);
  assert_true(o.cap_given && o.window_given && o.spin_given);
  assert_int_equal(o.ctrl.cap, 0);
  assert_int_equal(o.ctrl.window, 9);
  assert_int_equal(o.ctrl.spin_limit, 4294967295u);
  assert_int_equal(o.ctrl.phantoms, 2);
  assert_int_equal(o.vmm, VK_VMM_OFF);
  assert_int_equal(vk_options_parse("native-memory-model=on", &o, &e), 0);
  assert_int_equal(o.vmm, VK_VMM_ON);
  static const char *const bad[] = {"deadline=0", "deadline=86401", "native-cap=-1",
                                    "native-spin=4294967296", "native-window=", "native-wgs=1x",
                                    "native-memory-model=yes", "float-controls=on"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    assert_int_equal(vk_options_parse(bad[i], &o, &e), VC_ERR_USAGE);
    char want[64];
    snprintf(want, sizeof want, "Vulkan option %s: expected ", bad[i]);
    if (!strstr(e.msg, want)) fail_msg("%s: %s", bad[i], e.msg);
  }
  assert_int_equal(vk_options_parse("deadline=5,native-bogus=1", &o, &e), VC_ERR_USAGE);
  assert_non_null(strstr(e.msg, "unknown Vulkan option 'native-bogus=1'"));
  assert_non_null(strstr(e.msg, "native-memory-model=auto|off|on"));
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
  vk_target t = {.denorm_preserve = true};
  assert_int_equal(vk_kernel_glsl(&k, &t, &glsl, &e), 0);
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
  vc_program_free(p);
}

/* 64-bit programs on a device without the features: unsupported before the
   driver sees them, naming the missing feature (lavapipe has all three). */
static void int64_features(void **state) {
  (void)state;
  vc_dev *dev = calloc(1, sizeof *dev);
  assert_non_null(dev);
  VkPhysicalDeviceLimits *l = &dev->props.limits;
  for (int a = 0; a < 3; a++) l->maxComputeWorkGroupSize[a] = l->maxComputeWorkGroupCount[a] = 65535;
  l->maxComputeWorkGroupInvocations = 1024;
  l->maxComputeSharedMemorySize = 32768;
  l->maxPerStageDescriptorStorageBuffers = l->maxDescriptorSetStorageBuffers = 64;
  l->maxStorageBufferRange = 1u << 30;
  vc_program *plain = parse("(program a (buffer b u32 4 read_write) (entry (atomic add b 0 1u)))\n");
  vc_program *wide = parse("(program w (buffer b u64 4 read_write) (entry (store b 0 1u64)))\n");
  vc_program *atom = parse("(program x (buffer b u64 4 read_write) (entry (atomic add b 0 1u64)))\n");
  vc_program *shat = parse("(program s (buffer b u64 1 write) (shared t u64 1)\n"
                           "  (entry (atomic store t 0 1u64) (store b 0 (atomic load t 0))))\n");
  vc_error e;
  assert_int_equal(vk_check_program_limits(dev, plain, "a", &e), 0);
  assert_int_equal(vk_check_program_limits(dev, wide, "w", &e), VC_ERR_UNSUPPORTED);
  assert_non_null(strstr(e.msg, "lacks shaderInt64"));
  dev->int64.ints = true;
  assert_int_equal(vk_check_program_limits(dev, wide, "w", &e), 0);
  assert_int_equal(vk_check_program_limits(dev, atom, "x", &e), VC_ERR_UNSUPPORTED);
  assert_non_null(strstr(e.msg, "lacks shaderBufferInt64Atomics"));
  dev->int64.buffer_atomics = true;
  assert_int_equal(vk_check_program_limits(dev, atom, "x", &e), 0);
  assert_int_equal(vk_check_program_limits(dev, shat, "s", &e), VC_ERR_UNSUPPORTED);
  assert_non_null(strstr(e.msg, "lacks shaderSharedInt64Atomics"));
  dev->int64.shared_atomics = true;
  assert_int_equal(vk_check_program_limits(dev, shat, "s", &e), 0);
  vc_program_free(plain);
  vc_program_free(wide);
  vc_program_free(atom);
  vc_program_free(shat);
  free(dev);
}

/* The module's OpMemoryModel memory model operand (1 GLSL450, 3 Vulkan),
   and whether it declares the VulkanMemoryModelDeviceScope capability. */
static uint32_t memory_model(const uint32_t *w, size_t n, bool *device_scope) {
  uint32_t model = 0;
  *device_scope = false;
  for (size_t i = 5; i < n;) {
    uint32_t len = w[i] >> 16, op = w[i] & 0xffffu;
    if (len == 0) break;
    if (op == 17 /* OpCapability */ && w[i + 1] == 5346) *device_scope = true;
    if (op == 14 /* OpMemoryModel */) model = w[i + 2];
    i += len;
  }
  return model;
}

static const char barrier_text[] =
    "(program nb (workgroup 4) (grid 3) (buffer a u32 12 read_write) (buffer b u32 12 write)\n"
    "  (entry (let g (global_id x)) (store a g (add g 1u)) (barrier grid)\n"
    "         (store b g (load a (rem (add g 4u) 12u)))))\n";

/* Native kernels: the memory model ordering exactly where the target asks
   for it, as the Vulkan memory model in the SPIR-V (with the device-scope
   capability), and the float-controls request after the directives. */
static void native_kernels(void **state) {
  (void)state;
  native_case c;
  native_case_text(&c, "nb.vyre", barrier_text);
  static const struct {
    const char *target;
    bool vmm, denorm;
  } cases[] = {{"vulkan1.1", false, false},
               {"vulkan1.2+denorm-preserve", false, true},
               {"vulkan1.1+memory-model", true, false},
               {"vulkan1.2+memory-model+denorm-preserve", true, true}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    vk_target t;
    vc_error e;
    assert_int_equal(vk_target_parse(cases[i].target, &t, &e), 0);
    char *glsl;
    assert_int_equal(vk_kernel_glsl(&c.kd, &t, &glsl, &e), 0);
    assert_int_equal(strstr(glsl, "GL_KHR_memory_scope_semantics") != NULL, cases[i].vmm);
    const char *req = strstr(glsl, "spirv_execution_mode(");
    assert_int_equal(req != NULL, cases[i].denorm);
    if (req) { /* after every directive */
      const char *ext = strstr(glsl, "#extension");
      for (const char *x = ext; x; x = strstr(x + 1, "#extension")) ext = x;
      assert_true(ext < req);
    }
    free(glsl);
    void *bin;
    size_t size;
    char *log;
    if (vk_compile_offline(&c.kd, cases[i].target, &bin, &size, &log, &e))
      fail_msg("%s: %s", cases[i].target, e.msg);
    bool scope;
    assert_int_equal(memory_model(bin, size / 4, &scope), cases[i].vmm ? 3u : 1u);
    assert_int_equal(scope, cases[i].vmm);
    assert_int_equal(has_denorm_preserve(bin, size / 4), cases[i].denorm);
    free(bin);
    free(log);
  }
  native_case_free(&c);
}

/* Compute units from the vendor extensions, faked: NVIDIA's SM count
   (VK_NV_shader_sm_builtins, an H200's 132 SMs of 64 warps), AMD's shader
   engines x arrays x compute units, Arm's cores; none without one. */
static void compute_units(void **state) {
  (void)state;
  vk_props p;
  memset(&p, 0, sizeof p);
  p.subgroup.subgroupSize = 32;
  vk_cores c = vk_cores_of(&p);
  assert_int_equal(c.units, 0);
  assert_string_equal(c.source, "none");
  p.has_sm = true;
  p.sm.shaderSMCount = 132;
  p.sm.shaderWarpsPerSM = 64;
  c = vk_cores_of(&p);
  assert_int_equal(c.units, 132);
  assert_int_equal(c.threads_per_unit, 64);
  assert_int_equal(c.thread_width, 32);
  assert_string_equal(c.source, "VK_NV_shader_sm_builtins");
  memset(&p, 0, sizeof p);
  p.has_amd = true;
  p.amd.shaderEngineCount = 4;
  p.amd.shaderArraysPerEngineCount = 2;
  p.amd.computeUnitsPerShaderArray = 10;
  p.amd.simdPerComputeUnit = 2;
  p.amd.wavefrontsPerSimd = 16;
  p.amd.wavefrontSize = 64;
  c = vk_cores_of(&p);
  assert_int_equal(c.units, 80);
  assert_int_equal(c.threads_per_unit, 32);
  assert_int_equal(c.thread_width, 64);
  memset(&p, 0, sizeof p);
  p.subgroup.subgroupSize = 16;
  p.has_arm = true;
  p.arm.shaderCoreCount = 10;
  p.arm.shaderWarpsPerCore = 48;
  c = vk_cores_of(&p);
  assert_int_equal(c.units, 10);
  assert_int_equal(c.threads_per_unit, 48);
  assert_string_equal(c.source, "VK_ARM_shader_core_builtins");
}

/* EXPECT, where the discovery poll closes: at most what the compute units
   hold at once (warps per unit over the workgroup's warps, times the
   units), never more than the workgroups launched, which is also all it
   can be without a count. */
static void discovery_expect(void **state) {
  (void)state;
  vk_cores h200 = {132, 64, 32, "VK_NV_shader_sm_builtins"};
  assert_int_equal(vk_native_expect(&h200, 256, 2000), 132 * 8); /* 1056, as CUDA's occupancy API */
  assert_int_equal(vk_native_expect(&h200, 256, 500), 500);
  assert_int_equal(vk_native_expect(&h200, 1024, 1024), 132 * 2);
  assert_int_equal(vk_native_expect(&h200, 33, 100000), 132 * 32);
  assert_int_equal(vk_native_expect(&h200, 1, 100000), 132 * 64);
  vk_cores none = {0, 0, 32, "none"};
  assert_int_equal(vk_native_expect(&none, 256, 1024), 1024);
  vk_cores tiny = {4, 1, 32, "x"}; /* a workgroup wider than a unit holds: no bound */
  assert_int_equal(vk_native_expect(&tiny, 64, 100), 100);
}

/* A pipeline's cache data is keyed by the device as the driver names it,
   the SPIR-V and the layout: a change of any of them (a driver update, a
   new pipelineCacheUUID) is another key, so a warm compile misses. */
static void pipeline_keys(void **state) {
  (void)state;
  vc_dev *dev = calloc(1, sizeof *dev);
  assert_non_null(dev);
  dev->props.vendorID = 0x10005;
  dev->props.deviceID = 7;
  dev->props.driverVersion = VK_MAKE_VERSION(22, 3, 6);
  memset(dev->props.pipelineCacheUUID, 0xab, VK_UUID_SIZE);
  snprintf(dev->props.deviceName, sizeof dev->props.deviceName, "llvmpipe");
  uint32_t words[8] = {0x07230203u, 0x10300, 0, 12, 0, 1, 2, 3};
  vc_kcache_key base, again, k;
  vk_cache_pipeline_key(dev, words, 8, 2, &base);
  vk_cache_pipeline_key(dev, words, 8, 2, &again);
  assert_memory_equal(base.digest, again.digest, 32);
  for (int change = 0; change < 7; change++) {
    vc_dev d = *dev;
    uint32_t w[8];
    memcpy(w, words, sizeof w);
    uint32_t nb = 2;
    switch (change) {
    case 0: d.props.vendorID++; break;
    case 1: d.props.deviceID++; break;
    case 2: d.props.driverVersion = VK_MAKE_VERSION(22, 3, 7); break;
    case 3: d.props.pipelineCacheUUID[15] ^= 1; break;
    case 4: d.props.deviceName[0] = 'L'; break;
    case 5: w[7] ^= 1; break;
    default: nb = 3; break;
    }
    vk_cache_pipeline_key(&d, w, 8, nb, &k);
    if (memcmp(k.digest, base.digest, 32) == 0) fail_msg("change %d: same key", change);
  }
  free(dev);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(driver_versions),
      cmocka_unit_test(targets),
      cmocka_unit_test(options),
      cmocka_unit_test(glslang_errors),
      cmocka_unit_test(float_controls),
      cmocka_unit_test(native_kernels),
      cmocka_unit_test(int64_features),
      cmocka_unit_test(compute_units),
      cmocka_unit_test(discovery_expect),
      cmocka_unit_test(pipeline_keys),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
