/* The costs --shard-costs reads: each program's cost from an earlier run,
 * to balance the shards of this one (harness/run/shard_plan.h).
 *
 * SPEC is a results database, DB or DB:RUN (the run's last complete one by
 * default), or a file ending in .csv. From a database a program's cost is
 * the time it occupied a worker, in nanoseconds: its setup, reference and
 * oracle steps plus, over its result rows, mode_ns less wait_ns (waiting
 * for the device is another program's cost). A .csv is either the output
 * of `vyre-conform export --csv` (header program,mode,status,duration_ms:
 * a program's cost is the sum of its rows' duration_ms) or lines
 * `name,cost`, cost a decimal integer in any one unit (an optional header
 * line name,cost; blank lines and lines starting with # are skipped; a
 * name twice is an error). */
#ifndef VC_RUN_SHARD_COSTS_H
#define VC_RUN_SHARD_COSTS_H

#include <stdbool.h>
#include <stdint.h>

#include "harness/base/error.h"

typedef struct vc_cost_table {
  char **names;   /* sorted (strcmp), unique */
  uint64_t *costs;
  uint32_t n, cap;
  char *source;   /* the SPEC read; NULL: an empty table (no --shard-costs) */
} vc_cost_table;

/* Reads spec into t (zeroed by the caller). Errors name the file and, for
   a CSV, the line: VC_ERR_IO (cannot be read), VC_ERR_PARSE (a line that
   is not name,cost), VC_ERR_DB (not a results database, no such run). */
int vc_cost_table_load(const char *spec, vc_cost_table *t, vc_error *err);
/* Adds to name's cost (a new name starts at 0); keeps the names sorted. */
void vc_cost_table_add(vc_cost_table *t, const char *name, uint64_t cost);
bool vc_cost_table_get(const vc_cost_table *t, const char *name, uint64_t *cost);
void vc_cost_table_free(vc_cost_table *t);

#endif
