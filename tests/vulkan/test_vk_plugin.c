/* The Vulkan plugin as the harness loads it, on lavapipe (VK_DRIVER_FILES
 * is set by ctest): its table and exports, the device identity, transfers,
 * dispatch batching with one device time per launch, limits and errors,
 * a native kernel without its plan, and the no-driver message (in a
 * child process with its own loader). */
#include <dlfcn.h>
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

#include "harness/base/strbuf.h"
#include "tests/vulkan/vk_test_util.h"

static vc_plugin plugin;
static const vc_backend *ops;
static vc_dev *dev;
static const char *self; /* argv[0], re-executed for the no-driver child */

static int setup(void **state) {
  (void)state;
  if (vkt_load(&plugin) != 0) return -1;
  ops = plugin.ops;
  vc_error e;
  if (ops->open(0, NULL, &dev, &e) != 0) {
    fprintf(stderr, "open: %s\n", e.msg);
    return -1;
  }
  return 0;
}

static int teardown(void **state) {
  (void)state;
  ops->close(dev);
  vc_plugin_unload(&plugin);
  return 0;
}

static void table(void **state) {
  (void)state;
  assert_string_equal(ops->name, "vulkan");
  assert_int_equal(ops->abi_version, VC_BACKEND_ABI_VERSION);
  assert_int_equal(ops->struct_size, sizeof(vc_backend));
  const void *entries[] = {
      (const void *)ops->device_count, (const void *)ops->open,     (const void *)ops->describe,
      (const void *)ops->close,        (const void *)ops->emit,     (const void *)ops->compile_offline,
      (const void *)ops->compile,      (const void *)ops->free_kernel, (const void *)ops->alloc,
      (const void *)ops->free_buffer,  (const void *)ops->upload,   (const void *)ops->download,
      (const void *)ops->zero,         (const void *)ops->launch,   (const void *)ops->finish,
      (const void *)ops->native_stats};
  for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) assert_non_null(entries[i]);
  assert_string_equal(ops->offline_ext, "spv"); /* compile --out-dir names files so */
}

/* Only the entry point: not the plugin's parts, nor glslang, nor the harness code. */
static void exports_only_the_entry(void **state) {
  (void)state;
  assert_non_null(dlsym(plugin.handle, "vyre_conform_backend"));
  const char *hidden[] = {"vk_open", "vk_flush", "vc_fail", "vc_cgen_kernel",
                          "vc_cgen_dialect_glsl", "glslang_initialize_process", "ShInitialize"};
  for (size_t i = 0; i < sizeof hidden / sizeof hidden[0]; i++)
    if (dlsym(plugin.handle, hidden[i])) fail_msg("the plugin exports %s", hidden[i]);
}

static void device_count(void **state) {
  (void)state;
  uint32_t n = 0;
  vc_error e;
  assert_int_equal(ops->device_count(&n, &e), 0);
  assert_true(n >= 1);
  vc_dev *d = NULL;
  assert_int_equal(ops->open(n, NULL, &d, &e), VC_ERR_NO_DEVICE);
  assert_null(d);
  char want[64];
  snprintf(want, sizeof want, "device %u requested, the loader shows %u", n, n);
  assert_non_null(strstr(e.msg, want));
}

/* The value of "key=" in info->extra, or NULL. */
static const char *extra_value(const vc_device_info *info, const char *key, char *buf, size_t n) {
  size_t kl = strlen(key);
  for (const char *p = info->extra; p && *p;) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    if (len > kl && strncmp(p, key, kl) == 0 && p[kl] == '=') {
      snprintf(buf, n, "%.*s", (int)(len - kl - 1), p + kl + 1);
      return buf;
    }
    p = nl ? nl + 1 : NULL;
  }
  return NULL;
}

static bool all_hex(const char *s, size_t len) {
  if (strlen(s) != len) return false;
  for (size_t i = 0; i < len; i++)
    if (!strchr("0123456789abcdef", s[i])) return false;
  return true;
}

