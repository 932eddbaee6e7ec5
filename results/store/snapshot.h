/* A whole results file at once, for a package: a consistent copy of it and
 * the list of its runs. */
#ifndef VC_RESULTS_SNAPSHOT_H
#define VC_RESULTS_SNAPSHOT_H

#include <stdint.h>

#include "harness/base/error.h"

/* Writes a consistent copy of the results file src to dst (VACUUM INTO: the
   committed transactions, a live writer's log included, never a torn page).
   src is checked as every reader checks it (integrity included) and never
   written; dst must not exist. */
int vc_db_snapshot(const char *src, const char *dst, vc_error *err);

typedef struct vc_db_run_list {
  int64_t *ids; /* oldest first */
  char **status;
  uint32_t n;
} vc_db_run_list;

/* Every run of the file, with its status. */
int vc_db_list_runs(const char *path, vc_db_run_list *out, vc_error *err);
void vc_db_run_list_free(vc_db_run_list *l);

#endif
