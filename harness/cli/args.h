/* A small command-line parser: long options `--name VALUE`, `--name=VALUE`,
 * flags `--name`, and positional arguments, in any order; `--` ends options.
 * Unknown options and missing values are usage errors that name the option.
 * A separate VALUE that starts with `--` is refused as a forgotten value
 * (`--filter --db x.db`); `--name=--v` gives such a value on purpose, and a
 * value `-` (standard output) or `-x` is taken as it is. */
#ifndef VC_ARGS_H
#define VC_ARGS_H

#include <stdbool.h>
#include <stdint.h>

#include "harness/base/error.h"

typedef struct vc_opt {
  const char *name;   /* without the dashes */
  bool takes_value;
  bool repeatable;
  /* filled by vc_args_parse */
  const char *value;  /* last value, or "" for a flag that was given */
  const char **values;/* all values of a repeatable option */
  uint32_t count;
} vc_opt;

/* An option entry: VC_OPT("name", takes_value, repeatable). */
#define VC_OPT(name, takes_value, repeatable) {(name), (takes_value), (repeatable), NULL, NULL, 0}

typedef struct vc_args {
  const char **pos;   /* positional arguments */
  uint32_t npos;
} vc_args;

/* argv[0] is the command name and is skipped. */
int vc_args_parse(int argc, char **argv, vc_opt *opts, uint32_t nopts, vc_args *out,
                  vc_error *err);
void vc_args_free(vc_opt *opts, uint32_t nopts, vc_args *a);
/* Starts with `--`: an option, never a separate option's value. */
bool vc_args_looks_like_option(const char *arg);
vc_opt *vc_args_get(vc_opt *opts, uint32_t nopts, const char *name);
/* Number parsing with a usage error naming the option on bad input. */
int vc_args_u32(const vc_opt *o, uint32_t lo, uint32_t hi, uint32_t *out, vc_error *err);
int vc_args_u64(const vc_opt *o, uint64_t *out, vc_error *err);

#endif
