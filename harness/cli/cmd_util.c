#include "harness/cli/cmd_util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/exitcodes.h"
#include "harness/cli/args.h"

bool vc_cmd_option(int argc, char **argv, int *i, const char *name, const char **value) {
  const char *arg = argv[*i];
  size_t n = strlen(name);
  if (strncmp(arg, name, n) != 0) return false;
  if (arg[n] == '=') {
    *value = arg + n + 1;
    return true;
  }
  if (arg[n] != '\0') return false;
  /* `--html --md r.md`: --html's value was forgotten; "--md" is no file name */
  *value = *i + 1 < argc && !vc_args_looks_like_option(argv[*i + 1]) ? argv[++*i] : NULL;
  return true;
}

int vc_cmd_no_value(const char *cmd, const char *usage, int argc, char **argv, int i,
                    const char *what) {
  const char *opt = argv[i];
  const char *eq = strchr(opt, '=');
  int len = eq ? (int)(eq - opt) : (int)strlen(opt);
  if (!eq && i + 1 < argc && vc_args_looks_like_option(argv[i + 1]))
    return vc_cmd_usage_error(cmd, usage,
                              "%.*s needs %s, and %s is an option (write %.*s=%s for a value "
                              "that starts with --)",
                              len, opt, what, argv[i + 1], len, opt, argv[i + 1]);
  return vc_cmd_usage_error(cmd, usage, "%.*s needs %s", len, opt, what);
}

bool vc_cmd_help(int argc, char **argv, const char *help) {
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--")) return false;
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      fputs(help, stdout);
      return true;
    }
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

char *vc_cmd_join_args(int argc, char **argv) {
  size_t n = 1;
  for (int i = 0; i < argc; i++) n += strlen(argv[i]) + 1;
  char *s = malloc(n);
  if (!s) abort();
  s[0] = '\0';
  for (int i = 0; i < argc; i++) {
    if (i) strcat(s, " ");
    strcat(s, argv[i]);
  }
  return s;
}
