/* harness/litmus: memory-model litmus tests of the grid-sync contract, under stress. */
/* Litmus tests (docs/litmus.md). Each test is a pair of roles, A and B, on
 * two locations x and y of one instance; every testing invocation plays A
 * for its own instance and B for another workgroup's, chosen afresh for
 * every launch from the seed. The roles are cut in two (before and after
 * the ordering), and a test runs in the places of VC_LITMUS_PLACE_TABLE:
 * with no ordering or a workgroup barrier only (the positive controls, where
 * weak outcomes may show), and across the grid barrier natively and across
 * the launch boundary of both split modes (where the test names forbidden
 * outcomes). Stress workgroups beside the testing ones hammer a scratch
 * buffer. A forbidden outcome seen once is a failure. */
#ifndef VC_LITMUS_H
#define VC_LITMUS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "backends/backend.h"
#include "harness/base/error.h"
#include "harness/base/strbuf.h"

/* X(ID, "name", "what the roles do"). ORDER: the order of the report. */
#define VC_LITMUS_TEST_TABLE(X)                                                          \
  X(MP, "mp", "message passing: A writes x then y; B reads y then x")                    \
  X(SB, "sb", "store buffering: A writes x, reads y; B writes y, reads x")               \
  X(LB, "lb", "load buffering: A reads x, writes y; B reads y, writes x")                \
  X(W22, "2+2w", "2+2W: A writes x=1, y=2; B writes y=1, x=2; the final values count")   \
  X(CORR, "corr", "coherence of reads: A writes x; B reads x twice")                     \
  X(TORN64, "torn64", "64-bit tearing: A writes all ones over 0; B reads the 64 bits")

typedef enum vc_litmus_test_id {
#define VC_X(id, name, what) VC_LITMUS_##id,
  VC_LITMUS_TEST_TABLE(VC_X)
#undef VC_X
  VC_LITMUS_TEST_COUNT
} vc_litmus_test_id;

/* X(ID, "name", control, mode, "what orders the two halves"). A control place
   orders nothing across workgroups: its weak outcomes show the test's power. */
#define VC_LITMUS_PLACE_TABLE(X)                                                         \
  X(NONE, "none", true, VC_MODE_HOST_SPLIT, "nothing: both halves in one segment")        \
  X(WORKGROUP, "workgroup", true, VC_MODE_HOST_SPLIT, "a workgroup barrier only")         \
  X(NATIVE, "native", false, VC_MODE_NATIVE, "the native grid barrier")                  \
  X(HOST_SPLIT, "host-split", false, VC_MODE_HOST_SPLIT, "the launch boundary, host copies") \
  X(RESIDENT_SPLIT, "resident-split", false, VC_MODE_RESIDENT_SPLIT,                     \
    "the launch boundary, device-resident buffers")

typedef enum vc_litmus_place {
#define VC_X(id, name, control, mode, what) VC_LITMUS_PLACE_##id,
  VC_LITMUS_PLACE_TABLE(VC_X)
#undef VC_X
  VC_LITMUS_PLACE_COUNT
} vc_litmus_place;

/* X(ID, "name"): how the roles access x and y. */
#define VC_LITMUS_ACCESS_TABLE(X) \
  X(PLAIN, "plain")               \
  X(ATOMIC, "atomic")

typedef enum vc_litmus_access {
#define VC_X(id, name) VC_LITMUS_ACCESS_##id,
  VC_LITMUS_ACCESS_TABLE(VC_X)
#undef VC_X
  VC_LITMUS_ACCESS_COUNT
} vc_litmus_access;

#define VC_LITMUS_MAX_OUTCOMES 5

const char *vc_litmus_test_name(vc_litmus_test_id t);
const char *vc_litmus_test_what(vc_litmus_test_id t);
const char *vc_litmus_place_name(vc_litmus_place p);
const char *vc_litmus_place_what(vc_litmus_place p);
bool vc_litmus_place_is_control(vc_litmus_place p);
const char *vc_litmus_access_name(vc_litmus_access a);
/* -1 if unknown. */
int vc_litmus_test_from_name(const char *name);
int vc_litmus_place_from_name(const char *name);
int vc_litmus_access_from_name(const char *name);

/* The outcomes of a test, named as docs/litmus.md names them ("r0=1 r1=0",
   "x=1 y=1", "torn"); the last is "other" (a value no role wrote). */
