/* Measures the results code on a corpus-sized run: recording (one
 * transaction per program, as the runner records), loading, comparing and
 * writing the reports. Usage: vc_bench_results [PROGRAMS [REPEATS]]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fixture.h"
#include "results/gate/compare.h"
#include "results/store/load.h"
#include "results/report/report.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double record(const char *path, uint32_t nprogs, uint32_t repeats) {
  vc_error err = {0};
  vc_db *db;
  if (vc_db_open(path, 1000, &db, &err)) return fprintf(stderr, "%s\n", err.msg), -1;
  vc_run_info info = fx_run_info(&(fx_run){0});
  vc_device_info dev;
  fx_device(&dev, NULL);
  int64_t run;
  vc_db_begin_run(db, &info, &run, &err);
  vc_db_record_device(db, run, &dev, "fp", &err);
  vc_result *res = calloc(3 * repeats, sizeof *res);
  double t0 = now_s();
  for (uint32_t i = 0; i < nprogs; i++) {
    char name[32];
    snprintf(name, sizeof name, "program_%05u", i);
    uint32_t n = fx_results(&(fx_prog){name, i % 17 ? "ppp" : "dpu", 5 + i % 7, 0.2}, repeats, res);
    vc_program_info pi = {.name = name, .path = name, .source_digest = "d", .tags = "bench"};
    if (vc_db_record_program(db, run, &pi, res, n, &err))
      return fprintf(stderr, "%s\n", err.msg), -1;
  }
  double t = now_s() - t0;
  vc_db_end_run(db, run, "complete", &err);
  vc_db_close(db);
  free(res);
  return t;
}

int main(int argc, char **argv) {
  uint32_t nprogs = argc > 1 ? (uint32_t)atoi(argv[1]) : 1000;
  uint32_t repeats = argc > 2 ? (uint32_t)atoi(argv[2]) : 3;
  char dir[] = "/tmp/vc-bench-XXXXXX", a[64], b[64];
  if (!mkdtemp(dir)) return 1;
  snprintf(a, sizeof a, "%s/a.db", dir);
  snprintf(b, sizeof b, "%s/b.db", dir);
  double tr = record(a, nprogs, repeats);
  record(b, nprogs, repeats);
  vc_error err = {0};
  vc_run_data *ra, *rb;
  double t0 = now_s();
  if (vc_run_load(a, 0, &ra, &err)) return fprintf(stderr, "%s\n", err.msg), 1;
  double tl = now_s() - t0;
  vc_run_load(b, 0, &rb, &err);
  vc_compare_opts o;
  vc_compare_opts_default(&o);
  vc_comparison c;
  t0 = now_s();
  vc_compare_runs(ra, rb, &o, &c, &err);
  double tc = now_s() - t0;
  vc_comparison_free(&c);
  vc_strbuf sb;
  vc_sb_init(&sb);
  t0 = now_s();
  fx_report1(vc_report_html, ra, &sb);
  double th = now_s() - t0;
  size_t html = sb.len;
  vc_sb_free(&sb);
  printf("%u programs x 3 modes x %u repeats (%u results)\n", nprogs, repeats,
         nprogs * 3 * repeats);
  printf("record:  %.3f s, %.0f programs/s, %.1f us per result\n", tr, nprogs / tr,
         tr / (nprogs * 3.0 * repeats) * 1e6);
  printf("load:    %.3f s\ncompare: %.3f s\nhtml:    %.3f s, %zu bytes\n", tl, tc, th, html);
  vc_run_free(ra);
  vc_run_free(rb);
  unlink(a);
  unlink(b);
  rmdir(dir);
  return 0;
}
