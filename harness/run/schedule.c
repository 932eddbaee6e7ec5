#include "harness/run/schedule.h"

#include <stdlib.h>

#include "harness/model/program.h"

uint64_t vc_schedule_cost(const vc_corpus_file *f) {
  const vc_program *p = f->program;
  if (!p) return 0;
  uint64_t cost = vc_program_invocations(p);
  for (uint32_t i = 0; i < p->nbuffers; i++) cost += vc_buffer_bytes(&p->buffers[i]);
  return cost;
}

typedef struct keyed {
  uint32_t own_timeout; /* the program's (expect (timeout S)); 0: none */
  uint64_t cost;
  uint32_t pos;
} keyed;

static int by_cost(const void *a, const void *b) {
  const keyed *x = a, *y = b;
  if (x->own_timeout != y->own_timeout) return x->own_timeout < y->own_timeout ? 1 : -1;
  if (x->cost != y->cost) return x->cost < y->cost ? 1 : -1;
  return x->pos < y->pos ? -1 : x->pos > y->pos;
}

void vc_schedule_order(const vc_corpus *c, const uint32_t *idx, uint32_t n, uint32_t *order) {
  keyed *k = malloc((n ? n : 1) * sizeof *k);
  if (!k) abort();
  for (uint32_t i = 0; i < n; i++) {
    const vc_corpus_file *f = &c->files[idx[i]];
    k[i] = (keyed){f->program ? vc_program_timeout_s(f->program) : 0, vc_schedule_cost(f), i};
  }
  qsort(k, n, sizeof *k, by_cost);
  for (uint32_t i = 0; i < n; i++) order[i] = k[i].pos;
  free(k);
}

uint32_t vc_schedule_workers(uint32_t jobs, uint32_t programs) {
  uint32_t n = jobs < programs ? jobs : programs;
  return n ? n : 1;
}
