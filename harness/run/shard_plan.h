/* How --shard K/N splits a selection: every shard computes the whole plan
 * from the same inputs and keeps its own part, so the plan is a pure
 * function of the programs (names and costs) and N, the same on every
 * machine: longest processing time first, each program in turn (costliest
 * first, equal costs by name) to the shard with the least cost so far (the
 * lowest-numbered one among equals). A program costlier than the mean sits
 * alone: no other fits beside it before every shard has as much. */
#ifndef VC_RUN_SHARD_PLAN_H
#define VC_RUN_SHARD_PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "harness/lang/corpus.h"
#include "harness/run/shard_costs.h"

typedef struct vc_shard_item {
  const char *name;
  uint64_t cost;
} vc_shard_item;

/* shard[i] (0 <= shard[i] < nshards) for items[i], whatever the order of
   items; items of equal name and cost keep their given order among
   themselves. */
void vc_shard_assign(const vc_shard_item *items, uint32_t n, uint32_t nshards, uint32_t *shard);

/* The plan of a selection: each file's program name, cost and shard. A
   program costs what costs lists under its name (measured), else the
   static estimate (harness/run/schedule.h) scaled to the table's units by
   the ratio of measured to estimated cost summed over the selection's
   programs that costs lists (1 when it lists none). */
typedef struct vc_shard_plan {
  uint32_t n, nshards;
  vc_shard_item *items; /* in corpus order; names point into names */
  char **names;
  uint32_t *shard;
  bool *measured;
  uint64_t *load;       /* nshards: each shard's summed cost */
  const char *source;   /* costs->source, or NULL: static estimates only */
} vc_shard_plan;

void vc_shard_plan_make(const vc_corpus *c, const vc_cost_table *costs, uint32_t nshards,
                        vc_shard_plan *p);
void vc_shard_plan_free(vc_shard_plan *p);
/* --shard K/N: keeps the files of shard k of c's plan. */
void vc_shard_keep(vc_corpus *c, const vc_cost_table *costs, uint32_t k, uint32_t n);
/* --shard-plan N: each shard's cost and programs (name, cost, measured or
   estimated), one per line. */
void vc_shard_plan_print(const vc_shard_plan *p, FILE *out);

#endif
