/* A growable string: generated source, printed programs, messages. */
#ifndef VC_STRBUF_H
#define VC_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct vc_strbuf {
  char *data; /* always NUL-terminated once anything was appended */
  size_t len;
  size_t cap;
} vc_strbuf;

void vc_sb_init(vc_strbuf *sb);
void vc_sb_free(vc_strbuf *sb);
void vc_sb_putc(vc_strbuf *sb, char c);
void vc_sb_puts(vc_strbuf *sb, const char *s);
void vc_sb_putn(vc_strbuf *sb, const char *s, size_t n);
void vc_sb_printf(vc_strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void vc_sb_vprintf(vc_strbuf *sb, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
/* Appends s with every occurrence of swaps[2k] replaced by swaps[2k + 1],
   k < nswaps, tried in that order at each place (a planted fault's variant
   of a fixed text). */
void vc_sb_puts_swapped(vc_strbuf *sb, const char *s, const char *const *swaps, size_t nswaps);
/* Hands the buffer to the caller (free() it); the strbuf is left empty. */
char *vc_sb_take(vc_strbuf *sb);
const char *vc_sb_str(const vc_strbuf *sb);
/* A malloc'ed copy of s (free() it); like the rest, stops only on out-of-memory. */
char *vc_strdup(const char *s);

#endif
