/* The three execution modes, driven through the backend table only.
 *
 * host-split: per segment, upload every bound buffer whose contents the
 *   segment needs, launch, wait, download every buffer it writes; the host
 *   copy threads buffers between segments by name (plan index).
 * resident-split: upload once, run every segment of every pass back to back
 *   on device-resident buffers, read back once; only the 4-byte fixpoint flag
 *   crosses per pass.
 * native: the unsplit program as one launch with a device-side grid barrier.
 *
 * Every byte handed to upload/download and every launch is counted, so the
 * counts can be checked against what the split plan predicts. */
#ifndef VC_MODES_H
#define VC_MODES_H

#include <stdbool.h>
#include <stdint.h>

#include "backends/backend.h"
#include "harness/split/split.h"
#include "harness/model/outcome.h"


/* The device phase of one mode run: from its first upload to its last
   download, every launch between; its kernels compiled, its device and
   host memory made before it, and given back after it. A caller
   that runs several programs at once grants the device here (a native
   launch must have it to itself, and timings must mean what they mean
   alone). enter returns 0, or an error code with its message in err that
   ends the mode run; leave follows every enter that returned 0. NULL
   functions: no gate. */
typedef struct vc_device_gate {
  int (*enter)(void *ctx, vc_error *err);
  void (*leave)(void *ctx);
  void *ctx;
} vc_device_gate;

/* One program on one open device; kernels are compiled once, on first use,
   and shared by every mode and repeat. */
typedef struct vc_exec {
  const vc_backend *be;
  vc_dev *dev;
  const vc_program *prog;
  const vc_split *split;
  vc_kern **seg_kern;
  uint64_t *seg_compile_ns;
  bool *seg_cache_hit;       /* the segment's compile was a kernel-cache hit */
  vc_kern *native_kern;
  uint64_t native_compile_ns;
  bool native_cache_hit;
  vc_native_desc native_desc;
  vc_device_gate gate;       /* set by the caller after vc_exec_init */
} vc_exec;

typedef struct vc_mode_out {
  uint32_t **outputs;        /* per plan user buffer; NULL for read-only ones */
  uint32_t noutputs;         /* == split->nuser */
  uint64_t wall_ns, device_ns, compile_ns;
  uint64_t bytes_up, bytes_down;
  uint32_t launches, passes;
  uint32_t cache_hits;       /* kernels of the mode that came from the kernel cache */
  bool converged;            /* a flag fixpoint whose last pass left the flag at 0 */
  vc_segment_timing *segs;   /* host-split, resident-split: one per pass × segment */
  uint32_t nsegs;
  vc_native_stats native;    /* native only */
} vc_mode_out;

void vc_exec_init(vc_exec *x, const vc_backend *be, vc_dev *dev, const vc_program *prog,
                  const vc_split *split);
void vc_exec_free(vc_exec *x);
/* inputs[i]: initial contents of user buffer i (vc_inputs_fill). A failure
   returns its code: VC_ERR_UNSUPPORTED for a mode the device cannot run. */
int vc_exec_run(vc_exec *x, vc_mode m, const uint32_t *const *inputs, vc_mode_out *out,
                vc_error *err);
void vc_mode_out_free(vc_mode_out *o);

/* Records in r whether mo's fixpoint converged, and says so in the reason of
   a flag fixpoint that did not (the bytes may still agree with the oracle's,
   which ran out of passes too). */
void vc_mode_note_convergence(const vc_program *p, const vc_mode_out *mo, vc_result *r);

/* What the plan says a mode moves and launches for a given pass count. */
typedef struct vc_traffic {
  uint64_t up, down;
  uint32_t launches;
} vc_traffic;
vc_traffic vc_plan_traffic(const vc_split *s, vc_mode m, uint32_t passes);

#endif
