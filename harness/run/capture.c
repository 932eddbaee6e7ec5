#define _GNU_SOURCE /* close_range */
#include "harness/run/capture.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The echo process: copies the file (fd 0 here) to the real standard error
   (fd 1) as it grows, until the pipe (fd 2) ends because the worker closed
   it or died; then the rest. Only async-signal-safe calls: it is the child
   of a process whose driver may hold locks in other threads. */
static void echo_main(void) {
  char buf[8192];
  off_t off = 0;
  for (;;) {
    struct pollfd p = {2, POLLIN, 0};
    int r = poll(&p, 1, 20);
    ssize_t got;
    while ((got = pread(0, buf, sizeof buf, off)) > 0) {
      for (ssize_t w = 0; w < got;) {
        ssize_t put = write(1, buf + w, (size_t)(got - w));
        if (put <= 0) _exit(0);
        w += put;
      }
      off += got;
    }
    if (r > 0 || (r < 0 && errno != EINTR)) _exit(0); /* EOF or hang-up: done */
  }
}

static void close_from(int lowest) {
  if (close_range((unsigned)lowest, ~0u, 0) == 0) return;
  long max = sysconf(_SC_OPEN_MAX);
  for (long fd = lowest; fd < (max > 0 && max < 65536 ? max : 65536); fd++) close((int)fd);
}

void vc_capture_start(vc_capture *c) {
  memset(c, 0, sizeof *c);
  c->saved = c->file = c->alive = -1;
  const char *dir = getenv("TMPDIR");
  char path[512];
  snprintf(path, sizeof path, "%s/vyre-conform-stderr-XXXXXX", dir && dir[0] ? dir : "/tmp");
  int fd = mkstemp(path);
  if (fd < 0) return;
  unlink(path);
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) {
    close(fd);
    return;
  }
  fflush(stderr);
  int saved = dup(2);
  pid_t pid = saved >= 0 ? fork() : -1;
  if (pid == 0) {
    /* the file, the real stderr and the pipe's read end as fds 0, 1, 2 */
    int keep[3] = {dup(fd), dup(saved), dup(pipefd[0])};
    if (keep[0] < 0 || keep[1] < 0 || keep[2] < 0) _exit(1);
    for (int i = 0; i < 3; i++)
      if (dup2(keep[i], i) < 0) _exit(1);
    close_from(3);
    /* the worker's end, not a key or a signal to the group, ends it */
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    echo_main();
  }
  close(pipefd[0]);
  if (pid < 0 || dup2(fd, 2) < 0) {
    if (pid > 0) {
      close(pipefd[1]);
      waitpid(pid, NULL, 0);
    } else {
      close(pipefd[1]);
    }
    if (saved >= 0) close(saved);
    close(fd);
    return;
  }
  c->saved = saved;
  c->file = fd;
  c->alive = pipefd[1];
  c->echo = pid;
}

void vc_capture_take(vc_capture *c, char *out, size_t n) {
  if (n) out[0] = '\0';
  if (c->saved < 0 || n == 0) return;
  fflush(stderr);
  off_t end = lseek(c->file, 0, SEEK_END);
  if (end < 0 || (uint64_t)end <= c->taken) return;
  uint64_t size = (uint64_t)end - c->taken;
  char more[48] = "";
  size_t keep = size > n - 1 ? 0 : (size_t)size;
  if (size > n - 1) {
    keep = n > sizeof more ? n - sizeof more : 0; /* and the note of what was cut */
    snprintf(more, sizeof more, "\n[... %llu more bytes]", (unsigned long long)(size - keep));
  }
  ssize_t got = keep ? pread(c->file, out, keep, (off_t)c->taken) : 0;
  size_t len = got > 0 ? (size_t)got : 0;
  for (size_t i = 0; i < len; i++)
    if (out[i] == '\0') out[i] = '?';
  out[len] = '\0';
  if (more[0]) snprintf(out + len, n - len, "%s", more);
  c->taken = (uint64_t)end;
}

void vc_capture_skip(vc_capture *c) {
  if (c->saved < 0) return;
  fflush(stderr);
  off_t end = lseek(c->file, 0, SEEK_END);
  if (end >= 0) c->taken = (uint64_t)end;
}

void vc_capture_stop(vc_capture *c) {
  if (c->saved < 0) return;
  fflush(stderr);
  dup2(c->saved, 2);
  close(c->alive); /* the echo process passes on the rest and ends */
  while (waitpid(c->echo, NULL, 0) < 0 && errno == EINTR) {
  }
  close(c->saved);
  close(c->file);
  c->saved = c->file = c->alive = -1;
}
