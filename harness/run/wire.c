#include "harness/run/wire.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void vc_wbuf_init(vc_wbuf *b) { memset(b, 0, sizeof *b); }

void vc_wbuf_free(vc_wbuf *b) {
  free(b->data);
  vc_wbuf_init(b);
}

void vc_put_bytes(vc_wbuf *b, const void *p, size_t n) {
  if (b->len + n > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n) cap *= 2;
    b->data = realloc(b->data, cap);
    if (!b->data) abort();
    b->cap = cap;
  }
  if (n) memcpy(b->data + b->len, p, n);
  b->len += n;
}

void vc_put_u64(vc_wbuf *b, uint64_t v) {
  uint8_t le[8];
  for (int i = 0; i < 8; i++) le[i] = (uint8_t)(v >> (8 * i));
  vc_put_bytes(b, le, 8);
}

void vc_put_str(vc_wbuf *b, const char *s) {
  size_t n = s ? strlen(s) : 0;
  vc_put_u64(b, n);
  vc_put_bytes(b, s ? s : "", n);
  vc_put_bytes(b, "", 1);
}

void vc_get_bytes(vc_wbuf *b, void *p, size_t n) {
  if (b->bad || b->pos + n > b->len) {
    b->bad = 1;
    memset(p, 0, n);
    return;
  }
  memcpy(p, b->data + b->pos, n);
  b->pos += n;
}

uint64_t vc_get_u64(vc_wbuf *b) {
  uint8_t le[8];
  vc_get_bytes(b, le, 8);
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= (uint64_t)le[i] << (8 * i);
  return v;
}

const char *vc_get_str(vc_wbuf *b) {
  uint64_t n = vc_get_u64(b);
  if (b->bad || n + 1 > b->len - b->pos) {
    b->bad = 1;
    return "";
  }
  const char *s = (const char *)b->data + b->pos;
  b->pos += n + 1;
  return s;
}