static void describe_identity(void **state) {
  (void)state;
  vc_device_info info;
  vc_error e;
  assert_int_equal(ops->describe(dev, &info, &e), 0);
  char v[256];
  assert_string_equal(info.api, "vulkan");
  unsigned major = 0, minor = 0, patch = 0;
  assert_int_equal(sscanf(info.api_version, "%u.%u.%u", &major, &minor, &patch), 3);
  assert_true(major == 1 && minor >= 1);
  assert_true(strlen(info.device_name) > 0);
  assert_true(strlen(info.driver_name) > 0);
  /* lavapipe: Mesa's vendor id, the llvmpipe driver name and Mesa's driverInfo. */
  assert_int_equal(info.vendor_id, 0x10005);
  assert_string_equal(info.driver_name, "llvmpipe");
  assert_non_null(strstr(info.driver_version, "(Mesa "));
  assert_true(all_hex(info.uuid, 32));
  assert_string_equal(extra_value(&info, "device_uuid", v, sizeof v), info.uuid);
  assert_true(all_hex(extra_value(&info, "pipeline_cache_uuid", v, sizeof v), 32));
  assert_true(all_hex(extra_value(&info, "driver_uuid", v, sizeof v), 32));
  assert_non_null(extra_value(&info, "conformance_version", v, sizeof v));
  assert_string_equal(extra_value(&info, "device_type", v, sizeof v), "cpu");
  /* The decoded driver version starts driver_version. */
  unsigned raw = 0;
  assert_int_equal(sscanf(extra_value(&info, "driver_version_raw", v, sizeof v), "0x%x", &raw), 1);
  snprintf(v, sizeof v, "%u.%u.%u ", raw >> 22, (raw >> 12) & 0x3ffu, raw & 0xfffu);
  assert_true(strncmp(info.driver_version, v, strlen(v)) == 0);
}

static void describe_limits(void **state) {
  (void)state;
  vc_device_info info;
  vc_error e;
  assert_int_equal(ops->describe(dev, &info, &e), 0);
  char v[256], want[128];
  snprintf(want, sizeof want, "%u,%u,%u", info.max_grid[0], info.max_grid[1], info.max_grid[2]);
  assert_string_equal(extra_value(&info, "max_compute_work_group_count", v, sizeof v), want);
  snprintf(want, sizeof want, "%u,%u,%u", info.max_workgroup_size[0], info.max_workgroup_size[1],
           info.max_workgroup_size[2]);
  assert_string_equal(extra_value(&info, "max_compute_work_group_size", v, sizeof v), want);
  assert_true(info.max_workgroup_invocations >= 128); /* Vulkan's minimum */
  assert_true(info.max_shared_bytes >= 16384);
  assert_true(info.max_buffer_bytes >= 134217728); /* maxStorageBufferRange minimum */
  assert_true(info.global_mem_bytes > 0);
  assert_false(info.cooperative);
  assert_non_null(extra_value(&info, "subgroup_size", v, sizeof v));
  assert_true(atoi(v) >= 1);
  assert_non_null(extra_value(&info, "max_per_stage_descriptor_storage_buffers", v, sizeof v));
  assert_true(atoi(v) >= 4);
  /* Timing: device timestamps exactly when the queue has valid bits. */
  assert_non_null(extra_value(&info, "timestamp_valid_bits", v, sizeof v));
  bool bits = atoi(v) > 0;
  assert_int_equal(info.timestamps, bits);
  assert_string_equal(extra_value(&info, "timing", v, sizeof v),
                      bits ? "device-timestamps" : "host-only");
  assert_non_null(extra_value(&info, "timestamp_period_ns", v, sizeof v));
  assert_true(atof(v) > 0);
}

