/* results/store: the SQLite results file (schema, migration, recorder, loader, resume). */
/* The results database: what a run records, and how.
 *
 * One SQLite file in WAL mode. Each call that records a program's results
 * is one transaction, so a crash loses at most the program in flight. The
 * schema (docs/database.md) carries its version; a file of an older version
 * is migrated when opened; opening a file of a newer version, a corrupt file
 * or a foreign file is a clear error that leaves the file untouched. */
#ifndef VC_RECORD_H
#define VC_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "backends/backend.h"
#include "harness/base/error.h"
#include "harness/model/outcome.h"

typedef struct vc_db vc_db;

/* What a run records when it begins: the columns of VC_RUN_COLUMNS
   (harness/model/result_columns.h). */
typedef struct vc_run_info {
  VC_RUN_COLUMNS(VC_COLUMN_FIELD)
} vc_run_info;

/* A litmus run (harness/litmus, docs/litmus.md): VC_LITMUS_RUN_COLUMNS and,
   one per outcome of each test x access x place, VC_LITMUS_COLUMNS. */
typedef struct vc_litmus_run_info {
  VC_LITMUS_RUN_COLUMNS(VC_COLUMN_FIELD)
} vc_litmus_run_info;
typedef struct vc_litmus_result {
  VC_LITMUS_COLUMNS(VC_COLUMN_FIELD)
} vc_litmus_result;
/* One forward-progress check of a litmus run (VC_PROGRESS_COLUMNS). */
typedef struct vc_progress_result {
  VC_PROGRESS_COLUMNS(VC_COLUMN_FIELD)
} vc_progress_result;

/* A crossover map (docs/performance.md): VC_CROSSOVER_MAP_COLUMNS and, one
   per point x mode, VC_CROSSOVER_COLUMNS. */
typedef struct vc_crossover_map_info {
  VC_CROSSOVER_MAP_COLUMNS(VC_COLUMN_FIELD)
} vc_crossover_map_info;
typedef struct vc_crossover_point {
  VC_CROSSOVER_COLUMNS(VC_COLUMN_FIELD)
} vc_crossover_point;

/* A distinct finding of fuzz campaigns (VC_FINDING_COLUMNS). */
typedef struct vc_finding_rec {
  VC_FINDING_COLUMNS(VC_COLUMN_FIELD)
} vc_finding_rec;

/* Opens (creating if absent) a results file. busy_ms bounds the wait for a
   lock held by another writer. A file of an older schema version is
   migrated in place, in one transaction. */
int vc_db_open(const char *path, int busy_ms, vc_db **out, vc_error *err);
void vc_db_close(vc_db *db);
int vc_db_begin_run(vc_db *db, const vc_run_info *info, int64_t *run_id, vc_error *err);
/* Device identity of a run; fingerprint is a digest of behavioural probes. */
int vc_db_record_device(vc_db *db, int64_t run_id, const vc_device_info *dev,
                        const char *fingerprint, vc_error *err);
/* One program's rows (program, results, divergences, segment timings) in
   one transaction. */
int vc_db_record_program(vc_db *db, int64_t run_id, const vc_program_info *prog,
                         const vc_result *results, uint32_t nresults, vc_error *err);
/* A litmus run begins with its verdict "running"; each test x access x
   place is recorded as measured, its outcomes in one transaction; the end
   sets the verdict and the time. */
int vc_db_begin_litmus(vc_db *db, const vc_litmus_run_info *info, int64_t *id, vc_error *err);
int vc_db_record_litmus(vc_db *db, int64_t id, const vc_litmus_result *rows, uint32_t n,
                        vc_error *err);
int vc_db_record_progress(vc_db *db, int64_t id, const vc_progress_result *rec,
                          vc_error *err);
int vc_db_end_litmus(vc_db *db, int64_t id, const char *verdict, uint64_t wall_ns,
                     vc_error *err);
/* A crossover map begins with its verdict "running"; each point's modes are
   recorded as measured, in one transaction; the end sets the verdict and
   the time. */
int vc_db_begin_crossover(vc_db *db, const vc_crossover_map_info *info, int64_t *id,
                          vc_error *err);
int vc_db_record_crossover(vc_db *db, int64_t id, const vc_crossover_point *rows, uint32_t n,
                           vc_error *err);
int vc_db_end_crossover(vc_db *db, int64_t id, const char *verdict, uint64_t wall_ns,
                        vc_error *err);
/* A finding, by its key: inserted, or its modes, programs and last_run
   updated (first_run and the rest stay as first recorded). */
int vc_db_record_finding(vc_db *db, const vc_finding_rec *f, vc_error *err);
/* What --resume needs of an earlier run. */
typedef struct vc_db_resume {
  char **done;            /* names of the programs it has results for */
  uint32_t ndone;
  char device_name[256];  /* the device it ran on ("" if none was recorded) */
} vc_db_resume;

/* Reopens run_id to continue it: it must exist, not be complete, and be of
   the same backend and corpus digest. Marks it running again. */
int vc_db_resume_run(vc_db *db, int64_t run_id, const char *backend, const char *corpus_digest,
                     vc_db_resume *out, vc_error *err);
void vc_db_resume_free(vc_db_resume *r);
/* The settings run_id was started with (its backend column and options
   line), for --resume to restore. Strings are malloc'ed. */
typedef struct vc_db_run_settings {
  char *backend, *options;
} vc_db_run_settings;
int vc_db_read_run_settings(vc_db *db, int64_t run_id, vc_db_run_settings *out, vc_error *err);
void vc_db_run_settings_free(vc_db_run_settings *s);

/* status: "complete", "interrupted", "failed". */
int vc_db_end_run(vc_db *db, int64_t run_id, const char *status, vc_error *err);

#endif
