/* The CUDA plugin as the harness loads it: its table, what it exports, and
 * what it says without an NVIDIA driver. The driver paths are tested before
 * any load succeeds (a loaded driver stays loaded for the process). */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/cuda/cuda_fixture.h"

static vc_plugin plugin;

static int load_plugin(void **state) {
  (void)state;
  return cuda_fixture_load(&plugin);
}

static int unload_plugin(void **state) {
  (void)state;
  unsetenv("VYRE_CONFORM_LIBCUDA");
  vc_plugin_unload(&plugin);
  return 0;
}

static void table(void **state) {
  (void)state;
  const vc_backend *b = plugin.ops;
  assert_string_equal(b->name, "cuda");
  assert_int_equal(b->abi_version, VC_BACKEND_ABI_VERSION);
  assert_int_equal(b->struct_size, sizeof(vc_backend));
  assert_non_null(b->device_count);
  assert_non_null(b->open);
  assert_non_null(b->describe);
  assert_non_null(b->close);
  assert_non_null(b->emit);
  assert_non_null(b->compile_offline);
  assert_string_equal(b->offline_ext, "ptx"); /* compile --out-dir names files so */
  assert_non_null(b->compile);
  assert_non_null(b->free_kernel);
  assert_non_null(b->alloc);
  assert_non_null(b->free_buffer);
  assert_non_null(b->upload);
  assert_non_null(b->download);
  assert_non_null(b->zero);
  assert_non_null(b->launch);
  assert_non_null(b->finish);
  assert_non_null(b->native_stats);
}

/* Only the entry point: not the plugin's parts, not the static libraries. */
static void exports_only_the_entry(void **state) {
  (void)state;
  assert_non_null(dlsym(plugin.handle, "vyre_conform_backend"));
  const char *hidden[] = {"vc_cuda_open", "vc_cu_get", "vc_nvrtc_compile", "vc_fail",
                          "vc_cgen_kernel", "vc_sb_printf", "vc_cgen_dialect_cuda"};
  for (size_t i = 0; i < sizeof hidden / sizeof hidden[0]; i++) {
    if (dlsym(plugin.handle, hidden[i])) fail_msg("the plugin exports %s", hidden[i]);
  }
}

/* A driver library that is not there: named in the message, NO_DRIVER. */
static void explicit_driver_missing(void **state) {
  (void)state;
  setenv("VYRE_CONFORM_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
  uint32_t n = 7;
  vc_error e;
  assert_int_equal(plugin.ops->device_count(&n, &e), VC_ERR_NO_DRIVER);
  assert_int_equal(e.code, VC_ERR_NO_DRIVER);
  assert_int_equal(n, 0);
  assert_true(strncmp(e.msg, "no CUDA driver (/nonexistent/libcuda.so.1: ", 43) == 0);
  assert_non_null(strstr(e.msg, "No such file"));
  vc_dev *dev = (vc_dev *)&n;
  assert_int_equal(plugin.ops->open(0, NULL, &dev, &e), VC_ERR_NO_DRIVER);
  assert_null(dev);
  assert_true(strncmp(e.msg, "no CUDA driver (", 16) == 0);
  unsetenv("VYRE_CONFORM_LIBCUDA");
}

/* The documented behaviour on this machine: without libcuda.so.1,
   "no CUDA driver (libcuda.so.1: <dlerror>)"; with one, a device count or
   the driver's reason for having no device. */
static void default_driver(void **state) {
  (void)state;
  void *probe = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  char why[512] = "";
  if (!probe) snprintf(why, sizeof why, "%s", dlerror());
  uint32_t n = 0;
  vc_error e;
  int rc = plugin.ops->device_count(&n, &e);
  if (probe) {
    dlclose(probe);
    if (rc == 0)
      assert_true(n >= 1);
    else
      assert_true(rc == VC_ERR_NO_DEVICE || rc == VC_ERR_NO_DRIVER);
    return;
  }
  char expect[600];
  snprintf(expect, sizeof expect, "no CUDA driver (%s)", why);
  assert_int_equal(rc, VC_ERR_NO_DRIVER);
  assert_string_equal(e.msg, expect);
  assert_true(strncmp(e.msg, "no CUDA driver (libcuda.so.1: ", 30) == 0);
  vc_dev *dev = NULL;
  assert_int_equal(plugin.ops->open(0, "staging=1m", &dev, &e), VC_ERR_NO_DRIVER);
  assert_string_equal(e.msg, expect);
  assert_null(dev);
}

/* Options are checked before the driver is needed. */
static void open_refuses_unknown_options(void **state) {
  (void)state;
  vc_dev *dev = NULL;
  vc_error e;
  assert_int_equal(plugin.ops->open(0, "fast=yes", &dev, &e), VC_ERR_USAGE);
  assert_non_null(strstr(e.msg, "unknown CUDA option 'fast=yes'"));
  assert_null(dev);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(table),
      cmocka_unit_test(exports_only_the_entry),
      cmocka_unit_test(explicit_driver_missing),
      cmocka_unit_test(default_driver),
      cmocka_unit_test(open_refuses_unknown_options),
  };
  return cmocka_run_group_tests(tests, load_plugin, unload_plugin);
}
