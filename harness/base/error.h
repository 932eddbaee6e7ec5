/* harness/base: what every layer and plugin links (arena, strings, errors, SHA-256, clock, exit codes, version). */
/* Errors travel as values: a code and a message, filled by the callee. */
#ifndef VC_ERROR_H
#define VC_ERROR_H

#include <stddef.h>

typedef enum vc_errcode {
  VC_OK = 0,
  VC_ERR_USAGE,       /* bad arguments from the caller or the user */
  VC_ERR_IO,          /* file system or pipe */
  VC_ERR_PARSE,       /* program text */
  VC_ERR_INVALID,     /* a program the oracle refuses (race, out-of-bounds, ...) */
  VC_ERR_NOMEM,
  VC_ERR_LIMIT,       /* over a configured or device limit */
  VC_ERR_NO_DRIVER,   /* loader, ICD or driver library missing */
  VC_ERR_NO_DEVICE,   /* driver present, no usable device */
  VC_ERR_COMPILE,     /* backend code generation or driver compile */
  VC_ERR_DEVICE,      /* an API call failed on the device */
  VC_ERR_TIMEOUT,
  VC_ERR_UNSUPPORTED, /* the device or backend cannot run this mode */
  VC_ERR_DB,          /* results database */
  VC_ERR_ABI,         /* plugin ABI mismatch */
  VC_ERR_INTERNAL
} vc_errcode;

typedef struct vc_error {
  vc_errcode code;
  char msg[1024];
} vc_error;

/* Sets err (when not NULL) and returns code, so that `return vc_fail(...)` reads well. */
int vc_fail(vc_error *err, vc_errcode code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Prefixes an existing message: "context: old message". */
int vc_fail_wrap(vc_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void vc_error_clear(vc_error *err);
const char *vc_errcode_name(vc_errcode code);

#endif
