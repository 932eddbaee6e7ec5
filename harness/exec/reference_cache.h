/* The reference cache (docs/performance.md, "Reference cache"): the
 * reference run's oracle outputs and report kept in files, so that the
 * runs of one program on several backends, and a run repeated, compute
 * them once per program and build. An entry's key is the program (its
 * source digest and its printed form, from which its inputs derive), the
 * oracle options that change the outputs or the report (order, seed,
 * checks) and the oracle's build (the running binary's SHA-256). Entries
 * are never trusted: one whose header, sizes or payload digest do not
 * match is a miss, said on stderr, and the run that follows rewrites it.
 * Writers write a temporary file and rename it; a process that misses
 * holds an flock on the entry's lock file while it computes, so that
 * concurrent runs and workers wait for one computation instead of each
 * doing it. */
#ifndef VC_REFERENCE_CACHE_H
#define VC_REFERENCE_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "harness/base/error.h"
#include "harness/base/kcache.h"
#include "harness/exec/reference.h"
#include "harness/model/program.h"
#include "oracles/oracle.h"

/* Where entries live and what build they are of. dir "": no cache. */
typedef struct vc_refcache {
  char dir[VC_KCACHE_DIR_MAX];
  char build[65]; /* the oracle's build; vc_refcache_init: vc_build_id() */
} vc_refcache;

/* dir_arg (--reference-cache DIR, made absolute), else the default folder
   (vc_refcache_default_dir); off with no_cache, where the build cannot be
   identified (it would be no key), and in a build with planted faults
   while the environment switches one on (docs/detection.md). */
int vc_refcache_init(vc_refcache *c, const char *dir_arg, bool no_cache, vc_error *err);
/* $XDG_CACHE_HOME/vyre-conform/reference, else ~/.cache/vyre-conform/reference. */
int vc_refcache_default_dir(char *out, size_t n, vc_error *err);

/* The key of p's reference run under opts; source_digest is the SHA-256 of
   the text p was parsed from (its locations are in the report's messages). */
void vc_refcache_key(const vc_refcache *c, const char *source_digest, const vc_program *p,
                     const vc_oracle_opts *opts, uint8_t key[32]);
/* DIR/xx/<64 hex digits>.vcr */
void vc_refcache_path(const vc_refcache *c, const uint8_t key[32], char *out, size_t n);

/* Looks key up: 1 on a hit, with r's inputs (regenerated), outputs and
   report; 0 on a miss (r freed). A damaged entry is a miss and, with warn,
   a line on stderr. */
int vc_refcache_get(const vc_refcache *c, const uint8_t key[32], const vc_program *p,
                    bool warn, vc_reference *r);
/* Stores r under key: a temporary file, then rename(2) over the entry. */
int vc_refcache_put(const vc_refcache *c, const uint8_t key[32], const vc_program *p,
                    const vc_reference *r, vc_error *err);

/* vc_reference_run through the cache (c NULL, off, or source_digest empty:
   the plain run): a hit sets r->cached and runs no oracle; a miss runs it
   under the entry's lock and stores a successful run (a failure to store
   is a warning, never the run's error). */
int vc_reference_run_cached(const vc_refcache *c, const char *source_digest, const vc_program *p,
                            const vc_oracle_opts *opts, vc_reference *r, vc_error *err);

#endif
