/* The tool's output: a heading per part, then one line per figure with
 * its key, value, unit and definition, so that a figure copied into the
 * docs carries what it means. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "backends/cuda/bench/bench.h"

void bench_section(const char *title, const char *what) {
  printf("\n== %s\n   %s\n", title, what);
  fflush(stdout);
}

void bench_figure(const char *key, double value, const char *unit, const char *definition) {
  printf("%-30s %12.3f %-5s %s\n", key, value, unit, definition);
  fflush(stdout);
}

void bench_note(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  printf("   ");
  vprintf(fmt, ap);
  printf("\n");
  va_end(ap);
  fflush(stdout);
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double bench_median(double *v, uint32_t n) {
  if (n == 0) return 0;
  qsort(v, n, sizeof *v, by_value);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
