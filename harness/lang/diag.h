/* Diagnostics: file:line:col: message, collected so that all errors of a
 * file are reported together. */
#ifndef VC_DIAG_H
#define VC_DIAG_H

#include <stdint.h>
#include <stdio.h>

#include "harness/model/program.h"

typedef struct vc_diag {
  char *file;
  vc_loc loc;
  char *msg;
} vc_diag;

/* A file keeps at most this many diagnostics (a binary file would give one
   per byte); the rest are only counted, and printed as "too many errors". */
#define VC_DIAGS_MAX 20u

typedef struct vc_diags {
  vc_diag *items;
  uint32_t count, cap;
  uint32_t dropped; /* reported beyond VC_DIAGS_MAX, not kept */
  /* (expect reject "...") of a file, kept even when the file has errors,
     so that a program that must be refused can be checked. NULL if none. */
  char *expect_reject;
} vc_diags;

void vc_diags_init(vc_diags *d);
void vc_diags_free(vc_diags *d);
void vc_diags_add(vc_diags *d, const char *file, vc_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Every diagnostic reported, kept or not. */
uint32_t vc_diags_reported(const vc_diags *d);
/* Writes each as "file:line:col: message\n", then "file: too many errors
   (N more not shown)" when some were dropped. */
void vc_diags_print(const vc_diags *d, FILE *out);
/* Is there a diagnostic whose message contains text? */
int vc_diags_contain(const vc_diags *d, const char *text);

#endif
