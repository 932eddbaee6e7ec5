/* The order in which a run with several workers starts its programs. */
#ifndef VC_RUN_SCHEDULE_H
#define VC_RUN_SCHEDULE_H

#include <stdint.h>

#include "harness/lang/corpus.h"

/* A program's expected cost, for ordering only: its invocations plus its
   buffers' bytes (the oracle and the reference run are linear in both);
   0 for a file that did not parse. */
uint64_t vc_schedule_cost(const vc_corpus_file *f);

/* order[0..n) gets 0..n-1, the positions of files[idx[k]], costliest first:
   the programs that state their own (expect (timeout S)) first, longest
   first (their authors know them to be slow, in ways the cost does not
   see: bitonic_sort's native compile on PoCL, 40 s of CPU, is one), then
   by cost; ties in the given order. A large program started last holds the whole
   run's end while the other workers sit idle; started first, it runs
   beside the rest (longest-processing-time-first scheduling). Results are
   recorded in corpus order whatever this order is. */
void vc_schedule_order(const vc_corpus *c, const uint32_t *idx, uint32_t n, uint32_t *order);

/* The worker processes a run starts: --jobs, but no more than the programs
   it has to run (after selection, --shard and --resume; a worker takes a
   whole program, every mode and repeat of it), and at least one (a resumed
   run with nothing left still checks its device). Each worker opens the
   device: 256 of them for 3 programs took 12.5 s instead of 0.5 s. */
uint32_t vc_schedule_workers(uint32_t jobs, uint32_t programs);

#endif
