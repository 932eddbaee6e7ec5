#include "harness/lang/parse_lit.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool fail(char *why, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail(char *why, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, n, fmt, ap);
  va_end(ap);
  return false;
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool vc_lit_is_number(const char *s) {
  if (is_digit(s[0])) return true;
  return (s[0] == '-' || s[0] == '+' || s[0] == '.') && (is_digit(s[1]) || s[1] == '.');
}

static int hex_value(char c) {
  if (is_digit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Hex digits at s (saturating at 2^64 - 1); returns how many. */
static size_t hex_digits(const char *s, uint64_t *value) {
  size_t n = 0;
  uint64_t v = 0;
  for (; hex_value(s[n]) >= 0; n++)
    v = v > (UINT64_MAX >> 4) ? UINT64_MAX : (v << 4) | (uint64_t)hex_value(s[n]);
  *value = v;
  return n;
}

/* The integer type a suffix names ("", "u", "i", "u64", "i64"), or VC_VOID. */
static vc_type int_suffix(const char *suffix, bool negative) {
  if (!*suffix) return negative ? VC_I32 : VC_U32;
  if (strcmp(suffix, "u") == 0) return VC_U32;
  if (strcmp(suffix, "i") == 0) return VC_I32;
  if (strcmp(suffix, "u64") == 0) return VC_U64;
  if (strcmp(suffix, "i64") == 0) return VC_I64;
  return VC_VOID;
}

/* After "0x": u32 bits, i32 bits ("i"), u64 or i64 bits ("u64", "i64", up to
   16 digits), or f32 bits (exactly 8 digits + "f"). */
static bool parse_hex(const char *s, vc_type *type, uint64_t *bits, char *why, size_t n) {
  uint64_t v;
  size_t nd = hex_digits(s, &v);
  const char *suffix = s + nd;
  if (nd == 0) return fail(why, n, "malformed: no hexadecimal digits after 0x");
  if (!*suffix && nd == 9 && (s[8] == 'f' || s[8] == 'F')) {
    *type = VC_F32;
    *bits = (uint32_t)(v >> 4);
    return true;
  }
  vc_type t = int_suffix(suffix, false);
  if (t == VC_VOID)
    return fail(why, n, "malformed: unexpected '%s' after the hex digits", suffix);
  *type = t;
  if (vc_type_is_64(t)) {
    if (nd > 16)
      return fail(why, n, "out of range for %s (at most 16 hex digits)", vc_type_name(t));
    *bits = v;
    return true;
  }
  if (nd > 8) {
    if (!*suffix && (s[nd - 1] == 'f' || s[nd - 1] == 'F'))
      return fail(why, n,
                  "out of range: too many hex digits for u32 (at most 8), and an f32 "
                  "by bits is 0x, exactly 8 hex digits, then f");
    return fail(why, n, "out of range for %s (at most 8 hex digits)", vc_type_name(*type));
  }
  *bits = (uint32_t)v;
  return true;
}

/* The shape of a decimal: [-] (D+ [. D*] | . D+) [(e|E) [+|-] D+], then a suffix. */
typedef struct decimal {
  bool negative, is_float;
  const char *digits_end; /* end of the number proper, start of the suffix */
} decimal;

static bool scan_decimal(const char *s, decimal *d) {
  const char *p = s;
  d->negative = *p == '-';
  if (*p == '-') p++;
  size_t ints = 0, fracs = 0;
  while (is_digit(*p)) p++, ints++;
  d->is_float = false;
  if (*p == '.') {
    d->is_float = true;
    p++;
    while (is_digit(*p)) p++, fracs++;
  }
  if (ints + fracs == 0) return false;
  if (*p == 'e' || *p == 'E') {
    d->is_float = true;
    p++;
    if (*p == '+' || *p == '-') p++;
    if (!is_digit(*p)) return false;
    while (is_digit(*p)) p++;
  }
  d->digits_end = p;
  return true;
}

static bool parse_f32(const char *s, size_t len, uint64_t *bits, char *why, size_t n) {
  char buf[128];
  char *copy = len < sizeof buf ? buf : malloc(len + 1);
  if (!copy) return fail(why, n, "out of memory");
  memcpy(copy, s, len);
  copy[len] = '\0';
  float f = strtof(copy, NULL);
  if (copy != buf) free(copy);
  if (isinf(f))
    return fail(why, n, "out of range for f32 (write infinity as 0x7f800000f or 0xff800000f)");
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  *bits = u;
  return true;
}

/* The magnitude of a decimal integer; false above 2^64 - 1. */
static bool integer_value(const char *p, const char *end, uint64_t *out) {
  uint64_t v = 0;
  for (; p < end; p++) {
    uint64_t d = (uint64_t)(*p - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

/* u64 and i64 decimals. */
static bool parse_decimal64(vc_type t, bool negative, uint64_t v, bool fits, uint64_t *bits,
                            char *why, size_t n) {
  if (t == VC_U64) {
    if (negative) return fail(why, n, "out of range: a u64 cannot be negative");
    if (!fits) return fail(why, n, "out of range for u64 (0 to 18446744073709551615)");
    *bits = v;
    return true;
  }
  if (!fits || v > (negative ? 9223372036854775808ull : 9223372036854775807ull))
    return fail(why, n,
                "out of range for i64 (-9223372036854775808 to 9223372036854775807)");
  *bits = negative ? 0u - v : v;
  return true;
}

static bool parse_decimal(const char *s, vc_type *type, uint64_t *bits, char *why, size_t n) {
  decimal d;
  if (*s == '+') return fail(why, n, "malformed: a literal takes no '+' sign");
  if (!scan_decimal(s, &d)) return fail(why, n, "malformed number");
  const char *suffix = d.digits_end;
  vc_type it = int_suffix(suffix, d.negative);
  if (*suffix && it == VC_VOID && strcmp(suffix, "f") != 0)
    return fail(why, n, "malformed: unexpected '%s' after the number", suffix);
  if (d.is_float && *suffix && it != VC_VOID)
    return fail(why, n, "malformed: a decimal with '.' or an exponent is f32 and takes no '%s'",
                suffix);
  if (d.is_float || *suffix == 'f') {
    *type = VC_F32;
    return parse_f32(s, (size_t)(d.digits_end - s), bits, why, n);
  }
  uint64_t v = 0;
  bool fits = integer_value(s + d.negative, d.digits_end, &v);
  if (vc_type_is_64(it)) {
    *type = it;
    return parse_decimal64(it, d.negative, v, fits, bits, why, n);
  }
  if (!fits) v = UINT64_MAX;
  bool as_i32 = it == VC_I32;
  if (!as_i32) {
    *type = VC_U32;
    if (d.negative) return fail(why, n, "out of range: a u32 cannot be negative");
    if (v > UINT32_MAX) return fail(why, n, "out of range for u32 (0 to 4294967295)");
    *bits = (uint32_t)v;
    return true;
  }
  *type = VC_I32;
  if (v > (d.negative ? 2147483648ull : 2147483647ull))
    return fail(why, n, "out of range for i32 (-2147483648 to 2147483647)");
  *bits = d.negative ? (uint32_t)(0u - (uint32_t)v) : (uint32_t)v;
  return true;
}

bool vc_lit_parse(const char *s, vc_type *type, uint64_t *bits, char *why, size_t whylen) {
  *type = VC_U32;
  *bits = 0;
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) return parse_hex(s + 2, type, bits, why, whylen);
  if ((s[0] == '-' || s[0] == '+') && s[1] == '0' && (s[2] == 'x' || s[2] == 'X'))
    return fail(why, whylen, "malformed: a hexadecimal literal takes no sign (it gives the bits)");
  return parse_decimal(s, type, bits, why, whylen);
}

bool vc_lit_parse_seed(const char *s, uint64_t *seed, char *why, size_t whylen) {
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    size_t nd = hex_digits(s + 2, seed);
    if (nd == 0 || s[2 + nd]) return fail(why, whylen, "malformed hexadecimal seed");
    if (nd > 16) return fail(why, whylen, "out of range: a seed has at most 16 hex digits");
    return true;
  }
  vc_type t;
  uint64_t bits;
  if (!vc_lit_parse(s, &t, &bits, why, whylen)) return false;
  if (t != VC_U32)
    return fail(why, whylen, "a seed is a u32 or a hexadecimal literal, not %s", vc_type_name(t));
  *seed = bits;
  return true;
}
