/* The settings of a run as one line of text, kept in the run's row so that
 * `--resume RUN` restores them: `key=value ...`, a value in double quotes
 * (with \" and \\) when it is empty or holds a space, a quote or a
 * backslash; a key given several times (filter, exclude-tag, path) repeats. */
#ifndef VC_RUNOPTS_H
#define VC_RUNOPTS_H

#include <stdint.h>

#include "harness/base/error.h"
#include "harness/base/strbuf.h"
#include "harness/run/runner.h"

/* --timeout's default, seconds per program (a program may state its own). */
#define VC_RUN_DEFAULT_TIMEOUT_S 60
/* --db-timeout: how long a write waits for the results file's lock that
   another process holds, before the run fails (exit 5). */
#define VC_RUN_DEFAULT_DB_TIMEOUT_S 60

/* X(ENUM, key): every setting a resumed run takes from the stored one. */
#define VC_RUN_SETTING_TABLE(X)        \
  X(BACKEND, "backend")                \
  X(DEVICE, "device")                  \
  X(DEVICE_OPTIONS, "device-options")  \
  X(MODE, "mode")                      \
  X(REPEAT, "repeat")                  \
  X(FILTER, "filter")                  \
  X(EXCLUDE_TAG, "exclude-tag")        \
  X(SHARD, "shard")                    \
  X(SHARD_COSTS, "shard-costs")        \
  X(TIMEOUT, "timeout")                \
  X(EXPECTATIONS, "expectations")      \
  X(MAX_BUFFER_BYTES, "max-buffer-bytes") \
  X(ORACLE_ORDER, "oracle-order")      \
  X(FLAKE_RERUNS, "flake-reruns")      \
  X(JOBS, "jobs")                      \
  X(DEVICE_JOBS, "device-jobs")        \
  X(PATH, "path")

typedef enum vc_run_setting {
#define VC_X(e, k) VC_SET_##e,
  VC_RUN_SETTING_TABLE(VC_X)
#undef VC_X
  VC_SET_COUNT
} vc_run_setting;

const char *vc_run_setting_key(vc_run_setting s);

/* The stored line for o. */
void vc_run_settings_text(const vc_runner_opts *o, vc_strbuf *out);
/* One setting's value as the stored line spells it (several values space
   separated, each quoted as needed); "" when unset. */
void vc_run_setting_value(const vc_runner_opts *o, vc_run_setting s, vc_strbuf *out);

/* Strings and lists a restored vc_runner_opts points into. */
typedef struct vc_run_restored {
  char **strs;
  uint32_t nstrs, cap;
  const char **filters, **tags, **paths;
} vc_run_restored;
void vc_run_restored_free(vc_run_restored *r);

/* --resume: reads run o->resume_run's settings from o->db_path and puts
   them into o. A setting given on the command line (bit 1 << setting in
   given) must equal the stored one: otherwise a usage error naming both.
   jobs and device-jobs are the exception: they change how fast, not what
   is found, so one given replaces the stored one. */
int vc_run_restore_settings(vc_runner_opts *o, uint32_t given, vc_run_restored *keep,
                            vc_error *err);

/* o->db_timeout_s (the default when 0) in milliseconds, for vc_db_open. */
int vc_run_db_busy_ms(const vc_runner_opts *o);

/* "native,host-split": every item a known mode, none empty, none twice. */
int vc_parse_modes(const char *list, vc_conform_opts *c, vc_error *err);
/* --inject-flip M:BUF:I (and with attempts, M:BUF:I@N: a flake on the first
   N attempts; *attempts 0 without it): c's flip fields point into buf. */
int vc_parse_flip(const char *s, vc_conform_opts *c, uint32_t *attempts, char *buf, size_t n,
                  vc_error *err);
/* forward, reverse or shuffle:SEED. */
int vc_parse_oracle_order(const char *s, vc_oracle_opts *o, vc_error *err);

#endif
