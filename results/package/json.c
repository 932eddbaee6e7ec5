/* Recursive descent over RFC 8259 (json.h); depth is bounded. */
#include "results/package/json.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_DEPTH = 64 };

typedef struct reader {
  const char *begin, *p, *end, *name;
  vc_arena *arena;
  vc_error *err;
} reader;

static int bad(reader *r, const char *what) {
  return vc_fail(r->err, VC_ERR_PARSE, "%s: not valid JSON at byte %ld: %s", r->name,
                 (long)(r->p - r->begin), what);
}

static void ws(reader *r) {
  while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')) r->p++;
}

static vc_json *node(reader *r, vc_json_kind k) {
  vc_json *j = vc_arena_alloc(r->arena, sizeof *j);
  memset(j, 0, sizeof *j);
  j->kind = k;
  return j;
}

static int hex4(reader *r, unsigned *v) {
  *v = 0;
  for (int i = 0; i < 4; i++, r->p++) {
    if (r->p >= r->end) return bad(r, "a cut \\u escape");
    char c = *r->p;
    unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0')
                 : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                 : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 99;
    if (d == 99) return bad(r, "a bad \\u escape");
    *v = *v * 16 + d;
  }
  return 0;
}

static void put_utf8(char *out, size_t *n, unsigned c) {
  if (c < 0x80) out[(*n)++] = (char)c;
  else if (c < 0x800) out[(*n)++] = (char)(0xc0 | c >> 6), out[(*n)++] = (char)(0x80 | (c & 63));
  else out[(*n)++] = (char)(0xe0 | c >> 12), out[(*n)++] = (char)(0x80 | ((c >> 6) & 63)),
       out[(*n)++] = (char)(0x80 | (c & 63));
}

static int string(reader *r, const char **out) {
  r->p++; /* the quote */
  const char *start = r->p;
  while (r->p < r->end && *r->p != '"') r->p += *r->p == '\\' ? 2 : 1;
  if (r->p >= r->end) return bad(r, "a string without its closing quote");
  char *s = vc_arena_alloc(r->arena, (size_t)(r->p - start) + 1);
  size_t n = 0;
  const char *end = r->p;
  r->p = start;
  while (r->p < end) {
    char c = *r->p++;
    if (c != '\\') {
      s[n++] = c;
      continue;
    }
    char e = *r->p++;
    const char *plain = strchr("\"\\/bfnrt", e);
    if (!plain || !e) {
      if (e != 'u') return bad(r, "an unknown escape");
      unsigned v;
      if (hex4(r, &v)) return VC_ERR_PARSE;
      if (!v) return bad(r, "a NUL character in a string");
      put_utf8(s, &n, v > 0xffff ? '?' : v);
      continue;
    }
    static const char map[] = "\"\\/\b\f\n\r\t";
    s[n++] = map[plain - "\"\\/bfnrt"];
  }
  s[n] = '\0';
  r->p = end + 1;
  *out = s;
  return 0;
}

static int value(reader *r, int depth, vc_json **out);

static int push(reader *r, vc_json *j, const char *key, vc_json *v) {
  vc_json **items = vc_arena_alloc(r->arena, (j->n + 1) * sizeof *items);
  const char **keys = vc_arena_alloc(r->arena, (j->n + 1) * sizeof *keys);
  if (j->n) {
    memcpy(items, j->items, j->n * sizeof *items);
    memcpy(keys, j->keys, j->n * sizeof *keys);
  }
  items[j->n] = v;
  keys[j->n] = key;
  j->items = items;
  j->keys = keys;
  j->n++;
  return 0;
}

static int container(reader *r, int depth, bool object, vc_json **out) {
  vc_json *j = node(r, object ? VC_JSON_OBJECT : VC_JSON_ARRAY);
  char close = object ? '}' : ']';
  r->p++;
  ws(r);
  if (r->p < r->end && *r->p == close) {
    r->p++;
    *out = j;
    return 0;
  }
  for (;;) {
    const char *key = NULL;
    ws(r);
    if (object) {
      if (r->p >= r->end || *r->p != '"') return bad(r, "an object key expected");
      if (string(r, &key)) return VC_ERR_PARSE;
      ws(r);
      if (r->p >= r->end || *r->p != ':') return bad(r, "':' expected");
      r->p++;
    }
    vc_json *v;
    if (value(r, depth + 1, &v)) return VC_ERR_PARSE;
    push(r, j, key, v);
    ws(r);
    if (r->p < r->end && *r->p == ',') {
      r->p++;
      continue;
    }
    if (r->p < r->end && *r->p == close) {
      r->p++;
      *out = j;
      return 0;
    }
    return bad(r, object ? "',' or '}' expected" : "',' or ']' expected");
  }
}

static int word(reader *r, const char *w) {
  size_t n = strlen(w);
  if ((size_t)(r->end - r->p) < n || memcmp(r->p, w, n) != 0) return 0;
  r->p += n;
  return 1;
}

static int value(reader *r, int depth, vc_json **out) {
  if (depth > MAX_DEPTH) return bad(r, "nested too deep");
  ws(r);
  if (r->p >= r->end) return bad(r, "a value expected");
  char c = *r->p;
  if (c == '{' || c == '[') return container(r, depth, c == '{', out);
  if (c == '"') {
    *out = node(r, VC_JSON_STRING);
    return string(r, &(*out)->str);
  }
  if (word(r, "true") || word(r, "false")) {
    *out = node(r, VC_JSON_BOOL);
    (*out)->b = r->p[-1] == 'e' && r->p[-2] == 'u';
    return 0;
  }
  if (word(r, "null")) {
    *out = node(r, VC_JSON_NULL);
    return 0;
  }
  const char *start = r->p;
  while (r->p < r->end && strchr("+-0123456789.eE", *r->p)) r->p++;
  if (r->p == start) return bad(r, "a value expected");
  *out = node(r, VC_JSON_NUMBER);
  (*out)->str = vc_arena_strndup(r->arena, start, (size_t)(r->p - start));
  char *end;
  (*out)->num = strtod((*out)->str, &end);
  if (*end) return bad(r, "a malformed number");
  return 0;
}

int vc_json_parse(const char *text, size_t len, const char *name, vc_arena *arena, vc_json **out,
                  vc_error *err) {
  reader r = {text, text, text + len, name, arena, err};
  if (value(&r, 0, out)) return VC_ERR_PARSE;
  ws(&r);
  if (r.p != r.end) return bad(&r, "text after the value");
  return 0;
}

const vc_json *vc_json_get(const vc_json *o, const char *key) {
  if (!o || o->kind != VC_JSON_OBJECT) return NULL;
  for (uint32_t i = 0; i < o->n; i++)
    if (strcmp(o->keys[i], key) == 0) return o->items[i];
  return NULL;
}

const char *vc_json_str(const vc_json *o, const char *key) {
  const vc_json *v = vc_json_get(o, key);
  return v && v->kind == VC_JSON_STRING ? v->str : "";
}

int64_t vc_json_int(const vc_json *o, const char *key, int64_t def) {
  const vc_json *v = vc_json_get(o, key);
  return v && v->kind == VC_JSON_NUMBER ? strtoll(v->str, NULL, 10) : def;
}
