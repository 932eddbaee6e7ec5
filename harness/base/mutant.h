/* Planted faults (docs/detection.md). A site reads
 *   if (VC_MUTANT(NAME)) ...   or   x = VC_MUTANT(NAME) ? wrong : right;
 * with NAME an ID of harness/base/mutants.h. A normal build compiles every
 * site to the constant 0; a build configured with -DVC_MUTANTS=ON asks at
 * run time whether VYRE_CONFORM_MUTANT (or, for driver faults,
 * VYRE_CONFORM_FAULT) names it. One mutant build serves the whole
 * catalogue. Plugins link harness/base too, so they read the same
 * environment. */
#ifndef VC_MUTANT_H
#define VC_MUTANT_H

#include <stdbool.h>
#include <stdio.h>

#include "harness/base/mutants.h"

#ifdef VC_MUTANTS
#define VC_MUTANT(id) vc_mutant_on(VC_MUT_##id)
#else
#define VC_MUTANT(id) 0
#endif

/* Is this fault switched on? Exits with status 2 (usage) and a message
   when the environment names a fault the catalogue lacks. */
bool vc_mutant_on(vc_mutant_id id);
/* Was this build configured with -DVC_MUTANTS=ON? */
bool vc_mutants_built(void);
/* 0, or 2 with a message on err_out: the environment names an unknown
   fault, or one of the wrong kind, or any fault in a build without them. */
int vc_mutants_check_env(FILE *err_out);
/* Prints the catalogue: "name kind where description", one a line. */
void vc_mutants_list(FILE *out);
/* Prints "name<TAB>killers", one fault a line (ci/mutants --named). */
void vc_mutants_list_killers(FILE *out);
/* The name of mutant id. */
const char *vc_mutant_name(vc_mutant_id id);
/* Its killers column: THEME/NAME, unit:TEST and gpu:THEME/NAME, spaced. */
const char *vc_mutant_killers(vc_mutant_id id);
/* Why its CPU killers come from fewer than two themes, or "". */
const char *vc_mutant_why_one_theme(vc_mutant_id id);

#endif
