/* The backend-free check of one program: the oracle's verdict on validity,
 * and split-on-oracle (the split plan run on the oracle in host-split and
 * resident-split mode gives the unsplit oracle's bytes, passes and the
 * traffic the plan predicts). */
#ifndef VC_CHECK_H
#define VC_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "harness/model/program.h"
#include "harness/split/split.h"
#include "oracles/oracle.h"

typedef enum vc_check_verdict {
  VC_CHECK_OK = 0,
  VC_CHECK_INVALID,  /* the oracle refuses the program: why says how */
  VC_CHECK_FAILED,   /* the splitter or a mode driver is wrong, or a harness fault */
  VC_CHECK_UNSUPPORTED, /* over a limit of the harness or of this machine, not of the
                          program (why names the limit); nothing was run */
  VC_CHECK_TIMEOUT,  /* an oracle run passed opts->deadline_ns: why names the phase
                        (the reference run, or a split mode on the oracle) */
  VC_CHECK_INTERNAL  /* the plan breaks a rule of the plan validator: a bug of the
                        splitter (why is the validator's message); nothing was run */
} vc_check_verdict;

typedef struct vc_check_result {
  vc_check_verdict verdict;
  char why[1024];
  vc_oracle_report report; /* of the unsplit run */
  char digest[65];         /* of the unsplit oracle's outputs (when valid) */
  uint32_t segments, spills, recomputed;
} vc_check_result;

void vc_check_program(const vc_program *p, const vc_oracle_opts *opts, vc_check_result *r);
/* The same check against a given plan of p (tests plant faults in one).
   Both validate the plan first (harness/split/validate.h). */
void vc_check_program_plan(const vc_program *p, const vc_split *s, const vc_oracle_opts *opts,
                           vc_check_result *r);

/* The oracle's outputs (per buffer) against the program's expected values,
   (expect (buffer NAME [(at I)] (values V...))): true when all agree; else
   false with the first mismatch, in the buffer's type, in why. */
bool vc_check_expected_values(const vc_program *p, const uint32_t *const *outputs, char *why,
                              size_t n);

#endif
