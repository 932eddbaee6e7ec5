/* vc-host-copy-bench --backend B [--device N] [--options K=V,...] [--runs R] PATH
 *
 * Host-split's wall with host copies in the plugin's host_alloc memory
 * against malloc memory, side by side in one process (docs/performance.md,
 * "Host-split copies", the command there): two devices of the same GPU, opened with the options
 * plus host-memory=backend and plus host-memory=malloc, run host-split of
 * PATH alternately, R times each after one run each that compiles. Every
 * run's traffic must be the plan's to the byte and both sides' outputs
 * equal. Prints one line per figure: the median walls, the copy rates
 * (bytes moved both ways / wall) and their ratio. Exit status 0, 1 when a
 * run failed or disagreed, 2 usage, 3 no plugin or device, 4 PATH unreadable. */
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

#define MAX_RUNS 64u

typedef struct side {
  const char *name; /* the host-memory value */
  vc_dev *dev;
  vc_exec x;
  double wall_ns[MAX_RUNS];
} side;

/* One host-split run on s; its traffic against the plan, its outputs kept
   in *mo for the comparison. */
static int run(side *s, const vc_split *sp, uint32_t *const *inputs, vc_mode_out *mo,
               vc_error *err) {
  int rc = vc_exec_run(&s->x, VC_MODE_HOST_SPLIT, (const uint32_t *const *)inputs, mo, err);
  if (rc != 0) return vc_fail_wrap(err, "host-split with host-memory=%s", s->name);
  vc_traffic plan = vc_plan_traffic(sp, VC_MODE_HOST_SPLIT, mo->passes);
  if (mo->bytes_up != plan.up || mo->bytes_down != plan.down)
    return vc_fail(err, VC_ERR_INTERNAL,
                   "host-memory=%s moved %llu bytes up and %llu down; the plan says %llu and %llu",
                   s->name, (unsigned long long)mo->bytes_up, (unsigned long long)mo->bytes_down,
                   (unsigned long long)plan.up, (unsigned long long)plan.down);
  return 0;
}

static int measure(side *sides, const vc_split *sp, uint32_t *const *inputs,
                   uint32_t runs, uint64_t *moved, vc_error *err) {
  int rc = 0;
  for (uint32_t r = 0; rc == 0 && r <= runs; r++) { /* r = 0: the compiling run */
    vc_mode_out mo[2];
    memset(mo, 0, sizeof mo);
    for (int k = 0; rc == 0 && k < 2; k++) {
      rc = run(&sides[k], sp, inputs, &mo[k], err);
      if (rc == 0 && r > 0) sides[k].wall_ns[r - 1] = (double)mo[k].wall_ns;
    }
    if (rc == 0) rc = vc_bench_same_outputs(sp, &mo[0], &mo[1], err);
    *moved = mo[0].bytes_up + mo[0].bytes_down;
    vc_mode_out_free(&mo[0]);
    vc_mode_out_free(&mo[1]);
  }
  return rc;
}

int main(int argc, char **argv) {
  const char *backend = NULL, *options = "", *path = NULL;
  unsigned long device = 0, runs = 5;
  for (int i = 1; i < argc; i++) {
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(argv[i], "--backend") == 0 && v) backend = argv[++i];
    else if (strcmp(argv[i], "--options") == 0 && v) options = argv[++i];
    else if (strcmp(argv[i], "--device") == 0 && v) device = strtoul(argv[++i], NULL, 10);
    else if (strcmp(argv[i], "--runs") == 0 && v) runs = strtoul(argv[++i], NULL, 10);
    else if (argv[i][0] != '-' && !path) path = argv[i];
    else path = NULL, i = argc;
  }
  if (!backend || !path || runs < 1 || runs > MAX_RUNS) {
    fprintf(stderr, "usage: vc-host-copy-bench --backend B [--device N] [--options K=V,...] "
                    "[--runs 1..%u] PATH\n", MAX_RUNS);
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
  side sides[2] = {{.name = "backend"}, {.name = "malloc"}};
  uint32_t **inputs = calloc(p->nbuffers ? p->nbuffers : 1, sizeof *inputs);
  int status = VC_EXIT_OK;
  int rc = inputs ? vc_split_program(p, &sp, &e) : vc_fail(&e, VC_ERR_NOMEM, "no memory");
  for (uint32_t i = 0; rc == 0 && i < p->nbuffers; i++) {
    inputs[i] = malloc(vc_buffer_bytes(&p->buffers[i]));
    if (!inputs[i]) rc = vc_fail(&e, VC_ERR_NOMEM, "no memory for buffer %s", p->buffers[i].name);
    else vc_inputs_fill(&p->buffers[i], inputs[i]);
  }
  if (rc == 0 && (rc = vc_plugin_load(backend, &plugin, &e)) != 0) status = VC_EXIT_NO_BACKEND;
  for (int k = 0; rc == 0 && k < 2; k++) {
    char opts[1024];
    snprintf(opts, sizeof opts, "%s%shost-memory=%s", options, *options ? "," : "",
             sides[k].name);
    rc = plugin.ops->open((uint32_t)device, opts, &sides[k].dev, &e);
    if (rc != 0) status = rc == VC_ERR_USAGE ? VC_EXIT_USAGE : VC_EXIT_NO_BACKEND;
    else vc_exec_init(&sides[k].x, plugin.ops, sides[k].dev, p, sp);
  }
  uint64_t moved = 0;
  if (rc == 0 && (rc = measure(sides, sp, inputs, (uint32_t)runs, &moved, &e)) != 0)
    status = VC_EXIT_FAIL;
  if (rc == 0) {
    double w[2];
    for (int k = 0; k < 2; k++) w[k] = vc_bench_median(sides[k].wall_ns, (uint32_t)runs);
    printf("%s: %s, %u segments, %.2f GiB moved a run (the plan's), %lu runs a side, "
           "alternating\n", backend, path, sp->nsegs, (double)moved / (1024.0 * 1024 * 1024),
           runs);
    for (int k = 0; k < 2; k++)
      printf("host_split_wall_ms.%-8s %10.1f ms   host_copy_gbps.%-8s %7.3f GB/s\n",
             sides[k].name, w[k] / 1e6, sides[k].name, (double)moved / w[k]);
    printf("ratio (malloc wall / backend wall) %.3f\n", w[1] / w[0]);
  } else {
    fprintf(stderr, "vc-host-copy-bench: %s (%s)\n", e.msg, vc_errcode_name(e.code));
    if (status == VC_EXIT_OK) status = VC_EXIT_FAIL;
  }
  for (int k = 0; k < 2; k++) {
    if (sides[k].x.be) vc_exec_free(&sides[k].x);
    if (sides[k].dev) plugin.ops->close(sides[k].dev);
  }
  if (plugin.ops) vc_plugin_unload(&plugin);
  for (uint32_t i = 0; inputs && i < p->nbuffers; i++) free(inputs[i]);
  free(inputs);
  if (sp) vc_split_free(sp);
  vc_program_free(p);
  return status;
}
