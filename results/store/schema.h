/* The schema of a results file, the checks that recognise one, and the
 * migration of an older one.
 *
 * A results file carries PRAGMA application_id = VC_DB_APPLICATION_ID and
 * PRAGMA user_version = its schema version. The tables are made from the
 * column tables of harness/model/result_columns.h. The checks only read: a
 * file that is not ours, is corrupt or is of a version this harness cannot
 * read is refused before anything is written to it. */
#ifndef VC_RESULTS_SCHEMA_H
#define VC_RESULTS_SCHEMA_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "harness/base/error.h"
#include "harness/base/strbuf.h"

#define VC_DB_APPLICATION_ID 0x56594346 /* "VYCF" */
/* Bump when a column table changes. 2: results.converged, runs.selection.
   3: results.cache_hits. 4: results.stderr. 5: results.attempts,
   results.attempt_log. 6: programs.timeout_s.
   7: programs.source. 8: results.mode_ns, wait_ns, phase_ns; programs.setup_ns,
   reference_ns, oracle_ns, flight_ns. 9: divergences.attempt.
   10: runs.selection_digest, selection_programs, selection_list,
   build_id, plugin_id. 11: runs.environment, expectations_sha256.
   12: tables litmus_runs, litmus_results. 13: table progress_results,
   litmus_results.stress_groups. 14: table findings. 15: tables crossover_maps,
   crossover_points. 16: results.reference_cached. */
#define VC_DB_SCHEMA_VERSION 16
/* The oldest version that is read as it is and migrated when written. */
#define VC_DB_SCHEMA_OLDEST 1

typedef enum vc_colkind {
  VC_COL_U32,
  VC_COL_U64,
  VC_COL_I64,
  VC_COL_BOOL,
  VC_COL_TEXT,
  VC_COL_CHARS,
  VC_COL_MODE,
  VC_COL_STATUS,
  VC_COL_DIVCLASS
} vc_colkind;

typedef struct vc_column_def {
  const char *name;
  vc_colkind kind;
} vc_column_def;

/* One table: the columns before the table's own (ids, and what the store
   itself keeps), the own columns from a column table, then the rest. */
typedef struct vc_table_def {
  const char *name;
  const char *head; /* SQL column definitions, "id INTEGER PRIMARY KEY, ..." */
  const vc_column_def *cols;
  uint32_t ncols;
  const char *tail; /* "" or ", more definitions and constraints" */
} vc_table_def;

extern const vc_table_def vc_table_runs, vc_table_devices, vc_table_programs, vc_table_results,
    vc_table_divergences, vc_table_segments, vc_table_litmus_runs, vc_table_litmus_results,
    vc_table_progress_results, vc_table_findings, vc_table_crossover_maps,
    vc_table_crossover_points;

/* Before SQLite touches it: an existing, non-empty file must start with the
   SQLite header. *exists is false for a missing or empty file. */
int vc_schema_precheck(const char *path, bool *exists, vc_error *err);
/* *version: 0 for an empty database, otherwise the file's schema version,
   VC_DB_SCHEMA_OLDEST to VC_DB_SCHEMA_VERSION; any other file is refused. */
int vc_schema_check(sqlite3 *sql, const char *path, int busy_ms, int *version, vc_error *err);
/* The same for a path, through a read-only connection of its own: closing a
   read-write one could checkpoint a foreign WAL file's log into it. A
   missing or empty file is version 0. integrity adds SQLite's quick_check,
   for a file about to be written: a damaged page anywhere refuses it. */
int vc_schema_check_path(const char *path, int busy_ms, bool integrity, int *version,
                         vc_error *err);
/* A read-only connection that leaves no file behind: without a -wal file,
   mode=ro&immutable=1 (the file alone holds every committed transaction; a
   writer that opens it meanwhile keeps its own in its new -wal, out of this
   connection's sight); with one, a plain read-only connection, or mode=ro
   where the file or its folder cannot be written (a read-only volume). */
int vc_schema_open_readonly(const char *path, sqlite3 **out);
/* For a reader that never writes: read-write where the file and its folder
   can be written (only such a connection, closing last, removes the -wal
   and -shm files), else vc_schema_open_readonly. */
int vc_schema_open_reader(const char *path, sqlite3 **out);
/* Creates every table and stamps the file; the caller holds a write transaction. */
int vc_schema_create(sqlite3 *sql, const char *path, int busy_ms, vc_error *err);
/* Rebuilds every table of a file of version from (checked) into the current
   schema, keeping every row: the columns both versions have are copied, a
   new column starts at 0 or "". The caller holds a write transaction and
   foreign keys are off (SQLite's way of changing a table's definition). */
int vc_schema_migrate(sqlite3 *sql, const char *path, int busy_ms, int from, vc_error *err);
/* *have: does the file hold table name? An SQLite result code. */
int vc_schema_has_table(sqlite3 *sql, const char *name, bool *have);
/* Appends ", alias.column" for each of t's own columns, or ", 0" / ", ''"
   for one the file's table lacks (a file of an older version, read as it
   is). */
int vc_schema_select_list(sqlite3 *sql, const vc_table_def *t, const char *alias, vc_strbuf *out);

#endif
