/* The one list of variables that change behaviour (runenv.h). */
#include "harness/run/runenv.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

/* X(name, prefix): a prefix matches every variable that starts with it. */
#define VC_RUNENV_TABLE(X)          \
  X("XDG_CACHE_HOME", false)        \
  X("POCL_CACHE_DIR", false)        \
  X("CUDA_CACHE_DISABLE", false)    \
  X("VK_DRIVER_FILES", false)       \
  X("VK_ICD_FILENAMES", false)      \
  X("OCL_ICD_VENDORS", false)       \
  X("OCL_ICD_FILENAMES", false)     \
  X("MESA_", true)                  \
  X("__GL_", true)

static const struct {
  const char *name;
  bool prefix;
} vars[] = {
#define VC_X(n, p) {n, p},
    VC_RUNENV_TABLE(VC_X)
#undef VC_X
};

static bool wanted(const char *entry) {
  const char *eq = strchr(entry, '=');
  if (!eq) return false;
  size_t len = (size_t)(eq - entry);
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
    size_t n = strlen(vars[i].name);
    if (vars[i].prefix ? len >= n && strncmp(entry, vars[i].name, n) == 0
                       : len == n && strncmp(entry, vars[i].name, n) == 0)
      return true;
  }
  return false;
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void vc_run_environment(vc_strbuf *sb) {
  size_t n = 0, k = 0;
  for (char **e = environ; e && *e; e++) n += wanted(*e);
  const char **list = malloc((n ? n : 1) * sizeof *list);
  if (!list) abort();
  for (char **e = environ; e && *e && k < n; e++)
    if (wanted(*e)) list[k++] = *e;
  qsort(list, k, sizeof *list, by_name);
  for (size_t i = 0; i < k; i++) {
    vc_sb_puts(sb, list[i]);
    vc_sb_puts(sb, "\n");
  }
  free(list);
}
