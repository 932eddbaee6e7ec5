/* The device options: "key=value,..." from --device-options
 * (docs/backend-vulkan.md). Defaults that depend on the device (the native
 * settings not given) are filled at open by vk_native_caps. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "backends/vulkan/vk_internal.h"

static const char known[] =
    "known: float-controls=auto|off, deadline=<seconds>, native-wgs=N, native-cap=N, "
    "native-window=N, native-spin=N, native-phantoms=N, native-memory-model=auto|off|on, cache=DIR";

static bool is(const char *s, size_t n, const char *word) {
  return n == strlen(word) && strncmp(s, word, n) == 0;
}

/* The u32 settings, by key. */
static uint32_t *u32_setting(vk_options *o, const char *key, size_t n) {
  if (is(key, n, "native-wgs")) return &o->native_wgs;
  if (is(key, n, "native-cap")) return &o->ctrl.cap;
  if (is(key, n, "native-window")) return &o->ctrl.window;
  if (is(key, n, "native-spin")) return &o->ctrl.spin_limit;
  if (is(key, n, "native-phantoms")) return &o->ctrl.phantoms;
  return NULL;
}

static int parse_u32(const char *val, size_t n, uint32_t *out) {
  char buf[16];
  if (n == 0 || n >= sizeof buf) return -1;
  for (size_t i = 0; i < n; i++)
    if (val[i] < '0' || val[i] > '9') return -1;
  memcpy(buf, val, n);
  buf[n] = '\0';
  errno = 0;
  unsigned long long v = strtoull(buf, NULL, 10);
  if (errno || v > 0xffffffffull) return -1;
  *out = (uint32_t)v;
  return 0;
}

static int bad(vc_error *err, const char *s, size_t n, const char *why) {
  return vc_fail(err, VC_ERR_USAGE, "Vulkan: bad option '%.*s': %s (%s)", (int)n, s, why, known);
}

/* One key=value pair. */
static int apply(vk_options *o, const char *s, size_t n, vc_error *err) {
  const char *eq = memchr(s, '=', n);
  size_t klen = eq ? (size_t)(eq - s) : n;
  const char *val = eq ? eq + 1 : s + n;
  size_t vlen = (size_t)(s + n - val);
  uint32_t *u = u32_setting(o, s, klen);
  if (u) {
    if (parse_u32(val, vlen, u)) return bad(err, s, n, "not a number from 0 to 2^32-1");
    o->cap_given |= u == &o->ctrl.cap;
    o->window_given |= u == &o->ctrl.window;
    o->spin_given |= u == &o->ctrl.spin_limit;
  } else if (is(s, klen, "deadline")) {
    uint32_t v = 0;
    if (parse_u32(val, vlen, &v) || v == 0 || v > 86400)
      return bad(err, s, n, "seconds from 1 to 86400");
    o->deadline_s = v;
  } else if (is(s, klen, "float-controls")) {
    if (!is(val, vlen, "auto") && !is(val, vlen, "off")) return bad(err, s, n, "auto or off");
    o->float_controls = is(val, vlen, "auto");
  } else if (is(s, klen, "native-memory-model")) {
    if (is(val, vlen, "auto"))
      o->vmm = VK_VMM_AUTO;
    else if (is(val, vlen, "off"))
      o->vmm = VK_VMM_OFF;
    else if (is(val, vlen, "on"))
      o->vmm = VK_VMM_ON;
    else
      return bad(err, s, n, "auto, off or on");
  } else if (is(s, klen, VC_KCACHE_OPTION)) {
    if (vc_kcache_option(val, vlen, o->cache_dir, sizeof o->cache_dir))
      return bad(err, s, n, "a folder name that is too long");
  } else {
    return vc_fail(err, VC_ERR_USAGE, "Vulkan: unknown option '%.*s' (%s)", (int)n, s, known);
  }
  return 0;
}

int vk_options_parse(const char *s, vk_options *o, vc_error *err) {
  memset(o, 0, sizeof *o);
  o->float_controls = true;
  o->deadline_s = VK_DEADLINE_DEFAULT_S;
  while (s && *s) {
    size_t n = strcspn(s, ",");
    if (n) {
      int rc = apply(o, s, n, err);
      if (rc) return rc;
    }
    s += n;
    if (*s == ',') s++;
  }
  return 0;
}
