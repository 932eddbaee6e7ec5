#define _DEFAULT_SOURCE /* realpath */
#include "harness/run/default_exps.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef VC_SOURCE_EXPECTATIONS_DIR
#define VC_SOURCE_EXPECTATIONS_DIR ""
#endif
#ifndef VC_BUILD_BINARY_DIR
#define VC_BUILD_BINARY_DIR ""
#endif
#ifndef VC_INSTALL_EXPECTATIONS_DIR
#define VC_INSTALL_EXPECTATIONS_DIR "/usr/local/share/vyre-conform/expectations"
#endif

static void looked(vc_default_exps *out, const char *path) {
  size_t u = strlen(out->looked);
  snprintf(out->looked + u, sizeof out->looked - u, "%s%s", u ? ", " : "", path);
}

/* Is path a readable file? Noted among the places looked either way. */
static bool try_file(vc_default_exps *out, const char *path, const char *where) {
  looked(out, path);
  if (access(path, R_OK) != 0) return false;
  snprintf(out->path, sizeof out->path, "%s", path);
  out->where = where;
  out->found = true;
  return true;
}

/* The working directory is a checkout's root: it holds the backend's file
   and the corpus. The file is named absolutely, since the run records it
   for report and compare, which may run elsewhere. */
static bool from_checkout(const char *backend, vc_default_exps *out) {
  char rel[512], abs[PATH_MAX];
  struct stat st;
  snprintf(rel, sizeof rel, "ci/expectations/%s.txt", backend);
  looked(out, rel);
  if (access(rel, R_OK) != 0 || stat("corpus", &st) != 0 || !S_ISDIR(st.st_mode)) return false;
  if (!realpath(rel, abs)) return false;
  snprintf(out->path, sizeof out->path, "%s", abs);
  out->where = "the checkout in the working directory";
  out->found = true;
  return true;
}

void vc_default_expectations(const char *backend, vc_default_exps *out) {
  memset(out, 0, sizeof *out);
  if (from_checkout(backend, out)) return;
  char self[4096], path[4400];
  ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (len > 0) {
    self[len] = '\0';
    char *slash = strrchr(self, '/');
    if (slash) *slash = '\0';
    if (VC_BUILD_BINARY_DIR[0] && strcmp(self, VC_BUILD_BINARY_DIR) == 0 &&
        VC_SOURCE_EXPECTATIONS_DIR[0]) {
      snprintf(path, sizeof path, "%s/%s.txt", VC_SOURCE_EXPECTATIONS_DIR, backend);
      if (try_file(out, path, "the source tree this binary was built from")) return;
    } else {
      snprintf(path, sizeof path, "%s/../share/vyre-conform/expectations/%s.txt", self, backend);
      if (try_file(out, path, "installed beside the binary")) return;
    }
  }
  snprintf(path, sizeof path, "%s/%s.txt", VC_INSTALL_EXPECTATIONS_DIR, backend);
  try_file(out, path, "installed under the configured prefix");
}
