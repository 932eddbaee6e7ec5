/* The two sides of a side-by-side benchmark must leave the same bytes. */
#ifndef VC_BENCH_SAME_OUTPUTS_H
#define VC_BENCH_SAME_OUTPUTS_H

#include "harness/base/error.h"
#include "harness/exec/modes.h"
#include "harness/split/split.h"

/* 0 when every output buffer of sp is byte for byte the same in a and b,
   else VC_ERR_INTERNAL naming the first that differs. */
int vc_bench_same_outputs(const vc_split *sp, const vc_mode_out *a, const vc_mode_out *b,
                          vc_error *err);

#endif
