/* A small JSON reader for the package's manifest (the writer is vc_esc_json
 * and a string buffer): objects, arrays, strings, numbers, true, false and
 * null, every value in one arena. */
#ifndef VC_PACKAGE_JSON_H
#define VC_PACKAGE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "harness/base/arena.h"
#include "harness/base/error.h"

typedef enum vc_json_kind {
  VC_JSON_NULL, VC_JSON_BOOL, VC_JSON_NUMBER, VC_JSON_STRING, VC_JSON_ARRAY, VC_JSON_OBJECT
} vc_json_kind;

typedef struct vc_json vc_json;
struct vc_json {
  vc_json_kind kind;
  bool b;
  double num;
  const char *str;     /* a string's text (NUL-free), or a number's as written */
  vc_json **items;     /* an array's values, an object's values */
  const char **keys;   /* an object's keys */
  uint32_t n;
};

/* Parses text (name: the file, for messages) into a tree in arena. */
int vc_json_parse(const char *text, size_t len, const char *name, vc_arena *arena, vc_json **out,
                  vc_error *err);
/* An object's member, or NULL (also when o is no object). */
const vc_json *vc_json_get(const vc_json *o, const char *key);
/* A member's string, or "" when absent or not a string. */
const char *vc_json_str(const vc_json *o, const char *key);
/* A member's number as an integer, or def. */
int64_t vc_json_int(const vc_json *o, const char *key, int64_t def);

#endif
