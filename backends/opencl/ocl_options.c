/* The device options: "key=value,..." from --device-options (docs/backend-opencl.md,
 * docs/native.md). The deadline's default is set here; the native defaults
 * that depend on the device come later (ocl_native.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/opencl/ocl_internal.h"

#define DEFAULT_DEADLINE_S 30u

static const char known[] =
    "known: cl-std=CLx.y, build=<flags>, deadline=<seconds>, native-wgs=N, native-cap=N, "
    "native-spin=N, native-window=N, native-phantoms=N, native-atomics=auto|cl12|device, "
    "cache=DIR";

/* The u32 settings, by key. */
static uint32_t *u32_setting(vc_dev *d, const char *key, size_t klen) {
  static const struct {
    const char *key;
    size_t offset;
  } keys[] = {
      {"native-wgs", offsetof(vc_dev, native.max_wgs)},
      {"native-cap", offsetof(vc_dev, native.ctrl.cap)},
      {"native-spin", offsetof(vc_dev, native.ctrl.spin_limit)},
      {"native-window", offsetof(vc_dev, native.ctrl.window)},
      {"native-phantoms", offsetof(vc_dev, native.ctrl.phantoms)},
  };
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
    if (strlen(keys[i].key) == klen && strncmp(keys[i].key, key, klen) == 0)
      return (uint32_t *)(void *)((char *)d + keys[i].offset);
  return NULL;
}

static int parse_u32(const char *val, size_t vlen, uint32_t *out) {
  char buf[16];
  if (vlen == 0 || vlen >= sizeof buf) return -1;
  memcpy(buf, val, vlen);
  buf[vlen] = '\0';
  for (size_t i = 0; i < vlen; i++)
    if (buf[i] < '0' || buf[i] > '9') return -1;
  errno = 0;
  unsigned long long v = strtoull(buf, NULL, 10);
  if (errno || v > 0xffffffffull) return -1;
  *out = (uint32_t)v;
  return 0;
}

static int bad(vc_error *err, const char *s, size_t len, const char *why) {
  return vc_fail(err, VC_ERR_USAGE, "OpenCL: bad option \"%.*s\"%s (%s)", (int)len, s, why, known);
}

/* One key=value pair. */
static int apply(vc_dev *d, const char *s, size_t len, vc_error *err) {
  const char *eq = memchr(s, '=', len);
  size_t klen = eq ? (size_t)(eq - s) : len;
  const char *val = eq ? eq + 1 : s + len;
  size_t vlen = (size_t)(s + len - val);
  uint32_t *u = u32_setting(d, s, klen);
  uint32_t v = 0;
  if (u) {
    if (parse_u32(val, vlen, u)) return bad(err, s, len, ": not a number from 0 to 2^32-1");
    if (u == &d->native.ctrl.window) d->native.window_given = true;
    if (u == &d->native.ctrl.spin_limit) d->native.spin_given = true;
  } else if (klen == 6 && !strncmp(s, "cl-std", 6) && vlen && vlen < sizeof d->cl_std) {
    snprintf(d->cl_std, sizeof d->cl_std, "%.*s", (int)vlen, val);
  } else if (klen == 5 && !strncmp(s, "build", 5) && vlen < sizeof d->build_extra) {
    snprintf(d->build_extra, sizeof d->build_extra, "%.*s", (int)vlen, val);
  } else if (klen == 5 && !strncmp(s, VC_KCACHE_OPTION, 5)) {
    if (vc_kcache_option(val, vlen, d->cache_dir, sizeof d->cache_dir))
      return bad(err, s, len, ": a folder name that is too long");
  } else if (klen == 8 && !strncmp(s, "deadline", 8)) {
    if (parse_u32(val, vlen, &v) || v == 0 || v > 86400)
      return bad(err, s, len, ": seconds from 1 to 86400");
    d->deadline_ms = v * 1000u;
  } else if (klen == 14 && !strncmp(s, "native-atomics", 14)) {
    if (vlen == 4 && !strncmp(val, "auto", 4))
      d->native.atomics = VC_OCL_ATOMICS_AUTO;
    else if (vlen == 4 && !strncmp(val, "cl12", 4))
      d->native.atomics = VC_OCL_ATOMICS_CL12;
    else if (vlen == 6 && !strncmp(val, "device", 6))
      d->native.atomics = VC_OCL_ATOMICS_DEVICE;
    else
      return bad(err, s, len, ": auto, cl12 or device");
  } else {
    return bad(err, s, len, "");
  }
  return 0;
}

int vc_ocl_parse_options(vc_dev *d, const char *options, vc_error *err) {
  d->deadline_ms = DEFAULT_DEADLINE_S * 1000u;
  for (const char *s = options; s && *s;) {
    size_t len = strcspn(s, ",");
    if (len) {
      int rc = apply(d, s, len, err);
      if (rc) return rc;
    }
    s += len;
    if (*s == ',') s++;
  }
  return 0;
}
