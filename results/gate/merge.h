/* merge: the shard files of one sharded run into one run that reads as if
 * it had not been sharded. */
#ifndef VC_RESULTS_MERGE_H
#define VC_RESULTS_MERGE_H

#include <stdbool.h>
#include <stdint.h>

#include "harness/base/error.h"

/* inputs are "FILE" (its latest run) or "FILE:RUN"; each run's shard is "K/N"
   with 0 <= K < N, as the runner's --shard writes it. Refuses (VC_ERR_USAGE,
   naming the files) shards cut from different selections (runs.
   selection_digest) or into different N, a duplicate or missing shard, a
   program in two shards or outside the selection, complete shards whose
   union is not the selection, and shards that differ in build, plugin,
   backend, modes, device, driver or the settings that change what is found
   (repeat, timeout, device options, ...); nothing is written then. With
   allow_mixed those last differences are merged and recorded as the merged
   run's mixed=FIELD,... option. Planted faults of any shard are carried into
   the merged run. The merged run is appended to out_path. */
int vc_merge(const char *out_path, const char *const *inputs, uint32_t n, int busy_ms,
             bool allow_mixed, int64_t *run_id, vc_error *err);

#endif