/* The float environment says what was requested and agrees with the caps. */
static void describe_float_env(void **state) {
  (void)state;
  vc_device_info info;
  vc_error e;
  assert_int_equal(ops->describe(dev, &info, &e), 0);
  bool can = strstr(info.float_env, "preserve32=1") != NULL;
  assert_true(can || strstr(info.float_env, "preserve32=0"));
  assert_non_null(strstr(info.float_env, can ? "denorm32=preserve request=DenormPreserve32"
                                             : "denorm32=device-default request=none"));
  assert_non_null(strstr(info.float_env, "rte32="));
  assert_non_null(strstr(info.float_env, "denorm_indep="));
  char v[64];
  assert_string_equal(extra_value(&info, "denorm_preserve_requested", v, sizeof v),
                      can ? "yes" : "no");

  /* float-controls=off never requests it. */
  vc_dev *d;
  assert_int_equal(ops->open(0, "float-controls=off", &d, &e), 0);
  assert_int_equal(ops->describe(d, &info, &e), 0);
  assert_non_null(strstr(info.float_env, "denorm32=device-default request=none"));
  ops->close(d);
}

static void options(void **state) {
  (void)state;
  vc_dev *d = NULL;
  vc_error e;
  assert_int_equal(ops->open(0, "float-controls=auto,bogus=1", &d, &e), VC_ERR_USAGE);
  assert_null(d);
  assert_non_null(strstr(e.msg, "unknown Vulkan option 'bogus=1'"));
}

static void fill_pattern(uint32_t *w, size_t n, uint32_t seed) {
  for (size_t i = 0; i < n; i++) w[i] = (uint32_t)(i * 2654435761u) ^ seed;
}

static void round_trip(size_t words) {
  uint32_t *in = malloc(words * 4), *out = malloc(words * 4);
  assert_non_null(in);
  assert_non_null(out);
  fill_pattern(in, words, (uint32_t)words);
  vc_buf *b;
  vc_error e;
  assert_int_equal(ops->alloc(dev, words * 4, &b, &e), 0);
  assert_int_equal(ops->upload(dev, b, in, words * 4, &e), 0);
  memset(out, 0xab, words * 4);
  assert_int_equal(ops->download(dev, b, out, words * 4, &e), 0);
  assert_memory_equal(in, out, words * 4);
  assert_int_equal(ops->zero(dev, b, &e), 0);
  assert_int_equal(ops->download(dev, b, out, words * 4, &e), 0);
  for (size_t i = 0; i < words; i++)
    if (out[i]) fail_msg("word %zu is 0x%08x after zero", i, out[i]);
  ops->free_buffer(dev, b);
  free(in);
  free(out);
}

static void round_trips(void **state) {
  (void)state;
  round_trip(1);
  round_trip(1000);
  /* Larger than the staging buffer: copied in chunks. */
  round_trip((64u << 20) / 4 + 3);
}

static void transfer_errors(void **state) {
  (void)state;
  vc_buf *b;
  vc_error e;
  uint32_t w[8] = {0};
  assert_int_equal(ops->alloc(dev, 16, &b, &e), 0);
  assert_int_equal(ops->upload(dev, b, w, 32, &e), VC_ERR_USAGE);
  assert_non_null(strstr(e.msg, "upload of 32 bytes into a buffer of 16 bytes"));
  assert_int_equal(ops->download(dev, b, w, 32, &e), VC_ERR_USAGE);
  ops->free_buffer(dev, b);
  assert_int_equal(ops->alloc(dev, 0, &b, &e), VC_ERR_USAGE);
}

static const char counter_text[] =
    "(program counter (workgroup 4) (grid 2)\n"
    "  (buffer acc u32 8 read_write)\n"
    "  (entry (let g (global_id x)) (store acc g (add (load acc g) (add g 1u)))))\n";

/* n launches of counter, then one finish: one device time each, and every
   launch saw the previous one's writes (the barriers between dispatches). */
