/* SQLite failures as vc_errors that say what happened to which file. */
#ifndef VC_RESULTS_SQLERR_H
#define VC_RESULTS_SQLERR_H

#include <sqlite3.h>

#include "harness/base/error.h"

/* Fills err for SQLite result code rc and returns VC_ERR_DB. what names the
   step (a statement or an action); busy_ms is the wait that a lock outlasted. */
int vc_sqlfail(vc_error *err, sqlite3 *sql, int rc, const char *path, int busy_ms,
               const char *what);

#endif
