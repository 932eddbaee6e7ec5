/* Parser and printer throughput on a large generated program (not a test:
 * speed is measured here, never asserted). Usage: bench_parse [LETS] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness/lang/parse.h"
#include "harness/lang/print.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* LETS lets, each used by a store, and one unknown name per line when broken. */
static void program_text(vc_strbuf *sb, unsigned lets, int broken) {
  vc_sb_puts(sb,
             "(program big\n  (buffer inp u32 1024 read (init iota))\n"
             "  (buffer out u32 1024 write)\n  (entry\n    (let gid (global_id x))");
  for (unsigned i = 0; i < lets; i++) {
    vc_sb_printf(sb, "\n    (let v%u (add (load inp (and gid 1023u)) %uu))", i, i);
    vc_sb_printf(sb, "\n    (store out (and gid 1023u) (mul v%u %s%u))", i, broken ? "w" : "v",
                 i / 2);
  }
  vc_sb_puts(sb, "))\n");
}

static void run(unsigned lets, int broken) {
  vc_strbuf text, printed;
  vc_sb_init(&text);
  vc_sb_init(&printed);
  program_text(&text, lets, broken);
  vc_diags d;
  vc_diags_init(&d);
  double t0 = now();
  vc_program *p = vc_parse("big.vyre", text.data, text.len, &d);
  double t1 = now();
  if (p) vc_print_program(p, &printed);
  double t2 = now();
  double mb = (double)text.len / 1e6;
  printf("%-8s %7u lets, %6.2f MB: parse %7.3f s (%6.1f MB/s), %u diagnostics",
         broken ? "broken" : "valid", lets, mb, t1 - t0, mb / (t1 - t0), d.count);
  if (p) printf(", print %7.3f s (%6.1f MB/s)", t2 - t1, (double)printed.len / 1e6 / (t2 - t1));
  printf("\n");
  vc_program_free(p);
  vc_diags_free(&d);
  vc_sb_free(&text);
  vc_sb_free(&printed);
}

int main(int argc, char **argv) {
  unsigned lets = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 20000;
  run(lets, 0);
  run(lets, 1);
  return 0;
}
