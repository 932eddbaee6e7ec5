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

void vc_put_program_info(vc_wbuf *b, const vc_program_info *p) {
  vc_put_str(b, p->name);
  vc_put_str(b, p->path);
  vc_put_str(b, p->source_digest);
  vc_put_u64(b, p->segments);
  vc_put_u64(b, p->barriers);
  vc_put_u64(b, p->invocations);
  vc_put_u64(b, p->workgroups);
  vc_put_u64(b, p->buffer_bytes);
  vc_put_str(b, p->tags);
}

void vc_get_program_info(vc_wbuf *b, vc_program_info *p) {
  p->name = vc_get_str(b);
  p->path = vc_get_str(b);
  p->source_digest = vc_get_str(b);
  p->segments = (uint32_t)vc_get_u64(b);
  p->barriers = (uint32_t)vc_get_u64(b);
  p->invocations = vc_get_u64(b);
  p->workgroups = vc_get_u64(b);
  p->buffer_bytes = vc_get_u64(b);
  p->tags = vc_get_str(b);
}

void vc_put_result(vc_wbuf *b, const vc_result *r) {
  vc_put_str(b, r->mode);
  vc_put_u64(b, r->repeat);
  vc_put_u64(b, (uint64_t)r->status);
  vc_put_str(b, r->reason);
  vc_put_u64(b, r->wall_ns);
  vc_put_u64(b, r->device_ns);
  vc_put_u64(b, r->compile_ns);
  vc_put_u64(b, r->bytes_up);
  vc_put_u64(b, r->bytes_down);
  vc_put_u64(b, r->launches);
  vc_put_u64(b, r->passes);
  vc_put_str(b, r->output_digest);
  vc_put_u64(b, r->nondeterministic);
  vc_put_u64(b, r->participants);
  vc_put_u64(b, r->virtual_per_participant);
  vc_put_u64(b, r->device_barriers);
  vc_put_u64(b, r->ndivs);
  vc_put_bytes(b, r->divs, r->ndivs * sizeof *r->divs);
  vc_put_u64(b, r->nsegs);
  vc_put_bytes(b, r->segs, r->nsegs * sizeof *r->segs);
}

void vc_get_result(vc_wbuf *b, vc_result *r, char *mode_buf, size_t mode_len) {
  memset(r, 0, sizeof *r);
  const char *mode = vc_get_str(b);
  size_t n = strlen(mode);
  if (n >= mode_len) n = mode_len - 1;
  memcpy(mode_buf, mode, n);
  mode_buf[n] = '\0';
  r->mode = mode_buf;
  r->repeat = (uint32_t)vc_get_u64(b);
  r->status = (vc_status)vc_get_u64(b);
  const char *reason = vc_get_str(b);
  memcpy(r->reason, reason, strnlen(reason, sizeof r->reason - 1));
  r->wall_ns = vc_get_u64(b);
  r->device_ns = vc_get_u64(b);
  r->compile_ns = vc_get_u64(b);
  r->bytes_up = vc_get_u64(b);
  r->bytes_down = vc_get_u64(b);
  r->launches = (uint32_t)vc_get_u64(b);
  r->passes = (uint32_t)vc_get_u64(b);
  const char *dg = vc_get_str(b);
  memcpy(r->output_digest, dg, strnlen(dg, sizeof r->output_digest - 1));
  r->nondeterministic = vc_get_u64(b) != 0;
  r->participants = (uint32_t)vc_get_u64(b);
  r->virtual_per_participant = (uint32_t)vc_get_u64(b);
  r->device_barriers = vc_get_u64(b);
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
