/* Helpers of the oracle tests: a program text parsed, compiled, given its
 * initial buffers and run, with its buffers found by name afterwards. */
#ifndef VC_TEST_ORACLE_UTIL_H
#define VC_TEST_ORACLE_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "harness/model/program.h"
#include "oracles/oracle.h"

typedef struct vt_run {
  vc_program *p;
  vc_oracle *o;
  uint32_t **bufs;   /* one per program buffer, filled by vc_inputs_fill */
  vc_oracle_report rep;
} vt_run;

/* Parses text; fails the test, printing the diagnostics, if it has errors. */
vc_program *vt_parse(const char *text);
/* Parses, compiles, fills the inputs and runs (opts may be NULL); fails the
   test when any step fails. */
void vt_exec(vt_run *r, const char *text, const vc_oracle_opts *opts);
/* Runs r's program again on fresh inputs. */
void vt_rerun(vt_run *r, const vc_oracle_opts *opts);
/* The contents of buffer `name`; fails the test when there is none. */
uint32_t *vt_buf(const vt_run *r, const char *name);
/* A word as the bits of an f32. */
uint32_t vt_bits(float f);
/* The reason vc_oracle_invalid gives, or "" for a valid run (static buffer). */
const char *vt_invalid(const vt_run *r);
void vt_done(vt_run *r);
/* Runs one invocation of a program with the forms `decls` (may be "") and
   the entry statements `entry`, which stores results into `out` (u32, 64
   elements, declared here); checks out[0..n) against want and that the run
   is valid. */
void vt_check(const char *decls, const char *entry, const uint32_t *want, uint32_t n);

#endif
