/* The schema of a results file, and the checks that recognise one.
 *
 * A results file carries PRAGMA application_id = VC_DB_APPLICATION_ID and
 * PRAGMA user_version = VC_DB_SCHEMA_VERSION. The checks only read: a file
 * that is not ours (or not of this version) is refused before anything is
 * written to it. */
#ifndef VC_RESULTS_SCHEMA_H
#define VC_RESULTS_SCHEMA_H

#include <sqlite3.h>
#include <stdbool.h>

#include "harness/base/error.h"

#define VC_DB_APPLICATION_ID 0x56594346 /* "VYCF" */
#define VC_DB_SCHEMA_VERSION 1

/* Before SQLite touches it: an existing, non-empty file must start with the
   SQLite header. *exists is false for a missing or empty file. */
int vc_schema_precheck(const char *path, bool *exists, vc_error *err);
/* The file is either empty (*is_new) or a results file of this version. */
int vc_schema_check(sqlite3 *sql, const char *path, int busy_ms, bool *is_new, vc_error *err);
/* The same for a path, through a read-only connection of its own: closing a
   read-write one could checkpoint a foreign WAL file's log into it. A
   missing or empty file is *is_new. */
int vc_schema_check_path(const char *path, int busy_ms, bool *is_new, vc_error *err);
/* Creates every table and stamps the file; the caller holds a write transaction. */
int vc_schema_create(sqlite3 *sql, const char *path, int busy_ms, vc_error *err);

#endif
