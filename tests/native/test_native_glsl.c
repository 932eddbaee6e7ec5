/* The GLSL of every native kernel (the native cases and the whole corpus),
 * in both orderings, compiles with glslang to SPIR-V that spirv-val
 * accepts: without the memory model for Vulkan 1.1, with it for Vulkan
 * 1.2 (where the memory model is core). The Vulkan plugin does not run
 * native kernels yet (docs/native.md), so this is how the GLSL is held to
 * its language. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backends/common/native/cgen_native.h"
#include "native_util.h"

static char dir[64];

static int make_dir(void **state) {
  (void)state;
  return native_tmpdir(dir, sizeof dir, "vc-native-glsl-");
}

static int remove_dir(void **state) {
  (void)state;
  return native_rmdir(dir);
}

static void show(const char *path) {
  char line[512];
  FILE *f = fopen(path, "r");
  while (f && fgets(line, sizeof line, f)) fputs(line, stderr);
  if (f) fclose(f);
}

/* Writes c's GLSL, compiles and validates it for env; false on failure
   (the tools' output on stderr). */
static bool compiles(const native_case *c, bool vmm, vc_gridbar gridbar, const char *env) {
  vc_native_opts o;
  vc_native_opts_default(VC_DIALECT_GLSL, &o);
  o.vulkan_memory_model = vmm;
  o.gridbar = gridbar;
  vc_strbuf sb;
  vc_sb_init(&sb);
  vc_error err = {0};
  if (vc_cgen_native(&c->kd, &o, &sb, &err)) fail_msg("%s: %s", c->prog->name, err.msg);
  char src[128], spv[128], log[128], cmd[1024];
  snprintf(src, sizeof src, "%s/k.comp", dir);
  snprintf(spv, sizeof spv, "%s/k.spv", dir);
  snprintf(log, sizeof log, "%s/log.txt", dir);
  FILE *f = fopen(src, "w");
  assert_non_null(f);
  fputs(vc_sb_str(&sb), f);
  fclose(f);
  vc_sb_free(&sb);
  snprintf(cmd, sizeof cmd, "'%s' -V --target-env %s -o %s %s >%s 2>&1 && '%s' --target-env %s %s >>%s 2>&1",
           VC_GLSLANG, env, spv, src, log, VC_SPIRV_VAL, env, spv, log);
  if (native_sh(cmd) == 0) return true;
  fprintf(stderr, "%s (%s, gridbar %d):\n", c->prog->name, vmm ? "memory model" : "coherent",
          (int)gridbar);
  show(log);
  return false;
}

static void every_program_compiles(void **state) {
  (void)state;
  size_t n = 0, done = 0, bad = 0;
  char **files = native_all_programs(&n);
  for (size_t i = 0; i < n; i++) {
    native_case c;
    if (!native_case_try(&c, files[i])) continue;
    bad += !compiles(&c, false, VC_GRIDBAR_FLIP, "vulkan1.1");
    bad += !compiles(&c, true, VC_GRIDBAR_FLIP, "vulkan1.2");
    done++;
    native_case_free(&c);
  }
  native_list_free(files, n);
  fprintf(stderr, "%zu programs, %zu failures\n", done, bad);
  assert_true(done >= 50);
  assert_int_equal(bad, 0);
}

/* The counter barrier (gridbar=counter) on the native cases. */
static void counter_barrier_compiles(void **state) {
  (void)state;
  size_t n = 0, bad = 0;
  char **files = native_list(VC_SOURCE_DIR "/tests/native/cases", &n);
  assert_true(n >= 9);
  for (size_t i = 0; i < n; i++) {
    native_case c;
    native_case_load(&c, files[i]);
    bad += !compiles(&c, false, VC_GRIDBAR_COUNTER, "vulkan1.1");
    bad += !compiles(&c, true, VC_GRIDBAR_COUNTER, "vulkan1.2");
    native_case_free(&c);
  }
  native_list_free(files, n);
  assert_int_equal(bad, 0);
}

/* gridbar=lead (workgroup-scope workgroup barriers around the lead's
   device-scope add and fence) on the native cases. */
static void lead_barrier_compiles(void **state) {
  (void)state;
  size_t n = 0, bad = 0;
  char **files = native_list(VC_SOURCE_DIR "/tests/native/cases", &n);
  assert_true(n >= 9);
  for (size_t i = 0; i < n; i++) {
    native_case c;
    native_case_load(&c, files[i]);
    bad += !compiles(&c, false, VC_GRIDBAR_LEAD, "vulkan1.1");
    bad += !compiles(&c, true, VC_GRIDBAR_LEAD, "vulkan1.2");
    native_case_free(&c);
  }
  native_list_free(files, n);
  assert_int_equal(bad, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(every_program_compiles),
                                     cmocka_unit_test(counter_barrier_compiles),
                                     cmocka_unit_test(lead_barrier_compiles)};
  return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
