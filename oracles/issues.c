/* Counting and describing the issues of a run. */
#include "oracles/issues.h"

#include <stdarg.h>
#include <stdio.h>

/* Counts one occurrence; returns the issue to describe, or NULL when this
   is not the first of its kind. */
static vc_oracle_issue *count(vc_machine *m, vc_issue_kind kind, uint32_t pc) {
  vc_oracle_issue *is = &m->rep->issues[kind];
  if (is->count++) return NULL;
  is->loc = m->o->locs[pc];
  is->segment = m->seg;
  return is;
}

static void place(vc_machine *m, vc_oracle_issue *is, uint32_t slot, uint32_t idx) {
  is->space = m->o->mem[slot].space;
  is->ref = slot < m->o->nbuffers ? slot : slot - m->o->nbuffers;
  is->index = idx;
}

static void describe(vc_oracle_issue *is, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void describe(vc_oracle_issue *is, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(is->msg, sizeof is->msg, fmt, ap);
  va_end(ap);
}

/* "segment 1", or "segment 1 of pass 3" in a fixpoint program. */
static const char *segment(const vc_machine *m, char *buf, size_t n) {
  if (m->o->fixpoint.present) snprintf(buf, n, "segment %u of pass %u", m->seg, m->pass + 1);
  else snprintf(buf, n, "segment %u", m->seg);
  return buf;
}

static const char *access_name(vc_acc acc) {
  static const char *const names[] = {"load", "store", "atomic"};
  return names[acc];
}

/* "load of", "store to", "atomic on": what the instruction at pc does to an element. */
static const char *access_phrase(const vc_machine *m, uint32_t pc) {
  uint8_t op = m->o->code[pc].op;
  return op == VC_OP_LOAD || op == VC_OP_LOAD64       ? "load of"
         : op == VC_OP_STORE || op == VC_OP_STORE64   ? "store to"
         : op == VC_OP_ALOAD || op == VC_OP_ALOAD64   ? "atomic load of"
         : op == VC_OP_ASTORE || op == VC_OP_ASTORE64 ? "atomic store to"
                                                      : "atomic on";
}

void vc_note_oob(vc_machine *m, uint32_t pc, uint32_t slot, uint32_t idx) {
  vc_oracle_issue *is = count(m, VC_ISSUE_OOB, pc);
  if (!is) return;
  const vc_oracle_mem *mem = &m->o->mem[slot];
  place(m, is, slot, idx);
  is->inv_a = m->cur;
  char seg[48];
  describe(is, "out-of-bounds %s %s[%u] (%u elements) by invocation %u (workgroup %u) in %s at %u:%u",
           access_phrase(m, pc), mem->name, idx, mem->count, m->cur, m->wg,
           segment(m, seg, sizeof seg), is->loc.line, is->loc.col);
}

void vc_note_race(vc_machine *m, uint32_t pc, uint32_t slot, uint32_t idx, vc_acc acc,
                  uint32_t other, vc_acc other_acc, bool earlier) {
  vc_oracle_issue *is = count(m, VC_ISSUE_RACE, pc);
  if (!is) return;
  place(m, is, slot, idx);
  is->inv_a = m->cur;
  is->inv_b = other;
  char seg[48];
  describe(is, "data race on %s[%u] in %s: %s by invocation %u at %u:%u and %s by invocation %u %s",
           m->o->mem[slot].name, idx, segment(m, seg, sizeof seg), access_name(acc), m->cur,
           is->loc.line, is->loc.col,
           access_name(other_acc), other,
           earlier ? "of another workgroup" : "of the same workgroup with no barrier between");
}

void vc_note_uninit(vc_machine *m, uint32_t pc, uint32_t slot, uint32_t idx) {
  vc_oracle_issue *is = count(m, VC_ISSUE_UNINIT_SHARED, pc);
  if (!is) return;
  place(m, is, slot, idx);
  is->inv_a = m->cur;
  char seg[48];
  describe(is, "%s workgroup memory %s[%u] before any write in %s by invocation %u (workgroup %u) at %u:%u",
           access_phrase(m, pc), m->o->mem[slot].name, idx,
           segment(m, seg, sizeof seg), m->cur, m->wg, is->loc.line, is->loc.col);
}

void vc_note_loop(vc_machine *m, uint32_t pc) {
  vc_oracle_issue *is = count(m, VC_ISSUE_LOOP, pc);
  if (!is) return;
  is->inv_a = m->cur;
  char seg[48];
  describe(is,
           "loop runs past %u iterations: invocation %u (workgroup %u) in %s, stopped at the "
           "loop at %u:%u",
           VC_LOOP_BUDGET, m->cur, m->wg, segment(m, seg, sizeof seg), is->loc.line, is->loc.col);
}

static void where(const vc_machine *m, const vc_inv *v, char *buf, size_t n) {
  vc_loc l = m->o->locs[v->pc];
  uint8_t op = m->o->code[v->pc].op;
  if (v->status == VC_INV_WAIT) snprintf(buf, n, "waits at the barrier at %u:%u", l.line, l.col);
  else if (op == VC_OP_RET) snprintf(buf, n, "returned at %u:%u", l.line, l.col);
  else if (op == VC_OP_NEXT || op == VC_OP_LOOP)
    snprintf(buf, n, "was stopped in the loop at %u:%u", l.line, l.col);
  else snprintf(buf, n, "finished the segment");
}

void vc_note_barrier(vc_machine *m, uint32_t waiter, uint32_t other) {
  vc_oracle_issue *is = count(m, VC_ISSUE_BARRIER, m->inv[waiter].pc);
  if (!is) return;
  char what[64], seg[48];
  where(m, &m->inv[other], what, sizeof what);
  is->inv_a = m->wg_base + waiter;
  is->inv_b = m->wg_base + other;
  describe(is, "workgroup barrier at %u:%u not reached by all invocations of workgroup %u in %s: invocation %u waits there, invocation %u %s",
           is->loc.line, is->loc.col, m->wg, segment(m, seg, sizeof seg), (uint32_t)is->inv_a,
           (uint32_t)is->inv_b, what);
}
