/* vc-gen-bench [COUNT] [SEED]: programs per second of the generator, per size,
 * the text alone and with the check each program gets before it is written
 * (parse, oracle, split-on-oracle), side by side in one process, one thread.
 * Reports CPU seconds of this process (the machine's other load aside) and
 * wall seconds; nothing is written to disk. docs/performance.md has figures. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "harness/gen/gen.h"

static double secs(clockid_t c) {
  struct timespec t;
  clock_gettime(c, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
  uint32_t count = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 5000;
  uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 2026;
  printf("%-7s %-9s %8s %9s %9s %12s %12s\n", "size", "step", "programs", "cpu s", "wall s",
         "prog/s cpu", "prog/s wall");
  for (uint32_t size = VC_GEN_SMALL; size <= VC_GEN_LARGE; size++) {
    uint32_t n = size == VC_GEN_SMALL ? count : size == VC_GEN_MEDIUM ? count / 5 : count / 25;
    if (!n) n = 1;
    for (int check = 0; check <= 1; check++) {
      vc_gen_opts o = {size, VC_GEN_ALL_FEATURES, {0}};
      vc_strbuf sb;
      vc_sb_init(&sb);
      uint64_t bytes = 0;
      double c0 = secs(CLOCK_PROCESS_CPUTIME_ID), w0 = secs(CLOCK_MONOTONIC);
      for (uint32_t i = 0; i < n; i++) {
        sb.len = 0;
        vc_error e;
        if (vc_gen_program_ex(&o, seed, i, check, NULL, &sb, &e)) {
          fprintf(stderr, "%s\n", e.msg);
          return 7;
        }
        bytes += sb.len;
      }
      double c = secs(CLOCK_PROCESS_CPUTIME_ID) - c0, w = secs(CLOCK_MONOTONIC) - w0;
      vc_sb_free(&sb);
      printf("%-7s %-9s %8u %9.3f %9.3f %12.0f %12.0f   (%llu bytes)\n",
             vc_gen_size_name((vc_gen_size)size), check ? "+check" : "text", n, c, w, n / c,
             n / w, (unsigned long long)bytes);
    }
  }
  return 0;
}
