/* Reading caselist files (caselist.h). A line is trimmed, a `#` and what
 * follows it dropped; what is left must be one word of printable ASCII
 * whose brackets close, so that a typo fails loudly instead of silently
 * selecting nothing. */
#include "harness/lang/caselist.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VC_CASELIST_LINE_MAX 4096

static char *copy(const char *s, size_t len) {
  char *c = malloc(len + 1);
  if (c) {
    memcpy(c, s, len);
    c[len] = '\0';
  }
  return c;
}

static int push(vc_caselist *cl, const char *glob, size_t len, const char *path, unsigned line,
                vc_error *err) {
  if (cl->n == cl->cap) {
    uint32_t cap = cl->cap ? cl->cap * 2 : 16;
    char **g = realloc(cl->globs, cap * sizeof *g);
    if (!g) return vc_fail(err, VC_ERR_NOMEM, "caselist: out of memory");
    cl->globs = g;
    char **o = realloc(cl->origins, cap * sizeof *o);
    if (!o) return vc_fail(err, VC_ERR_NOMEM, "caselist: out of memory");
    cl->origins = o;
    cl->cap = cap;
  }
  char where[4200];
  int w = snprintf(where, sizeof where, "%s:%u", path, line);
  char *s = copy(glob, len), *o = copy(where, (size_t)w < sizeof where ? (size_t)w : sizeof where - 1);
  if (!s || !o) {
    free(s);
    free(o);
    return vc_fail(err, VC_ERR_NOMEM, "caselist: out of memory");
  }
  cl->globs[cl->n] = s;
  cl->origins[cl->n++] = o;
  return 0;
}

/* Why the word w[0..len) is not a name or glob, or NULL. */
static const char *bad_word(const char *w, size_t len) {
  if (len >= 2 && w[0] == '-' && w[1] == '-') return "an option, not a program name or glob";
  int depth = 0;
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)w[i];
    if (c == ' ' || c == '\t') return "one program name or glob a line, found more than one";
    if (c < 0x21 || c > 0x7e) return "a character that is not printable ASCII";
    if (c == '[') depth++;
    if (c == ']' && depth > 0) depth--;
  }
  return depth ? "a '[' without its ']'" : NULL;
}

/* One line without its newline: a glob, or nothing. */
static int take_line(const char *path, unsigned line, char *s, vc_caselist *cl, vc_error *err) {
  char *hash = strchr(s, '#');
  if (hash) *hash = '\0';
  while (*s == ' ' || *s == '\t' || *s == '\r') s++;
  size_t len = strlen(s);
  while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r')) len--;
  if (len == 0) return 0;
  const char *why = bad_word(s, len);
  if (why) return vc_fail(err, VC_ERR_USAGE, "%s:%u: %s: '%.*s'", path, line, why, (int)len, s);
  return push(cl, s, len, path, line, err);
}

int vc_caselist_read(const char *path, vc_caselist *cl, vc_error *err) {
  FILE *f = fopen(path, "r");
  if (!f) return vc_fail(err, VC_ERR_IO, "caselist %s: %s", path, strerror(errno));
  uint32_t before = cl->n;
  char buf[VC_CASELIST_LINE_MAX + 2];
  unsigned line = 0;
  int rc = 0;
  while (rc == 0 && fgets(buf, sizeof buf, f)) {
    line++;
    size_t len = strlen(buf);
    if (len && buf[len - 1] == '\n') buf[--len] = '\0';
    else if (!feof(f))
      rc = vc_fail(err, VC_ERR_USAGE, "%s:%u: a line longer than %u bytes", path, line,
                   VC_CASELIST_LINE_MAX);
    if (rc == 0) rc = take_line(path, line, buf, cl, err);
  }
  if (rc == 0 && ferror(f)) rc = vc_fail(err, VC_ERR_IO, "caselist %s: read error", path);
  fclose(f);
  if (rc != 0) {
    while (cl->n > before) {
      cl->n--;
      free(cl->globs[cl->n]);
      free(cl->origins[cl->n]);
    }
  }
  return rc;
}

bool vc_caselist_match(const vc_caselist *cl, const char *name, const char *relpath) {
  for (uint32_t i = 0; i < cl->n; i++) {
    if (name && fnmatch(cl->globs[i], name, 0) == 0) return true;
    if (relpath && fnmatch(cl->globs[i], relpath, 0) == 0) return true;
  }
  return false;
}

int vc_caselist_with_filters(const vc_caselist *cl, const char *const *filters, uint32_t n,
                             const char ***out, const char ***origins, vc_error *err) {
  *out = *origins = NULL;
  if (cl->n == 0)
    return vc_fail(err, VC_ERR_USAGE, "the caselists name no program (every line empty or a comment)");
  const char **all = malloc((n + cl->n) * sizeof *all);
  const char **from = malloc((n + cl->n) * sizeof *from);
  if (!all || !from) {
    free(all);
    free(from);
    return vc_fail(err, VC_ERR_NOMEM, "caselist: out of memory");
  }
  for (uint32_t i = 0; i < n; i++) {
    all[i] = filters[i];
    from[i] = "--filter";
  }
  for (uint32_t i = 0; i < cl->n; i++) {
    all[n + i] = cl->globs[i];
    from[n + i] = cl->origins[i];
  }
  *out = all;
  *origins = from;
  return 0;
}

void vc_caselist_free(vc_caselist *cl) {
  for (uint32_t i = 0; i < cl->n; i++) {
    free(cl->globs[i]);
    free(cl->origins[i]);
  }
  free(cl->globs);
  free(cl->origins);
  cl->globs = cl->origins = NULL;
  cl->n = cl->cap = 0;
}
