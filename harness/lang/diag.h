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

typedef struct vc_diags {
  vc_diag *items;
  uint32_t count, cap;
  /* (expect reject "...") of a file, kept even when the file has errors,
     so that a program that must be refused can be checked. NULL if none. */
  char *expect_reject;
} vc_diags;

void vc_diags_init(vc_diags *d);
void vc_diags_free(vc_diags *d);
void vc_diags_add(vc_diags *d, const char *file, vc_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Writes each as "file:line:col: message\n". */
void vc_diags_print(const vc_diags *d, FILE *out);
/* Is there a diagnostic whose message contains text? */
int vc_diags_contain(const vc_diags *d, const char *text);

#endif
