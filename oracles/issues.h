/* Recording what makes a program invalid (internal): each function counts
 * one occurrence in the run's report and, for the first of its kind,
 * describes it in a sentence. */
#ifndef VC_ORACLE_ISSUES_H
#define VC_ORACLE_ISSUES_H

#include <stdbool.h>
#include <stdint.h>

#include "oracles/machine.h"

/* The running invocation accessed slot[idx] out of bounds at pc. */
void vc_note_oob(vc_machine *m, uint32_t pc, uint32_t slot, uint32_t idx);
/* The running invocation's access `acc` at pc conflicts with an access
   `other_acc` by invocation `other`, of this phase or (earlier) of an earlier
   workgroup of the segment. */
void vc_note_race(vc_machine *m, uint32_t pc, uint32_t slot, uint32_t idx, vc_acc acc,
                  uint32_t other, vc_acc other_acc, bool earlier);
/* The running invocation read workgroup memory slot[idx] before any write. */
void vc_note_uninit(vc_machine *m, uint32_t pc, uint32_t slot, uint32_t idx);
/* Local invocation `waiter` waits at a barrier that local invocation `other`
   did not reach (it finished, returned or waits at another barrier). */
void vc_note_barrier(vc_machine *m, uint32_t waiter, uint32_t other);
/* The running invocation's loops ran past VC_LOOP_BUDGET iterations in this
   segment at the back edge at pc; the interpreter stops it. */
void vc_note_loop(vc_machine *m, uint32_t pc);

#endif
