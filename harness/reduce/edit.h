/* The reducer's edits: one change to a program's S-expression tree, made
 * while the tree is printed back to text (the tree itself never changes;
 * the text is parsed again, so the parser and the validator decide whether
 * a candidate is a program at all). */
#ifndef VC_REDUCE_EDIT_H
#define VC_REDUCE_EDIT_H

#include <stdbool.h>
#include <stdint.h>

#include "harness/base/strbuf.h"
#include "harness/lang/read.h"

/* X(ENUM, name): the passes, in the order the reducer runs them. */
#define VC_EDIT_PASS_TABLE(X) \
  X(DROP, "drop")             \
  X(UNWRAP, "unwrap")         \
  X(INLINE, "inline")         \
  X(LITERAL, "literal")       \
  X(SHRINK, "shrink")

typedef enum vc_edit_pass {
#define VC_X(e, n) VC_PASS_##e,
  VC_EDIT_PASS_TABLE(VC_X)
#undef VC_X
  VC_PASS_COUNT
} vc_edit_pass;

const char *vc_edit_pass_name(vc_edit_pass p);

typedef enum vc_edit_kind {
  VC_EDIT_DEL = 0, /* drop items [k, k+count) of list at */
  VC_EDIT_HOIST,   /* at is replaced by its item k */
  VC_EDIT_SPLICE,  /* at is replaced by its items k.. (a block's statements, in place) */
  VC_EDIT_TEXT,    /* at (a list or an atom) is replaced by text */
  VC_EDIT_INLINE,  /* item k of list at, a (let NAME E), is dropped and E replaces NAME
                      in the items after it */
  VC_EDIT_CLAIMS   /* at is the program: its claims about its outputs are dropped,
                      (expect (digest|buffer|passes|converges ...)), which a smaller
                      program no longer meets */
} vc_edit_kind;

typedef struct vc_edit {
  vc_edit_kind kind;
  vc_edit_pass pass;
  const vc_sx *at;
  uint32_t k, count;
  char text[32];
} vc_edit;

typedef struct vc_edits {
  vc_edit *items;
  uint32_t n, cap;
} vc_edits;

/* Every edit of one pass over the program form `prog`, biggest first. */
void vc_edits_of(const vc_sx *prog, vc_edit_pass pass, vc_edits *out);
void vc_edits_free(vc_edits *e);

/* Does the program form make claims about its outputs (VC_EDIT_CLAIMS)? */
bool vc_edit_has_claims(const vc_sx *prog);

/* Writes prog as .vyre text with edit e applied (NULL: none). doc, when not
   NULL, replaces the program's (doc ...) (or is added after its name). */
void vc_edit_print(const vc_sx *prog, const vc_edit *e, const char *doc, vc_strbuf *out);

#endif
