/* Waiting for a results file's lock that another process holds: SQLite's
 * busy handler, bounded by busy_ms, saying on stderr that it waits (once a
 * second has passed, then every 10 s) so that a long wait is not taken for
 * a hang. */
#ifndef VC_RESULTS_BUSY_H
#define VC_RESULTS_BUSY_H

#include <sqlite3.h>
#include <stdint.h>

typedef struct vc_db_busy {
  const char *path; /* named in the message; must outlive the connection */
  int busy_ms;      /* the longest wait of one statement */
  uint64_t since_ns;
  int shown_s;      /* the wait last shown, in seconds; -1: none yet */
} vc_db_busy;

/* Installs the handler on sql; b must live as long as the connection. */
void vc_db_busy_install(sqlite3 *sql, vc_db_busy *b, const char *path, int busy_ms);

#endif