static void launches_then_finish(uint32_t n, uint32_t cap) {
  vc_program *p = vkt_parse_text("counter.vyre", counter_text);
  assert_non_null(p);
  vc_kernel_desc k = {.kind = VC_KERNEL_SEGMENT, .prog = p, .label = "counter"};
  vc_kern *kern;
  vc_error e;
  vc_compile_info info = {0};
  assert_int_equal(ops->compile(dev, &k, &kern, &info, &e), 0);
  free(info.log);
  vc_buf *b;
  assert_int_equal(ops->alloc(dev, 32, &b, &e), 0);
  assert_int_equal(ops->zero(dev, b, &e), 0);
  uint64_t *ns = calloc(n + 1, sizeof *ns);
  assert_non_null(ns);
  uint32_t count = 99;
  assert_int_equal(ops->finish(dev, ns, n, &count, &e), 0);
  assert_int_equal(count, 0); /* nothing pending */
  for (uint32_t i = 0; i < n; i++) assert_int_equal(ops->launch(dev, kern, &b, 1, &e), 0);
  assert_int_equal(ops->finish(dev, ns, cap, &count, &e), 0);
  vc_device_info di;
  assert_int_equal(ops->describe(dev, &di, &e), 0);
  assert_int_equal(count, di.timestamps ? (cap < n ? cap : n) : 0);
  uint32_t out[8];
  assert_int_equal(ops->download(dev, b, out, sizeof out, &e), 0);
  for (uint32_t g = 0; g < 8; g++) assert_int_equal(out[g], n * (g + 1));
  assert_int_equal(ops->finish(dev, ns, n, &count, &e), 0);
  assert_int_equal(count, 0); /* the times were handed out */
  free(ns);
  ops->free_buffer(dev, b);
  ops->free_kernel(dev, kern);
  vc_program_free(p);
}

static void batching(void **state) {
  (void)state;
  launches_then_finish(5, 5);
  launches_then_finish(5, 2);
  /* More than one command buffer's worth: the plugin submits the full batch. */
  launches_then_finish(1030, 1030);
}

/* Host-split style: a finish and transfers between launches keep the order. */
static void launch_between_transfers(void **state) {
  (void)state;
  vc_program *p = vkt_parse_text("counter.vyre", counter_text);
  assert_non_null(p);
  vc_kernel_desc k = {.kind = VC_KERNEL_SEGMENT, .prog = p, .label = "counter"};
  vc_kern *kern;
  vc_error e;
  assert_int_equal(ops->compile(dev, &k, &kern, NULL, &e), 0);
  vc_buf *b;
  uint32_t w[8] = {100, 200, 300, 400, 500, 600, 700, 800}, out[8];
  assert_int_equal(ops->alloc(dev, sizeof w, &b, &e), 0);
  assert_int_equal(ops->upload(dev, b, w, sizeof w, &e), 0);
  assert_int_equal(ops->launch(dev, kern, &b, 1, &e), 0);
  /* download submits the pending launch first */
  assert_int_equal(ops->download(dev, b, out, sizeof out, &e), 0);
  for (uint32_t g = 0; g < 8; g++) assert_int_equal(out[g], w[g] + g + 1);
  assert_int_equal(ops->upload(dev, b, w, sizeof w, &e), 0);
  assert_int_equal(ops->launch(dev, kern, &b, 1, &e), 0);
  assert_int_equal(ops->launch(dev, kern, &b, 1, &e), 0);
  uint64_t ns[4];
  uint32_t count;
  assert_int_equal(ops->finish(dev, ns, 4, &count, &e), 0);
  vc_device_info di;
  assert_int_equal(ops->describe(dev, &di, &e), 0);
  assert_int_equal(count, di.timestamps ? 3u : 0u); /* all since the last finish */
  assert_int_equal(ops->download(dev, b, out, sizeof out, &e), 0);
  for (uint32_t g = 0; g < 8; g++) assert_int_equal(out[g], w[g] + 2 * (g + 1));
  /* A buffer smaller than the kernel declares is refused. */
  vc_buf *small;
  assert_int_equal(ops->alloc(dev, 16, &small, &e), 0);
  assert_int_equal(ops->launch(dev, kern, &small, 1, &e), VC_ERR_USAGE);
  assert_non_null(strstr(e.msg, "binding 0 needs 32 bytes, the buffer has 16"));
  assert_int_equal(ops->launch(dev, kern, NULL, 0, &e), VC_ERR_USAGE);
  ops->free_buffer(dev, small);
  ops->free_buffer(dev, b);
  ops->free_kernel(dev, kern);
  vc_program_free(p);
}

