/* The S-expression reader: tokens to a tree of lists, atoms and strings.
 * The tree lives in a caller's arena (the parser's scratch arena). */
#ifndef VC_READ_H
#define VC_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "harness/base/arena.h"
#include "harness/lang/diag.h"

typedef enum vc_sx_kind { VC_SX_LIST = 0, VC_SX_ATOM, VC_SX_STRING } vc_sx_kind;

typedef struct vc_sx vc_sx;
struct vc_sx {
  vc_sx_kind kind;
  vc_loc loc;       /* the atom, the string's quote or the list's '(' */
  vc_loc end;       /* LIST: its ')' (so a form covers loc..end); others: loc */
  const char *text; /* ATOM: NUL-terminated copy; STRING: the decoded text */
  size_t len;
  vc_sx **items; /* LIST */
  uint32_t n;
};

/* Forms nested deeper than this are refused (the parser recurses on them). */
#define VC_SX_MAX_DEPTH 200u

typedef struct vc_sx_file {
  vc_sx **forms; /* top-level forms */
  uint32_t n;
  /* false when parentheses do not match or nesting is too deep: the tree is
     then only a best effort, not worth building a program from */
  bool well_formed;
} vc_sx_file;

/* Reads every form of text; errors go to diags. */
void vc_read(vc_arena *a, const char *path, const char *text, size_t len, vc_diags *diags,
             vc_sx_file *out);

/* The list's head word (its first item when an atom), or "" */
const char *vc_sx_head(const vc_sx *x);
bool vc_sx_is_atom(const vc_sx *x, const char *word);
/* For messages: an atom's text, "(...)" for a list, "a string" for a string. */
const char *vc_sx_text(const vc_sx *x);

#endif
