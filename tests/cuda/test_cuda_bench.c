/* vc-cuda-bench, the GPU machine's benchmarks, as far as they run here:
 * usage, no driver, and each part against the fake driver, which runs no
 * kernel unless asked to play the benchmark's chain segment. Figures here
 * are the fake's (0.25 ms a launch); the checks are what the tool refuses:
 * wrong bytes, a digest that differs, traffic the plan does not predict. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "harness/base/exitcodes.h"
#include "tests/cuda/fake_cuda.h"

#define BENCH VC_BINARY_DIR "/vc-cuda-bench"
#define FAKE "VYRE_CONFORM_LIBCUDA='" VC_FAKE_LIBCUDA "' "

static char out[65536];

/* Runs the tool from the source folder; its exit status, output in out. */
static int run(const char *env, const char *args) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "cd '%s' && %s '%s' %s 2>&1", VC_SOURCE_DIR, env, BENCH, args);
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  size_t len = fread(out, 1, sizeof out - 1, p);
  out[len] = '\0';
  int status = pclose(p);
  assert_true(WIFEXITED(status));
  return WEXITSTATUS(status);
}

static void has(const char *what) {
  if (!strstr(out, what)) fail_msg("no \"%s\" in:\n%s", what, out);
}

static void usage(void **state) {
  (void)state;
  assert_int_equal(run("", "--bogus"), VC_EXIT_USAGE);
  has("usage: vc-cuda-bench");
  assert_int_equal(run("", "--only e"), VC_EXIT_USAGE);
  assert_int_equal(run("", "--repeat 0"), VC_EXIT_USAGE);
  assert_int_equal(run("", "--segments"), VC_EXIT_USAGE);
  /* the plugin's options, refused by the plugin's parser before any driver */
  assert_int_equal(run("VYRE_CONFORM_LIBCUDA=/nonexistent/libcuda.so.1", "--options include="),
                   VC_EXIT_USAGE);
  has("vc-cuda-bench: CUDA option include=: expected DIR of 1 to 511 characters");
  assert_int_equal(run("", "--options fast=yes"), VC_EXIT_USAGE);
  has("unknown CUDA option 'fast=yes' (known: staging=BYTES, ");
}

static void no_driver(void **state) {
  (void)state;
  assert_int_equal(run("VYRE_CONFORM_LIBCUDA=/nonexistent/libcuda.so.1", ""),
                   VC_EXIT_NO_BACKEND);
  has("no CUDA driver (/nonexistent/libcuda.so.1: ");
}

/* Part a with the chain segment played: every figure, the device time
   per segment from the plugin's stamps (the default), its events
   (timing=launch, side by side) and from the raw loop's; the stamps'
   resolution, which the fake cannot give (its kernels do not run). */
static void overhead_figures(void **state) {
  (void)state;
  int rc = run(FAKE FAKE_CUDA_PLAY_ENV "=chain", "--only a --segments 5 --repeat 2");
  if (rc != VC_EXIT_OK) fail_msg("exit status %d:\n%s", rc, out);
  has("device   Fake GPU");
  has("5 segments of trivial work, grid 1056 x 256 threads; 2 runs of each");
  const char *keys[] = {"a.harness_us_per_segment", "a.raw_us_per_segment", "a.ratio ",
                        "a.stream_us_per_segment", "a.instantiate_us_per_segment",
                        "a.other_ratio", "download), launch=graph, timing=stamps\n",
                        "a.events_us_per_segment", "a.events_ratio ",
                        "a.stamp_alt_us_per_segment", "a.stamp_alt_ratio ",
                        "the same with launch=graph,timing=stamps,stamp-memory=device (a second",
                        "a.stamp_resolution_ns                 0.000 ns    smallest nonzero step",
                        "no resolution measured: ",
                        "the same with launch=stream (a second device, same run)",
                        "a.harness_marginal_us", "a.raw_marginal_us", "a.marginal_ratio",
                        "a.raw_chained_us_per_segment", "a.raw_paired_us_per_segment",
                        "a.harness_enqueue_us", "a.raw_enqueue_us", "goal a.ratio <= 1.1: "};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) has(keys[i]);
  has("a.harness_device_us                 250.000 us");
  has("a.raw_device_us                     250.000 us");
  has("a.harness_other_device_us           250.000 us    the same with launch=stream");
  has("a.events_device_us                  250.000 us    device time per segment with "
      "timing=launch");
  /* 3 runs of the 5-segment program as graphs (one instantiated), of the
     1-segment one on the stream; a new graph every run with instantiate */
  has("the bench's device (launch=graph): 6 batches, 3 sent as graphs, 1 instantiated, ");
  has("the other (launch=stream): 0 batches, 0 sent as graphs");
  has("instantiate (launch=graph): 3 batches, 3 sent as graphs, 3 instantiated, 0 nodes");
  has("events (launch=graph): 3 batches, 3 sent as graphs, 1 instantiated, ");
  has("the other stamp memory (launch=graph): 3 batches, 3 sent as graphs, 1 instantiated, ");
  /* every stamped launch timed */
  assert_null(strstr(out, "set in place, 1"));
  has(", 0 launches without a time (a stamp missing or out of order)");
  assert_null(strstr(out, "FAILED"));
  /* the bench's device on the stream: the other side is the graph */
  rc = run(FAKE FAKE_CUDA_PLAY_ENV "=chain", "--only a --segments 5 --repeat 1 --options launch=stream");
  if (rc != VC_EXIT_OK) fail_msg("exit status %d:\n%s", rc, out);
  has("download), launch=stream, timing=stamps\n");
  has("a.graph_us_per_segment");
  has("the same with launch=graph (a second device, same run)");
  assert_null(strstr(out, "FAILED"));
}

