#include "harness/base/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int vc_fail(vc_error *err, vc_errcode code, const char *fmt, ...) {
  if (err) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    err->code = code;
  }
  return (int)code;
}

int vc_fail_wrap(vc_error *err, const char *fmt, ...) {
  if (!err) return VC_ERR_INTERNAL;
  char prefix[512], old[sizeof err->msg];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(prefix, sizeof prefix, fmt, ap);
  va_end(ap);
  memcpy(old, err->msg, sizeof old);
  size_t n = strlen(prefix);
  if (n > sizeof err->msg - 3) n = sizeof err->msg - 3;
  memcpy(err->msg, prefix, n);
  memcpy(err->msg + n, ": ", 2);
  size_t room = sizeof err->msg - n - 3;
  size_t m = strnlen(old, room);
  memcpy(err->msg + n + 2, old, m);
  err->msg[n + 2 + m] = '\0';
  if (err->code == VC_OK) err->code = VC_ERR_INTERNAL;
  return (int)err->code;
}

void vc_error_clear(vc_error *err) {
  if (!err) return;
  err->code = VC_OK;
  err->msg[0] = '\0';
}

const char *vc_errcode_name(vc_errcode code) {
  switch (code) {
  case VC_OK: return "ok";
  case VC_ERR_USAGE: return "usage";
  case VC_ERR_IO: return "io";
  case VC_ERR_PARSE: return "parse";
  case VC_ERR_INVALID: return "invalid";
  case VC_ERR_NOMEM: return "out-of-memory";
  case VC_ERR_LIMIT: return "limit";
  case VC_ERR_NO_DRIVER: return "no-driver";
  case VC_ERR_NO_DEVICE: return "no-device";
  case VC_ERR_COMPILE: return "compile";
  case VC_ERR_DEVICE: return "device";
  case VC_ERR_TIMEOUT: return "timeout";
  case VC_ERR_UNSUPPORTED: return "unsupported";
  case VC_ERR_DB: return "database";
  case VC_ERR_ABI: return "abi";
  case VC_ERR_INTERNAL: return "internal";
  }
  return "unknown";
}
