/* What the plugin says when a library it opens at run time is unusable.
 * Each case needs a fresh process (a library that loads stays loaded): run
 * without arguments, the test runs itself once per case, chosen by argv[1]:
 *   nvrtc-missing  VYRE_CONFORM_NVRTC names no file: compiling fails with
 *                  VC_ERR_NO_DRIVER, generating source still works;
 *   stub-driver    VYRE_CONFORM_LIBCUDA is the toolkit's stub libcuda: every
 *                  entry point resolves (the versioned names exist in the
 *                  driver's ABI), and cuInit's refusal is reported;
 *   old-driver     a fake driver without cuEventElapsedTime_v2 and
 *                  cuDeviceGetUuid_v2 (before CUDA 12.8) still serves;
 *   no-graph       a fake driver without the graph entry points: launch=graph
 *                  falls back to the stream, and describe says so. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "tests/cuda/cuda_fixture.h"

static vc_plugin plugin;
static vc_program *prog;

static int setup(void **state) {
  (void)state;
  if (cuda_fixture_load(&plugin) != 0) return -1;
  /* the smallest program: an entry with nothing in it */
  prog = vc_program_new();
  prog->name = vc_arena_strdup(&prog->arena, "empty");
  prog->entry = vc_node_new(prog, VC_S_BLOCK, (vc_loc){1, 1}, 0);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  vc_program_free(prog);
  vc_plugin_unload(&plugin);
  return 0;
}

static void nvrtc_missing(void **state) {
  (void)state;
  setenv("VYRE_CONFORM_NVRTC", "/nonexistent/libnvrtc.so.13", 1);
  vc_kernel_desc k = {.kind = VC_KERNEL_SEGMENT, .prog = prog, .label = "segment 0"};
  void *bin = NULL;
  size_t size = 0;
  char *log = NULL;
  vc_error e;
  assert_int_equal(plugin.ops->compile_offline(&k, "sm_90", &bin, &size, &log, &e),
                   VC_ERR_NO_DRIVER);
  assert_null(bin);
  const char *prefix = "kernel empty (segment 0): no NVRTC, cannot compile CUDA C "
                       "(/nonexistent/libnvrtc.so.13: ";
  if (strncmp(e.msg, prefix, strlen(prefix)) != 0) fail_msg("message: %s", e.msg);
  assert_non_null(strstr(e.msg, "set VYRE_CONFORM_NVRTC"));
  /* an explicit choice does not fall back, and is tried again each time */
  assert_int_equal(plugin.ops->compile_offline(&k, "sm_90", &bin, &size, &log, &e),
                   VC_ERR_NO_DRIVER);
  char *src = NULL;
  assert_int_equal(plugin.ops->emit(&k, NULL, &src, &e), 0);
  assert_non_null(strstr(src, "vc_main("));
  free(src);
  /* once the variable is gone, the machine's NVRTC is found */
  unsetenv("VYRE_CONFORM_NVRTC");
  assert_int_equal(plugin.ops->compile_offline(&k, "sm_90", &bin, &size, &log, &e), 0);
  assert_non_null(strstr(bin, ".entry vc_main"));
  free(bin);
  free(log);
}

static void stub_driver(void **state) {
  (void)state;
  setenv("VYRE_CONFORM_LIBCUDA", VC_CUDA_STUB_LIBCUDA, 1);
  uint32_t n = 5;
  vc_error e;
  char expect[1024];
  snprintf(expect, sizeof expect, "CUDA driver %s: cuInit: CUDA_ERROR_STUB_LIBRARY (CUresult 34)",
           VC_CUDA_STUB_LIBCUDA);
  assert_int_equal(plugin.ops->device_count(&n, &e), VC_ERR_NO_DRIVER);
  assert_int_equal(n, 0);
  assert_string_equal(e.msg, expect);
  /* cuInit is tried again on the library that stays loaded */
  vc_dev *dev = NULL;
  assert_int_equal(plugin.ops->open(0, NULL, &dev, &e), VC_ERR_NO_DRIVER);
  assert_string_equal(e.msg, expect);
  assert_null(dev);
  unsetenv("VYRE_CONFORM_LIBCUDA");
}

