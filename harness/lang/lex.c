#include "harness/lang/lex.h"

void vc_lex_init(vc_lexer *lx, const char *path, const char *src, size_t len, vc_diags *diags) {
  lx->src = src;
  lx->len = len;
  lx->pos = 0;
  lx->line = 1;
  lx->col = 1;
  lx->path = path;
  lx->diags = diags;
}

static int peek(const vc_lexer *lx) {
  return lx->pos < lx->len ? (unsigned char)lx->src[lx->pos] : -1;
}

/* Moves past one byte; continuation bytes of UTF-8 sequences take no column. */
static void advance(vc_lexer *lx) {
  unsigned char c = (unsigned char)lx->src[lx->pos++];
  if (c == '\n') {
    lx->line++;
    lx->col = 1;
  } else if ((c & 0xC0) != 0x80) {
    lx->col++;
  }
}

static vc_loc here(const vc_lexer *lx) { return (vc_loc){lx->line, lx->col}; }

static int is_space(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* Characters that end an atom. */
static int is_delim(int c) {
  return c < 0 || is_space(c) || c == '(' || c == ')' || c == '"' || c == ';';
}

static int is_control(int c) { return (c >= 0 && c < 0x20 && !is_space(c)) || c == 0x7f; }

static void skip_blank(vc_lexer *lx) {
  for (;;) {
    int c = peek(lx);
    if (is_space(c)) {
      advance(lx);
    } else if (c == ';') {
      while (peek(lx) >= 0 && peek(lx) != '\n') advance(lx);
    } else if (is_control(c)) {
      vc_diags_add(lx->diags, lx->path, here(lx), "unexpected control character 0x%02x", c);
      advance(lx);
    } else {
      return;
    }
  }
}

static void lex_string(vc_lexer *lx, vc_token *t) {
  advance(lx); /* the opening quote */
  size_t start = lx->pos;
  for (;;) {
    int c = peek(lx);
    if (c < 0 || c == '\n') {
      vc_diags_add(lx->diags, lx->path, t->loc,
                   "string is not closed on its line (a string may not span lines)");
      break;
    }
    if (c == '"') {
      t->len = lx->pos - start;
      advance(lx);
      t->text = lx->src + start;
      return;
    }
    if (c == '\\') {
      vc_loc at = here(lx);
      advance(lx);
      c = peek(lx);
      if (c == '"' || c == '\\') {
        advance(lx);
      } else {
        vc_diags_add(lx->diags, lx->path, at,
                     "unknown escape in string; only \\\" and \\\\ are escapes");
      }
      continue;
    }
    if (is_control(c))
      vc_diags_add(lx->diags, lx->path, here(lx), "control character 0x%02x in string", c);
    advance(lx);
  }
  t->text = lx->src + start;
  t->len = lx->pos - start;
}

void vc_lex_next(vc_lexer *lx, vc_token *t) {
  skip_blank(lx);
  t->loc = here(lx);
  t->text = lx->src + lx->pos;
  t->len = 0;
  int c = peek(lx);
  if (c < 0) {
    t->kind = VC_TOK_END;
  } else if (c == '(' || c == ')') {
    t->kind = c == '(' ? VC_TOK_LPAREN : VC_TOK_RPAREN;
    t->len = 1;
    advance(lx);
  } else if (c == '"') {
    t->kind = VC_TOK_STRING;
    lex_string(lx, t);
  } else {
    t->kind = VC_TOK_ATOM;
    while (!is_delim(peek(lx)) && !is_control(peek(lx))) advance(lx);
    t->len = (size_t)(lx->src + lx->pos - t->text);
  }
}
