/* The signature of a failure: what a reduction must keep (mode, status,
 * buffer, divergence class, and for other failures the reason with its
 * numbers blotted out, so that a smaller program failing the same way
 * still matches). */
#ifndef VC_REDUCE_SIGNATURE_H
#define VC_REDUCE_SIGNATURE_H

#include <stdbool.h>
#include <stddef.h>

#include "harness/exec/check.h"
#include "harness/model/outcome.h"

typedef struct vc_reduce_sig {
  char mode[32];     /* a mode, or "check" for a failure of the backend-free check */
  vc_status status;
  char buffer[64];   /* diverge: the first buffer that differs */
  int cls;           /* diverge: its class (vc_divclass), else -1 */
  char detail[160];  /* error, untrustworthy, check: the reason, numbers as '#' */
} vc_reduce_sig;

/* The signature of one result (r->status a failure). */
void vc_reduce_sig_of_result(const vc_result *r, vc_reduce_sig *s);
/* Of a check that failed (verdict VC_CHECK_FAILED). */
void vc_reduce_sig_of_check(const vc_check_result *r, vc_reduce_sig *s);
/* Of a check's child process that died on signal sig, or ran out of time. */
void vc_reduce_sig_of_death(bool timeout, int sig, vc_reduce_sig *s);
bool vc_reduce_sig_equal(const vc_reduce_sig *a, const vc_reduce_sig *b);
/* "host-split diverge buffer=o class=integer", "check error: split-on-oracle ..." */
void vc_reduce_sig_text(const vc_reduce_sig *s, char *buf, size_t n);

/* The shape of a (reduced) program: its forms and statements, every atom
   but a form's head left out, and its (doc ...); 12 hex digits of their
   SHA-256. Two findings of one shape are one bug, whatever the names and
   numbers. "" when the text is not one form. */
void vc_reduce_shape(const char *text, size_t len, char out[13]);

#endif
