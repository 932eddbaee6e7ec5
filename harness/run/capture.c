#include "harness/run/capture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void vc_capture_start(vc_capture *c) {
  c->saved = c->file = -1;
  const char *dir = getenv("TMPDIR");
  char path[512];
  snprintf(path, sizeof path, "%s/vyre-conform-stderr-XXXXXX", dir && dir[0] ? dir : "/tmp");
  int fd = mkstemp(path);
  if (fd < 0) return;
  unlink(path);
  fflush(stderr);
  int saved = dup(2);
  if (saved < 0 || dup2(fd, 2) < 0) {
    if (saved >= 0) close(saved);
    close(fd);
    return;
  }
  c->saved = saved;
  c->file = fd;
}

/* Copies the file to the real standard error; returns its size. */
static off_t pass_on(const vc_capture *c) {
  off_t size = lseek(c->file, 0, SEEK_END);
  char buf[4096];
  for (off_t off = 0; off < size;) {
    ssize_t got = pread(c->file, buf, sizeof buf, off);
    if (got <= 0) break;
    for (ssize_t w = 0; w < got;) {
      ssize_t put = write(c->saved, buf + w, (size_t)(got - w));
      if (put <= 0) break;
      w += put;
    }
    off += got;
  }
  return size < 0 ? 0 : size;
}

void vc_capture_take(vc_capture *c, char *out, size_t n) {
  if (n) out[0] = '\0';
  if (c->saved < 0 || n == 0) return;
  fflush(stderr);
  off_t size = pass_on(c);
  char more[48] = "";
  size_t keep = (size_t)size;
  if (keep > n - 1) {
    size_t room = n > sizeof more ? n - sizeof more : 0; /* and the note of what was cut */
    snprintf(more, sizeof more, "\n[... %llu more bytes]", (unsigned long long)(keep - room));
    keep = room;
  }
  ssize_t got = keep ? pread(c->file, out, keep, 0) : 0;
  size_t len = got > 0 ? (size_t)got : 0;
  for (size_t i = 0; i < len; i++)
    if (out[i] == '\0') out[i] = '?';
  out[len] = '\0';
  if (more[0]) snprintf(out + len, n - len, "%s", more);
  /* fd 2 and c->file share one offset: both start again at 0. */
  if (ftruncate(c->file, 0) != 0) return;
  lseek(c->file, 0, SEEK_SET);
}

void vc_capture_stop(vc_capture *c) {
  if (c->saved < 0) return;
  fflush(stderr);
  pass_on(c);
  dup2(c->saved, 2);
  close(c->saved);
  close(c->file);
  c->saved = c->file = -1;
}
