/* The lock of a run (runlock.h). */
#include "harness/run/runlock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

void vc_runlock_init(vc_runlock *l) {
  l->fd = -1;
  l->path[0] = '\0';
}

int vc_runlock_fd(const vc_runlock *l) { return l->fd; }

/* The process id the holder wrote, or 0 when it cannot be read. */
static long holder_pid(int fd) {
  char buf[32];
  ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return 0;
  buf[n] = '\0';
  return strtol(buf, NULL, 10);
}

int vc_runlock_take(vc_runlock *l, const char *db_path, int64_t run_id, vc_error *err) {
  snprintf(l->path, sizeof l->path, "%s.run-%lld.lock", db_path, (long long)run_id);
  /* The holder removes the file when its run ends: a lock taken on a file
     removed meanwhile is taken again on the file now at the path. */
  for (int tries = 0; tries < 100; tries++) {
    int fd = open(l->path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0)
      return vc_fail(err, VC_ERR_IO, "run %lld of %s: cannot make its lock file %s: %s",
                     (long long)run_id, db_path, l->path, strerror(errno));
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      int e = errno;
      long pid = e == EWOULDBLOCK ? holder_pid(fd) : 0;
      close(fd);
      if (e != EWOULDBLOCK)
        return vc_fail(err, VC_ERR_IO, "run %lld of %s: cannot lock %s: %s", (long long)run_id,
                       db_path, l->path, strerror(e));
      char who[48] = "another process";
      if (pid > 0) snprintf(who, sizeof who, "process %ld", pid);
      return vc_fail(err, VC_ERR_USAGE,
                     "run %lld of %s is still running in %s (it holds %s); it can be "
                     "resumed once that process has ended",
                     (long long)run_id, db_path, who, l->path);
    }
    struct stat held, now;
    if (fstat(fd, &held) == 0 && stat(l->path, &now) == 0 && held.st_dev == now.st_dev &&
        held.st_ino == now.st_ino) {
      char line[32];
      int n = snprintf(line, sizeof line, "%ld\n", (long)getpid());
      if (ftruncate(fd, 0) != 0 || pwrite(fd, line, (size_t)n, 0) != n) {
        /* the pid is for the message of a refused resume only */
      }
      l->fd = fd;
      return 0;
    }
    close(fd);
  }
  return vc_fail(err, VC_ERR_IO, "run %lld of %s: its lock file %s keeps being replaced",
                 (long long)run_id, db_path, l->path);
}

void vc_runlock_release(vc_runlock *l) {
  if (l->fd < 0) return;
  unlink(l->path); /* while held: a process that opened it before locks it again (above) */
  close(l->fd);
  l->fd = -1;
}
