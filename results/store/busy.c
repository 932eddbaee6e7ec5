/* The busy handler of a results file (busy.h). */
#include "results/store/busy.h"

#include <stdio.h>
#include <time.h>

#include "harness/base/clock.h"

enum { FIRST_SHOWN_MS = 1000, SHOWN_EVERY_S = 10, LONGEST_NAP_MS = 100 };

/* count: how often SQLite called it for this statement before; 0 starts a
   new wait. Returns 0 to give up (the statement fails with SQLITE_BUSY). */
static int on_busy(void *ctx, int count) {
  vc_db_busy *b = ctx;
  uint64_t now = vc_now_ns();
  if (count == 0) {
    b->since_ns = now;
    b->shown_s = -1;
  }
  uint64_t waited_ms = (now - b->since_ns) / 1000000u;
  if (waited_ms >= (uint64_t)b->busy_ms) return 0;
  int waited_s = (int)(waited_ms / 1000u);
  if (waited_ms >= FIRST_SHOWN_MS && (b->shown_s < 0 || waited_s >= b->shown_s + SHOWN_EVERY_S)) {
    fprintf(stderr,
            "vyre-conform: waiting for the lock on %s held by another process (%d s of %d s)\n",
            b->path, waited_s, (b->busy_ms + 999) / 1000);
    b->shown_s = waited_s;
  }
  /* short naps first (most locks are held for a transaction's milliseconds) */
  uint64_t nap = count < 10 ? (uint64_t)count + 1 : LONGEST_NAP_MS;
  if (nap > (uint64_t)b->busy_ms - waited_ms) nap = (uint64_t)b->busy_ms - waited_ms;
  struct timespec ts = {(time_t)(nap / 1000u), (long)(nap % 1000u) * 1000000L};
  nanosleep(&ts, NULL);
  return 1;
}

void vc_db_busy_install(sqlite3 *sql, vc_db_busy *b, const char *path, int busy_ms) {
  b->path = path;
  b->busy_ms = busy_ms < 0 ? 0 : busy_ms;
  b->since_ns = 0;
  b->shown_s = -1;
  sqlite3_busy_handler(sql, on_busy, b);
}
