/* Random valid programs, built through the program model (not from text),
 * for round-trip tests of the printer and the parser. */
#ifndef VC_TEST_PROGRAM_GEN_H
#define VC_TEST_PROGRAM_GEN_H

#include <stdint.h>

#include "harness/model/program.h"

/* The same seed gives the same program. */
vc_program *pg_generate(uint64_t seed);

#endif
