#include "harness/cli/cmd_util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "harness/base/exitcodes.h"

bool vc_cmd_option(int argc, char **argv, int *i, const char *name, const char **value) {
  const char *arg = argv[*i];
  size_t n = strlen(name);
  if (strncmp(arg, name, n) != 0) return false;
  if (arg[n] == '=') {
    *value = arg + n + 1;
    return true;
  }
  if (arg[n] != '\0') return false;
  *value = *i + 1 < argc ? argv[++*i] : NULL;
  return true;
}

bool vc_cmd_help(int argc, char **argv, const char *usage) {
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      printf("usage: %s\n", usage);
      return true;
    }
  return false;
}

void vc_cmd_error(const char *cmd, const vc_error *err) {
  fprintf(stderr, "vyre-conform %s: %s\n", cmd, err->msg);
}

int vc_cmd_usage_error(const char *cmd, const char *usage, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "vyre-conform %s: ", cmd);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\nusage: %s\n", usage);
  return VC_EXIT_USAGE;
}

int vc_cmd_exit_for(const vc_error *err) {
  switch (err->code) {
  case VC_ERR_DB: return VC_EXIT_DB;
  case VC_ERR_IO:
  case VC_ERR_PARSE: return VC_EXIT_INPUT;
  case VC_ERR_USAGE: return VC_EXIT_USAGE;
  default: return VC_EXIT_FAIL;
  }
}