static int write_all(int fd, const void *p, size_t n) {
  const uint8_t *c = p;
  while (n) {
    ssize_t w = write(fd, c, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    c += w;
    n -= (size_t)w;
  }
  return 0;
}

/* 0 ok, 1 clean end of file before any byte, -1 error or truncated. */
static int read_all(int fd, void *p, size_t n) {
  uint8_t *c = p;
  size_t got = 0;
  while (got < n) {
    ssize_t r = read(fd, c + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -1;
    if (r == 0) return got == 0 ? 1 : -1;
    got += (size_t)r;
  }
  return 0;
}

int vc_msg_send(int fd, int type, const vc_wbuf *payload) {
  uint8_t head[5] = {(uint8_t)type};
  uint32_t n = payload ? (uint32_t)payload->len : 0;
  for (int i = 0; i < 4; i++) head[1 + i] = (uint8_t)(n >> (8 * i));
  if (write_all(fd, head, 5)) return -1;
  return n ? write_all(fd, payload->data, n) : 0;
}

int vc_msg_recv(int fd, int *type, vc_wbuf *payload) {
  uint8_t head[5];
  int rc = read_all(fd, head, 5);
  if (rc) return rc;
  uint32_t n = 0;
  for (int i = 0; i < 4; i++) n |= (uint32_t)head[1 + i] << (8 * i);
  *type = head[0];
  payload->len = payload->pos = 0;
  payload->bad = 0;
  if (n > payload->cap) {
    payload->data = realloc(payload->data, n);
    if (!payload->data) abort();
    payload->cap = n;
  }
  payload->len = n;
  return n && read_all(fd, payload->data, n) ? -1 : 0;
}

/* One column of a record, by its kind (harness/model/result_columns.h):
   integers as u64, strings length-prefixed, statuses and classes by
   number (both ends are the same binary). */
#define PUT_U32(b, v) vc_put_u64((b), (v))
#define PUT_U64(b, v) vc_put_u64((b), (v))
#define PUT_I64(b, v) vc_put_u64((b), (uint64_t)(v))
#define PUT_BOOL(b, v) vc_put_u64((b), (v) ? 1 : 0)
#define PUT_TEXT(b, v) vc_put_str((b), (v))
#define PUT_CHARS(b, v) vc_put_str((b), (v))
#define PUT_MODE(b, v) vc_put_str((b), (v))
#define PUT_STATUS(b, v) vc_put_u64((b), (uint64_t)(v))
#define PUT_DIVCLASS(b, v) vc_put_u64((b), (uint64_t)(v))
#define PUT_COLUMN(kind, field, column, size) PUT_##kind(b, rec->field);

static void get_chars(vc_wbuf *b, char *dst, size_t cap) {
  const char *s = vc_get_str(b);
  size_t n = strnlen(s, cap - 1);
  memcpy(dst, s, n);
  dst[n] = '\0';
}

/* The mode name is copied into the caller's buffer: a result outlives the
   message it came in. */
static const char *get_mode(vc_wbuf *b, char *mode_buf, size_t mode_len) {
  get_chars(b, mode_buf, mode_len);
  return mode_buf;
}

#define GET_U32(b, dst) (dst) = (uint32_t)vc_get_u64(b)
#define GET_U64(b, dst) (dst) = vc_get_u64(b)
#define GET_I64(b, dst) (dst) = (int64_t)vc_get_u64(b)
#define GET_BOOL(b, dst) (dst) = vc_get_u64(b) != 0
#define GET_TEXT(b, dst) (dst) = vc_get_str(b)
#define GET_CHARS(b, dst) get_chars((b), (dst), sizeof(dst))
#define GET_MODE(b, dst) (dst) = get_mode((b), mode_buf, mode_len)
#define GET_STATUS(b, dst) (dst) = (vc_status)vc_get_u64(b)
#define GET_DIVCLASS(b, dst) (dst) = (vc_divclass)vc_get_u64(b)
#define GET_COLUMN(kind, field, column, size) GET_##kind(b, rec->field);

/* A result outlives the message it came in, and vc_get_result copies only
   the mode: a string column of a result must be CHARS, not TEXT. */
#define TEXT_KIND_U32 0
#define TEXT_KIND_U64 0
#define TEXT_KIND_I64 0
#define TEXT_KIND_BOOL 0
#define TEXT_KIND_TEXT 1
#define TEXT_KIND_CHARS 0
#define TEXT_KIND_MODE 0
#define TEXT_KIND_STATUS 0
#define TEXT_KIND_DIVCLASS 0
#define COUNT_TEXT(kind, field, column, size) +TEXT_KIND_##kind
_Static_assert(0 VC_RESULT_COLUMNS(COUNT_TEXT) == 0,
               "a result's string columns must be CHARS (harness/model/result_columns.h)");

void vc_put_program_info(vc_wbuf *b, const vc_program_info *rec) {
  VC_PROGRAM_COLUMNS(PUT_COLUMN)
}

void vc_get_program_info(vc_wbuf *b, vc_program_info *rec) {
  VC_PROGRAM_COLUMNS(GET_COLUMN)
}

/* Divergences and segment timings travel as bytes, after the columns. */
void vc_put_result(vc_wbuf *b, const vc_result *rec) {
  VC_RESULT_COLUMNS(PUT_COLUMN)
  vc_put_u64(b, rec->ndivs);
  vc_put_bytes(b, rec->divs, rec->ndivs * sizeof *rec->divs);
  vc_put_u64(b, rec->nsegs);
  vc_put_bytes(b, rec->segs, rec->nsegs * sizeof *rec->segs);
}

void vc_get_result(vc_wbuf *b, vc_result *r, char *mode_buf, size_t mode_len) {
  memset(r, 0, sizeof *r);
  vc_result *rec = r;
  VC_RESULT_COLUMNS(GET_COLUMN)
  uint64_t nd = vc_get_u64(b);
  if (b->bad || nd * sizeof(vc_divergence) > b->len - b->pos) {
    b->bad = 1;
    return;
  }
  r->ndivs = (uint32_t)nd;
  r->divs = calloc(nd ? nd : 1, sizeof *r->divs);
  vc_get_bytes(b, r->divs, nd * sizeof *r->divs);
  uint64_t ns = vc_get_u64(b);
  if (b->bad || ns * sizeof(vc_segment_timing) > b->len - b->pos) {
    b->bad = 1;
    return;
  }
  r->nsegs = (uint32_t)ns;
  r->segs = calloc(ns ? ns : 1, sizeof *r->segs);
  vc_get_bytes(b, r->segs, ns * sizeof *r->segs);
}
