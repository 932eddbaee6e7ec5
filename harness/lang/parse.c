/* vc_parse: text to a validated program. Reads the S-expressions, then
 * builds the program from them, reporting every error it finds; a program
 * comes back only from a file without errors. */
#include "harness/lang/parse.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/lang/parse_int.h"
#include "harness/lang/read.h"

/* The one (program NAME ...) form of the file, or NULL (reported). */
static const vc_sx *program_form(vc_pctx *c, const vc_sx_file *file) {
  if (file->n == 0) {
    vc_perr(c, (vc_loc){1, 1}, "no (program NAME ...) form in the file");
    return NULL;
  }
  const vc_sx *f = file->forms[0];
  if (strcmp(vc_sx_head(f), "program") != 0) {
    if (f->kind == VC_SX_LIST)
      vc_perr(c, f->loc, "expected (program NAME ...), got (%s ...)", vc_sx_head(f));
    else
      vc_perr(c, f->loc, "expected (program NAME ...), got %s", vc_sx_text(f));
    return NULL;
  }
  if (file->n > 1) vc_perr(c, file->forms[1]->loc, "text after the (program ...) form");
  return f;
}

static bool program_name(vc_pctx *c, const vc_sx *f) {
  if (f->n < 2) {
    vc_perr(c, f->loc, "wrong number of arguments: (program NAME FORM...) needs a name");
    return false;
  }
  if (!vc_p_label(c, f->items[1], "program name")) return false;
  c->p->name = vc_arena_strdup(&c->p->arena, f->items[1]->text);
  return true;
}

static void build(vc_pctx *c) {
  program_name(c, c->program);
  vc_p_program_forms(c);
  if (c->entry)
    vc_p_entry(c, c->entry);
  else
    vc_perr(c, c->program->loc, "the program has no (entry ...)");
}

static bool loc_after(vc_loc a, vc_loc b) {
  return a.line > b.line || (a.line == b.line && a.col > b.col);
}

/* Messages in file order (declarations are read before the rest); stable. */
static void sort_diags(vc_diags *d, uint32_t first) {
  for (uint32_t i = first + 1; i < d->count; i++) {
    vc_diag x = d->items[i];
    uint32_t j = i;
    for (; j > first && loc_after(d->items[j - 1].loc, x.loc); j--) d->items[j] = d->items[j - 1];
    d->items[j] = x;
  }
}

vc_program *vc_parse(const char *path, const char *text, size_t len, vc_diags *diags) {
  uint32_t first = diags->count, reported = vc_diags_reported(diags);
  free(diags->expect_reject);
  diags->expect_reject = NULL;
  vc_arena scratch;
  vc_arena_init(&scratch);
  vc_sx_file file;
  vc_read(&scratch, path, text, len, diags, &file);
  vc_pctx c = {.p = vc_program_new(), .diags = diags, .path = path, .scratch = &scratch};
  c.p->path = vc_arena_strdup(&c.p->arena, path);
  c.program = program_form(&c, &file);
  if (c.program && file.well_formed)
    build(&c);
  else if (c.program)
    vc_p_expect_reject_only(&c);
  vc_arena_free(&scratch);
  sort_diags(diags, first);
  if (vc_diags_reported(diags) == reported) return c.p;
  vc_program_free(c.p);
  return NULL;
}

/* The whole file in a malloc'ed buffer; errno set on failure. */
static char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    n += fread(buf + n, 1, cap - n, f);
    if (n < cap) break;
    char *grown = realloc(buf, cap * 2);
    if (!grown) {
      free(buf);
      buf = NULL;
      errno = ENOMEM;
      break;
    }
    buf = grown;
    cap *= 2;
  }
  if (buf && ferror(f)) {
    int e = errno ? errno : EIO;
    free(buf);
    buf = NULL;
    errno = e;
  }
  int e = errno;
  fclose(f);
  errno = e;
  *len = n;
  return buf;
}

vc_program *vc_parse_file(const char *path, vc_diags *diags) {
  size_t len = 0;
  errno = 0;
  char *text = read_all(path, &len);
  if (!text) {
    free(diags->expect_reject);
    diags->expect_reject = NULL;
    vc_diags_add(diags, path, (vc_loc){0, 0}, "cannot read %s: %s", path,
                 strerror(errno ? errno : EIO));
    return NULL;
  }
  vc_program *p = vc_parse(path, text, len, diags);
  free(text);
  return p;
}