static void old_driver(void **state) {
  (void)state;
  setenv("VYRE_CONFORM_LIBCUDA", VC_FAKE_OLD_LIBCUDA, 1);
  const vc_backend *be = plugin.ops;
  vc_dev *dev = NULL;
  vc_error e;
  if (be->open(0, NULL, &dev, &e) != 0) fail_msg("open: %s", e.msg);
  vc_device_info info;
  assert_int_equal(be->describe(dev, &info, &e), 0);
  assert_string_equal(info.uuid, "0f1e2d3c4b5a69788796a5b4c3d2e1f0");
  vc_kernel_desc k = {.kind = VC_KERNEL_SEGMENT, .prog = prog, .label = "segment 0"};
  vc_kern *kern = NULL;
  assert_int_equal(be->compile(dev, &k, &kern, NULL, &e), 0);
  assert_int_equal(be->launch(dev, kern, NULL, 0, &e), 0);
  uint64_t ns = 0;
  uint32_t count = 0;
  assert_int_equal(be->finish(dev, &ns, 1, &count, &e), 0);
  assert_int_equal(count, 1);
  assert_int_equal(ns, 250000); /* the fake's clock: 0.25 ms a launch */
  be->free_kernel(dev, kern);
  be->close(dev);
  unsetenv("VYRE_CONFORM_LIBCUDA");
}

/* launch=graph (the default) on a driver without graphs: every launch on
   the stream as it comes, each timed, and the record says why. */
static void no_graph(void **state) {
  (void)state;
  setenv("VYRE_CONFORM_LIBCUDA", VC_FAKE_NOGRAPH_LIBCUDA, 1);
  const vc_backend *be = plugin.ops;
  vc_dev *dev = NULL;
  vc_error e;
  if (be->open(0, NULL, &dev, &e) != 0) fail_msg("open: %s", e.msg);
  vc_device_info info;
  assert_int_equal(be->describe(dev, &info, &e), 0);
  if (!strstr(info.extra, "launch=stream (graph asked; the driver has no cuGraphCreate)\n"))
    fail_msg("%s", info.extra);
  vc_kernel_desc k = {.kind = VC_KERNEL_SEGMENT, .prog = prog, .label = "segment 0"};
  vc_kern *kern = NULL;
  assert_int_equal(be->compile(dev, &k, &kern, NULL, &e), 0);
  for (int i = 0; i < 4; i++) assert_int_equal(be->launch(dev, kern, NULL, 0, &e), 0);
  uint64_t ns[4] = {0};
  uint32_t count = 0;
  assert_int_equal(be->finish(dev, ns, 4, &count, &e), 0);
  assert_int_equal(count, 4);
  for (int i = 0; i < 4; i++) assert_int_equal(ns[i], 250000);
  be->free_kernel(dev, kern);
  be->close(dev);
  unsetenv("VYRE_CONFORM_LIBCUDA");
}

/* Runs this program again for one case; 0 when that run passed. */
static int run_case(const char *self, const char *which) {
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "'%s' %s", self, which);
  int status = system(cmd);
  if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
  fprintf(stderr, "case %s failed (status %d)\n", which, status);
  return 1;
}

int main(int argc, char **argv) {
  const struct CMUnitTest nvrtc[] = {cmocka_unit_test(nvrtc_missing)};
  const struct CMUnitTest stub[] = {cmocka_unit_test(stub_driver)};
  const struct CMUnitTest old[] = {cmocka_unit_test(old_driver)};
  const struct CMUnitTest nograph[] = {cmocka_unit_test(no_graph)};
  if (argc == 1)
    return run_case(argv[0], "nvrtc-missing") | run_case(argv[0], "stub-driver") |
           run_case(argv[0], "old-driver") | run_case(argv[0], "no-graph");
  if (argc == 2 && strcmp(argv[1], "nvrtc-missing") == 0)
    return cmocka_run_group_tests(nvrtc, setup, teardown);
  if (argc == 2 && strcmp(argv[1], "stub-driver") == 0)
    return cmocka_run_group_tests(stub, setup, teardown);
  if (argc == 2 && strcmp(argv[1], "old-driver") == 0)
    return cmocka_run_group_tests(old, setup, teardown);
  if (argc == 2 && strcmp(argv[1], "no-graph") == 0)
    return cmocka_run_group_tests(nograph, setup, teardown);
  fprintf(stderr, "usage: test_cuda_noload [nvrtc-missing|stub-driver|old-driver|no-graph]\n");
  return 2;
}
