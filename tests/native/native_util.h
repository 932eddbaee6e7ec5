/* What the native-mode tests share: a program parsed and split into the
 * native kernel's description, and the .vyre files of a folder. */
#ifndef VC_NATIVE_UTIL_H
#define VC_NATIVE_UTIL_H

#include <stdbool.h>
#include <stddef.h>

#include "backends/backend.h"
#include "harness/split/split.h"

typedef struct native_case {
  vc_program *prog;
  vc_split *split;
  vc_native_desc desc;
  vc_kernel_desc kd; /* VC_KERNEL_NATIVE of prog, label "native" */
} native_case;

/* Parses and splits path; fails the running test on an error. */
void native_case_load(native_case *c, const char *path);
/* The same from program text. */
void native_case_text(native_case *c, const char *name, const char *text);
void native_case_free(native_case *c);

/* The .vyre files directly in dir, sorted, malloc'ed (free with
   native_list_free). */
char **native_list(const char *dir, size_t *n);
void native_list_free(char **list, size_t n);

/* Every .vyre file of tests/native/cases and of each folder of corpus/,
   sorted per folder (free with native_list_free). */
char **native_all_programs(size_t *n);

/* Parses and splits path into c; false (c untouched) for a file that does
   not parse or split, such as the corpus's programs that must be refused. */
bool native_case_try(native_case *c, const char *path);

/* A fresh folder /tmp/<prefix>XXXXXX in dir (size n), and its removal
   with everything in it; 0 on success, as cmocka's group setup wants. */
int native_tmpdir(char *dir, size_t n, const char *prefix);
int native_rmdir(const char *dir);

/* Runs a shell command; its exit status, -1 when it did not exit. */
int native_sh(const char *cmd);

/* Occurrences of needle in hay. */
size_t native_count(const char *hay, const char *needle);

#endif