static int compile_text(const char *text, vc_kernel_kind kind, vc_error *e) {
  vc_program *p = vkt_parse_text("limits.vyre", text);
  assert_non_null(p);
  vc_kernel_desc k = {.kind = kind, .prog = p, .label = "segment 0"};
  vc_kern *kern = NULL;
  int rc = ops->compile(dev, &k, &kern, NULL, e);
  if (kern) ops->free_kernel(dev, kern);
  vc_program_free(p);
  return rc;
}

/* Past a device limit the compile is refused, naming both figures; which
   limits lavapipe makes testable is read from describe, not assumed. */
static void limits(void **state) {
  (void)state;
  vc_device_info info;
  vc_error e;
  assert_int_equal(ops->describe(dev, &info, &e), 0);
  char v[64], text[8192], want[160];
  unsigned tested = 0;
  uint64_t elems = info.max_buffer_bytes / 4 + 1;
  if (elems <= VC_MAX_BUFFER_ELEMS) {
    snprintf(text, sizeof text,
             "(program big (buffer b u32 %llu write) (entry (store b 0u 1u)))",
             (unsigned long long)elems);
    assert_int_equal(compile_text(text, VC_KERNEL_SEGMENT, &e), VC_ERR_LIMIT);
    snprintf(want, sizeof want, "buffer 'b' (bytes) is %llu, above the device's "
             "maxStorageBufferRange %llu", (unsigned long long)elems * 4,
             (unsigned long long)info.max_buffer_bytes);
    if (!strstr(e.msg, want)) fail_msg("message: %s", e.msg);
    tested++;
  }
  unsigned per_stage = (unsigned)atoi(extra_value(&info, "max_per_stage_descriptor_storage_buffers",
                                                  v, sizeof v));
  if (per_stage < VC_MAX_BUFFERS) {
    vc_strbuf sb;
    vc_sb_init(&sb);
    vc_sb_puts(&sb, "(program many\n");
    for (unsigned i = 0; i <= per_stage; i++) vc_sb_printf(&sb, "  (buffer b%u u32 1 write)\n", i);
    vc_sb_puts(&sb, "  (entry (store b0 0u 1u)))\n");
    assert_int_equal(compile_text(vc_sb_str(&sb), VC_KERNEL_SEGMENT, &e), VC_ERR_LIMIT);
    vc_sb_free(&sb);
    snprintf(want, sizeof want, "the number of buffers is %u, above the device's "
             "maxPerStageDescriptorStorageBuffers %u", per_stage + 1, per_stage);
    if (!strstr(e.msg, want)) fail_msg("message: %s", e.msg);
    assert_non_null(strstr(e.msg, "kernel segment 0"));
    tested++;
  }
  if (!tested) fail_msg("this device's limits are above what a program can declare");
}

/* A native kernel needs its description (the splitter's plan); native
   mode itself is tested in test_vk_native. */
static void native_without_description(void **state) {
  (void)state;
  vc_error e;
  assert_int_equal(compile_text("(program n (buffer b u32 1 write) (entry (store b 0u 1u)))",
                                VC_KERNEL_NATIVE, &e),
                   VC_ERR_USAGE);
  assert_non_null(strstr(e.msg, "kernel segment 0: native without a description"));
  assert_int_equal(ops->native_stats(dev, NULL, NULL, &e), VC_ERR_USAGE);
  assert_non_null(strstr(e.msg, "native_stats of a kernel that is not native"));
}

