/* Output paths against inputs (outpath.h). */
#define _DEFAULT_SOURCE /* realpath */
#include "harness/cli/outpath.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness/base/file.h"

bool vc_out_is_stdout(const char *path) {
  return path && strcmp(path, "-") == 0;
}

/* path made absolute with its symbolic links resolved; for a file that does
   not exist yet, its folder resolved and its name appended. */
static void resolve(const char *path, char *out, size_t n) {
  char buf[PATH_MAX];
  if (realpath(path, buf)) {
    snprintf(out, n, "%s", buf);
    return;
  }
  const char *slash = strrchr(path, '/');
  char dir[PATH_MAX];
  if (!slash)
    snprintf(dir, sizeof dir, ".");
  else if (slash == path)
    snprintf(dir, sizeof dir, "/");
  else
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
  const char *name = slash ? slash + 1 : path;
  if (realpath(dir, buf))
    snprintf(out, n, "%s/%s", strcmp(buf, "/") ? buf : "", name);
  else
    snprintf(out, n, "%s", path);
}

/* The same file: one inode when both exist, else one resolved path. */
static bool same_file(const char *a, const char *b) {
  struct stat sa, sb;
  bool ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
  if (ea && eb) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  if (ea != eb) return false;
  char ra[PATH_MAX + 256], rb[PATH_MAX + 256];
  resolve(a, ra, sizeof ra);
  resolve(b, rb, sizeof rb);
  return strcmp(ra, rb) == 0;
}

/* Does writing out write into input in (a database's siblings included)?
   *what names the file hit: "" for the input itself, else its suffix. */
static bool hits(const char *out, const vc_io_file *in, const char **what) {
  *what = "";
  if (same_file(out, in->path)) return true;
  if (!in->database) return false;
  static const char *const siblings[] = {"-wal", "-journal", "-shm"};
  char real[PATH_MAX + 256], sib[PATH_MAX + 300];
  resolve(in->path, real, sizeof real);
  for (size_t k = 0; k < sizeof siblings / sizeof siblings[0]; k++) {
    /* SQLite names them after the path as opened and as resolved */
    const char *bases[2] = {in->path, real};
    for (int b = 0; b < 2; b++) {
      snprintf(sib, sizeof sib, "%s%s", bases[b], siblings[k]);
      if (same_file(out, sib)) {
        *what = siblings[k];
        return true;
      }
    }
  }
  return false;
}

int vc_out_check(const vc_io_file *outs, uint32_t nouts, const vc_io_file *ins, uint32_t nins,
                 vc_error *err) {
  for (uint32_t i = 0; i < nouts; i++) {
    const vc_io_file *o = &outs[i];
    if (!o->path) continue;
    for (uint32_t j = 0; j < i; j++) {
      if (!outs[j].path) continue;
      if (vc_out_is_stdout(o->path) && vc_out_is_stdout(outs[j].path))
        return vc_fail(err, VC_ERR_USAGE,
                       "%s - and %s - both write to standard output: give one of them a file",
                       outs[j].role, o->role);
      if (!vc_out_is_stdout(o->path) && !vc_out_is_stdout(outs[j].path) &&
          same_file(o->path, outs[j].path))
        return vc_fail(err, VC_ERR_USAGE, "%s %s and %s %s are the same file: one would replace "
                       "the other", outs[j].role, outs[j].path, o->role, o->path);
    }
    if (vc_out_is_stdout(o->path)) continue;
    for (uint32_t j = 0; j < nins; j++) {
      const char *what;
      if (!ins[j].path || !hits(o->path, &ins[j], &what)) continue;
      if (*what)
        return vc_fail(err, VC_ERR_USAGE,
                       "%s %s is the %s file of %s %s, which this command reads: writing it "
                       "would damage the database; name another file",
                       o->role, o->path, what, ins[j].role, ins[j].path);
      return vc_fail(err, VC_ERR_USAGE,
                     "%s %s is %s %s, which this command reads: writing it would replace it; "
                     "name another file",
                     o->role, o->path, ins[j].role, ins[j].path);
    }
  }
  return 0;
}

int vc_out_write(const char *path, const vc_strbuf *sb, vc_error *err) {
  if (vc_out_is_stdout(path)) {
    fwrite(sb->data ? sb->data : "", 1, sb->len, stdout);
    return fflush(stdout) == 0 ? 0 : vc_fail(err, VC_ERR_IO, "writing standard output");
  }
  return vc_file_write(path, sb, err);
}
