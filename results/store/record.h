/* The results database: what a run records, and how.
 *
 * One SQLite file in WAL mode. Each call that records a program's results
 * is one transaction, so a crash loses at most the program in flight. The
 * schema (docs/database.md) carries its version; opening a file of another
 * version, a corrupt file or a foreign file is a clear error that leaves the
 * file untouched. */
#ifndef VC_RECORD_H
#define VC_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "backends/backend.h"
#include "harness/base/error.h"
#include "harness/model/outcome.h"

typedef struct vc_db vc_db;


typedef struct vc_run_info {
  const char *harness_version;
  const char *harness_commit;
  const char *command_line;
  const char *host;
  const char *corpus_path;
  const char *corpus_digest; /* SHA-256 over the sorted (path, source digest) list */
  const char *shard;         /* "K/N", or "" for an unsharded run */
  const char *backend;
  const char *modes;         /* "native,host-split,resident-split" */
  const char *options;       /* the remaining options, "key=value ..." */
  int64_t started_ns;        /* unix time */
  const char *selection;     /* what was selected: filters, tags, shard, program count */
} vc_run_info;



/* Opens (creating if absent) a results file. busy_ms bounds the wait for a
   lock held by another writer. */
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
