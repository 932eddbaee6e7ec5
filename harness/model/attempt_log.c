#include "harness/model/attempt_log.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void vc_attempt_log_append(char *log, size_t cap, size_t *used, uint32_t attempt, vc_status st,
                           const char *reason) {
  if (*used >= cap) return;
  int n = snprintf(log + *used, cap - *used, "%s%u %s%s%.*s", *used ? "; " : "", attempt,
                   vc_status_name(st), reason[0] ? ": " : "", VC_ATTEMPT_REASON_MAX, reason);
  *used += n > 0 ? (size_t)n : 0;
}

/* At p: "N STATUS" followed by ':', ';' or the end. Fills e and returns the
   first character after the status, or NULL. */
static const char *entry_head(const char *p, vc_attempt_entry *e) {
  char *end;
  if (*p < '1' || *p > '9') return NULL;
  unsigned long n = strtoul(p, &end, 10);
  if (*end != ' ' || n == 0 || n > UINT32_MAX) return NULL;
  const char *name = end + 1;
  size_t len = strcspn(name, ":;");
  char buf[32];
  if (len == 0 || len >= sizeof buf) return NULL;
  memcpy(buf, name, len);
  buf[len] = '\0';
  int st = vc_status_from_name(buf);
  if (st < 0) return NULL;
  e->attempt = (uint32_t)n;
  e->status = (vc_status)st;
  e->reason[0] = '\0';
  return name + len;
}

uint32_t vc_attempt_log_parse(const char *log, vc_attempt_entry *out, uint32_t max) {
  uint32_t n = 0;
  const char *p = log;
  vc_attempt_entry e;
  if (!p || !(p = entry_head(p, &e))) return 0;
  while (n < max) {
    /* the reason runs to the next "; N STATUS" */
    const char *r = *p == ':' ? p + 2 : p, *next = NULL, *q = r;
    vc_attempt_entry following;
    while ((q = strstr(q, "; ")) && !(next = entry_head(q + 2, &following))) q += 2;
    size_t len = next ? (size_t)(q - r) : strlen(r);
    if (*p != ':') len = 0;
    if (len > VC_ATTEMPT_REASON_MAX) len = VC_ATTEMPT_REASON_MAX;
    memcpy(e.reason, r, len);
    e.reason[len] = '\0';
    out[n++] = e;
    if (!next) break;
    e = following;
    p = next;
  }
  return n;
}
