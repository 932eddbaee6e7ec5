/* The .vyre lexer: parentheses, atoms and strings, each with its 1-based
 * line and column. `;` comments and white space are skipped. A column counts
 * characters (UTF-8 sequences count once, a tab counts once). */
#ifndef VC_LEX_H
#define VC_LEX_H

#include <stddef.h>
#include <stdint.h>

#include "harness/lang/diag.h"

typedef enum vc_tok_kind {
  VC_TOK_END = 0,
  VC_TOK_LPAREN,
  VC_TOK_RPAREN,
  VC_TOK_ATOM,  /* a name, keyword or number: text is the raw characters */
  VC_TOK_STRING /* text is what lies between the quotes, escapes not yet undone */
} vc_tok_kind;

typedef struct vc_token {
  vc_tok_kind kind;
  vc_loc loc;
  const char *text;
  size_t len;
} vc_token;

typedef struct vc_lexer {
  const char *src;
  size_t len, pos;
  uint32_t line, col;
  const char *path;
  vc_diags *diags;
} vc_lexer;

void vc_lex_init(vc_lexer *lx, const char *path, const char *src, size_t len, vc_diags *diags);
/* The next token. Bad characters and malformed strings are reported to diags
 * and skipped (a string that is not closed on its line ends at the line's end). */
void vc_lex_next(vc_lexer *lx, vc_token *t);

#endif
