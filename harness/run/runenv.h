/* The environment variables that change what a run does or which driver it
 * loads (kernel caches, ICD loaders, Mesa and NVIDIA driver knobs): a run
 * records them (runs.environment), a package copies them into its
 * manifest. */
#ifndef VC_RUNENV_H
#define VC_RUNENV_H

#include "harness/base/strbuf.h"

/* "NAME=value" lines, sorted by name, of every set variable the table of
   runenv.c names (an exact name or a prefix such as MESA_). */
void vc_run_environment(vc_strbuf *sb);

#endif