static void emit_and_compile_info(void **state) {
  (void)state;
  vc_program *p = vkt_parse("f32_contract");
  assert_non_null(p);
  vc_kernel_desc k = {.kind = VC_KERNEL_SEGMENT, .prog = p, .label = "segment 0"};
  char *src = NULL;
  vc_error e;
  assert_int_equal(ops->emit(&k, dev, &src, &e), 0);
  assert_non_null(strstr(src, "#version 450"));
  assert_non_null(strstr(src, "layout(std430, set = 0, binding = 2) buffer B2 { float d[]; } b2;"));
  assert_non_null(strstr(src, "precise float"));
  free(src);
  assert_int_equal(ops->emit(&k, NULL, &src, &e), 0); /* no device: no float-controls request */
  assert_null(strstr(src, "spirv_execution_mode"));
  free(src);
  vc_kern *kern;
  vc_compile_info info = {0};
  assert_int_equal(ops->compile(dev, &k, &kern, &info, &e), 0);
  assert_true(info.compile_ns > 0);
  free(info.log);
  ops->free_kernel(dev, kern);
  vc_program_free(p);
}

/* The child: a fresh process whose loader sees only a manifest that is not there. */
static int no_driver_child(void) {
  vc_plugin pl;
  if (vkt_load(&pl) != 0) return 2;
  uint32_t n = 5;
  vc_error e;
  int rc = pl.ops->device_count(&n, &e);
  printf("%d %u %s\n", rc, n, e.msg);
  vc_dev *d = NULL;
  int rc2 = pl.ops->open(0, NULL, &d, &e);
  printf("%d %s\n", rc2, e.msg);
  vc_plugin_unload(&pl);
  return 0;
}

extern char **environ;

/* The environment of the child, made before fork (setenv is not safe there). */
static char **child_environment(void) {
  size_t n = 0;
  while (environ[n]) n++;
  char **env = calloc(n + 2, sizeof *env);
  assert_non_null(env);
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (strncmp(environ[i], "VK_DRIVER_FILES=", 16) != 0 &&
        strncmp(environ[i], "VK_ICD_FILENAMES=", 17) != 0)
      env[k++] = environ[i];
  env[k++] = "VK_DRIVER_FILES=/nonexistent/vc-test-icd.json";
  env[k] = NULL;
  return env;
}

static void no_driver(void **state) {
  (void)state;
  char **env = child_environment();
  int fd[2];
  assert_int_equal(pipe(fd), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    dup2(fd[1], 1);
    close(fd[0]);
    execle(self, self, "--no-driver-child", (char *)NULL, env);
    _exit(3);
  }
  free(env);
  close(fd[1]);
  char out[8192];
  size_t used = 0;
  ssize_t r;
  while ((r = read(fd[0], out + used, sizeof out - 1 - used)) > 0) used += (size_t)r;
  out[used] = '\0';
  close(fd[0]);
  int status;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  char want[64];
  snprintf(want, sizeof want, "%d 0 no Vulkan driver: ", VC_ERR_NO_DRIVER);
  if (strncmp(out, want, strlen(want)) != 0) fail_msg("child said: %s", out);
  assert_non_null(strstr(out, "VK_DRIVER_FILES (/nonexistent/vc-test-icd.json)"));
  assert_non_null(strstr(out, "/usr/share/vulkan/icd.d"));
  snprintf(want, sizeof want, "\n%d no Vulkan driver: ", VC_ERR_NO_DRIVER);
  if (!strstr(out, want)) fail_msg("open in the child said: %s", out);
}

int main(int argc, char **argv) {
  self = argv[0];
  if (argc > 1 && strcmp(argv[1], "--no-driver-child") == 0) return no_driver_child();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(table),
      cmocka_unit_test(exports_only_the_entry),
      cmocka_unit_test(device_count),
      cmocka_unit_test(describe_identity),
      cmocka_unit_test(describe_limits),
      cmocka_unit_test(describe_float_env),
      cmocka_unit_test(options),
      cmocka_unit_test(round_trips),
      cmocka_unit_test(transfer_errors),
      cmocka_unit_test(batching),
      cmocka_unit_test(launch_between_transfers),
      cmocka_unit_test(limits),
      cmocka_unit_test(native_without_description),
      cmocka_unit_test(emit_and_compile_info),
      cmocka_unit_test(no_driver),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
