#include "harness/base/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void vc_sb_init(vc_strbuf *sb) {
  sb->data = NULL;
  sb->len = sb->cap = 0;
}

void vc_sb_free(vc_strbuf *sb) {
  free(sb->data);
  vc_sb_init(sb);
}

static void reserve(vc_strbuf *sb, size_t extra) {
  if (sb->len + extra + 1 <= sb->cap) return;
  size_t cap = sb->cap ? sb->cap : 256;
  while (cap < sb->len + extra + 1) cap *= 2;
  char *d = realloc(sb->data, cap);
  if (!d) {
    fputs("vyre-conform: out of memory\n", stderr);
    abort();
  }
  sb->data = d;
  sb->cap = cap;
}

void vc_sb_putn(vc_strbuf *sb, const char *s, size_t n) {
  reserve(sb, n);
  memcpy(sb->data + sb->len, s, n);
  sb->len += n;
  sb->data[sb->len] = '\0';
}

void vc_sb_putc(vc_strbuf *sb, char c) { vc_sb_putn(sb, &c, 1); }
void vc_sb_puts(vc_strbuf *sb, const char *s) { vc_sb_putn(sb, s, strlen(s)); }

void vc_sb_vprintf(vc_strbuf *sb, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n <= 0) return;
  reserve(sb, (size_t)n);
  vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
  sb->len += (size_t)n;
}

void vc_sb_printf(vc_strbuf *sb, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vc_sb_vprintf(sb, fmt, ap);
  va_end(ap);
}

char *vc_sb_take(vc_strbuf *sb) {
  char *d = sb->data;
  if (!d) {
    d = malloc(1);
    if (d) d[0] = '\0';
  }
  vc_sb_init(sb);
  return d;
}

const char *vc_sb_str(const vc_strbuf *sb) { return sb->data ? sb->data : ""; }

char *vc_strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (!d) {
    fputs("vyre-conform: out of memory\n", stderr);
    abort();
  }
  memcpy(d, s, n);
  return d;
}

void vc_sb_puts_swapped(vc_strbuf *sb, const char *s, const char *const *swaps, size_t nswaps) {
  while (*s) {
    size_t k = 0;
    for (; k < nswaps; k++) {
      size_t n = strlen(swaps[2 * k]);
      if (n && strncmp(s, swaps[2 * k], n) == 0) {
        vc_sb_puts(sb, swaps[2 * k + 1]);
        s += n;
        break;
      }
    }
    if (k == nswaps) vc_sb_putc(sb, *s++);
  }
}
