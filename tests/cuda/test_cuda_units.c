/* The CUDA plugin's parts that need no driver: open's options, offline
 * targets, launch limits, driver error messages, UUIDs, and NVRTC with the
 * options the semantics need. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backends/cuda/cuda_internal.h"
#include "backends/common/native/cgen_native.h"
#include "backends/cuda/cuda_nvrtc.h"

/* ---- open's options ---- */

static void options_default_and_staging(void **state) {
  (void)state;
  vc_cuda_options o;
  vc_error e;
  assert_int_equal(vc_cuda_parse_options(NULL, &o, &e), 0);
  assert_int_equal(o.staging, VC_CUDA_DEFAULT_STAGING);
  assert_int_equal(vc_cuda_parse_options("", &o, &e), 0);
  assert_int_equal(o.staging, VC_CUDA_DEFAULT_STAGING);
  assert_int_equal(vc_cuda_parse_options("staging=65536", &o, &e), 0);
  assert_int_equal(o.staging, 65536);
  assert_int_equal(vc_cuda_parse_options("staging=4m", &o, &e), 0);
  assert_int_equal(o.staging, 4u << 20);
  assert_int_equal(vc_cuda_parse_options(",staging=1G,", &o, &e), 0);
  assert_int_equal(o.staging, 1ull << 30);
}

