/* The OpenCL plugin through the plugin ABI, on PoCL: devices, description,
 * buffers, launches and their device times, the limit and compile errors,
 * and the message when no ICD is installed (checked in a child process, so
 * that the ICD loader of this process is untouched). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness/lang/parse.h"
#include "harness/exec/plugin.h"

#define PLUGIN VC_BINARY_DIR "/vc-backend-opencl.so"

static vc_plugin plugin;
static const vc_backend *be;
static vc_dev *dev;
static vc_device_info info;

static int setup(void **state) {
  (void)state;
  vc_error err = {0};
  if (vc_plugin_load_file(PLUGIN, &plugin, &err) || plugin.ops->open(0, NULL, &dev, &err) ||
      plugin.ops->describe(dev, &info, &err)) {
    fprintf(stderr, "%s\n", err.msg);
    return -1;
  }
  be = plugin.ops;
  return 0;
}

static int teardown(void **state) {
  (void)state;
  be->close(dev);
  vc_plugin_unload(&plugin);
  return 0;
}

static vc_program *parse(const char *text) {
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = vc_parse("test.vyre", text, strlen(text), &d);
  if (!p) vc_diags_print(&d, stderr);
  vc_diags_free(&d);
  assert_non_null(p);
  return p;
}

/* out[g] = g * 3 + 1 over 4 workgroups of 16 */
static const char triple[] = "(program triple (workgroup 16) (grid 4)\n"
                             "  (buffer out u32 64 write)\n"
                             "  (entry (let g (global_id x))\n"
                             "    (store out g (add (mul g 3u) 1u))))\n";

static void table_is_complete(void **state) {
  (void)state;
  assert_string_equal(be->name, "opencl");
  assert_int_equal(be->abi_version, VC_BACKEND_ABI_VERSION);
  assert_non_null(be->device_count);
  assert_non_null(be->emit);
  assert_non_null(be->compile);
  assert_non_null(be->native_stats);
  assert_null(be->compile_offline); /* OpenCL cannot compile without a device */
  assert_null(be->offline_ext);
}

static void counts_devices(void **state) {
  (void)state;
  uint32_t n = 0;
  vc_error err = {0};
  assert_int_equal(be->device_count(&n, &err), 0);
  assert_true(n >= 1);
  vc_dev *d = NULL;
  assert_int_equal(be->open(n, NULL, &d, &err), VC_ERR_NO_DEVICE);
  assert_null(d);
  assert_non_null(strstr(err.msg, "no device"));
}

static void describes_device(void **state) {
  (void)state;
  assert_string_equal(info.api, "opencl");
  assert_memory_equal(info.api_version, "OpenCL ", 7);
  assert_true(info.driver_name[0] && info.driver_version[0] && info.device_name[0]);
  assert_true(info.vendor_id != 0);
  assert_true(info.compute_units > 0);
  assert_true(info.max_workgroup_invocations > 0);
  assert_true(info.max_workgroup_size[0] > 0);
  assert_true(info.max_shared_bytes > 0 && info.global_mem_bytes > 0);
  assert_true(info.max_buffer_bytes > 0 && info.max_buffer_bytes <= info.global_mem_bytes);
  assert_true(info.timestamps);
  assert_false(info.cooperative);
  assert_true(strstr(info.float_env, "denorm32=preserve") ||
              strstr(info.float_env, "denorm32=flush"));
  const char *keys[] = {"platform_name=", "platform_version=", "opencl_c_version=OpenCL C ",
                        "profiling_timer_resolution_ns=", "build_std=CL"};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
    if (!strstr(info.extra, keys[i])) fail_msg("extra lacks %s:\n%s", keys[i], info.extra);
}

static void rejects_unknown_option(void **state) {
  (void)state;
  vc_dev *d = NULL;
  vc_error err = {0};
  assert_int_equal(be->open(0, "fast=1", &d, &err), VC_ERR_USAGE);
  assert_null(d);
  assert_non_null(strstr(err.msg, "unknown OpenCL option 'fast=1' (known: cl-std=CLx.y, "));
  assert_int_equal(be->open(0, "native-atomics=fast", &d, &err), VC_ERR_USAGE);
  assert_null(d);
  assert_string_equal(err.msg, "OpenCL option native-atomics=fast: expected auto, cl12 or device");
}

static void round_trips_buffers(void **state) {
  (void)state;
  enum { N = 1000 };
  uint32_t src[N], dst[N];
  for (uint32_t i = 0; i < N; i++) src[i] = i * 2654435761u;
  vc_buf *b = NULL;
  vc_error err = {0};
  assert_int_equal(be->alloc(dev, sizeof src, &b, &err), 0);
  assert_int_equal(be->upload(dev, b, src, sizeof src, &err), 0);
  memset(dst, 0, sizeof dst);
  assert_int_equal(be->download(dev, b, dst, sizeof dst, &err), 0);
  assert_memory_equal(src, dst, sizeof src);
  assert_int_equal(be->upload(dev, b, src, sizeof src + 4, &err), VC_ERR_USAGE);
  be->free_buffer(dev, b);
}

