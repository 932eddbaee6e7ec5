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

/* The goals seen so far, for the summary --goals prints at the end. */
#define MAX_GOALS 32
static struct {
  char key[48];
  double value, goal;
  bool at_most, met;
} goals[MAX_GOALS];
static uint32_t ngoals;

void bench_goal(const char *key, double value, bool at_most, double goal) {
  bool met = value > 0 && (at_most ? value <= goal : value >= goal);
  bench_note("goal %s %s %g: %s", key, at_most ? "<=" : ">=", goal, met ? "met" : "MISSED");
  if (ngoals == MAX_GOALS) return;
  snprintf(goals[ngoals].key, sizeof goals[ngoals].key, "%s", key);
  goals[ngoals].value = value;
  goals[ngoals].goal = goal;
  goals[ngoals].at_most = at_most;
  goals[ngoals].met = met;
  ngoals++;
}

void bench_goal_summary(void) {
  printf("\n== goals\n");
  for (uint32_t i = 0; i < ngoals; i++)
    printf("%-30s %12.3f %s %-8g %s\n", goals[i].key, goals[i].value,
           goals[i].at_most ? "<=" : ">=", goals[i].goal, goals[i].met ? "met" : "MISSED");
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
