/* The median of a benchmark's samples, for the programs of bench/. */
#ifndef VC_BENCH_MEDIAN_H
#define VC_BENCH_MEDIAN_H

#include <stdint.h>

/* The median of n values (n >= 1; the mean of the middle two for even n);
   sorts v. */
double vc_bench_median(double *v, uint32_t n);

#endif