uint32_t vc_litmus_outcomes(vc_litmus_test_id t);
const char *vc_litmus_outcome_name(vc_litmus_test_id t, uint32_t o);
/* Is outcome o forbidden in (t, access, place)? Is it the weak outcome the
   control looks for? */
bool vc_litmus_forbidden(vc_litmus_test_id t, vc_litmus_access a, vc_litmus_place p, uint32_t o);
bool vc_litmus_weak(vc_litmus_test_id t, uint32_t o);

typedef struct vc_litmus_opts {
  uint64_t seed;
  uint32_t launches;         /* per test x access x place */
  uint32_t workgroup;        /* invocations per workgroup */
  uint32_t testing_groups;   /* workgroups that play the roles (>= 2) */
  uint32_t stress_groups;    /* workgroups that hammer the scratch buffer */
  uint32_t stress_iters;     /* scratch accesses per stress invocation per half */
  uint32_t scratch;          /* u32 elements of the scratch buffer */
  bool tests[VC_LITMUS_TEST_COUNT];
  bool access[VC_LITMUS_ACCESS_COUNT];
  bool places[VC_LITMUS_PLACE_COUNT];
} vc_litmus_opts;

/* A sweep of --stress-groups: "0,64,256", at most VC_LITMUS_MAX_SWEEP
   values of 0 to 65533, none twice. 0, or VC_ERR_USAGE naming the value. */
#define VC_LITMUS_MAX_SWEEP 8
int vc_litmus_parse_sweep(const char *list, uint32_t *values, uint32_t *n, vc_error *err);

/* The defaults of docs/litmus.md, every test, access and place selected. */
void vc_litmus_opts_default(vc_litmus_opts *o);
/* 0, or VC_ERR_USAGE naming the option out of range. */
int vc_litmus_opts_check(const vc_litmus_opts *o, vc_error *err);

/* The program text of one test in one place and access (vyre format), for
   the sizes of o. pair: a pairing to write as the pair buffer's (init ...),
   so that the text runs alone (check, run); NULL: none, a run fills it. */
void vc_litmus_program(vc_litmus_test_id t, vc_litmus_access a, vc_litmus_place p,
                       const vc_litmus_opts *o, const uint32_t *pair, vc_strbuf *out);

/* Instance k's outcome from the outputs of a launch: r holds two u32 per
   instance, x and y the final locations (u64 for torn64, as two u32). */
uint32_t vc_litmus_classify(vc_litmus_test_id t, const uint32_t *r, const uint32_t *x,
                            const uint32_t *y, uint32_t k);

/* The pairing of one launch: pair[g] is the instance whose role B
   invocation g plays, in a workgroup other than g's (a random cycle over
   the workgroups, a random order of the lanes). groups >= 2. */
int vc_litmus_pairing(uint64_t seed, uint32_t launch, uint32_t groups, uint32_t workgroup,
                      uint32_t *pair, vc_error *err);

/* One test x access x place, measured. */
typedef struct vc_litmus_row {
  vc_litmus_test_id test;
  vc_litmus_access access;
  vc_litmus_place place;
  bool unsupported;          /* the device cannot run the place; why says why */
  bool errored;              /* a launch failed; why says how */
  char why[256];
  uint64_t iterations;       /* instances run: launches x testing invocations */
  uint64_t counts[VC_LITMUS_MAX_OUTCOMES];
  uint64_t forbidden, weak;  /* instances with a forbidden, a weak outcome */
  uint32_t first_launch;     /* of the first forbidden outcome (when forbidden > 0) */
  uint32_t first_instance;
  uint64_t wall_ns;
} vc_litmus_row;

/* start (may be NULL) is called before a row is measured, with its test,
   access and place; row with the row as soon as it is measured (a nonzero
   return stops the run). */
typedef struct vc_litmus_sink {
  void *ctx;
  void (*start)(void *ctx, const vc_litmus_row *row);
  int (*row)(void *ctx, const vc_litmus_row *row);
} vc_litmus_sink;

/* Runs every selected combination on dev. Returns 0 when every row was
   handed to the sink (whatever it holds), or an error that ended the run. */
int vc_litmus_run(const vc_backend *be, vc_dev *dev, const vc_litmus_opts *o,
                  const vc_litmus_sink *sink, vc_error *err);

/* "FAIL", "pass", "weak", "no weak", "unsupported", "error": the verdict
   of a row (a control's "weak" is its power, "no weak" the lack of it);
   the command adds "timeout" for a row that never finished. */
const char *vc_litmus_row_verdict(const vc_litmus_row *r);

#endif