static void zeroes_on_device(void **state) {
  (void)state;
  enum { N = 333 };
  uint32_t src[N], dst[N];
  memset(src, 0xa5, sizeof src);
  vc_buf *b = NULL;
  vc_error err = {0};
  assert_int_equal(be->alloc(dev, sizeof src, &b, &err), 0);
  assert_int_equal(be->upload(dev, b, src, sizeof src, &err), 0);
  assert_int_equal(be->zero(dev, b, &err), 0);
  memset(dst, 0xff, sizeof dst);
  assert_int_equal(be->download(dev, b, dst, sizeof dst, &err), 0);
  for (uint32_t i = 0; i < N; i++) assert_int_equal(dst[i], 0);
  be->free_buffer(dev, b);
}

static void launches_and_times(void **state) {
  (void)state;
  vc_program *p = parse(triple);
  vc_kernel_desc k = {.kind = VC_KERNEL_SEGMENT, .prog = p, .label = "segment 0"};
  vc_kern *kern = NULL;
  vc_compile_info ci = {0};
  vc_error err = {0};
  if (be->compile(dev, &k, &kern, &ci, &err)) fail_msg("%s", err.msg);
  assert_true(ci.compile_ns > 0);
  free(ci.log);
  vc_buf *b = NULL;
  assert_int_equal(be->alloc(dev, 64 * 4, &b, &err), 0);
  assert_int_equal(be->zero(dev, b, &err), 0);
  assert_int_equal(be->launch(dev, kern, &b, 1, &err), 0);
  assert_int_equal(be->launch(dev, kern, &b, 1, &err), 0);
  assert_int_equal(be->launch(dev, kern, &b, 1, &err), 0);
  uint64_t ns[2] = {0, 0};
  uint32_t n = 99;
  assert_int_equal(be->finish(dev, ns, 2, &n, &err), 0);
  assert_int_equal(n, 2); /* three launches, room for two */
  assert_true(ns[0] > 0 && ns[1] > 0);
  assert_int_equal(be->finish(dev, ns, 2, &n, &err), 0);
  assert_int_equal(n, 0); /* nothing since the last finish */
  uint32_t out[64];
  assert_int_equal(be->download(dev, b, out, sizeof out, &err), 0);
  for (uint32_t g = 0; g < 64; g++) assert_int_equal(out[g], g * 3 + 1);
  assert_int_equal(be->launch(dev, kern, &b, 0, &err), VC_ERR_USAGE);
  be->free_buffer(dev, b);
  be->free_kernel(dev, kern);
  vc_program_free(p);
}

static void emits_source(void **state) {
  (void)state;
  vc_program *p = parse(triple);
  vc_kernel_desc k = {.kind = VC_KERNEL_SEGMENT, .prog = p, .label = "segment 0"};
  char *src = NULL;
  vc_error err = {0};
  assert_int_equal(be->emit(&k, NULL, &src, &err), 0);
  assert_non_null(strstr(src, "__kernel"));
  assert_non_null(strstr(src, "void vc_main(__global uint *b0 /* out */)"));
  free(src);
  vc_program_free(p);
}

static void refuses_large_workgroup(void **state) {
  (void)state;
  vc_program *p = parse(triple);
  p->workgroup[0] = info.max_workgroup_invocations + 1; /* past the validator, as a device limit */
  vc_kernel_desc k = {.kind = VC_KERNEL_SEGMENT, .prog = p, .label = "segment 3"};
  vc_kern *kern = NULL;
  vc_error err = {0};
  assert_int_equal(be->compile(dev, &k, &kern, NULL, &err), VC_ERR_LIMIT);
  assert_null(kern);
  char want[64], max[64];
  snprintf(want, sizeof want, "%u invocations", p->workgroup[0]);
  snprintf(max, sizeof max, "maximum of %u", info.max_workgroup_invocations);
  assert_non_null(strstr(err.msg, want));
  assert_non_null(strstr(err.msg, max));
  assert_non_null(strstr(err.msg, "segment 3"));
  vc_program_free(p);
}

static void refuses_large_shared(void **state) {
  (void)state;
  vc_program *p = parse("(program sh (workgroup 4) (buffer o u32 4 write) (shared s u32 4)\n"
                        "  (entry (let l (local_id x)) (store s l l) (barrier workgroup)\n"
                        "    (store o l (load s (sub 3u l)))))\n");
  p->shared[0].count = (uint32_t)(info.max_shared_bytes / 4 + 1);
  vc_kernel_desc k = {.kind = VC_KERNEL_SEGMENT, .prog = p, .label = "segment 0"};
  vc_kern *kern = NULL;
  vc_error err = {0};
  assert_int_equal(be->compile(dev, &k, &kern, NULL, &err), VC_ERR_LIMIT);
  char want[64], have[64];
  snprintf(want, sizeof want, "%llu bytes", (unsigned long long)p->shared[0].count * 4);
  snprintf(have, sizeof have, "%llu bytes", (unsigned long long)info.max_shared_bytes);
  assert_non_null(strstr(err.msg, want));
  assert_non_null(strstr(err.msg, have));
  vc_program_free(p);
}

