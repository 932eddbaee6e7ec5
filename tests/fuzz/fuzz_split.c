/* libFuzzer target (-DVC_FUZZ=ON, clang): any text is parsed and validated;
 * a small valid program is then run by the oracle and checked with
 * split-on-oracle. A program the oracle accepts must split exactly: a
 * failed check (not an invalid program) is a bug in the splitter, the mode
 * drivers or the oracle, and aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness/exec/check.h"
#include "harness/lang/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_INVOCATIONS = 256, MAX_ELEMS = 4096, MAX_TRIP = 64, MAX_LOOP_DEPTH = 2, MAX_PASSES = 4 };

/* Loops with literal bounds of a few trips only: the oracle has no time
   budget, and the fuzzer must not spend its time in one long loop. */
static bool small_loops(const vc_node *n, int depth) {
  /* a while may run up to the oracle's 2^24-iteration limit: too slow here */
  if (n->kind == VC_S_WHILE) return false;
  if (n->kind == VC_S_LOOP) {
    const vc_node *a = n->kids[0], *b = n->kids[1];
    if (depth >= MAX_LOOP_DEPTH || a->kind != VC_E_LIT || b->kind != VC_E_LIT) return false;
    int64_t from = a->type == VC_I32 ? (int32_t)a->bits : (int64_t)a->bits;
    int64_t to = b->type == VC_I32 ? (int32_t)b->bits : (int64_t)b->bits;
    if (to - from > MAX_TRIP) return false;
    depth++;
  }
  for (uint32_t i = 0; i < n->nkids; i++)
    if (!small_loops(n->kids[i], depth)) return false;
  return true;
}

static bool small(const vc_program *p) {
  uint64_t elems = 0;
  for (uint32_t i = 0; i < p->nbuffers; i++) elems += p->buffers[i].count;
  if (p->fixpoint.present && p->fixpoint.max > MAX_PASSES) return false;
  return vc_program_invocations(p) <= MAX_INVOCATIONS && elems <= MAX_ELEMS &&
         small_loops(p->entry, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = vc_parse("fuzz.vyre", (const char *)data, size, &d);
  if (p && small(p)) {
    /* A mutated program no longer matches the values, passes or convergence
       it states; only a split-on-oracle difference is a splitter bug. */
    uint32_t keep = 0;
    for (uint32_t i = 0; i < p->nexpects; i++) {
      vc_expect_kind k = p->expects[i].kind;
      if (k != VC_EXPECT_VALUES && k != VC_EXPECT_PASSES && k != VC_EXPECT_CONVERGES)
        p->expects[keep++] = p->expects[i];
    }
    p->nexpects = keep;
    vc_check_result r;
    vc_oracle_opts o = {0};
    vc_check_program(p, &o, &r);
    if (r.verdict == VC_CHECK_FAILED) {
      fprintf(stderr, "split-on-oracle failed: %s\n", r.why);
      abort();
    }
  }
  vc_program_free(p);
  vc_diags_free(&d);
  return 0;
}
