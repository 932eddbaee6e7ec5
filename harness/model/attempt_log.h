/* The attempt log of a result that flake reruns made (results.attempt_log):
 * one entry an attempt, "1 diverge: why; 2 pass". Written when the runner
 * collapses the attempts into one row, read back wherever a flake is judged
 * (each failed attempt against the flake entries) or shown. One format, so
 * writer and reader cannot drift apart. */
#ifndef VC_ATTEMPT_LOG_H
#define VC_ATTEMPT_LOG_H

#include <stddef.h>
#include <stdint.h>

#include "harness/model/outcome.h"

/* The reason of an entry is cut to this many bytes. */
#define VC_ATTEMPT_REASON_MAX 120

typedef struct vc_attempt_entry {
  uint32_t attempt; /* 1-based */
  vc_status status;
  char reason[VC_ATTEMPT_REASON_MAX + 1];
} vc_attempt_entry;

/* Appends attempt's entry to log (cap bytes, *used of them in use). */
void vc_attempt_log_append(char *log, size_t cap, size_t *used, uint32_t attempt, vc_status st,
                           const char *reason);
/* The entries of log, up to max; returns how many. An entry starts at the
   log's start or after "; ", with its attempt number and a status name:
   a "; " inside a reason does not split it. */
uint32_t vc_attempt_log_parse(const char *log, vc_attempt_entry *out, uint32_t max);

#endif
