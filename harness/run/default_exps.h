/* The project's expectations a run judges by when it is given none
 * (docs/usage.md, "Expectations by default"): ci/expectations/BACKEND.txt
 * of the checkout the run is started in (the working directory holds
 * ci/expectations/BACKEND.txt and corpus/), else of the source tree a
 * build-tree binary was built from, else those installed beside the binary
 * (PREFIX/share/vyre-conform/expectations), else under the prefix it was
 * configured with. The working directory comes first so that a build tree
 * copied to another machine (ci/qualify) still finds the checkout's file. */
#ifndef VC_DEFAULT_EXPS_H
#define VC_DEFAULT_EXPS_H

#include <stdbool.h>

typedef struct vc_default_exps {
  bool found;
  char path[4300];    /* the file found (absolute where found from the working directory) */
  const char *where;  /* whose it is: "the checkout in the working directory", ... */
  char looked[8800];  /* every file looked for, ", " between, for the message of none found */
} vc_default_exps;

void vc_default_expectations(const char *backend, vc_default_exps *out);

#endif
