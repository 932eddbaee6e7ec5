/* The key=value option parser (kvopts.h). */
#include "harness/base/kvopts.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

void vc_kv_known(const vc_kv_key *keys, size_t nkeys, char *buf, size_t n) {
  size_t u = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < nkeys && u < n; i++) {
    const vc_kv_key *k = &keys[i];
    u += (size_t)snprintf(buf + u, n - u, "%s%s=", i ? ", " : "", k->key);
    if (k->kind == VC_KV_CHOICE) {
      for (const vc_kv_choice *c = k->choices; c->name && u < n; c++)
        u += (size_t)snprintf(buf + u, n - u, "%s%s", c == k->choices ? "" : "|", c->name);
    } else if (u < n) {
      u += (size_t)snprintf(buf + u, n - u, "%s", k->meta ? k->meta : "VALUE");
    }
  }
}

/* Decimal digits only; false on anything else or overflow past hi. */
static bool decimal(const char *v, size_t n, uint64_t hi, uint64_t *out) {
  uint64_t x = 0;
  if (n == 0) return false;
  for (size_t i = 0; i < n; i++) {
    if (v[i] < '0' || v[i] > '9') return false;
    uint64_t d = (uint64_t)(v[i] - '0');
    if (x > (hi - d) / 10) return false;
    x = x * 10 + d;
  }
  *out = x;
  return true;
}

static bool bytes(const char *v, size_t n, uint64_t *out) {
  unsigned shift = 0;
  if (n) {
    char c = v[n - 1];
    shift = c == 'k' || c == 'K' ? 10 : c == 'm' || c == 'M' ? 20 : c == 'g' || c == 'G' ? 30 : 0;
  }
  uint64_t x;
  if (!decimal(v, shift ? n - 1 : n, UINT64_MAX >> shift, &x)) return false;
  *out = x << shift;
  return true;
}

/* "a number from 1 to 86400", "auto, off or on", ... */
static void expected(const vc_kv_key *k, char *buf, size_t n) {
  const char *what = k->kind == VC_KV_BYTES ? "a byte count (k, m, g: KiB, MiB, GiB)"
                                            : "a number";
  switch (k->kind) {
  case VC_KV_U32:
  case VC_KV_BYTES:
    if (k->kind == VC_KV_BYTES && k->hi == UINT64_MAX)
      snprintf(buf, n, "%s of at least %" PRIu64, what, k->lo);
    else
      snprintf(buf, n, "%s from %" PRIu64 " to %" PRIu64, what, k->lo, k->hi);
    break;
  case VC_KV_CHOICE: {
    size_t u = 0;
    buf[0] = '\0';
    for (const vc_kv_choice *c = k->choices; c->name && u < n; c++)
      u += (size_t)snprintf(buf + u, n - u, "%s%s", c == k->choices ? "" : c[1].name ? ", " : " or ",
                            c->name);
    break;
  }
  case VC_KV_TEXT:
    if (k->lo)
      snprintf(buf, n, "%s of %" PRIu64 " to %" PRIu64 " characters", k->meta ? k->meta : "text",
               k->lo, k->hi);
    else
      snprintf(buf, n, "%s of at most %" PRIu64 " characters", k->meta ? k->meta : "text", k->hi);
    break;
  }
}

/* Converts and stores one value; false when it is not acceptable. */
static bool store(const vc_kv_key *k, const char *v, size_t n, char *dst) {
  uint64_t x = 0;
  switch (k->kind) {
  case VC_KV_U32: {
    uint32_t scale = k->scale ? k->scale : 1;
    if (!decimal(v, n, k->hi, &x) || x < k->lo || x > UINT32_MAX / scale) return false;
    uint32_t u = (uint32_t)x * scale;
    memcpy(dst + k->offset, &u, sizeof u);
    return true;
  }
  case VC_KV_BYTES:
    if (!bytes(v, n, &x) || x < k->lo || x > k->hi) return false;
    memcpy(dst + k->offset, &x, sizeof x);
    return true;
  case VC_KV_CHOICE:
    for (const vc_kv_choice *c = k->choices; c->name; c++)
      if (strlen(c->name) == n && strncmp(c->name, v, n) == 0) {
        memcpy(dst + k->offset, &c->value, sizeof c->value);
        return true;
      }
    return false;
  case VC_KV_TEXT:
    if (n < k->lo || n > k->hi) return false;
    memcpy(dst + k->offset, v, n);
    dst[k->offset + n] = '\0';
    return true;
  }
  return false;
}

static int apply(const char *api, const char *s, size_t n, const vc_kv_key *keys, size_t nkeys,
                 char *dst, vc_error *err) {
  const char *eq = memchr(s, '=', n);
  size_t klen = eq ? (size_t)(eq - s) : n;
  for (size_t i = 0; i < nkeys; i++) {
    const vc_kv_key *k = &keys[i];
    if (strlen(k->key) != klen || strncmp(k->key, s, klen) != 0) continue;
    if (eq && store(k, eq + 1, n - klen - 1, dst)) {
      if (k->given) dst[k->given - 1] = 1; /* a bool */
      return 0;
    }
    char want[512];
    expected(k, want, sizeof want);
    if (!eq)
      return vc_fail(err, VC_ERR_USAGE, "%s option %.*s: needs a value, %s", api, (int)n, s, want);
    return vc_fail(err, VC_ERR_USAGE, "%s option %.*s: expected %s", api, (int)n, s, want);
  }
  char known[1024];
  vc_kv_known(keys, nkeys, known, sizeof known);
  return vc_fail(err, VC_ERR_USAGE, "unknown %s option '%.*s' (known: %s)", api, (int)n, s, known);
}

int vc_kv_parse(const char *api, const char *text, const vc_kv_key *keys, size_t nkeys,
                void *dst, vc_error *err) {
  for (const char *s = text; s && *s;) {
    size_t n = strcspn(s, ",");
    if (n) {
      int rc = apply(api, s, n, keys, nkeys, dst, err);
      if (rc) return rc;
    }
    s += n;
    if (*s == ',') s++;
  }
  return 0;
}

const char *vc_kv_choice_name(const vc_kv_choice *choices, int value) {
  for (const vc_kv_choice *c = choices; c && c->name; c++)
    if (c->value == value) return c->name;
  return "?";
}
