/* vyre-conform fuzz (placeholder while it is built). */
#include "harness/base/exitcodes.h"
#include "harness/cli/commands.h"

int vc_cmd_fuzz(int argc, char **argv) {
  (void)argc;
  (void)argv;
  return VC_EXIT_USAGE;
}
