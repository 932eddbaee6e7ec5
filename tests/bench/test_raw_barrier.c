/* vc-raw-barrier-bench on PoCL (OpenCL, both orderings) and lavapipe
 * (Vulkan): every variant's figures and checks printed, exit status 0;
 * usage errors; and the checks on the real devices: workgroups that
 * cannot all be resident (three on PoCL's two worker threads) make the
 * waits give up and the run fail, and past the deadline the tool stops
 * waiting instead of hanging. No figure is asserted, only that it is there. */
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

#define BENCH VC_BINARY_DIR "/vc-raw-barrier-bench"
#define POCL "--api opencl --opencl-platform 'Portable Computing Language' --opencl-device 0 "

static char out[65536];

static int run(const char *env, const char *args) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "%s '%s' %s 2>&1", env, BENCH, args);
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

/* Every variant's lines for api: time, per barrier, check. */
static void all_figures(const char *api) {
  static const char *const variants[] = {"none", "acqrel", "relaxed", "allpoll", "devbar"};
  char key[128];
  for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
    snprintf(key, sizeof key, "\n%s.%s.us ", api, variants[i]);
    has(key);
    snprintf(key, sizeof key, "\n%s.%s.check ", api, variants[i]);
    has(key);
    const char *line = strstr(out, key);
    const char *end = strchr(line + 1, '\n');
    const char *pass = strstr(line, " pass ");
    if (!pass || (end && pass > end)) fail_msg("%s does not pass in:\n%s", key + 1, out);
    if (i > 0) {
      snprintf(key, sizeof key, "\n%s.%s.us_per_barrier ", api, variants[i]);
      has(key);
    }
  }
  if (strstr(out, "FAILED")) fail_msg("a failure in:\n%s", out);
}

static void usage(void **state) {
  (void)state;
  assert_int_equal(run("", "--bogus 1"), VC_EXIT_USAGE);
  has("usage: vc-raw-barrier-bench");
  assert_int_equal(run("", "--grid 0"), VC_EXIT_USAGE);
  has("--grid 0: unknown option or bad value");
  assert_int_equal(run("", "--barriers"), VC_EXIT_USAGE);
  has("--barriers : needs a value");
  assert_int_equal(run("", "--api metal"), VC_EXIT_USAGE);
  assert_int_equal(run("", "--opencl-atomics seq_cst"), VC_EXIT_USAGE);
}

#ifdef VC_RB_HAS_OPENCL
static void pocl_device_scope(void **state) {
  (void)state;
  int rc = run("", POCL "--opencl-atomics device --grid 2 --barriers 5 --repeat 2");
  if (rc != VC_EXIT_OK) fail_msg("exit status %d:\n%s", rc, out);
  has("ordering: OpenCL C 2.0 atomics, acq_rel/relaxed, memory_scope_device");
  has("grid 2 x 256, B = 5 barriers; 2 runs of each variant");
  all_figures("opencl");
  has("pass: all 3 runs right (every word below 1024 that an invocation has = 6 segments, "
      "the counter 5 x 2, no wait gave up)");
}

static void pocl_cl12(void **state) {
  (void)state;
  int rc = run("", POCL "--opencl-atomics cl12 --grid 2 --barriers 5 --repeat 2");
  if (rc != VC_EXIT_OK) fail_msg("exit status %d:\n%s", rc, out);
  has("ordering: OpenCL 1.2 atomics, mem_fence, volatile buffers");
  all_figures("opencl");
}

/* Three workgroups on two worker threads that each run a workgroup to
   its end: the first two wait for a third that cannot start until one of
   them ends, so their waits give up at the spin bound, and the run fails. */
static void pocl_not_resident(void **state) {
  (void)state;
  assert_int_equal(run("", POCL "--grid 3 --barriers 2 --repeat 1 --spin 100000"), VC_EXIT_FAIL);
  has("FAILED   opencl: opencl acqrel: ");
  has("waits gave up at the spin bound, the first at barrier 1");
}

/* A wait that outlasts the deadline: reported, not waited for. */
static void pocl_deadline(void **state) {
  (void)state;
  assert_int_equal(run("", POCL "--grid 3 --barriers 1 --repeat 1 --spin 4294967295 --deadline 1"),
                   VC_EXIT_FAIL);
  has("opencl acqrel: the run did not finish within 1 s (--deadline)");
}

static void no_such_device(void **state) {
  (void)state;
  assert_int_equal(run("", "--api opencl --opencl-device 'no such device'"), VC_EXIT_NO_BACKEND);
  has("opencl   not measured: no OpenCL device matches no such device");
}
#endif

#ifdef VC_LVP_ICD
#define LVP "VK_DRIVER_FILES='" VC_LVP_ICD "' MESA_VK_IGNORE_CONFORMANCE_WARNING=1"

/* One workgroup: lavapipe's loop budget (65,535 iterations an
   invocation, docs/device-facts.md) cuts any longer spin short. */
static void lavapipe(void **state) {
  (void)state;
  int rc = run(LVP, "--api vulkan --vulkan-device llvmpipe --grid 1 --barriers 5 --repeat 2");
  if (rc != VC_EXIT_OK) fail_msg("exit status %d:\n%s", rc, out);
  has("ordering: Vulkan memory model, device scope");
  all_figures("vulkan");
}

/* Two workgroups on one worker thread (LP_NUM_THREADS=1): the first
   waits for a second that cannot start until it ends; its spin ends
   without its condition (the loop budget cuts it), which the check sees. */
static void lavapipe_not_resident(void **state) {
  (void)state;
  assert_int_equal(run("LP_NUM_THREADS=1 " LVP,
                       "--api vulkan --vulkan-device llvmpipe --grid 2 --barriers 5 --repeat 1"),
                   VC_EXIT_FAIL);
  has("FAILED   vulkan: vulkan acqrel: ");
  has("waits gave up at the spin bound, the first at barrier 1");
}
#endif

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(usage),
#ifdef VC_RB_HAS_OPENCL
      cmocka_unit_test(pocl_device_scope),
      cmocka_unit_test(pocl_cl12),
      cmocka_unit_test(pocl_not_resident),
      cmocka_unit_test(pocl_deadline),
      cmocka_unit_test(no_such_device),
#endif
#ifdef VC_LVP_ICD
      cmocka_unit_test(lavapipe),
      cmocka_unit_test(lavapipe_not_resident),
#endif
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
