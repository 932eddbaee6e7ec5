/* SQLite failures as vc_errors that say what happened to which file. */
#ifndef VC_RESULTS_SQLERR_H
#define VC_RESULTS_SQLERR_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>

#include "harness/base/error.h"

/* Fills err for SQLite result code rc and returns VC_ERR_DB. what names the
   step (a statement or an action); busy_ms is the wait that a lock outlasted. */
int vc_sqlfail(vc_error *err, sqlite3 *sql, int rc, const char *path, int busy_ms,
               const char *what);
/* True when path's folder does not exist (or is no folder): dir gets its
   name, so that the message says so instead of "unable to open". */
bool vc_db_missing_dir(const char *path, char *dir, size_t n);

#endif
