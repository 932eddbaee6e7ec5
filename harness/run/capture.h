/* The worker's standard error, kept per result: fd 2 (the worker's own
 * messages and the driver's, which writes to it directly) goes to an
 * unlinked temporary file; each result takes what was written since the
 * last take, bounded. A small process forked at the start passes the file
 * on to the real standard error as it grows and, when the worker dies (a
 * driver's abort, a segfault, a kill), to its last byte: nothing a person
 * watching the run would see is lost, its last words least of all. */
#ifndef VC_CAPTURE_H
#define VC_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct vc_capture {
  int saved;      /* the real fd 2, -1 while not capturing */
  int file;       /* the temporary file fd 2 points to */
  int alive;      /* write end of the pipe whose end tells the echo process to finish */
  pid_t echo;     /* the process that passes the file on */
  uint64_t taken; /* bytes of the file taken by results or skipped */
} vc_capture;

/* Starts capturing; on any failure fd 2 is left as it was (nothing is
   captured, nothing is lost). */
void vc_capture_start(vc_capture *c);
/* What was written to fd 2 since the start or the last take or skip: out
   gets at most n - 1 bytes of it (NUL bytes as '?'), ending in
   "[... N more bytes]" when it was cut. "" when not capturing. */
void vc_capture_take(vc_capture *c, char *out, size_t n);
/* Leaves what was written so far to no result (what opening the device
   wrote, say). */
void vc_capture_skip(vc_capture *c);
/* Puts fd 2 back and waits until everything captured has been passed on. */
void vc_capture_stop(vc_capture *c);

#endif
