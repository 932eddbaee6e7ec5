/* oracles: the CPU reference interpreter and its checks. */
/* The CPU oracle: the reference interpreter of docs/semantics.md.
 *
 * vc_oracle_compile lowers a program to a compact register bytecode once
 * (no name lookups or allocations per operation); vc_oracle_run executes it
 * over caller-owned buffer memory and reports everything that makes a
 * program invalid. */
#ifndef VC_ORACLE_H
#define VC_ORACLE_H

#include <stdbool.h>
#include <stdint.h>

#include "harness/base/error.h"
#include "harness/model/program.h"

typedef enum vc_oracle_order {
  VC_ORDER_FORWARD = 0, /* workgroups and invocations in increasing order */
  VC_ORDER_REVERSE,
  VC_ORDER_SHUFFLE      /* a permutation drawn from seed */
} vc_oracle_order;

typedef struct vc_oracle_opts {
  vc_oracle_order order;
  uint64_t seed;
  bool no_checks; /* skip race and uninitialised-shared tracking (faster; a reference
                     run of an already checked program) */
  uint64_t deadline_ns; /* vc_now_ns() after which a run stops with VC_ERR_TIMEOUT
                           (checked at each workgroup and phase, and
                           every 65536 loop iterations of an invocation); 0: none */
  uint64_t max_bytes;   /* memory budget of a check: a program whose oracle runs need
                           more is refused before they start (VC_ERR_LIMIT); 0: none */
} vc_oracle_opts;

typedef enum vc_issue_kind {
  VC_ISSUE_OOB = 0,       /* out-of-bounds access */
  VC_ISSUE_RACE,          /* data race */
  VC_ISSUE_UNINIT_SHARED, /* workgroup memory read before a write in the segment */
  VC_ISSUE_BARRIER,       /* workgroup barrier not reached by all invocations */
  VC_ISSUE_LOOP,          /* an invocation's loops ran past 2^24 iterations in a segment */
  VC_ISSUE_COUNT
} vc_issue_kind;

typedef struct vc_oracle_issue {
  uint64_t count;     /* occurrences; the fields below describe the first */
  vc_loc loc;         /* of the access or barrier */
  uint32_t segment;
  uint32_t space;     /* vc_space */
  uint32_t ref;       /* buffer or shared index */
  uint64_t index;     /* element index */
  uint64_t inv_a, inv_b; /* linear invocation ids involved (inv_b for races) */
  char msg[256];      /* a sentence naming all of the above */
} vc_oracle_issue;

typedef struct vc_oracle_report {
  vc_oracle_issue issues[VC_ISSUE_COUNT];
  uint32_t segments;
  uint32_t passes;    /* fixpoint passes run (1 without fixpoint) */
  bool converged;     /* flag fixpoint: a pass ended with flag 0 */
  uint64_t ops;       /* bytecode operations executed */
} vc_oracle_report;

typedef struct vc_oracle vc_oracle;

int vc_oracle_compile(const vc_program *p, vc_oracle **out, vc_error *err);
void vc_oracle_free(vc_oracle *o);

/* buffers[i] holds program buffer i (count elements of 4 bytes), initialised
   by the caller (vc_inputs_fill); results are written in place. A program
   with grid barriers runs segment by segment; fixpoint per the semantics.
   opts may be NULL (forward order, checks on). A run only reads o, so
   several threads may run one compiled oracle at once. */
int vc_oracle_run(vc_oracle *o, uint32_t *const *buffers, const vc_oracle_opts *opts,
                  vc_oracle_report *report, vc_error *err);

/* What a run can leave for the next one, so that it need not allocate and
   fault in its memory again: the checks' shadow pages. One run at a time
   uses a scratch; any compiled oracle may. vc_oracle_run uses one of its own. */
typedef struct vc_oracle_scratch vc_oracle_scratch;
vc_oracle_scratch *vc_oracle_scratch_new(void); /* NULL when out of memory */
void vc_oracle_scratch_free(vc_oracle_scratch *s);
/* vc_oracle_run with the pages of scratch (NULL: as vc_oracle_run). */
int vc_oracle_run_with(vc_oracle *o, uint32_t *const *buffers, const vc_oracle_opts *opts,
                       vc_oracle_scratch *scratch, vc_oracle_report *report, vc_error *err);

/* The most memory one run of o takes besides the program's buffers: its
   registers, the values it carries across grid barriers and, with checks, a
   shadow record for every element of every buffer and shared array. */
uint64_t vc_oracle_run_bytes(const vc_oracle *o, bool checks);

/* Is the report a reason to call the program invalid, given its (expect ...)?
   If so writes a one-line reason ("data race on acc[5] ...") into why. */
bool vc_oracle_invalid(const vc_program *p, const vc_oracle_report *r, char *why, size_t n);

/* Adds the issues of `from` to `into` (the first described stays the one
   described), adds segments and ops, and takes passes and converged from
   `from`: the report of several launches. */
void vc_oracle_report_merge(vc_oracle_report *into, const vc_oracle_report *from);

/* Bytecode of the compiled program, readable, for debugging and tests;
   malloc'ed, the caller frees it. */
char *vc_oracle_disassemble(const vc_oracle *o);

#endif