static void options_native(void **state) {
  (void)state;
  vc_cuda_options o;
  vc_error e;
  assert_int_equal(vc_cuda_parse_options(NULL, &o, &e), 0);
  assert_int_equal(o.deadline_ms, 30000);
  assert_int_equal(o.native_blocks, 0);
  /* the written-out barrier with grid.sync()'s orders by default */
  assert_int_equal(o.inline_barrier, 1);
  assert_int_equal(o.inline_order, VC_CUDA_INLINE_RELEASE);
  assert_int_equal(vc_cuda_parse_options("barrier=cg", &o, &e), 0);
  assert_int_equal(o.inline_barrier, 0);
  assert_int_equal(vc_cuda_parse_options("inline-order=fenced", &o, &e), 0);
  assert_int_equal(o.inline_barrier, 1);
  assert_int_equal(o.inline_order, VC_CUDA_INLINE_FENCED);
  assert_int_equal(vc_cuda_parse_options(NULL, &o, &e), 0);
  assert_string_equal(o.include, "");
  assert_int_equal(
      vc_cuda_parse_options("deadline=2,native-blocks=1056,include=/opt/cuda/include", &o, &e),
      0);
  assert_int_equal(o.deadline_ms, 2000);
  assert_int_equal(o.native_blocks, 1056);
  assert_string_equal(o.include, "/opt/cuda/include");
  assert_int_equal(o.staging, VC_CUDA_DEFAULT_STAGING);
  assert_int_equal(vc_cuda_parse_options("deadline=86400", &o, &e), 0);
  assert_int_equal(o.deadline_ms, 86400000u);
  /* stamps by default, in mapped host memory */
  assert_int_equal(o.timing, VC_CUDA_TIMING_STAMPS);
  assert_int_equal(o.stamp_memory, VC_CUDA_STAMP_HOST);
  assert_int_equal(vc_cuda_parse_options("timing=none", &o, &e), 0);
  assert_int_equal(o.timing, VC_CUDA_TIMING_NONE);
  assert_int_equal(vc_cuda_parse_options("timing=none,timing=launch", &o, &e), 0);
  assert_int_equal(o.timing, VC_CUDA_TIMING_LAUNCH);
  assert_int_equal(vc_cuda_parse_options("timing=stamps,stamp-memory=device", &o, &e), 0);
  assert_int_equal(o.timing, VC_CUDA_TIMING_STAMPS);
  assert_int_equal(o.stamp_memory, VC_CUDA_STAMP_DEVICE);
  /* graphs by default, batches of 3 or more, kept and set in place */
  assert_false(o.launch_stream);
  assert_int_equal(o.graph_min, VC_CUDA_DEFAULT_GRAPH_MIN);
  assert_int_equal(o.graph_min, 3);
  assert_false(o.graph_instantiate);
  assert_int_equal(
      vc_cuda_parse_options("launch=stream,graph-min=1,graph-update=instantiate", &o, &e), 0);
  assert_true(o.launch_stream);
  assert_int_equal(o.graph_min, 1);
  assert_true(o.graph_instantiate);
  assert_int_equal(vc_cuda_parse_options("launch=stream,launch=graph,graph-update=nodes", &o, &e),
                   0);
  assert_false(o.launch_stream);
  assert_false(o.graph_instantiate);
  const char *bad[] = {"timing=some",      "timing=",       "stamp-memory=pinned", "stamp-memory=",
                       "launch=capture",   "launch=",       "graph-min=0",  "graph-min=x",
                       "graph-update=all",
                       "deadline=0",       "deadline=86401", "deadline=1s",  "deadline=",
                       "native-blocks=0",  "native-blocks=-1", "native-blocks=2147483648",
                       "include=",         "deadline"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    if (vc_cuda_parse_options(bad[i], &o, &e) != VC_ERR_USAGE) fail_msg("accepted %s", bad[i]);
  assert_int_equal(vc_cuda_parse_options("native-blocks=x", &o, &e), VC_ERR_USAGE);
  assert_string_equal(e.msg, "CUDA option native-blocks=x: expected a number from 1 to 2147483647");
}

static void options_refused(void **state) {
  (void)state;
  vc_cuda_options o;
  vc_error e;
  assert_int_equal(vc_cuda_parse_options("stagin=5", &o, &e), VC_ERR_USAGE);
  assert_non_null(strstr(e.msg, "unknown CUDA option 'stagin=5'"));
  assert_non_null(strstr(e.msg, "staging=BYTES"));
  assert_non_null(
      strstr(e.msg, "deadline=SECONDS, native-blocks=N, native-over=N, include=DIR, "
                    "timing=stamps|launch|none"));
  assert_non_null(strstr(e.msg, "stamp-memory=host|device"));
  assert_non_null(strstr(e.msg, "launch=graph|stream, graph-min=N, graph-update=nodes|instantiate"));
  assert_int_equal(vc_cuda_parse_options("staging=12x", &o, &e), VC_ERR_USAGE);
  assert_non_null(strstr(e.msg, "CUDA option staging=12x: expected a byte count"));
  assert_int_equal(vc_cuda_parse_options("staging=-4096", &o, &e), VC_ERR_USAGE);
  assert_int_equal(vc_cuda_parse_options("staging=", &o, &e), VC_ERR_USAGE);
  assert_int_equal(vc_cuda_parse_options("staging=100", &o, &e), VC_ERR_USAGE);
  assert_non_null(strstr(e.msg, "at least"));
  assert_int_equal(vc_cuda_parse_options("staging=99999999999999999999g", &o, &e), VC_ERR_USAGE);
}

/* ---- offline targets ---- */

static void target_spellings(void **state) {
  (void)state;
  char arch[32];
  vc_error e;
  assert_int_equal(vc_cuda_target_arch("sm_90", arch, sizeof arch, &e), 0);
  assert_string_equal(arch, "compute_90");
  assert_int_equal(vc_cuda_target_arch("compute_75", arch, sizeof arch, &e), 0);
  assert_string_equal(arch, "compute_75");
  assert_int_equal(vc_cuda_target_arch("sm_90a", arch, sizeof arch, &e), 0);
  assert_string_equal(arch, "compute_90a");
  assert_int_equal(vc_cuda_target_arch("sm_100", arch, sizeof arch, &e), 0);
  assert_string_equal(arch, "compute_100");
  const char *bad[] = {"sm90", "sm_", "sm_9", "sm_90b", "spirv1.3", "compute_9000", "", "sm_90a1"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    assert_int_equal(vc_cuda_target_arch(bad[i], arch, sizeof arch, &e), VC_ERR_USAGE);
    assert_non_null(strstr(e.msg, "expected sm_NN or compute_NN"));
  }
  assert_int_equal(vc_cuda_target_arch(NULL, arch, sizeof arch, &e), VC_ERR_USAGE);
}

/* ---- launch limits (an H200's figures) ---- */

static const vc_cuda_limits h200 = {
    .max_threads_per_block = 1024,
    .max_block = {1024, 1024, 64},
    .max_grid = {2147483647u, 65535, 65535},
    .max_shared_per_block = 49152,
};

static vc_cuda_shape fitting_shape(void) {
  vc_cuda_shape s = {.block = {256, 2, 2}, .grid = {65535, 65535, 1}, .kernel_max_threads = 1024,
                     .shared_bytes = 32768};
  return s;
}

static void limits_fit(void **state) {
  (void)state;
  vc_error e;
  vc_cuda_shape s = fitting_shape();
  assert_int_equal(vc_cuda_check_limits(&h200, &s, "kernel k", "GPU", &e), 0);
  s.block[0] = 1024;
  s.block[1] = s.block[2] = 1;
  s.kernel_max_threads = 0; /* unknown: only the device's limit applies */
  assert_int_equal(vc_cuda_check_limits(&h200, &s, "kernel k", "GPU", &e), 0);
}

static void limits_name_both_figures(void **state) {
  (void)state;
  vc_error e;
  vc_cuda_shape s = fitting_shape();
  s.block[0] = 512; /* 2048 threads */
  assert_int_equal(vc_cuda_check_limits(&h200, &s, "kernel k (segment 1)", "GPU 0", &e),
                   VC_ERR_LIMIT);
  assert_non_null(strstr(e.msg, "kernel k (segment 1)"));
  assert_non_null(strstr(e.msg, "2048 invocations"));
  assert_non_null(strstr(e.msg, "1024 threads per block of GPU 0"));

  s = fitting_shape();
  s.kernel_max_threads = 768; /* registers */
  s.block[0] = 200;           /* 800 threads */
  assert_int_equal(vc_cuda_check_limits(&h200, &s, "k", "GPU", &e), VC_ERR_LIMIT);
  assert_non_null(strstr(e.msg, "800 invocations"));
  assert_non_null(strstr(e.msg, "768 threads per block this kernel"));

  s = fitting_shape();
  s.block[0] = 1;
  s.block[2] = 128;
  assert_int_equal(vc_cuda_check_limits(&h200, &s, "k", "GPU", &e), VC_ERR_LIMIT);
  assert_non_null(strstr(e.msg, "workgroup size z of 128"));
  assert_non_null(strstr(e.msg, "limit 64"));

  s = fitting_shape();
  s.grid[2] = 65536;
  assert_int_equal(vc_cuda_check_limits(&h200, &s, "k", "GPU", &e), VC_ERR_LIMIT);
  assert_non_null(strstr(e.msg, "grid z of 65536"));
  assert_non_null(strstr(e.msg, "limit 65535"));

  s = fitting_shape();
  s.shared_bytes = 49153;
  assert_int_equal(vc_cuda_check_limits(&h200, &s, "k", "GPU", &e), VC_ERR_LIMIT);
  assert_non_null(strstr(e.msg, "49153 bytes of shared memory"));
  assert_non_null(strstr(e.msg, "49152 bytes per block"));
}

/* ---- driver messages and identity ---- */

static void driver_messages_without_driver(void **state) {
  (void)state;
  vc_error e;
  /* no driver to ask: the names come from the plugin's own table */
  assert_int_equal(vc_cu_fail(NULL, &e, CUDA_ERROR_STUB_LIBRARY, "cuInit of %s", "x"),
                   VC_ERR_NO_DRIVER);
  assert_string_equal(e.msg, "cuInit of x: CUDA_ERROR_STUB_LIBRARY (CUresult 34)");
  assert_int_equal(vc_cu_fail(NULL, &e, CUDA_ERROR_NO_DEVICE, "cuInit"), VC_ERR_NO_DEVICE);
  assert_int_equal(vc_cu_fail(NULL, &e, CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc"), VC_ERR_LIMIT);
  assert_int_equal(vc_cu_fail(NULL, &e, CUDA_ERROR_INVALID_PTX, "load"), VC_ERR_COMPILE);
  assert_int_equal(vc_cu_fail(NULL, &e, CUDA_ERROR_LAUNCH_TIMEOUT, "sync"), VC_ERR_TIMEOUT);
  assert_int_equal(vc_cu_fail(NULL, &e, CUDA_ERROR_ILLEGAL_ADDRESS, "sync"), VC_ERR_DEVICE);
  assert_non_null(strstr(e.msg, "(CUresult 700)"));
}

static void uuid_as_hex(void **state) {
  (void)state;
  unsigned char b[16];
  for (int i = 0; i < 16; i++) b[i] = (unsigned char)(i * 17 + 0x0a);
  char out[80];
  vc_cuda_uuid_hex(b, out, sizeof out);
  assert_string_equal(out, "0a1b2c3d4e5f708192a3b4c5d6e7f809");
  vc_cuda_uuid_hex(b, out, 10); /* too small: empty, never cut */
  assert_string_equal(out, "");
}

/* ---- NVRTC ---- */

static char *compile_ok(const char *src, const char *arch) {
  char *ptx = NULL, *log = NULL;
  vc_error e;
  int rc = vc_nvrtc_compile(src, arch, NULL, "kernel t", &ptx, &log, &e);
  if (rc != 0) fail_msg("%s", e.msg);
  free(log);
  return ptx;
}

/* a*b+c must round the product: --fmad=false keeps mul.rn and add.rn apart;
   -ftz=false keeps denormals; --prec-div=true divides correctly rounded. */
static void nvrtc_semantics_options(void **state) {
  (void)state;
  const char *src = "extern \"C\" __global__ void vc_main(float *b0) {\n"
                    "  float a = b0[0], b = b0[1], c = b0[2];\n"
                    "  b0[3] = a * b + c;\n"
                    "  b0[4] = a / b;\n"
                    "}\n";
  char *ptx = compile_ok(src, "compute_90");
  assert_non_null(strstr(ptx, ".entry vc_main"));
  assert_non_null(strstr(ptx, ".target sm_90"));
  assert_non_null(strstr(ptx, "mul.rn.f32"));
  assert_non_null(strstr(ptx, "add.rn.f32"));
  assert_non_null(strstr(ptx, "div.rn.f32"));
  assert_null(strstr(ptx, "fma"));
  assert_null(strstr(ptx, ".ftz"));
  assert_null(strstr(ptx, "div.approx"));
  free(ptx);
}

static void nvrtc_failure_names_kernel(void **state) {
  (void)state;
  char *ptx = NULL, *log = NULL;
  vc_error e;
  const char *src = "extern \"C\" __global__ void vc_main(unsigned int *b0) { b0[0] = nope; }\n";
  assert_int_equal(vc_nvrtc_compile(src, "compute_90", NULL, "kernel broken (segment 3)", &ptx, &log, &e),
                   VC_ERR_COMPILE);
  assert_null(ptx);
  assert_non_null(log);
  assert_non_null(strstr(log, "nope"));
  assert_true(strncmp(e.msg, "kernel broken (segment 3): NVRTC ", 33) == 0);
  assert_non_null(strstr(e.msg, "NVRTC_ERROR_COMPILATION"));
  assert_non_null(strstr(e.msg, "nope")); /* the log's first lines travel in the message */
  free(log);
  /* an architecture NVRTC does not know */
  assert_int_equal(vc_nvrtc_compile("extern \"C\" __global__ void vc_main() {}", "compute_12", NULL,
                                    "kernel k", &ptx, &log, &e),
                   VC_ERR_COMPILE);
  assert_non_null(strstr(e.msg, "compute_12"));
  free(log);
}

static void nvrtc_picks_architecture(void **state) {
  (void)state;
  char arch[32];
  vc_error e;
  int major, minor;
  const char *path;
  assert_int_equal(vc_nvrtc_version(&major, &minor, &path, &e), 0);
  assert_true(major >= 12);
  assert_non_null(strstr(path, "nvrtc"));
  assert_int_equal(vc_nvrtc_arch_for(9, 0, arch, sizeof arch, &e), 0);
  assert_string_equal(arch, "compute_90");
  /* a device newer than NVRTC knows: the newest PTX, which the driver JITs */
  assert_int_equal(vc_nvrtc_arch_for(99, 9, arch, sizeof arch, &e), 0);
  assert_true(strncmp(arch, "compute_", 8) == 0 && atoi(arch + 8) >= 90);
  char *ptx = compile_ok("extern \"C\" __global__ void vc_main() {}", arch);
  free(ptx);
  /* older than every architecture NVRTC knows */
  assert_int_equal(vc_nvrtc_arch_for(1, 0, arch, sizeof arch, &e), VC_ERR_UNSUPPORTED);
  assert_non_null(strstr(e.msg, "the device is 1.0"));
}

/* cooperative_groups.h for native kernels: beside NVRTC unless named. */
static void nvrtc_include_dir(void **state) {
  (void)state;
  char dir[512], path[600];
  vc_error e;
  assert_int_equal(vc_nvrtc_include_dir(NULL, dir, sizeof dir, &e), 0);
  snprintf(path, sizeof path, "%s/cooperative_groups.h", dir);
  FILE *f = fopen(path, "r");
  if (!f) fail_msg("%s: no cooperative_groups.h", dir);
  fclose(f);
  char again[512];
  assert_int_equal(vc_nvrtc_include_dir(dir, again, sizeof again, &e), 0);
  assert_string_equal(again, dir);
  assert_int_equal(vc_nvrtc_include_dir("/nonexistent", again, sizeof again, &e), VC_ERR_USAGE);
  assert_string_equal(e.msg, "CUDA include folder /nonexistent (the include option) has no "
                             "cooperative_groups.h");
  /* the environment is an explicit choice too: no falling back */
  setenv(VC_CUDA_INCLUDE_ENV, "/nonexistent/env", 1);
  assert_int_equal(vc_nvrtc_include_dir(NULL, again, sizeof again, &e), VC_ERR_USAGE);
  assert_non_null(strstr(e.msg, "/nonexistent/env (" VC_CUDA_INCLUDE_ENV ")"));
  setenv(VC_CUDA_INCLUDE_ENV, dir, 1);
  assert_int_equal(vc_nvrtc_include_dir(NULL, again, sizeof again, &e), 0);
  assert_string_equal(again, dir);
  unsetenv(VC_CUDA_INCLUDE_ENV);
  /* the option wins over the environment */
  setenv(VC_CUDA_INCLUDE_ENV, "/nonexistent/env", 1);
  assert_int_equal(vc_nvrtc_include_dir(dir, again, sizeof again, &e), 0);
  unsetenv(VC_CUDA_INCLUDE_ENV);
  /* a native kernel's header compiles with it; without it, it does not */
  const char *src = "#include <cooperative_groups.h>\n"
                    "extern \"C\" __global__ void vc_main(unsigned int *b0) {\n"
                    "  cooperative_groups::this_grid().sync(); b0[0] = 1u;\n}\n";
  char *ptx = NULL, *log = NULL;
  assert_int_equal(vc_nvrtc_compile(src, "compute_90", dir, "kernel n", &ptx, &log, &e), 0);
  assert_non_null(strstr(ptx, ".entry vc_main"));
  free(ptx);
  free(log);
  assert_int_equal(vc_nvrtc_compile(src, "compute_90", NULL, "kernel n", &ptx, &log, &e),
                   VC_ERR_COMPILE);
  assert_non_null(strstr(e.msg, "cooperative_groups.h"));
  free(log);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(options_default_and_staging),
      cmocka_unit_test(options_native),
      cmocka_unit_test(options_refused),
      cmocka_unit_test(target_spellings),
      cmocka_unit_test(limits_fit),
      cmocka_unit_test(limits_name_both_figures),
      cmocka_unit_test(driver_messages_without_driver),
      cmocka_unit_test(uuid_as_hex),
      cmocka_unit_test(nvrtc_semantics_options),
      cmocka_unit_test(nvrtc_failure_names_kernel),
      cmocka_unit_test(nvrtc_picks_architecture),
      cmocka_unit_test(nvrtc_include_dir),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
