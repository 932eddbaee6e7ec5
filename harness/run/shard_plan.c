#include "harness/run/shard_plan.h"

#include <stdlib.h>
#include <string.h>

#include "harness/base/strbuf.h"
#include "harness/run/schedule.h"

typedef struct ranked {
  const vc_shard_item *it;
  uint32_t pos;
} ranked;

static int costliest_first(const void *a, const void *b) {
  const ranked *x = a, *y = b;
  if (x->it->cost != y->it->cost) return x->it->cost < y->it->cost ? 1 : -1;
  int c = strcmp(x->it->name, y->it->name);
  if (c) return c;
  return x->pos < y->pos ? -1 : x->pos > y->pos;
}

void vc_shard_assign(const vc_shard_item *items, uint32_t n, uint32_t nshards, uint32_t *shard) {
  ranked *r = malloc((n ? n : 1) * sizeof *r);
  uint64_t *load = calloc(nshards ? nshards : 1, sizeof *load);
  if (!r || !load) abort();
  for (uint32_t i = 0; i < n; i++) r[i] = (ranked){&items[i], i};
  qsort(r, n, sizeof *r, costliest_first);
  for (uint32_t i = 0; i < n; i++) {
    uint32_t best = 0;
    for (uint32_t k = 1; k < nshards; k++)
      if (load[k] < load[best]) best = k;
    shard[r[i].pos] = best;
    uint64_t c = r[i].it->cost;
    load[best] = c > UINT64_MAX - load[best] ? UINT64_MAX : load[best] + c;
  }
  free(r);
  free(load);
}

/* est * num / den without overflow (rounded down; saturating). */
static uint64_t scaled(uint64_t est, uint64_t num, uint64_t den) {
  __extension__ typedef unsigned __int128 u128;
  u128 v = (u128)est * num / den;
  return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

void vc_shard_plan_make(const vc_corpus *c, const vc_cost_table *costs, uint32_t nshards,
                        vc_shard_plan *p) {
  memset(p, 0, sizeof *p);
  p->n = c->n;
  p->nshards = nshards;
  p->source = costs ? costs->source : NULL;
  uint32_t m = c->n ? c->n : 1;
  p->items = calloc(m, sizeof *p->items);
  p->names = calloc(m, sizeof *p->names);
  p->shard = calloc(m, sizeof *p->shard);
  p->measured = calloc(m, sizeof *p->measured);
  p->load = calloc(nshards ? nshards : 1, sizeof *p->load);
  uint64_t *est = calloc(m, sizeof *est);
  if (!p->items || !p->names || !p->shard || !p->measured || !p->load || !est) abort();
  uint64_t sum_measured = 0, sum_est = 0; /* over the programs costs lists */
  for (uint32_t i = 0; i < c->n; i++) {
    char name[256];
    vc_corpus_program_name(&c->files[i], name, sizeof name);
    p->items[i].name = p->names[i] = vc_strdup(name);
    est[i] = vc_schedule_cost(&c->files[i]);
    uint64_t v;
    if (costs && vc_cost_table_get(costs, name, &v)) {
      p->measured[i] = true;
      p->items[i].cost = v;
      sum_measured = v > UINT64_MAX - sum_measured ? UINT64_MAX : sum_measured + v;
      sum_est = est[i] > UINT64_MAX - sum_est ? UINT64_MAX : sum_est + est[i];
    }
  }
  for (uint32_t i = 0; i < c->n; i++)
    if (!p->measured[i])
      p->items[i].cost = sum_est ? scaled(est[i], sum_measured, sum_est) : est[i];
  free(est);
  vc_shard_assign(p->items, p->n, nshards, p->shard);
  for (uint32_t i = 0; i < p->n; i++) {
    uint64_t *l = &p->load[p->shard[i]];
    *l = p->items[i].cost > UINT64_MAX - *l ? UINT64_MAX : *l + p->items[i].cost;
  }
}

void vc_shard_plan_free(vc_shard_plan *p) {
  for (uint32_t i = 0; i < p->n; i++) free(p->names[i]);
  free(p->names);
  free(p->items);
  free(p->shard);
  free(p->measured);
  free(p->load);
  memset(p, 0, sizeof *p);
}

void vc_shard_keep(vc_corpus *c, const vc_cost_table *costs, uint32_t k, uint32_t n) {
  vc_shard_plan p;
  vc_shard_plan_make(c, costs, n, &p);
  for (uint32_t i = c->n; i-- > 0;)
    if (p.shard[i] != k) vc_corpus_remove(c, i);
  vc_shard_plan_free(&p);
}

void vc_shard_plan_print(const vc_shard_plan *p, FILE *out) {
  uint32_t measured = 0;
  for (uint32_t i = 0; i < p->n; i++) measured += p->measured[i];
  fprintf(out, "shard plan: %u program%s in %u shard%s; costs %s%s (%u measured, %u estimated)\n",
          p->n, p->n == 1 ? "" : "s", p->nshards, p->nshards == 1 ? "" : "s",
          p->source ? "from " : "", p->source ? p->source : "estimated (no --shard-costs)",
          measured, p->n - measured);
  for (uint32_t k = 0; k < p->nshards; k++) {
    uint32_t count = 0;
    for (uint32_t i = 0; i < p->n; i++) count += p->shard[i] == k;
    fprintf(out, "shard %u/%u cost %llu programs %u\n", k, p->nshards,
            (unsigned long long)p->load[k], count);
    for (uint32_t i = 0; i < p->n; i++)
      if (p->shard[i] == k)
        fprintf(out, "  %s %llu %s\n", p->items[i].name, (unsigned long long)p->items[i].cost,
                p->measured[i] ? "measured" : "estimated");
  }
}
