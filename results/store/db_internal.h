/* What the results code shares about an open vc_db beyond record.h. */
#ifndef VC_RESULTS_DB_INTERNAL_H
#define VC_RESULTS_DB_INTERNAL_H

#include <sqlite3.h>
#include <stdint.h>

#include "results/store/record.h"

/* The connection, for tests that impose limits on it (PRAGMA max_page_count). */
sqlite3 *vc_db_sqlite(vc_db *db);
const char *vc_db_path(const vc_db *db);
/* vc_db_end_run with a given end time (merge keeps the shards' latest end). */
int vc_db_end_run_at(vc_db *db, int64_t run_id, const char *status, int64_t ended_ns,
                     vc_error *err);
/* Unix time in nanoseconds. */
int64_t vc_unix_ns(void);

#endif
