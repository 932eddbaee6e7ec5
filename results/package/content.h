/* What vc_package_make gathered, for the files that describe it: the
 * manifest (manifest.c) and the statement (statement.c). */
#ifndef VC_PACKAGE_CONTENT_H
#define VC_PACKAGE_CONTENT_H

#include <stdbool.h>
#include <stdint.h>

#include "harness/base/strbuf.h"
#include "results/package/package.h"
#include "results/store/load.h"

/* The expectations file a run was judged by, as packaged. */
typedef struct vc_pkg_exps {
  char recorded[1024]; /* its expectations= setting; "" when none */
  char file[300];      /* "expectations/NAME", "" when none */
  char sha256[65];
} vc_pkg_exps;

/* A program of the corpus manifest. */
typedef struct vc_pkg_prog {
  const char *name, *path, *sha256;
} vc_pkg_prog;

typedef struct vc_pkg_content {
  const vc_package_opts *o;
  vc_run_data **runs;
  uint32_t nruns;
  vc_pkg_exps *exps; /* one a run */
  vc_pkg_prog *corpus;
  uint32_t ncorpus;
  bool clean;
  const char *status_text; /* git status --porcelain */
  char commit[64];         /* the checkout's HEAD */
  const char *const *files; /* what the package holds besides the manifest, statement and sums */
  uint32_t nfiles;
} vc_pkg_content;

void vc_pkg_manifest(const vc_pkg_content *c, vc_strbuf *sb);
void vc_pkg_statement(const vc_pkg_content *c, vc_strbuf *sb);

/* The kernel cache's share of a run: results, and those with a kernel from it. */
void vc_pkg_cache_counts(const vc_run_data *r, uint32_t *results, uint32_t *warm);
/* The corpus of the runs: the union of their selection lists, by name, each
   with the path a run recorded for it. Arrays in arena. */
void vc_pkg_corpus(vc_run_data *const *runs, uint32_t nruns, vc_arena *arena, vc_pkg_prog **out,
                   uint32_t *n);

#endif
