/* merge: the shard files of one sharded run into one run that reads as if
 * it had not been sharded. */
#ifndef VC_RESULTS_MERGE_H
#define VC_RESULTS_MERGE_H

#include <stdint.h>

#include "harness/base/error.h"

/* inputs are "FILE" (its latest run) or "FILE:RUN"; each run's shard is "K/N"
   with 0 <= K < N, as the runner's --shard writes it. Refuses (VC_ERR_USAGE,
   naming the files) shards of different corpora, harness builds, backends,
   modes or shard counts, a duplicate or missing shard, a program in two
   shards; nothing is written then. The merged run is appended to out_path. */
int vc_merge(const char *out_path, const char *const *inputs, uint32_t n, int busy_ms,
             int64_t *run_id, vc_error *err);

#endif
