/* Vulkan plugin figures (not a test: nothing is asserted). Prints compile
 * times of the test programs, the cost of a launch batched into one
 * submission against a launch with its own finish, and transfer rates.
 *
 *   VK_DRIVER_FILES=... bench_vk [launches] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/vulkan/vk_test_util.h"

static const vc_backend *ops;
static vc_dev *dev;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void compile_times(void) {
  double first = 0, again = 0;
  for (unsigned i = 0; i < vkt_program_count; i++) {
    vc_program *p = vkt_parse(vkt_program_names[i]);
    if (!p) continue;
    vc_kernel_desc k = {.kind = VC_KERNEL_SEGMENT, .prog = p, .label = p->name};
    for (int round = 0; round < 2; round++) {
      vc_kern *kern;
      vc_compile_info info = {0};
      vc_error e;
      if (ops->compile(dev, &k, &kern, &info, &e) != 0) {
        printf("compile %s: %s\n", p->name, e.msg);
        break;
      }
      *(round ? &again : &first) += (double)info.compile_ns * 1e-6;
      free(info.log);
      ops->free_kernel(dev, kern);
    }
    vc_program_free(p);
  }
  printf("compile: %u programs, mean %.2f ms first, %.2f ms again (pipeline cache warm)\n",
         vkt_program_count, first / vkt_program_count, again / vkt_program_count);
}

static void launches(unsigned n) {
  vc_program *p = vkt_parse_text("bench.vyre",
                                 "(program bench (workgroup 64) (buffer a u32 64 read_write)\n"
                                 "  (entry (let g (global_id x)) (store a g (add (load a g) 1u))))\n");
  vc_kernel_desc k = {.kind = VC_KERNEL_SEGMENT, .prog = p, .label = "bench"};
  vc_kern *kern;
  vc_buf *b;
  vc_error e;
  uint64_t *ns = calloc(n, sizeof *ns);
  if (!p || !ns || ops->compile(dev, &k, &kern, NULL, &e) || ops->alloc(dev, 256, &b, &e) ||
      ops->zero(dev, b, &e)) {
    printf("launch setup failed\n");
    exit(1);
  }
  uint32_t count = 0;
  double t0 = now_s();
  for (unsigned i = 0; i < n; i++) ops->launch(dev, kern, &b, 1, &e);
  ops->finish(dev, ns, n, &count, &e);
  double batched = now_s() - t0;
  double dev_s = 0;
  for (uint32_t i = 0; i < count; i++) dev_s += (double)ns[i] * 1e-9;
  t0 = now_s();
  for (unsigned i = 0; i < n; i++) {
    ops->launch(dev, kern, &b, 1, &e);
    ops->finish(dev, ns, 1, &count, &e);
  }
  double waited = now_s() - t0;
  printf("launch: %u launches, one finish: %.1f us each (device %.1f us each); "
         "a finish after each: %.1f us each\n",
         n, batched / n * 1e6, dev_s / n * 1e6, waited / n * 1e6);
  free(ns);
  ops->free_buffer(dev, b);
  ops->free_kernel(dev, kern);
  vc_program_free(p);
}

static void transfers(size_t bytes) {
  void *host = calloc(1, bytes);
  vc_buf *b;
  vc_error e;
  if (!host || ops->alloc(dev, bytes, &b, &e)) {
    printf("transfer setup failed\n");
    exit(1);
  }
  memset(host, 0x5a, bytes);
  double t0 = now_s();
  ops->upload(dev, b, host, bytes, &e);
  double up = now_s() - t0;
  t0 = now_s();
  ops->download(dev, b, host, bytes, &e);
  double down = now_s() - t0;
  t0 = now_s();
  ops->zero(dev, b, &e);
  double zero = now_s() - t0;
  double mib = (double)bytes / (1 << 20);
  printf("transfer: %.0f MiB upload %.0f MiB/s, download %.0f MiB/s, zero %.0f MiB/s\n", mib,
         mib / up, mib / down, mib / zero);
  ops->free_buffer(dev, b);
  free(host);
}

int main(int argc, char **argv) {
  unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 2000;
  vc_plugin plugin;
  vc_error e;
  if (vkt_load(&plugin) != 0) return 1;
  ops = plugin.ops;
  if (ops->open(0, NULL, &dev, &e) != 0) {
    printf("open: %s\n", e.msg);
    return 1;
  }
  vc_device_info info;
  ops->describe(dev, &info, &e);
  printf("device: %s, %s %s\n", info.device_name, info.driver_name, info.driver_version);
  compile_times();
  launches(n ? n : 1);
  transfers(256u << 20);
  ops->close(dev);
  vc_plugin_unload(&plugin);
  return 0;
}
