/* What the commands share: option parsing, messages, exit statuses and
 * the recorded command line. */
#ifndef VC_RESULTS_CMD_UTIL_H
#define VC_RESULTS_CMD_UTIL_H

#include <stdbool.h>

#include "harness/base/error.h"
#include "harness/base/strbuf.h"

/* Matches argv[*i] against "--name VALUE" or "--name=VALUE". On a match sets
 *value (NULL when the value is missing) and advances *i past a separate value.
 A separate value that starts with `--` is missing: it is the next option. */
bool vc_cmd_option(int argc, char **argv, int *i, const char *name, const char **value);
/* The usage error for argv[i], an option given without its value (what:
   "a file", "a run id"); names an option that stood where the value goes. */
int vc_cmd_no_value(const char *cmd, const char *usage, int argc, char **argv, int i,
                    const char *what);
/* True (after printing help, the command's whole text: usage, every option,
   the exit statuses) when an argument before any `--` is -h or --help. */
bool vc_cmd_help(int argc, char **argv, const char *help);
/* Prints "vyre-conform CMD: message" to stderr. */
void vc_cmd_error(const char *cmd, const vc_error *err);
/* Prints the message and the usage lines (the synopsis, not the whole
   help); returns VC_EXIT_USAGE. */
int vc_cmd_usage_error(const char *cmd, const char *usage, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The arguments joined by spaces, as a run records its command line;
   malloc'ed (free() it). Aborts when out of memory. */
char *vc_cmd_join_args(int argc, char **argv);
/* The exit status for an error: database 5, input 4, anything else 1. */
int vc_cmd_exit_for(const vc_error *err);

#endif
