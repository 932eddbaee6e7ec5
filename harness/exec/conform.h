/* harness/exec: one program on one device (mode drivers, reference run, comparison, verdicts, plugins). */
/* One program on one device: parse, run the oracle once (or read its outputs
 * from the reference cache), run every selected
 * mode (and repeat), compare every output byte, classify what differs.
 * Results are handed to a sink as soon as each exists, so that a crash in
 * a later mode loses nothing already measured. */
#ifndef VC_CONFORM_H
#define VC_CONFORM_H

#include <stdbool.h>
#include <stdint.h>

#include "backends/backend.h"
#include "harness/exec/modes.h"
#include "harness/exec/reference_cache.h"
#include "harness/lang/diag.h"
#include "oracles/oracle.h"
#include "harness/model/outcome.h"

typedef struct vc_conform_opts {
  vc_mode modes[VC_MODE_COUNT];
  uint32_t nmodes;
  uint32_t repeat;             /* runs per mode, >= 1 */
  vc_oracle_opts oracle;
  vc_refcache reference_cache; /* the oracle's outputs kept across runs; dir "": none */
  uint64_t max_buffer_bytes;   /* refuse programs above this many buffer bytes; 0: none */
  /* Fault injection, for testing the harness itself (docs/usage.md). */
  const char *flip_mode;       /* flip the low bit of element flip_index of */
  const char *flip_buffer;     /* buffer flip_buffer in mode flip_mode's output */
  uint64_t flip_index;
  bool flushes_denormals;      /* the device's fingerprint says so: classes by cause */
  vc_device_gate gate;         /* each mode run's device phase (modes.h); none: zeroes */
} vc_conform_opts;

/* The steps of one program before its device modes, in order (parsing is
   done before them, by the caller). A crash, timeout or error in one is
   recorded under its name in the mode column, not charged to a device
   mode. X(ENUM, name) */
#define VC_PHASE_TABLE(X)  \
  X(SETUP, "setup")        \
  X(REFERENCE, "reference") \
  X(ORACLE, "oracle")

typedef enum vc_phase {
#define VC_X(e, n) VC_PHASE_##e,
  VC_PHASE_TABLE(VC_X)
#undef VC_X
  VC_PHASE_COUNT
} vc_phase;

const char *vc_phase_name(vc_phase p);
int vc_phase_from_name(const char *name); /* -1 if unknown */

typedef struct vc_conform_sink {
  void *ctx;
  void (*program)(void *ctx, const vc_program_info *info);
  void (*mode_start)(void *ctx, vc_mode m, uint32_t repeat);
  void (*result)(void *ctx, const vc_result *r);
  void (*phase_start)(void *ctx, vc_phase ph); /* may be NULL */
} vc_conform_sink;

/* Returns 0 when every result was handed to the sink (whatever its status).
   VC_ERR_TIMEOUT says that a launch did not finish in time and the device
   is unusable: the modes after it were not run (no result for them), and
   the caller should end its process so that a fresh one opens the device
   again and runs them. */
int vc_conform_program(const char *path, const vc_backend *be, vc_dev *dev,
                       const vc_device_info *dev_info, const vc_conform_opts *opts,
                       const vc_conform_sink *sink, vc_error *err);
/* The same for a file parsed already (the runner parses each file once):
   p, or NULL with the parser's diagnostics d; digest is the file's. */
int vc_conform_parsed(const char *path, const char *digest, const vc_program *p,
                      const vc_diags *d, const vc_backend *be, vc_dev *dev,
                      const vc_device_info *dev_info, const vc_conform_opts *opts,
                      const vc_conform_sink *sink, vc_error *err);

/* Program identity for the record; strings point into p or into buf. */
void vc_program_info_of(const vc_program *p, uint32_t segments, const char *source_digest,
                        char *tags_buf, size_t tags_len, vc_program_info *info);

#endif
