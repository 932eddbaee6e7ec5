/* Monotonic time in nanoseconds, for wall-time measurements, and the time
 * of day, for what a record stamps. */
#ifndef VC_CLOCK_H
#define VC_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t vc_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Unix time in nanoseconds. */
static inline int64_t vc_unix_time_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#endif
