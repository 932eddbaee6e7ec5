/* results/package: a qualification package (the evidence of a set of runs, checkable by a third party) and its verifier. */
/* A package (docs/qualification/README.md) is a folder and the same folder
 * as DIR.tar.gz: a consistent copy of the results database, the records,
 * the logs, the expectations the runs were judged by, the state of the
 * checkout, a statement to fill in, manifest.json and SHA256SUMS. The
 * verifier checks that it is complete and consistent. */
#ifndef VC_PACKAGE_H
#define VC_PACKAGE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "harness/base/error.h"

#define VC_PACKAGE_FORMAT_VERSION 1

/* The binary that makes the package, as --version prints it. */
typedef struct vc_package_build {
  const char *version, *commit, *build_id;
  const char *compiler, *build_type, *cmake_options;
} vc_package_build;

typedef struct vc_package_opts {
  const char *out;      /* DIR; DIR.tar.gz beside it */
  const char *db;
  const char *source;   /* the checkout whose state is recorded */
  const char *const *logs;
  uint32_t nlogs;
  const char *backends; /* a `vyre-conform backends` listing, or NULL */
  const char *product, *driver, *os; /* NULL: "FILL IN" */
  bool allow_dirty;
  vc_package_build build;
} vc_package_opts;

/* Writes the package. A dirty checkout without allow_dirty is VC_ERR_USAGE
   naming its files; a run's expectations file that cannot be read, or that
   changed since the run, VC_ERR_IO naming the run and the file; DIR or
   DIR.tar.gz already there, VC_ERR_USAGE. On an error nothing of DIR is
   left. Warnings (a run that will not verify) go to warn. */
int vc_package_make(const vc_package_opts *o, FILE *warn, vc_error *err);

typedef struct vc_verify_counts {
  uint32_t problems; /* each makes the package invalid */
  uint32_t warnings;
} vc_verify_counts;

/* Checks the package at path (a folder or a .tar.gz), printing each problem
   and warning on its own line to out. 0 when it was checked (c says what
   was found), VC_ERR_IO when path cannot be read or unpacked. */
int vc_package_verify(const char *path, FILE *out, vc_verify_counts *c, vc_error *err);

#endif
