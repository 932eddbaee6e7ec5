/* Messages between the runner and its worker process, over a pipe.
 *
 * A message is a type byte, a 4-byte length and a payload of fields written
 * in order (integers little-endian, strings length-prefixed); a result and a
 * program travel column by column, as harness/model/result_columns.h lists
 * them. Both ends are the same binary, so fixed-size structs may travel as
 * bytes. */
#ifndef VC_WIRE_H
#define VC_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "harness/base/error.h"
#include "results/store/record.h"

enum {
  VC_MSG_JOB = 'J',      /* runner → worker: index of the next program in the corpus both
                            hold (parsed before the fork), the attempt (0 first, then
                            flake reruns), then the modes to run */
  VC_MSG_GRANT = 'G',    /* runner → worker: the device is yours (after a WANT) */
  VC_MSG_WANT = 'W',     /* worker → runner: a mode's device phase is about to start */
  VC_MSG_RELEASE = 'L',  /* worker → runner: the device phase ended */
  VC_MSG_QUIT = 'Q',     /* runner → worker */
  VC_MSG_DEVICE = 'D',   /* worker → runner: vc_device_info and fingerprint, after opening:
                            the worker is ready, and gets jobs from now on */
  VC_MSG_FATAL = 'F',    /* worker → runner: error code and message; the worker exits */
  VC_MSG_PROGRAM = 'P',  /* program identity */
  VC_MSG_MODE = 'M',     /* a mode (and repeat) starts */
  VC_MSG_PHASE = 'H',    /* a step before the modes starts (vc_phase) */
  VC_MSG_RESULT = 'R',   /* one mode result */
  VC_MSG_DONE = 'E'      /* the program is finished; a u64: 1 when the worker retires
                            (its device is stuck) */
};

typedef struct vc_wbuf {
  uint8_t *data;
  size_t len, cap, pos; /* pos: read cursor */
  int bad;              /* a read ran past the end */
} vc_wbuf;

void vc_wbuf_init(vc_wbuf *b);
void vc_wbuf_free(vc_wbuf *b);
void vc_put_u64(vc_wbuf *b, uint64_t v);
void vc_put_str(vc_wbuf *b, const char *s);
void vc_put_bytes(vc_wbuf *b, const void *p, size_t n);
uint64_t vc_get_u64(vc_wbuf *b);
/* Returns a pointer into the buffer (valid until it changes) or "" when bad. */
const char *vc_get_str(vc_wbuf *b);
void vc_get_bytes(vc_wbuf *b, void *p, size_t n);

/* Whole messages on a file descriptor; EINTR is retried. */
int vc_msg_send(int fd, int type, const vc_wbuf *payload);
/* 0 on a message, 1 on end of file, -1 on error. */
int vc_msg_recv(int fd, int *type, vc_wbuf *payload);

void vc_put_program_info(vc_wbuf *b, const vc_program_info *p);
/* Strings point into b: copy what must outlive it. */
void vc_get_program_info(vc_wbuf *b, vc_program_info *p);
void vc_put_result(vc_wbuf *b, const vc_result *r);
/* Allocates r->divs and r->segs (free them) and copies the mode name into
   mode_buf. */
void vc_get_result(vc_wbuf *b, vc_result *r, char *mode_buf, size_t mode_len);

#endif
