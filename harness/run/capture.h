/* The worker's standard error, kept per result: fd 2 (the worker's own
 * messages and the driver's, which writes to it directly) goes to an
 * unlinked temporary file; each result takes what was written since the
 * last take, bounded. A small process forked at the start passes the file
 * on to the real standard error as it grows and, when the worker dies (a
 * driver's abort, a segfault, a kill), to its last byte: nothing a person
 * watching the run would see is lost, its last words least of all. The
 * runner may make the file (vc_capture_file) before it starts the worker:
 * then it can read what a worker that died wrote since its last result. */
#ifndef VC_CAPTURE_H
#define VC_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The file, made by the process that starts the worker: the worker writes
   it through fd, the maker reads it through its own read_fd; taken is
   shared memory, so the maker knows where the text of the step in flight
   starts. */
typedef struct vc_capture_file {
  int fd, read_fd;  /* -1 when none */
  uint64_t *taken;  /* MAP_SHARED: bytes taken by results or skipped */
} vc_capture_file;

/* Makes an unlinked temporary file; on failure f->fd is -1 (nothing is
   captured for the runner, the worker still captures its own). */
void vc_capture_file_open(vc_capture_file *f);
/* What the worker wrote since its last take or skip, bounded as
   vc_capture_take is ("" when none or no file). For a worker that died. */
void vc_capture_file_rest(const vc_capture_file *f, char *out, size_t n);
void vc_capture_file_close(vc_capture_file *f);

typedef struct vc_capture {
  int saved;        /* the real fd 2, -1 while not capturing */
  int file;         /* the temporary file fd 2 points to */
  int alive;        /* write end of the pipe whose end tells the echo process to finish */
  pid_t echo;       /* the process that passes the file on */
  uint64_t own;     /* taken, when no vc_capture_file shares it */
  uint64_t *taken;  /* bytes of the file taken by results or skipped */
} vc_capture;

/* Starts capturing into a file of its own; on any failure fd 2 is left as
   it was (nothing is captured, nothing is lost). */
void vc_capture_start(vc_capture *c);
/* The same into f (made by the parent; NULL or no file: one of its own). */
void vc_capture_start_in(vc_capture *c, const vc_capture_file *f);
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
