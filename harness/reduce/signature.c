#include "harness/reduce/signature.h"

#include <stdio.h>
#include <string.h>

/* Numbers change as a program shrinks (element counts, indices, values);
   the words around them say what failed. A reason is cut where it starts
   to quote values ("; first [...]: expected ..."). */
static void blot(const char *in, char *out, size_t n) {
  size_t j = 0;
  const char *cut = strstr(in, "; first");
  for (const char *s = in; *s && (!cut || s < cut) && j + 1 < n; s++) {
    if (*s >= '0' && *s <= '9') {
      while (s[1] >= '0' && s[1] <= '9') s++;
      out[j++] = '#';
    } else {
      out[j++] = *s;
    }
  }
  out[j] = '\0';
}

void vc_reduce_sig_of_result(const vc_result *r, vc_reduce_sig *s) {
  memset(s, 0, sizeof *s);
  snprintf(s->mode, sizeof s->mode, "%s", r->mode ? r->mode : "?");
  s->status = r->status;
  s->cls = -1;
  if (r->status == VC_ST_DIVERGE && r->ndivs) {
    snprintf(s->buffer, sizeof s->buffer, "%s", r->divs[0].buffer);
    s->cls = (int)r->divs[0].cls;
  } else if (r->status == VC_ST_ERROR || r->status == VC_ST_UNTRUSTWORTHY ||
             r->status == VC_ST_INVALID) {
    blot(r->reason, s->detail, sizeof s->detail);
  }
}

void vc_reduce_sig_of_check(const vc_check_result *r, vc_reduce_sig *s) {
  memset(s, 0, sizeof *s);
  snprintf(s->mode, sizeof s->mode, "check");
  s->cls = -1;
  s->status = r->verdict == VC_CHECK_FAILED && strstr(r->why, "split-on-oracle (")
                  ? VC_ST_DIVERGE
                  : VC_ST_ERROR;
  blot(r->why, s->detail, sizeof s->detail);
}

void vc_reduce_sig_of_death(bool timeout, int sig, vc_reduce_sig *s) {
  memset(s, 0, sizeof *s);
  snprintf(s->mode, sizeof s->mode, "check");
  s->cls = -1;
  s->status = timeout ? VC_ST_TIMEOUT : VC_ST_CRASH;
  if (!timeout) snprintf(s->detail, sizeof s->detail, "the oracle died on signal %d", sig);
}

bool vc_reduce_sig_equal(const vc_reduce_sig *a, const vc_reduce_sig *b) {
  return strcmp(a->mode, b->mode) == 0 && a->status == b->status &&
         strcmp(a->buffer, b->buffer) == 0 && a->cls == b->cls &&
         strcmp(a->detail, b->detail) == 0;
}

void vc_reduce_sig_text(const vc_reduce_sig *s, char *buf, size_t n) {
  int used = snprintf(buf, n, "%s %s", s->mode, vc_status_name(s->status));
  if (used < 0 || (size_t)used >= n) return;
  if (s->buffer[0])
    used += snprintf(buf + used, n - (size_t)used, " buffer=%s class=%s", s->buffer,
                     s->cls >= 0 ? vc_divclass_name((vc_divclass)s->cls) : "?");
  if (used >= 0 && (size_t)used < n && s->detail[0])
    snprintf(buf + used, n - (size_t)used, ": %s", s->detail);
}
