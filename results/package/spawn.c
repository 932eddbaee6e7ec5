/* fork, exec, wait (spawn.h). Output through a temporary file: no pipe to
   drain while the child runs. */
#include "results/package/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/base/file.h"

static int tmp_fd(char *path, size_t n) {
  vc_temp_template(path, n, "vc-spawn");
  int fd = mkstemp(path);
  if (fd >= 0) unlink(path);
  return fd;
}

static void slurp(int fd, vc_strbuf *sb) {
  char buf[4096];
  ssize_t got;
  lseek(fd, 0, SEEK_SET);
  while ((got = read(fd, buf, sizeof buf)) > 0) {
    buf[got] = '\0';
    for (ssize_t i = 0; i < got; i++) vc_sb_putc(sb, buf[i] ? buf[i] : '?');
  }
}

int vc_spawn(const char *const argv[], const char *out_path, vc_strbuf *out, vc_error *err) {
  char tpath[4096];
  int efd = tmp_fd(tpath, sizeof tpath);
  int ofd = out_path ? open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)
            : out     ? tmp_fd(tpath, sizeof tpath)
                      : open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (efd < 0 || ofd < 0) {
    int e = errno;
    if (efd >= 0) close(efd);
    if (ofd >= 0) close(ofd);
    return vc_fail(err, VC_ERR_IO, "%s: %s", out_path ? out_path : "a temporary file", strerror(e));
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(ofd, 1);
    dup2(efd, 2);
    char *args[32] = {0}; /* exec's argv is not const; nor is it written */
    for (int i = 0; argv[i] && i < 31; i++) memcpy(&args[i], &argv[i], sizeof args[i]);
    execvp(args[0], args);
    fprintf(stderr, "cannot run %s: %s", argv[0], strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  int rc = 0;
  if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    vc_strbuf said, cmd;
    vc_sb_init(&said);
    vc_sb_init(&cmd);
    slurp(efd, &said);
    for (int i = 0; argv[i]; i++) vc_sb_printf(&cmd, "%s%s", i ? " " : "", argv[i]);
    if (said.len && said.data[said.len - 1] == '\n') said.data[--said.len] = '\0';
    rc = vc_fail(err, VC_ERR_IO, "`%s` %s%s%s", vc_sb_str(&cmd),
                 pid < 0 ? "could not start" : WIFEXITED(status) ? "failed" : "was killed",
                 said.len ? ": " : "", vc_sb_str(&said));
    vc_sb_free(&said);
    vc_sb_free(&cmd);
  } else if (out && !out_path) {
    slurp(ofd, out);
  }
  close(efd);
  close(ofd);
  return rc;
}
