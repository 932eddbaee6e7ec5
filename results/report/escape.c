#include "results/report/escape.h"

/* Length of the well-formed UTF-8 sequence at s (1 to 4), or 0. */
static int utf8_len(const unsigned char *s) {
  if (s[0] < 0x80) return 1;
  int n;
  if (s[0] >= 0xc2 && s[0] <= 0xdf)
    n = 2;
  else if (s[0] >= 0xe0 && s[0] <= 0xef)
    n = 3;
  else if (s[0] >= 0xf0 && s[0] <= 0xf4)
    n = 4;
  else
    return 0;
  for (int i = 1; i < n; i++)
    if ((s[i] & 0xc0) != 0x80) return 0;
  /* overlong three/four-byte forms, surrogates, and code points past U+10FFFF */
  if (n == 3 && ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0))) return 0;
  if (n == 4 && ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))) return 0;
  return n;
}

/* Calls put for each character: a code point of n bytes at s, or a
   replaced one (n == 0, written as '?'). */
typedef void (*put_fn)(vc_strbuf *sb, const char *s, int n);

static void walk(vc_strbuf *sb, const char *s, put_fn put) {
  const unsigned char *p = (const unsigned char *)(s ? s : "");
  while (*p) {
    int n = utf8_len(p);
    put(sb, (const char *)p, n);
    p += n ? n : 1;
  }
}

static void put_markup(vc_strbuf *sb, const char *s, int n) {
  unsigned char c = (unsigned char)s[0];
  if (n == 0 || (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f)
    vc_sb_putc(sb, '?');
  else if (c == '&')
    vc_sb_puts(sb, "&amp;");
  else if (c == '<')
    vc_sb_puts(sb, "&lt;");
  else if (c == '>')
    vc_sb_puts(sb, "&gt;");
  else if (c == '"')
    vc_sb_puts(sb, "&quot;");
  else if (c == '\'')
    vc_sb_puts(sb, "&#39;");
  else
    vc_sb_putn(sb, s, (size_t)n);
}

static void put_json(vc_strbuf *sb, const char *s, int n) {
  unsigned char c = (unsigned char)s[0];
  if (n == 0)
    vc_sb_putc(sb, '?');
  else if (c == '"' || c == '\\')
    vc_sb_printf(sb, "\\%c", c);
  else if (c == '\n')
    vc_sb_puts(sb, "\\n");
  else if (c == '\t')
    vc_sb_puts(sb, "\\t");
  else if (c < 0x20 || c == 0x7f)
    vc_sb_printf(sb, "\\u%04x", c);
  else
    vc_sb_putn(sb, s, (size_t)n);
}

static void put_md(vc_strbuf *sb, const char *s, int n) {
  unsigned char c = (unsigned char)s[0];
  if (n == 0)
    vc_sb_putc(sb, '?');
  else if (c == '|')
    vc_sb_puts(sb, "\\|");
  else if (c == '\n' || c == '\r' || c == '\t')
    vc_sb_putc(sb, ' ');
  else if (c < 0x20 || c == 0x7f)
    vc_sb_putc(sb, '?');
  else if (c == '<')
    vc_sb_puts(sb, "&lt;");
  else
    vc_sb_putn(sb, s, (size_t)n);
}

static void put_block(vc_strbuf *sb, const char *s, int n) {
  unsigned char c = (unsigned char)s[0];
  if (n == 0 || (c < 0x20 && c != '\t' && c != '\n') || c == 0x7f)
    vc_sb_putc(sb, '?');
  else
    vc_sb_putn(sb, s, (size_t)n);
}

void vc_esc_markup(vc_strbuf *sb, const char *s) { walk(sb, s, put_markup); }
void vc_esc_md_block(vc_strbuf *sb, const char *s) { walk(sb, s, put_block); }

void vc_esc_json(vc_strbuf *sb, const char *s) {
  vc_sb_putc(sb, '"');
  walk(sb, s, put_json);
  vc_sb_putc(sb, '"');
}

void vc_esc_md(vc_strbuf *sb, const char *s) { walk(sb, s, put_md); }