/* Kernels that did not run leave the wrong bytes: each part says so. */
static void wrong_bytes_refused(void **state) {
  (void)state;
  assert_int_equal(run(FAKE, "--only a --segments 3 --repeat 1"), VC_EXIT_FAIL);
  has("FAILED   part a: resident-split, 3 segments: a word of the chain's output is not the "
      "number of segments run");
  assert_int_equal(run(FAKE FAKE_CUDA_PLAY_ENV "=chain", "--only b --barriers 2 --repeat 1"),
                   VC_EXIT_FAIL);
  has("FAILED   part b: native, 3 segments: ");
  /* a golden digest the fake cannot produce */
  assert_int_equal(run(FAKE, "--only c --repeat 1 --large corpus/algorithms/stencil_1d_i32.vyre"),
                   VC_EXIT_FAIL);
  has("FAILED   part c: resident-split: output digest ");
  has(", the program expects ");
}

/* Part c on a small program: traffic equal to the plan's (the tool fails
   otherwise), the modes' outputs equal, host-split's copy rate with the
   plugin's host memory and with host-memory=malloc side by side. */
static void traffic_figures(void **state) {
  (void)state;
  int rc = run(FAKE, "--only c --large tests/native/cases/spills_3d.vyre");
  if (rc != VC_EXIT_OK) fail_msg("exit status %d:\n%s", rc, out);
  has("tests/native/cases/spills_3d.vyre: ");
  has(", 3 segments, 192 invocations");
  has("has no golden digest: the modes agree, no more");
  const char *keys[] = {"c.host_up_gib", "c.plan_up_gib", "c.host_down_gib", "c.plan_down_gib",
                        "c.resident_up_mib", "c.host_wall_s", "c.wall_ratio",
                        "c.host_device_ms", "c.host_wall_malloc_s", "c.host_copy_gbps ",
                        "c.host_copy_gbps_malloc", "c.host_copy_ratio"};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) has(keys[i]);
  has("host-split moved ");
  assert_int_equal(run(FAKE, "--only c --large /nonexistent.vyre"), VC_EXIT_FAIL);
  has("FAILED   part c: /nonexistent.vyre");
}

/* --goals runs every part, d included, and ends with the figures that
   have a goal beside their goals, also when a part failed. With the chain
   played, a passes, and b and d fail at their native launches (which the
   fake does not play; b's raw kernels, one body and B + 1 distinct
   bodies, went through NVRTC before); without it, c passes. */
static void goals_summary(void **state) {
  (void)state;
  static const char *const args =
      "--goals --segments 3 --barriers 2 --repeat 1 --large tests/native/cases/spills_3d.vyre";
  int rc = run(FAKE FAKE_CUDA_PLAY_ENV "=chain", args);
  if (rc != VC_EXIT_FAIL) fail_msg("exit status %d:\n%s", rc, out);
  has("== d: native mode on Vulkan and OpenCL against CUDA's");
  has("FAILED   part b: native, 3 segments: ");
  has("FAILED   part d: cuda native, 3 segments: ");
  const char *g = strstr(out, "\n== goals\n");
  if (!g || !strstr(g, "a.ratio ") || !strstr(g, " <= 1.1 ")) fail_msg("no goal a.ratio:\n%s", out);
  rc = run(FAKE, args);
  if (rc != VC_EXIT_FAIL) fail_msg("exit status %d:\n%s", rc, out);
  g = strstr(out, "\n== goals\n");
  if (!g || !strstr(g, "c.host_copy_gbps ") || !strstr(g, " >= 40 "))
    fail_msg("no goal c.host_copy_gbps:\n%s", out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(usage),          cmocka_unit_test(no_driver),
      cmocka_unit_test(overhead_figures), cmocka_unit_test(wrong_bytes_refused),
      cmocka_unit_test(traffic_figures), cmocka_unit_test(goals_summary),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
