/* The SPIR-V of every test program, compiled without a device, passes
 * spirv-val silently; every float add, sub, mul and div carries
 * NoContraction (the GLSL's `precise`); the float-controls variant declares
 * DenormPreserve 32. Likewise the native kernels of the native cases in
 * both orderings (the Vulkan memory model with SPIR-V 1.3 and its
 * extension, and with SPIR-V 1.5 where it is core). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/native/native_util.h"
#include "tests/vulkan/vk_test_util.h"

static vc_plugin plugin;

static int setup(void **state) {
  (void)state;
  return vkt_load(&plugin);
}

static int teardown(void **state) {
  (void)state;
  vc_plugin_unload(&plugin);
  return 0;
}

/* Runs spirv-val on the words; fails the test on any output or status. */
static void spirv_val(const char *what, const void *bin, size_t size, const char *env) {
  char path[] = "/tmp/vc-vk-spirv-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, bin, size), (ssize_t)size);
  close(fd);
  char cmd[512];
  snprintf(cmd, sizeof cmd, "'%s' --target-env %s '%s' 2>&1", VC_SPIRV_VAL, env, path);
  FILE *f = popen(cmd, "r");
  assert_non_null(f);
  char out[4096];
  size_t n = fread(out, 1, sizeof out - 1, f);
  out[n] = '\0';
  int status = pclose(f);
  unlink(path);
  if (status != 0 || n != 0)
    fail_msg("%s: spirv-val --target-env %s (status %d): %s", what, env, status, out);
}

typedef struct spirv_facts {
  unsigned float_ops, contracted; /* OpFAdd/FSub/FMul/FDiv, those without NoContraction */
  bool denorm_preserve;
} spirv_facts;

#define OP_EXECUTION_MODE 16u
#define OP_DECORATE 71u
#define DEC_NO_CONTRACTION 42u
#define MODE_DENORM_PRESERVE 4459u

static bool float_op(uint32_t op) {
  return op == 129 /* OpFAdd */ || op == 131 /* OpFSub */ || op == 133 /* OpFMul */ ||
         op == 136 /* OpFDiv */;
}

static spirv_facts read_spirv(const uint32_t *w, size_t n) {
  spirv_facts f = {0};
  uint32_t bound = w[3];
  bool *nocontract = calloc(bound, sizeof *nocontract);
  assert_non_null(nocontract);
  for (size_t i = 5; i < n;) { /* decorations come before the code */
    uint32_t len = w[i] >> 16, op = w[i] & 0xffffu;
    assert_true(len > 0 && i + len <= n);
    if (op == OP_DECORATE && len >= 3 && w[i + 2] == DEC_NO_CONTRACTION && w[i + 1] < bound)
      nocontract[w[i + 1]] = true;
    if (op == OP_EXECUTION_MODE && len == 4 && w[i + 2] == MODE_DENORM_PRESERVE && w[i + 3] == 32)
      f.denorm_preserve = true;
    if (float_op(op) && len == 5) {
      f.float_ops++;
      if (w[i + 2] >= bound || !nocontract[w[i + 2]]) f.contracted++;
    }
    i += len;
  }
  free(nocontract);
  return f;
}

static bool uses_float_arith(const vc_program *p) {
  for (uint32_t i = 0; i < p->nbuffers; i++)
    if (p->buffers[i].type == VC_F32) return true;
  return false;
}

typedef struct target {
  const char *target, *env;
} target;

/* Compiles k for each target and holds the SPIR-V to the rules above. */
static void check_kernel(const vc_kernel_desc *k, const target *targets, size_t ntargets) {
  const char *name = k->label;
  for (size_t t = 0; t < ntargets; t++) {
    void *bin = NULL;
    size_t size = 0;
    char *log = NULL;
    vc_error e;
    int rc = plugin.ops->compile_offline(k, targets[t].target, &bin, &size, &log, &e);
    if (rc) fail_msg("%s for %s: %s", name, targets[t].target, e.msg);
    free(log);
    assert_true(size % 4 == 0 && size > 20);
    char what[128];
    snprintf(what, sizeof what, "%s (%s)", name, targets[t].target);
    spirv_val(what, bin, size, targets[t].env);
    spirv_facts f = read_spirv(bin, size / 4);
    if (f.contracted) fail_msg("%s: %u of %u float operations lack NoContraction", what,
                               f.contracted, f.float_ops);
    assert_int_equal(f.denorm_preserve, strstr(targets[t].target, "+denorm-preserve") != NULL);
    free(bin);
  }
}

static void all_programs(void **state) {
  (void)state;
  static const target targets[] = {{"vulkan1.1", "vulkan1.1"},
                                   {"spirv1.3", "spv1.3"},
                                   {"vulkan1.1+denorm-preserve", "vulkan1.1"},
                                   {"vulkan1.2+denorm-preserve", "vulkan1.2"}};
  for (unsigned i = 0; i < vkt_program_count; i++) {
    const char *name = vkt_program_names[i];
    vc_program *p = vkt_parse(name);
    if (!p) fail_msg("%s does not parse", name);
    vc_kernel_desc k = {.kind = VC_KERNEL_SEGMENT, .prog = p, .label = name};
    check_kernel(&k, targets, sizeof targets / sizeof targets[0]);
    vc_program_free(p);
  }
}

static void check_native(native_case *c, void *ctx) {
  (void)ctx;
  static const target targets[] = {{"vulkan1.1", "vulkan1.1"},
                                    {"vulkan1.1+memory-model", "vulkan1.1"},
                                    {"vulkan1.2+memory-model", "vulkan1.2"},
                                    {"vulkan1.2+memory-model+denorm-preserve", "vulkan1.2"}};
  c->kd.label = c->prog->name;
  check_kernel(&c->kd, targets, sizeof targets / sizeof targets[0]);
}

static void native_kernels(void **state) {
  (void)state;
  vkt_native_each(VC_SOURCE_DIR "/tests/native/cases", 9, check_native, NULL);
  vkt_native_each(VC_SOURCE_DIR "/tests/vulkan/native", 5, check_native, NULL);
}

/* The NoContraction check is not vacuous: f32_contract has float arithmetic. */
static void contraction_program_has_float_ops(void **state) {
  (void)state;
  vc_program *p = vkt_parse("f32_contract");
  assert_non_null(p);
  assert_true(uses_float_arith(p));
  vc_kernel_desc k = {.kind = VC_KERNEL_SEGMENT, .prog = p, .label = "f32_contract"};
  void *bin;
  size_t size;
  char *log;
  vc_error e;
  assert_int_equal(plugin.ops->compile_offline(&k, "vulkan1.1", &bin, &size, &log, &e), 0);
  free(log);
  spirv_facts f = read_spirv(bin, size / 4);
  assert_true(f.float_ops >= 6);
  assert_int_equal(f.contracted, 0);
  free(bin);
  vc_program_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(all_programs),
      cmocka_unit_test(native_kernels),
      cmocka_unit_test(contraction_program_has_float_ops),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
