/* vc-oracle-bench: the oracle's speed on program files, the run that
 * `vyre-conform check` and the runner make first for every program (the
 * reference run: inputs filled, the unsplit program run once, checks on).
 *
 *   vc-oracle-bench [--no-checks] [--repeat N] FILE...
 *
 * For each run of each file it prints the bytecode operations, wall time,
 * CPU time (user and system), operations per second of wall time, the minor
 * page faults and the output digest (docs/format.md), which must not change
 * when the oracle gets faster; then a total. Figures: docs/performance.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "harness/lang/parse.h"
#include "harness/model/digest.h"
#include "harness/model/inputs.h"
#include "oracles/oracle.h"

typedef struct usage {
  double wall, user, sys;
  long minflt;
} usage;

static usage now(void) {
  struct timespec t;
  struct rusage ru;
  clock_gettime(CLOCK_MONOTONIC, &t);
  getrusage(RUSAGE_SELF, &ru);
  usage u = {(double)t.tv_sec + (double)t.tv_nsec * 1e-9,
             (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6,
             (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6, ru.ru_minflt};
  return u;
}

/* One reference run of p: fresh buffers, filled, run, digested, freed. */
static int run_once(const char *path, const vc_program *p, vc_oracle *o, bool checks,
                    usage *total, uint64_t *total_ops) {
  uint32_t **bufs = calloc(p->nbuffers + 1u, sizeof *bufs);
  int rc = bufs ? 0 : 1;
  for (uint32_t i = 0; i < p->nbuffers && !rc; i++) {
    bufs[i] = malloc(vc_buffer_bytes(&p->buffers[i]) + 4u);
    if (!bufs[i]) rc = 1;
    else vc_inputs_fill(&p->buffers[i], bufs[i]);
  }
  if (rc) fprintf(stderr, "vc-oracle-bench: %s: out of memory\n", path);
  vc_oracle_opts opts = {VC_ORDER_FORWARD, 0, !checks, 0, 0};
  vc_oracle_report rep;
  vc_error err;
  vc_error_clear(&err);
  usage a = now();
  if (!rc && (rc = vc_oracle_run(o, bufs, &opts, &rep, &err)))
    fprintf(stderr, "vc-oracle-bench: %s: %s\n", path, err.msg);
  usage b = now();
  if (!rc) {
    char hex[65];
    vc_output_digest(p, (const uint32_t *const *)bufs, hex);
    double wall = b.wall - a.wall;
    printf("%s: %llu ops, %.3f s wall, %.3f s user, %.3f s sys, %.1f M ops/s, %ld page faults, "
           "digest %.16s\n",
           path, (unsigned long long)rep.ops, wall, b.user - a.user, b.sys - a.sys,
           wall > 0 ? (double)rep.ops / wall * 1e-6 : 0.0, b.minflt - a.minflt, hex);
    total->wall += wall;
    total->user += b.user - a.user;
    total->sys += b.sys - a.sys;
    total->minflt += b.minflt - a.minflt;
    *total_ops += rep.ops;
  }
  for (uint32_t i = 0; bufs && i < p->nbuffers; i++) free(bufs[i]);
  free(bufs);
  return rc;
}

int main(int argc, char **argv) {
  bool checks = true;
  unsigned long repeat = 1;
  int first = 1;
  for (; first < argc && argv[first][0] == '-'; first++) {
    if (strcmp(argv[first], "--no-checks") == 0) {
      checks = false;
    } else if (strcmp(argv[first], "--repeat") == 0 && first + 1 < argc) {
      char *end;
      repeat = strtoul(argv[++first], &end, 10);
      if (*end || repeat == 0) first = argc;
    } else {
      first = argc;
    }
  }
  if (first >= argc) {
    fprintf(stderr, "usage: vc-oracle-bench [--no-checks] [--repeat N] FILE...\n");
    return 2;
  }
  usage total = {0, 0, 0, 0};
  uint64_t ops = 0;
  int failed = 0;
  for (int k = first; k < argc; k++) {
    vc_diags d;
    vc_diags_init(&d);
    vc_program *p = vc_parse_file(argv[k], &d);
    if (!p) {
      vc_diags_print(&d, stderr);
      vc_diags_free(&d);
      failed = 1;
      continue;
    }
    vc_diags_free(&d);
    vc_oracle *o = NULL;
    vc_error err;
    vc_error_clear(&err);
    if (vc_oracle_compile(p, &o, &err)) {
      fprintf(stderr, "vc-oracle-bench: %s: %s\n", argv[k], err.msg);
      failed = 1;
    }
    for (unsigned long r = 0; o && r < repeat; r++)
      if (run_once(argv[k], p, o, checks, &total, &ops)) failed = 1;
    vc_oracle_free(o);
    vc_program_free(p);
  }
  printf("total: %llu ops, %.3f s wall, %.3f s user, %.3f s sys, %.1f M ops/s, %ld page faults "
         "(checks %s)\n",
         (unsigned long long)ops, total.wall, total.user, total.sys,
         total.wall > 0 ? (double)ops / total.wall * 1e-6 : 0.0, total.minflt,
         checks ? "on" : "off");
  return failed;
}
