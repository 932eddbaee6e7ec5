/* vc-native-option-bench --backend B [--device N] [--runs R] --a OPTS --b OPTS PATH
 *
 * Native mode of PATH with two sets of device options side by side in one
 * process (docs/performance.md, "A raw grid barrier", the OpenCL join):
 * two devices of the same GPU, opened with OPTS a and OPTS b, run native
 * mode alternately, R times each after one run each that compiles. Every
 * run must be trustworthy and give the same output bytes on both sides.
 * Prints the median device times (results.device_ns, the launch's own
 * device time), their ratio b / a and the participants. Exit status 0, 1
 * when a run failed, was untrustworthy or disagreed, 2 usage, 3 no plugin
 * or device, 4 PATH unreadable. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/median.h"
#include "bench/same_outputs.h"
#include "harness/base/exitcodes.h"
#include "harness/exec/modes.h"
#include "harness/exec/plugin.h"
#include "harness/lang/parse.h"
#include "harness/model/inputs.h"
#include "harness/split/split.h"

#define MAX_RUNS 1000u

typedef struct side {
  const char *name, *options;
  vc_dev *dev;
  vc_exec x;
  double *device_ns;
  uint32_t participants;
} side;

static int run(side *s, uint32_t *const *inputs, vc_mode_out *mo, vc_error *err) {
  int rc = vc_exec_run(&s->x, VC_MODE_NATIVE, (const uint32_t *const *)inputs, mo, err);
  if (rc != 0) return vc_fail_wrap(err, "native with %s", s->options);
  if (mo->native.untrustworthy)
    return vc_fail(err, VC_ERR_DEVICE, "native with %s: untrustworthy run: %s", s->options,
                   mo->native.note);
  s->participants = mo->native.participants;
  return 0;
}

static int measure(side *sides, const vc_split *sp, uint32_t *const *inputs, uint32_t runs,
                   vc_error *err) {
  int rc = 0;
  for (uint32_t r = 0; rc == 0 && r <= runs; r++) { /* r = 0: the compiling run */
    vc_mode_out mo[2];
    memset(mo, 0, sizeof mo);
    for (int k = 0; rc == 0 && k < 2; k++) {
      rc = run(&sides[k], inputs, &mo[k], err);
      if (rc == 0 && r > 0) sides[k].device_ns[r - 1] = (double)mo[k].device_ns;
    }
    if (rc == 0) rc = vc_bench_same_outputs(sp, &mo[0], &mo[1], err);
    vc_mode_out_free(&mo[0]);
    vc_mode_out_free(&mo[1]);
  }
  return rc;
}

int main(int argc, char **argv) {
  const char *backend = NULL, *path = NULL;
  side sides[2] = {{.name = "a", .options = NULL}, {.name = "b", .options = NULL}};
  unsigned long device = 0, runs = 20;
  for (int i = 1; i < argc; i++) {
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(argv[i], "--backend") == 0 && v)
      backend = argv[++i];
    else if (strcmp(argv[i], "--a") == 0 && v)
      sides[0].options = argv[++i];
    else if (strcmp(argv[i], "--b") == 0 && v)
      sides[1].options = argv[++i];
    else if (strcmp(argv[i], "--device") == 0 && v)
      device = strtoul(argv[++i], NULL, 10);
    else if (strcmp(argv[i], "--runs") == 0 && v)
      runs = strtoul(argv[++i], NULL, 10);
    else if (argv[i][0] != '-' && !path)
      path = argv[i];
    else
      path = NULL, i = argc;
  }
  if (!backend || !path || !sides[0].options || !sides[1].options || runs < 1 || runs > MAX_RUNS) {
    fprintf(stderr,
            "usage: vc-native-option-bench --backend B [--device N] [--runs 1..%u] --a OPTS "
            "--b OPTS PATH\n",
            MAX_RUNS);
    return VC_EXIT_USAGE;
  }
  vc_error e;
  vc_error_clear(&e);
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = vc_parse_file(path, &d);
  vc_diags_print(&d, stderr);
  vc_diags_free(&d);
  if (!p) return VC_EXIT_INPUT;
  vc_split *sp = NULL;
  vc_plugin plugin = {0};
  uint32_t **inputs = calloc(p->nbuffers ? p->nbuffers : 1, sizeof *inputs);
  int status = VC_EXIT_OK;
  int rc = inputs ? vc_split_program(p, &sp, &e) : vc_fail(&e, VC_ERR_NOMEM, "no memory");
  for (uint32_t i = 0; rc == 0 && i < p->nbuffers; i++) {
    inputs[i] = malloc(vc_buffer_bytes(&p->buffers[i]));
    if (!inputs[i])
      rc = vc_fail(&e, VC_ERR_NOMEM, "no memory for buffer %s", p->buffers[i].name);
    else
      vc_inputs_fill(&p->buffers[i], inputs[i]);
  }
  for (int k = 0; rc == 0 && k < 2; k++) {
    sides[k].device_ns = calloc(runs, sizeof(double));
    if (!sides[k].device_ns) rc = vc_fail(&e, VC_ERR_NOMEM, "no memory for the samples");
  }
  if (rc == 0 && (rc = vc_plugin_load(backend, &plugin, &e)) != 0) status = VC_EXIT_NO_BACKEND;
  for (int k = 0; rc == 0 && k < 2; k++) {
    rc = plugin.ops->open((uint32_t)device, sides[k].options, &sides[k].dev, &e);
    if (rc != 0)
      status = rc == VC_ERR_USAGE ? VC_EXIT_USAGE : VC_EXIT_NO_BACKEND;
    else
      vc_exec_init(&sides[k].x, plugin.ops, sides[k].dev, p, sp);
  }
  if (rc == 0 && (rc = measure(sides, sp, inputs, (uint32_t)runs, &e)) != 0) status = VC_EXIT_FAIL;
  if (rc == 0) {
    double m[2];
    for (int k = 0; k < 2; k++) m[k] = vc_bench_median(sides[k].device_ns, (uint32_t)runs);
    printf("%s device %lu: native mode of %s, %u segment%s, %lu runs a side, alternating\n",
           backend, device, path, sp->nsegs, sp->nsegs == 1 ? "" : "s", runs);
    for (int k = 0; k < 2; k++)
      printf("native.%s.device_us %12.3f us    median device time, %s (%u participants)\n",
             sides[k].name, m[k] / 1e3, sides[k].options, sides[k].participants);
    printf("native.b_over_a     %12.3f       b / a\n", m[0] > 0 ? m[1] / m[0] : 0);
  } else {
    fprintf(stderr, "vc-native-option-bench: %s (%s)\n", e.msg, vc_errcode_name(e.code));
    if (status == VC_EXIT_OK) status = VC_EXIT_FAIL;
  }
  for (int k = 0; k < 2; k++) {
    if (sides[k].x.be) vc_exec_free(&sides[k].x);
    if (sides[k].dev) plugin.ops->close(sides[k].dev);
    free(sides[k].device_ns);
  }
  if (plugin.ops) vc_plugin_unload(&plugin);
  for (uint32_t i = 0; inputs && i < p->nbuffers; i++) free(inputs[i]);
  free(inputs);
  if (sp) vc_split_free(sp);
  vc_program_free(p);
  return status;
}
