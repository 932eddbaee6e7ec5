/* The worker's standard error during a program: fd 2 (the worker's own
 * messages and the driver's, which writes to it directly) goes to an
 * unlinked temporary file; each result takes what was written since the
 * last one, bounded, and the text is passed on to the real standard error
 * as well, so that nothing a person watching the run would see is lost. */
#ifndef VC_CAPTURE_H
#define VC_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct vc_capture {
  int saved; /* the real fd 2, -1 while not capturing */
  int file;  /* the temporary file fd 2 points to */
} vc_capture;

/* Starts capturing; on any failure fd 2 is left as it was (nothing is
   captured, nothing is lost). */
void vc_capture_start(vc_capture *c);
/* What was written to fd 2 since the start or the last take, passed on to
   the real standard error; out gets at most n - 1 bytes of it (NUL bytes
   as '?'), ending in "[... N more bytes]" when it was cut. "" when not
   capturing. */
void vc_capture_take(vc_capture *c, char *out, size_t n);
/* Passes on what is left and puts fd 2 back. */
void vc_capture_stop(vc_capture *c);

#endif
