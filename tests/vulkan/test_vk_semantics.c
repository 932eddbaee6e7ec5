/* One program per rule of docs/semantics.md, run on lavapipe as a segment
 * kernel: every output byte equals the oracle's (NaN equals NaN, declared
 * ulp tolerances apply). The programs are tests/vulkan/programs/. */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "oracles/oracle.h"
#include "tests/vulkan/vk_test_util.h"

static vc_plugin plugin;
static vc_dev *dev;

static int setup(void **state) {
  (void)state;
  if (vkt_load(&plugin) != 0) return -1;
  vc_error e;
  if (plugin.ops->open(0, NULL, &dev, &e) != 0) {
    fprintf(stderr, "open: %s\n", e.msg);
    return -1;
  }
  return 0;
}

static int teardown(void **state) {
  (void)state;
  plugin.ops->close(dev);
  vc_plugin_unload(&plugin);
  return 0;
}

/* The reference: the oracle's outputs of a valid program; false (with why)
   when the oracle fails or calls the program invalid. */
static bool run_oracle(const vc_program *p, vkt_buffers *out, char *why, size_t n) {
  if (vkt_buffers_init(p, out) != 0) {
    snprintf(why, n, "%s: out of memory", p->name);
    return false;
  }
  vc_oracle *o = NULL;
  vc_error e;
  vc_oracle_opts opts = {0};
  vc_oracle_report r;
  int rc = vc_oracle_compile(p, &o, &e);
  if (!rc) rc = vc_oracle_run(o, out->data, &opts, &r, &e);
  vc_oracle_free(o);
  if (rc) {
    snprintf(why, n, "%s: oracle: %s", p->name, e.msg);
    return false;
  }
  char reason[512];
  if (vc_oracle_invalid(p, &r, reason, sizeof reason)) {
    snprintf(why, n, "%s is invalid: %s", p->name, reason);
    return false;
  }
  return true;
}

/* Frees everything before failing, so that a divergence is the only report. */
static void run_program(void **state) {
  const char *name = vkt_program_names[*(const unsigned *)*state];
  vc_program *p = vkt_parse(name);
  if (!p) fail_msg("%s does not parse", name);
  vkt_buffers want = {0}, got = {0};
  vc_error e;
  char why[1100] = "";
  bool ok = run_oracle(p, &want, why, sizeof why);
  if (ok && vkt_run_device(plugin.ops, dev, p, &got, &e) != 0)
    snprintf(why, sizeof why, "%s: device: %s", name, e.msg);
  else if (ok)
    vkt_outputs_equal(p, &want, &got, why, sizeof why);
  vkt_buffers_free(&want);
  vkt_buffers_free(&got);
  vc_program_free(p);
  if (why[0]) fail_msg("%s", why);
}

int main(void) {
  struct CMUnitTest *tests = calloc(vkt_program_count, sizeof *tests);
  unsigned *index = calloc(vkt_program_count, sizeof *index);
  if (!tests || !index) return 1;
  for (unsigned i = 0; i < vkt_program_count; i++) {
    index[i] = i;
    tests[i].name = vkt_program_names[i];
    tests[i].test_func = run_program;
    tests[i].initial_state = &index[i];
  }
  int rc = _cmocka_run_group_tests("vulkan semantics", tests, vkt_program_count, setup, teardown);
  free(tests);
  free(index);
  return rc;
}
