/* Helpers of the reducer's tests: running vyre-conform, reading files,
 * measuring a program. */
#ifndef VC_TEST_REDUCE_UTIL_H
#define VC_TEST_REDUCE_UTIL_H

#include <stdbool.h>
#include <stddef.h>

#include "harness/reduce/reduce.h"

/* Runs `vyre-conform ARGS` (a shell command line after the binary) with
   output into a file; returns the exit status; *out (when not NULL) gets
   stdout and stderr, malloc'ed. env: "NAME=VALUE " prefixes, or "". */
int ru_run(const char *env, const char *args, char **out);
char *ru_read(const char *path);
/* A temporary folder of the test. */
void ru_tmpdir(char *buf, size_t n, const char *tag);
/* Parses the file: true with its size when it is a program. */
bool ru_size(const char *path, vc_reduce_size *s);
/* `vyre-conform check FILE` in a build without planted faults passes:
   the program is valid (exit 0). */
bool ru_valid(const char *path);

#endif
