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
#include "harness/error.h"

typedef struct vc_db vc_db;

typedef enum vc_status {
  VC_ST_PASS = 0, VC_ST_DIVERGE, VC_ST_ERROR, VC_ST_CRASH, VC_ST_TIMEOUT,
  VC_ST_UNSUPPORTED, VC_ST_SKIP, VC_ST_INVALID, VC_STATUS_COUNT
} vc_status;

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
} vc_run_info;

typedef struct vc_program_info {
  const char *name;
  const char *path;
  const char *source_digest;
  uint32_t segments;
  uint32_t barriers;
  uint64_t invocations;
  uint64_t workgroups;
  uint64_t buffer_bytes;     /* all user buffers */
  const char *tags;          /* space separated */
} vc_program_info;

typedef struct vc_segment_timing {
  uint32_t pass, segment;
  uint64_t wall_ns, device_ns;
  uint64_t bytes_up, bytes_down;
  uint32_t launches;
} vc_segment_timing;

typedef struct vc_divergence {
  char buffer[64];
  char type[8];               /* u32, i32, f32 */
  uint64_t first_index;       /* element */
  uint64_t count;             /* mismatching elements */
  uint64_t context_start;     /* element index of the first element in the hex below */
  char expected_hex[200];     /* a few elements around first_index, little-endian hex */
  char actual_hex[200];
  char cls[32];               /* integer, f32-ulp, nan-payload, denormal-flush, size, ... */
  uint64_t max_ulp;           /* f32: largest distance seen */
} vc_divergence;

typedef struct vc_result {
  const char *mode;           /* native, host-split, resident-split */
  uint32_t repeat;            /* 0-based */
  vc_status status;
  char reason[512];
  uint64_t wall_ns, device_ns, compile_ns;
  uint64_t bytes_up, bytes_down;
  uint32_t launches;
  uint32_t passes;
  char output_digest[65];
  bool nondeterministic;      /* output changed between repeats */
  /* native mode only */
  uint32_t participants, virtual_per_participant;
  uint64_t device_barriers;
  vc_divergence *divs;
  uint32_t ndivs;
  vc_segment_timing *segs;
  uint32_t nsegs;
} vc_result;

const char *vc_status_name(vc_status s);
int vc_status_from_name(const char *name); /* -1 if unknown */

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

/* status: "complete", "interrupted", "failed". */
int vc_db_end_run(vc_db *db, int64_t run_id, const char *status, vc_error *err);

#endif