/* Native kernels are built from the splitter's plan (tests/native runs
   them); a native description without one is a caller's error. */
static void native_needs_a_plan(void **state) {
  (void)state;
  vc_program *p = parse(triple);
  vc_kernel_desc k = {.kind = VC_KERNEL_NATIVE, .prog = p, .label = "native"};
  vc_kern *kern = NULL;
  vc_error err = {0};
  assert_int_equal(be->compile(dev, &k, &kern, NULL, &err), VC_ERR_USAGE);
  assert_null(kern);
  assert_non_null(strstr(err.msg, "native"));
  vc_program_free(p);
}

/* A build option that breaks the generated source: the error names the
   kernel and carries the build log. */
static void reports_build_errors(void **state) {
  (void)state;
  vc_dev *d = NULL;
  vc_error err = {0};
  assert_int_equal(be->open(0, "build=-Dvc_seg0=42", &d, &err), 0);
  vc_program *p = parse(triple);
  vc_kernel_desc k = {.kind = VC_KERNEL_SEGMENT, .prog = p, .label = "segment 7"};
  vc_kern *kern = NULL;
  vc_compile_info ci = {0};
  assert_int_equal(be->compile(d, &k, &kern, &ci, &err), VC_ERR_COMPILE);
  assert_non_null(strstr(err.msg, "segment 7"));
  assert_non_null(strstr(err.msg, "CL_BUILD_PROGRAM_FAILURE"));
  assert_non_null(ci.log);
  assert_non_null(strstr(ci.log, "error"));
  assert_non_null(strstr(err.msg, "error"));
  free(ci.log);
  vc_program_free(p);
  be->close(d);
}

/* Child mode: report device_count's result on stdout, as "<code> <message>". */
static int child_count(void) {
  vc_plugin pl;
  vc_error err = {0};
  if (vc_plugin_load_file(PLUGIN, &pl, &err)) {
    printf("load %s\n", err.msg);
    return 1;
  }
  uint32_t n = 0;
  int rc = pl.ops->device_count(&n, &err);
  printf("%d %s\n", rc, rc ? err.msg : "");
  vc_plugin_unload(&pl);
  return 0;
}

extern char **environ;
/* This test's binary: argv[0], since under valgrind /proc/self/exe is valgrind. */
static const char *self;

/* The environment with OCL_ICD_VENDORS=dir; made before fork, since the
   child may only make async-signal-safe calls before exec. */
static char **env_with_vendors(const char *dir, char *entry, size_t n) {
  size_t count = 0;
  while (environ[count]) count++;
  char **env = calloc(count + 2, sizeof *env);
  assert_non_null(env);
  size_t k = 0;
  snprintf(entry, n, "OCL_ICD_VENDORS=%s", dir);
  env[k++] = entry;
  for (size_t i = 0; i < count; i++)
    if (strncmp(environ[i], "OCL_ICD_VENDORS=", 16)) env[k++] = environ[i];
  env[k] = NULL;
  return env;
}

static void explains_missing_icd(void **state) {
  (void)state;
  char dir[] = "/tmp/vc-no-icd-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char entry[128];
  char **env = env_with_vendors(dir, entry, sizeof entry);
  int fd[2];
  assert_int_equal(pipe(fd), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    dup2(fd[1], STDOUT_FILENO);
    close(fd[0]);
    execle(self, self, "--child-count", (char *)NULL, env);
    _exit(127);
  }
  close(fd[1]);
  free(env);
  char out[2048] = {0};
  size_t got = 0;
  ssize_t r;
  while (got < sizeof out - 1 && (r = read(fd[0], out + got, sizeof out - 1 - got)) > 0)
    got += (size_t)r;
  close(fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  rmdir(dir);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  char code[16];
  snprintf(code, sizeof code, "%d ", VC_ERR_NO_DRIVER);
  if (strncmp(out, code, strlen(code))) fail_msg("child said: %s", out);
  assert_non_null(strstr(out, "OCL_ICD_VENDORS"));
  assert_non_null(strstr(out, dir));
  assert_non_null(strstr(out, "/etc/OpenCL/vendors"));
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--child-count") == 0) return child_count();
  self = strchr(argv[0], '/') ? argv[0] : "/proc/self/exe";
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(table_is_complete),     cmocka_unit_test(counts_devices),
      cmocka_unit_test(describes_device),      cmocka_unit_test(rejects_unknown_option),
      cmocka_unit_test(round_trips_buffers),   cmocka_unit_test(zeroes_on_device),
      cmocka_unit_test(launches_and_times),    cmocka_unit_test(emits_source),
      cmocka_unit_test(refuses_large_workgroup), cmocka_unit_test(refuses_large_shared),
      cmocka_unit_test(native_needs_a_plan),        cmocka_unit_test(reports_build_errors),
      cmocka_unit_test(explains_missing_icd),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
