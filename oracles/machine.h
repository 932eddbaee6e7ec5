/* The state of one vc_oracle_run (internal to oracles/): memory slots, the
 * current workgroup's invocations, the check state, the report. run.c owns
 * it and schedules; exec.c runs one invocation; shadow.c and issues.c check
 * and describe. */
#ifndef VC_ORACLE_MACHINE_H
#define VC_ORACLE_MACHINE_H

#include <stdbool.h>
#include <stdint.h>

#include "oracles/bytecode.h"
#include "oracles/oracle.h"
#include "oracles/shadow.h"

/* What an unwritten workgroup memory word holds (docs/oracle.md). */
#define VC_ORACLE_POISON 0xDEADBEEFu

typedef enum vc_inv_status {
  VC_INV_RUN = 0, /* runnable from pc */
  VC_INV_WAIT,    /* at the workgroup barrier at pc */
  VC_INV_DONE     /* finished the segment at pc (END, or RET for a return) */
} vc_inv_status;

typedef struct vc_inv {
  uint32_t pc;
  uint32_t status; /* vc_inv_status */
} vc_inv;

/* A memory slot resolved for this run. */
typedef struct vc_slot {
  uint32_t *data;
  uint32_t count;  /* elements */
  uint32_t words;  /* per element: 1, or 2 for u64 and i64 */
  uint8_t watch;   /* the checks watch it: they are on and the slot is tracked */
  uint8_t shared;  /* a shared array */
} vc_slot;

/* What outlives a run (vc_oracle_run_with): the shadow pages, and the phase
   counter, carried on so that those pages' records stay older than every
   phase of the next run. */
struct vc_oracle_scratch {
  vc_shadow_pool pool;
  uint32_t phase;
};

typedef struct vc_machine {
  const vc_oracle *o;
  vc_oracle_report *rep;
  vc_error *err;
  int failed;              /* an error code once something failed (out of memory) */
  bool checks;             /* race and uninitialised-shared tracking */
  vc_slot *slot;           /* o->nmem */
  uint32_t *shared;        /* workgroup memory, o->shared_words */
  uint32_t wg_size;
  uint64_t *regs;          /* wg_size * o->nregs: the current workgroup's registers */
  vc_inv *inv;             /* wg_size */
  uint32_t *iters;         /* wg_size: loop iterations of each invocation in this segment */
  uint32_t *lid;           /* wg_size * 3: local ids */
  uint64_t *persist;       /* invocations * o->npersist: registers across grid barriers */
  uint64_t nwg;            /* workgroups in the grid */
  /* where execution is */
  uint32_t pass;           /* fixpoint pass, from 0 */
  uint32_t seg;
  uint32_t wg;             /* linear id of the current workgroup */
  uint32_t group[3];       /* its group_id */
  uint32_t wg_base;        /* linear id of its invocation 0 */
  uint32_t cur;            /* linear id of the running invocation */
  /* phases: a counter that increases at every new workgroup and every
     barrier release; see shadow.h */
  uint32_t phase, seg_first, wg_first;
  vc_shadows shadow;
  uint64_t ops;
  uint64_t deadline_ns;    /* vc_oracle_opts's; 0: none */
} vc_machine;

/* Whether the run is past its deadline; then m->failed is VC_ERR_TIMEOUT
   (run.c). The interpreter asks at back edges too: one phase of a long loop
   can outlast any limit checked only between phases. */
bool vc_machine_past_deadline(vc_machine *m);

/* One phase of the current workgroup: runs each runnable invocation, in
   `order` (over the workgroup's local ids), from its pc until it waits at a
   workgroup barrier or finishes the segment; stops early once m->failed. One
   call for all, so that the interpreter's state stays in registers. */
struct vc_perm;
void vc_exec_phase(vc_machine *m, const struct vc_perm *order);
/* Rewrites the interpreter's code (xcode) to use its fused opcodes where
   they apply (exec.c); the same operations run, in fewer dispatches. */
void vc_exec_fuse(vc_ins *code, uint32_t n);

#endif
