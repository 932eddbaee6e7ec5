/* vyre-conform mutants [--killers]: the catalogue of planted faults
 * (harness/base/mutants.h, docs/detection.md). */
#include <stdio.h>
#include <string.h>

#include "harness/base/exitcodes.h"
#include "harness/base/mutant.h"
#include "harness/cli/commands.h"

static const char help[] =
    "usage: vyre-conform mutants [--killers]\n"
    "\n"
    "Lists the catalogue of planted faults (docs/detection.md), one a line:\n"
    "name, kind (harness or driver), where it is planted, what it breaks. A\n"
    "build configured with -DVC_MUTANTS=ON switches one on by its name in\n"
    "VYRE_CONFORM_MUTANT (a harness fault) or VYRE_CONFORM_FAULT / --fault NAME\n"
    "(a driver fault); in any other build the list is the same and naming a\n"
    "fault is a usage error.\n"
    "\n"
    "  --killers   each fault with the programs and tests that must kill it,\n"
    "              name<TAB>killers (THEME/NAME, unit:TEST, gpu:THEME/NAME), as\n"
    "              ci/mutants --named reads them\n"
    "\n"
    "Exit status: 0 listed; 2 usage error (an unknown argument, or the\n"
    "environment names a fault this build does not have).\n";

int vc_cmd_mutants(int argc, char **argv) {
  if (vc_wants_help(argc, argv)) {
    fputs(help, stdout);
    return VC_EXIT_OK;
  }
  if (argc == 2 && strcmp(argv[1], "--killers") == 0) {
    vc_mutants_list_killers(stdout);
    return VC_EXIT_OK;
  }
  if (argc > 1) {
    char msg[256];
    snprintf(msg, sizeof msg, "unknown argument '%s' (mutants takes only --killers)", argv[1]);
    return vc_usage_error("mutants", msg);
  }
  vc_mutants_list(stdout);
  return VC_EXIT_OK;
}
