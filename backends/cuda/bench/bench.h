/* vc-cuda-bench: figures for the GPU machine (docs/backend-cuda.md,
 * "Benchmarks"). Each part runs the harness's mode driver (harness/exec/modes.h)
 * with the CUDA plugin and, where there is one, a raw baseline: the same
 * work launched through the driver API directly, by this program, in the
 * plugin's primary context.
 *
 *   a  bench_overhead.c  resident-split per segment against raw cuLaunchKernel
 *   b  bench_barrier.c   native grid barrier against raw grid.sync()
 *   c  bench_traffic.c   host-split traffic against the plan, host-split
 *                        against resident-split wall time
 *   d  bench_backends.c  native mode on Vulkan and OpenCL against CUDA's:
 *                        no-barrier device time, per-barrier cost,
 *                        participants
 *
 * A part that cannot run, or whose bytes come out wrong, is an error; a
 * goal missed is a figure. */
#ifndef VC_BENCH_H
#define VC_BENCH_H

#include <stdbool.h>
#include <stdint.h>

#include "backends/backend.h"
#include "backends/cuda/cuda_driver.h"
#include "harness/exec/modes.h"
#include "harness/split/split.h"

/* Workgroups of 256 in the programs of a and b: 132 SMs x 8 blocks on the
   H200, a grid as big as a cooperative launch of them can be. */
#define BENCH_GRID 1056u

typedef struct bench {
  const vc_backend *be; /* the CUDA plugin */
  vc_dev *dev;
  const vc_cu *cu;      /* the driver, for the raw baselines */
  CUdevice device;
  CUcontext ctx;        /* the primary context, the plugin's too */
  CUstream stream;      /* the raw baselines' own stream */
  char arch[32];        /* NVRTC's architecture for the device ("compute_90") */
  char target[32];      /* the same as a compile_offline target ("sm_90") */
  uint32_t repeat;      /* timed runs per figure */
  const char *include;  /* the plugin's include option, for the raw kernel too; NULL: found */
  const char *options;  /* the plugin's options (--options), for a second device */
  uint32_t index;       /* the device */
  uint32_t barriers;    /* B of parts b and d */
  /* figures later parts compare with (0: not measured in this run) */
  double raw_sync_us;   /* b: raw grid.sync() per barrier, one body */
} bench;

/* One program ready for the mode driver: parsed, split, its inputs. */
typedef struct bench_prog {
  vc_program *prog;
  vc_split *split;
  uint32_t **inputs; /* per user buffer */
  vc_exec exec;
} bench_prog;

/* bench_raw.c: the driver, opened by this program. */
int bench_raw_open(bench *b, uint32_t index, vc_error *err);
void bench_raw_close(bench *b);
/* PTX to a module and its function vc_main (or the name given). */
int bench_raw_module(bench *b, const char *ptx, const char *name, CUmodule *mod, CUfunction *fn,
                     vc_error *err);
/* Copies n bytes back on the baselines' stream, waiting for them. */
int bench_raw_read(bench *b, CUdeviceptr src, void *dst, size_t n, vc_error *err);
/* A CUresult as an error naming the call. */
int bench_raw_fail(bench *b, vc_error *err, CUresult r, const char *call);

/* bench_prog.c */
/* S segments of trivial work on a grid of `grid` workgroups of 256: each
   invocation below 1024 adds 1 to its word of a 4 KiB buffer, then a grid
   barrier, S - 1 times. */
int bench_chain_prog(uint32_t segments, uint32_t grid, bench_prog *bp, vc_error *err);
int bench_file_prog(const char *path, bench_prog *bp, vc_error *err);
/* Binds the mode driver to b's device; after one of the two above. */
void bench_prog_exec(bench *b, bench_prog *bp);
void bench_prog_free(bench_prog *bp);
/* The bytes a chain program must leave: every word below 1024 equal to
   `runs`. NULL when they are, else a static message. */
const char *bench_chain_check(const uint32_t *words, uint32_t runs);

/* bench_report.c: one line per figure, its definition beside it. */
void bench_section(const char *title, const char *what);
void bench_figure(const char *key, double value, const char *unit, const char *definition);
void bench_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A figure against its goal (value <= goal when at_most, else >=): a note
   now, a line of the summary later. */
void bench_goal(const char *key, double value, bool at_most, double goal);
void bench_goal_summary(void);
/* Median of n values (sorts v). */
double bench_median(double *v, uint32_t n);

/* The parts; each returns 0 or the code of an error it reports in err. */
int bench_overhead(bench *b, uint32_t segments, vc_error *err);
int bench_barrier(bench *b, uint32_t barriers, vc_error *err);
int bench_traffic(bench *b, const char *path, vc_error *err);
int bench_backends(bench *b, uint32_t barriers, vc_error *err);

#endif
