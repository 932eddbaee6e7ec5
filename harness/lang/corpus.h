/* The set of program files a command works on: every PATH argument (a file,
 * or a directory searched recursively for *.vyre), sorted by path so that
 * runs, shards and digests are the same on every machine. */
#ifndef VC_CORPUS_H
#define VC_CORPUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "harness/base/error.h"
#include "harness/lang/diag.h"

typedef struct vc_corpus_file {
  char *path;     /* as found: argument joined with the relative path */
  char *rel;      /* relative to its argument (the file name for file arguments) */
  char digest[65];/* SHA-256 of the bytes */
  /* After vc_corpus_parse (or a name filter): the program, or NULL with its
     diagnostics. Parsed at most once; owned by the corpus. */
  bool parsed;
  vc_program *program;
  vc_diags diags;
} vc_corpus_file;

typedef struct vc_corpus {
  vc_corpus_file *files;
  uint32_t n, cap;
  char digest[65]; /* over the sorted (rel, digest) pairs */
} vc_corpus;

int vc_corpus_collect(vc_corpus *c, const char *const *paths, uint32_t npaths, vc_error *err);
void vc_corpus_free(vc_corpus *c);
/* Keeps files whose relative path or program file name (without .vyre)
   matches glob (fnmatch); returns how many it kept. */
uint32_t vc_corpus_filter(vc_corpus *c, const char *glob);
/* Keeps files matching any of the globs (fnmatch) by relative path, file
   name (without .vyre) or declared program name (parsing each file whose
   path does not match already); nglobs 0 keeps everything. matched (NULL,
   or nglobs flags set false by the caller) learns which globs matched a
   file: a glob that matches none is a typo the caller names. */
void vc_corpus_select(vc_corpus *c, const char *const *globs, uint32_t nglobs, bool *matched);
/* Parses every file not parsed yet. */
void vc_corpus_parse(vc_corpus *c);
/* The name results are recorded under: the declared name, else the file name. */
void vc_corpus_program_name(const vc_corpus_file *f, char *out, size_t n);
/* Recomputes c->digest over the files left (after selection). */
void vc_corpus_redigest(vc_corpus *c);
/* The name a file stands for when it has no program name to give: its file
   name without the directory and the extension ("a/b/scan.vyre" -> "scan"). */
void vc_corpus_file_name(const char *path, char *out, size_t n);
/* Removes file i, freeing it. */
void vc_corpus_remove(vc_corpus *c, uint32_t i);

#endif
