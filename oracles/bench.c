/* oracle-bench: bytecode operations per second of the oracle, with and
 * without the race and uninitialised-memory checks, on a program of
 * 1,048,576 invocations (arithmetic, loads, stores and a loop, then a grid
 * barrier across which a value is carried).
 *
 *   oracle-bench [ITERATIONS [INVOCATIONS]]
 *     ITERATIONS   loop iterations per invocation, default 16
 *     INVOCATIONS  rounded down to workgroups of 256, at most 65535 of them;
 *                  default 1048576 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness/model/inputs.h"
#include "harness/lang/parse.h"
#include "oracles/oracle.h"

#define WG 256u

static const char program_fmt[] =
    "(program bench (workgroup 256) (grid %u)\n"
    " (buffer in u32 %u read (init (random 1)))\n"
    " (buffer out u32 %u write) (buffer out2 u32 %u write)\n"
    " (entry (let gid (global_id x))\n"
    "  (var h (load in gid))\n"
    "  (loop i 0u %uu\n"
    "    (let near (load in (rem (add gid (mul i 4099u)) %uu)))\n"
    "    (set h (add (mul (xor h (shr h 15u)) 0x2c1b3c6du) (xor near i)))\n"
    "    (if (gt (and h 7u) 3u) (set h (sub h (shl near 3u))))\n"
    "    (store out gid h))\n"
    "  (barrier grid)\n"
    "  (store out2 gid (add (load out (xor gid 1u)) h))))\n";

static double seconds(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* One run over fresh inputs; prints the rate. */
static int measure(vc_oracle *o, const vc_program *p, uint32_t **bufs, bool checks) {
  for (uint32_t i = 0; i < p->nbuffers; i++) vc_inputs_fill(&p->buffers[i], bufs[i]);
  vc_oracle_opts opts = {VC_ORDER_FORWARD, 0, !checks, 0, 0};
  vc_oracle_report rep;
  vc_error err = {0};
  double wall = seconds(CLOCK_MONOTONIC), cpu = seconds(CLOCK_PROCESS_CPUTIME_ID);
  int rc = vc_oracle_run(o, bufs, &opts, &rep, &err);
  wall = seconds(CLOCK_MONOTONIC) - wall;
  cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu;
  if (rc) {
    fprintf(stderr, "oracle-bench: %s\n", err.msg);
    return rc;
  }
  /* CPU time is the figure to quote on a shared machine: waiting for a core
     inflates wall time only */
  printf("checks %-3s: %llu ops in %.3f s CPU (%.3f s wall) = %.1f M ops/s\n",
         checks ? "on" : "off", (unsigned long long)rep.ops, cpu, wall,
         (double)rep.ops / cpu * 1e-6);
  return 0;
}

int main(int argc, char **argv) {
  unsigned iters = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 16;
  unsigned long want = argc > 2 ? strtoul(argv[2], NULL, 10) : 1ul << 20;
  unsigned groups = want / WG > 65535 ? 65535 : want / WG ? (unsigned)(want / WG) : 1;
  const uint32_t n = groups * WG;
  static char text[2048];
  snprintf(text, sizeof text, program_fmt, groups, n, n, n, iters, n);
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = vc_parse("bench.vyre", text, strlen(text), &d);
  if (!p) {
    vc_diags_print(&d, stderr);
    vc_diags_free(&d);
    return 1;
  }
  vc_diags_free(&d);
  vc_oracle *o = NULL;
  vc_error err = {0};
  if (vc_oracle_compile(p, &o, &err)) {
    fprintf(stderr, "oracle-bench: %s\n", err.msg);
    vc_program_free(p);
    return 1;
  }
  printf("oracle-bench: %u invocations, %u loop iterations each\n", n, iters);
  uint32_t *bufs[3] = {calloc(n, 4), calloc(n, 4), calloc(n, 4)};
  uint32_t *first = calloc(n, 4);
  int rc = !bufs[0] || !bufs[1] || !bufs[2] || !first;
  if (!rc) rc = measure(o, p, bufs, true);
  if (!rc) memcpy(first, bufs[2], (size_t)n * 4);
  if (!rc) rc = measure(o, p, bufs, false);
  if (!rc && memcmp(first, bufs[2], (size_t)n * 4) != 0) {
    fprintf(stderr, "oracle-bench: results differ with and without checks\n");
    rc = 1;
  }
  free(first);
  for (int i = 0; i < 3; i++) free(bufs[i]);
  vc_oracle_free(o);
  vc_program_free(p);
  return rc ? 1 : 0;
}
