/* Results files for tests, built through the recorder API, in a temporary
 * directory that each test removes. */
#ifndef VC_TESTS_RESULTS_FIXTURE_H
#define VC_TESTS_RESULTS_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "results/report/report.h"
#include "results/store/record.h"

typedef struct fx_dir {
  char path[256];
} fx_dir;

void fx_dir_make(fx_dir *d);
/* Removes it and everything in it. */
void fx_dir_remove(fx_dir *d);
/* out = dir/name */
void fx_path(const fx_dir *d, const char *name, char out[512]);
/* A directory per test: cmocka setup and teardown that make and remove fx_tmp. */
extern fx_dir fx_tmp;
int fx_tmp_setup(void **state);
int fx_tmp_teardown(void **state);

/* One program: a status letter per mode (native, host-split, resident-split):
   p pass, d diverge, w untrustworthy, e error, c crash, t timeout,
   u unsupported, s skip, i invalid, f flake (2 attempts, an attempt log, the first
   attempt's divergence in out[17]); z diverge in buffer add_a_zero (class
   f32-signed-zero), m that and min_nan (f32-nan); '-' leaves the mode out. Repeat r of n takes
   wall_ms + (r - (n-1)/2) * jitter_ms, so wall_ms is the median and the
   spread is (n-1) * jitter_ms. */
typedef struct fx_prog {
  const char *name;
  const char *statuses; /* NULL: "ppp" */
  double wall_ms;       /* 0: 10 ms */
  double jitter_ms;
} fx_prog;

/* More of a program, for the reports (fx_run.extras, one per program). */
typedef struct fx_extra {
  const char *path;          /* NULL: "corpus/basic/x.vyre" */
  const char *source_digest; /* NULL: "abcdef" */
  const char *err_text;      /* the failing results' captured stderr; NULL: "" */
} fx_extra;

typedef struct fx_run {
  const char *shard;           /* NULL: "" */
  const char *corpus_digest;   /* NULL: a fixed digest */
  const char *backend;         /* NULL: "vulkan" */
  const char *harness_version; /* NULL: "0.1.0" */
  const char *end_status;      /* NULL: "complete"; "": left running */
  const char *device_name;     /* NULL: "llvmpipe (LLVM 15.0.6, 256 bits)" */
  const char *driver_version;  /* NULL: "Mesa 22.3.6" */
  uint32_t repeats;            /* 0: 1 */
  const char *command_line;    /* NULL: "vyre-conform --backend vulkan corpus/" */
  const char *options;         /* NULL: "repeat=1 timeout=60" */
  const fx_extra *extras;      /* NULL, or one per program */
  const char *selection_digest; /* NULL: "" (as before schema 10) */
  uint32_t selection_programs;
  const char *selection_list;  /* NULL: "" */
  const char *build_id;        /* NULL: a fixed id */
  const char *plugin_id;       /* NULL: a fixed id */
  bool warm_cache;             /* every kernel from the kernel cache (cache_hits); else none */
  const fx_prog *progs;
  uint32_t nprogs;
} fx_run;

extern const char *const fx_modes[3];

/* The selection of progs as the runner records it (a fixture program's
   source digest is "abcdef"), into spec's selection fields; they point
   into sel. */
typedef struct fx_selection {
  char digest[65];
  char list[2048];
} fx_selection;
void fx_select(fx_run *spec, const fx_prog *progs, uint32_t n, fx_selection *sel);

/* Opens the file (creating it) and begins a run of a plain fx_run. */
vc_db *fx_begin(const char *path, int64_t *run);
/* Appends a run to the file (creating it); returns the run id. */
int64_t fx_write_run(const char *path, const fx_run *spec);
/* The run info, device and one program's results that fx_write_run records. */
vc_run_info fx_run_info(const fx_run *spec);
void fx_device(vc_device_info *d, const char *name);
/* Fills up to 3*repeats results for p; returns how many. divs and segs are
   static storage shared by all results. */
uint32_t fx_results(const fx_prog *p, uint32_t repeats, vc_result *out);

/* A report (vc_report_html, _markdown or _junit) of the runs, judged by the
   expectations file given (NULL: none), with the JUnit options of o (may be
   NULL); appends to out and returns the writer's status. */
typedef int (*fx_writer)(const vc_qual *q, vc_strbuf *out, vc_error *err);
int fx_report(fx_writer fn, const vc_run_data *const *runs, uint32_t nruns,
              const char *expectations, const vc_report_opts *o, vc_strbuf *out);
/* The same of one run, without expectations. */
int fx_report1(fx_writer fn, const vc_run_data *r, vc_strbuf *out);

/* SHA-256 of a file's bytes, to check that a refused file was left untouched. */
void fx_file_digest(const char *path, char hex[65]);
/* The first column of the first row of a query, as an integer. */
int64_t fx_query_int(const char *path, const char *sql);
/* Writes bytes to a file (replacing it). */
void fx_write_file(const char *path, const void *data, size_t n);
/* Reads a whole file; free() the result. */
char *fx_read_file(const char *path);

/* Runs fn(argc, argv) with standard output going to a file; returns fn's
   status and leaves the output in *text (free() it). */
int fx_capture(int (*fn)(int, char **), int argc, const char *const *argv, char **text);
/* The same, with standard error in *errors (free() it). */
int fx_capture_err(int (*fn)(int, char **), int argc, const char *const *argv, char **text,
                   char **errors);

#endif
