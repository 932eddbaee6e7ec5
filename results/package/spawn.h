/* Running git and tar for a package: a child process, its standard output
 * into a file or a string. */
#ifndef VC_PACKAGE_SPAWN_H
#define VC_PACKAGE_SPAWN_H

#include "harness/base/error.h"
#include "harness/base/strbuf.h"

/* Runs argv (argv[0] looked up in PATH) and waits. Its standard output goes
   to out_path (created), or into *out when out_path is NULL, or nowhere
   when both are NULL; its standard error is kept for the message. 0 when it
   exited 0, else VC_ERR_IO naming the command and what it said. */
int vc_spawn(const char *const argv[], const char *out_path, vc_strbuf *out, vc_error *err);

#endif
