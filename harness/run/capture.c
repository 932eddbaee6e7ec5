#define _GNU_SOURCE /* close_range */
#include "harness/run/capture.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/base/file.h"

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

static int temp_file(char *path, size_t n) {
  vc_temp_template(path, n, "vyre-conform-stderr");
  return mkstemp(path);
}

void vc_capture_file_open(vc_capture_file *f) {
  f->fd = f->read_fd = -1;
  f->taken = NULL;
  char path[512];
  int fd = temp_file(path, sizeof path);
  if (fd < 0) return;
  /* a description of its own: the worker's writes move only theirs */
  int rd = open(path, O_RDONLY | O_CLOEXEC);
  unlink(path);
  void *m = mmap(NULL, sizeof *f->taken, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (rd < 0 || m == MAP_FAILED) {
    close(fd);
    if (rd >= 0) close(rd);
    if (m != MAP_FAILED) munmap(m, sizeof *f->taken);
    return;
  }
  f->fd = fd;
  f->read_fd = rd;
  f->taken = m;
  *f->taken = 0;
}

void vc_capture_file_close(vc_capture_file *f) {
  if (f->fd >= 0) close(f->fd);
  if (f->read_fd >= 0) close(f->read_fd);
  if (f->taken) munmap(f->taken, sizeof *f->taken);
  f->fd = f->read_fd = -1;
  f->taken = NULL;
}

/* Bytes [from, end) of fd into out, at most n - 1 of them (NUL bytes as
   '?'), a longer text cut and ending in "[... N more bytes]". */
static void read_bounded(int fd, uint64_t from, uint64_t end, char *out, size_t n) {
  out[0] = '\0';
  if (end <= from) return;
  uint64_t size = end - from;
  char more[48] = "";
  size_t keep = size > n - 1 ? 0 : (size_t)size;
  if (size > n - 1) {
    keep = n > sizeof more ? n - sizeof more : 0; /* and the note of what was cut */
    snprintf(more, sizeof more, "\n[... %llu more bytes]", (unsigned long long)(size - keep));
  }
  ssize_t got = keep ? pread(fd, out, keep, (off_t)from) : 0;
  size_t len = got > 0 ? (size_t)got : 0;
  for (size_t i = 0; i < len; i++)
    if (out[i] == '\0') out[i] = '?';
  out[len] = '\0';
  if (more[0]) snprintf(out + len, n - len, "%s", more);
}

void vc_capture_file_rest(const vc_capture_file *f, char *out, size_t n) {
  if (n) out[0] = '\0';
  struct stat st;
  if (n == 0 || f->read_fd < 0 || fstat(f->read_fd, &st) != 0) return;
  read_bounded(f->read_fd, *f->taken, (uint64_t)st.st_size, out, n);
}

void vc_capture_start(vc_capture *c) { vc_capture_start_in(c, NULL); }

void vc_capture_start_in(vc_capture *c, const vc_capture_file *f) {
  memset(c, 0, sizeof *c);
  c->saved = c->file = c->alive = -1;
  c->taken = &c->own;
  char path[512];
  int fd = -1;
  if (f && f->fd >= 0 && (fd = dup(f->fd)) >= 0) {
    c->taken = f->taken;
    *c->taken = (uint64_t)lseek(fd, 0, SEEK_END);
  } else {
    if ((fd = temp_file(path, sizeof path)) < 0) return;
    unlink(path);
  }
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
    /* the worker's end, not a key or a signal to the group, ends it; in a
       group of its own, so that the runner's kill of a dead or hung
       worker's group (lifeline.c) does not take its last words with it */
    setpgid(0, 0);
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    echo_main();
  }
  close(pipefd[0]);
  if (pid > 0) setpgid(pid, pid); /* as the child does: whichever runs first */
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
  if (end < 0 || (uint64_t)end <= *c->taken) return;
  read_bounded(c->file, *c->taken, (uint64_t)end, out, n);
  *c->taken = (uint64_t)end;
}

void vc_capture_skip(vc_capture *c) {
  if (c->saved < 0) return;
  fflush(stderr);
  off_t end = lseek(c->file, 0, SEEK_END);
  if (end >= 0) *c->taken = (uint64_t)end;
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
