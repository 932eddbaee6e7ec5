/* The results of one program of a run, kept by the runner from its first
 * job until it is recorded: what the workers sent, what a worker that died
 * leaves (verdict.c decides those statuses), and the attempts of flake
 * reruns collapsed into one row each. */
#ifndef VC_PROGRAM_ACC_H
#define VC_PROGRAM_ACC_H

#include <stdbool.h>
#include <stdint.h>

#include "harness/exec/conform.h"
#include "harness/lang/corpus.h"
#include "harness/model/outcome.h"
#include "results/store/record.h"

typedef struct vc_program_acc {
  char name[256], path[4096], digest[65], tags[512];
  char *source; /* the file's text, recorded with the program (NULL: unreadable) */
  vc_program_info info;
  vc_result *res;
  char (*modes)[32];
  uint32_t n, cap;
  int cur_mode; /* mode in flight, -1 before any */
  uint32_t cur_repeat;
  char phase[32]; /* the step in flight while cur_mode is -1 */
  uint32_t attempt; /* 0, then one more per flake rerun; rows carry attempt + 1 */
  /* the runner's clock, summed over the attempts: each step before the
     modes (vc_phase), and the jobs from start to end (the programs row) */
  uint64_t step_ns[VC_PHASE_COUNT], flight_ns;
} vc_program_acc;

/* The step times into the program's row, before it is recorded. */
void vc_acc_put_times(vc_program_acc *a);
/* Forgets the results and takes the identity of file f. */
void vc_acc_reset(vc_program_acc *a, const vc_corpus_file *f);
void vc_acc_free(vc_program_acc *a);
/* A new row of the attempt in flight (its mode name kept in a->modes). */
vc_result *vc_acc_add(vc_program_acc *a);
/* Whether the attempt in flight has a result for mode (and repeat). */
bool vc_acc_has(const vc_program_acc *a, const char *mode, uint32_t repeat);
bool vc_acc_has_mode(const vc_program_acc *a, const char *mode);
/* A new result of mode (or step) `mode`, its status for a verdict to set. */
vc_result *vc_acc_new(vc_program_acc *a, const char *mode, uint32_t repeat);
/* After a worker died, was killed, failed or retired with a stuck device:
   the step in flight gets st; the modes left without a result are put in
   rerun. Returns their number. */
uint32_t vc_acc_after_failure(vc_program_acc *a, const vc_mode *modes, uint32_t nmodes,
                              uint32_t repeat, vc_status st, const char *reason, vc_mode *rerun);
/* After flake reruns: one row per mode and repeat (see program_acc.c). */
void vc_acc_collapse_attempts(vc_program_acc *a);
/* Results of one mode whose output changed between repeats are flagged. */
void vc_acc_mark_nondeterministic(vc_program_acc *a);

#endif
