#include "harness/lang/corpus.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness/lang/parse.h"
#include "harness/model/digest.h"
#include "harness/base/sha256.h"
#include "harness/base/strbuf.h"

static void add(vc_corpus *c, const char *path, const char *rel) {
  if (c->n == c->cap) {
    c->cap = c->cap ? c->cap * 2 : 64;
    c->files = realloc(c->files, c->cap * sizeof *c->files);
    if (!c->files) abort();
  }
  vc_corpus_file *f = &c->files[c->n++];
  memset(f, 0, sizeof *f);
  f->path = vc_strdup(path);
  f->rel = vc_strdup(rel);
  vc_diags_init(&f->diags);
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Directories already walked, by device and inode: a symlink that leads
   back up the tree (or to a directory seen through another link) is walked
   once, not until the path overflows. */
typedef struct walk_seen {
  dev_t *dev;
  ino_t *ino;
  uint32_t n, cap;
} walk_seen;

static bool seen_before(walk_seen *w, const struct stat *st) {
  for (uint32_t i = 0; i < w->n; i++)
    if (w->dev[i] == st->st_dev && w->ino[i] == st->st_ino) return true;
  if (w->n == w->cap) {
    w->cap = w->cap ? w->cap * 2 : 16;
    w->dev = realloc(w->dev, w->cap * sizeof *w->dev);
    w->ino = realloc(w->ino, w->cap * sizeof *w->ino);
    if (!w->dev || !w->ino) abort();
  }
  w->dev[w->n] = st->st_dev;
  w->ino[w->n++] = st->st_ino;
  return false;
}

static int walk(vc_corpus *c, walk_seen *seen, const char *dir, const char *rel, vc_error *err) {
  struct stat self;
  if (stat(dir, &self) == 0 && seen_before(seen, &self)) return 0;
  DIR *d = opendir(dir);
  if (!d) return vc_fail(err, VC_ERR_IO, "cannot read directory %s: %s", dir, strerror(errno));
  struct dirent *e;
  int rc = 0;
  while (rc == 0 && (e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char path[4096], r[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    snprintf(r, sizeof r, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
    struct stat st;
    if (stat(path, &st) != 0) continue;
    if (S_ISDIR(st.st_mode))
      rc = walk(c, seen, path, r, err);
    else if (S_ISREG(st.st_mode) && ends_with(e->d_name, ".vyre"))
      add(c, path, r);
  }
  closedir(d);
  return rc;
}

static int by_rel(const void *a, const void *b) {
  const vc_corpus_file *x = a, *y = b;
  int c = strcmp(x->rel, y->rel);
  return c ? c : strcmp(x->path, y->path);
}

int vc_corpus_collect(vc_corpus *c, const char *const *paths, uint32_t npaths, vc_error *err) {
  memset(c, 0, sizeof *c);
  for (uint32_t i = 0; i < npaths; i++) {
    char arg[4096];
    snprintf(arg, sizeof arg, "%s", paths[i]);
    size_t n = strlen(arg);
    while (n > 1 && arg[n - 1] == '/') arg[--n] = '\0';
    struct stat st;
    if (stat(arg, &st) != 0)
      return vc_fail(err, VC_ERR_IO, "%s: %s", arg, strerror(errno));
    if (S_ISDIR(st.st_mode)) {
      walk_seen seen = {NULL, NULL, 0, 0};
      int rc = walk(c, &seen, arg, "", err);
      free(seen.dev);
      free(seen.ino);
      if (rc) return rc;
    } else {
      const char *base = strrchr(arg, '/');
      add(c, arg, base ? base + 1 : arg);
    }
  }
  if (c->n) qsort(c->files, c->n, sizeof *c->files, by_rel); /* files is NULL when empty */
  /* The same file named twice (two arguments) runs once. */
  uint32_t w = 0;
  for (uint32_t i = 0; i < c->n; i++) {
    if (w && strcmp(c->files[w - 1].path, c->files[i].path) == 0) {
      free(c->files[i].path);
      free(c->files[i].rel);
      continue;
    }
    c->files[w++] = c->files[i];
  }
  c->n = w;
  for (uint32_t i = 0; i < c->n; i++)
    if (vc_digest_file(c->files[i].path, c->files[i].digest) != 0)
      return vc_fail(err, VC_ERR_IO, "cannot read %s: %s", c->files[i].path, strerror(errno));
  vc_corpus_redigest(c);
  return 0;
}

void vc_corpus_redigest(vc_corpus *c) {
  vc_sha256 s;
  vc_sha256_init(&s);
  for (uint32_t i = 0; i < c->n; i++) {
    vc_sha256_update(&s, c->files[i].rel, strlen(c->files[i].rel) + 1);
    vc_sha256_update(&s, c->files[i].digest, 64);
  }
  uint8_t d[32];
  vc_sha256_final(&s, d);
  vc_sha256_hex(d, c->digest);
}

static void parse_one(vc_corpus_file *f) {
  if (f->parsed) return;
  f->parsed = true;
  f->program = vc_parse_file(f->path, &f->diags);
}

void vc_corpus_parse(vc_corpus *c) {
  for (uint32_t i = 0; i < c->n; i++) parse_one(&c->files[i]);
}

void vc_corpus_program_name(const vc_corpus_file *f, char *out, size_t n) {
  if (f->program && f->program->name)
    snprintf(out, n, "%s", f->program->name);
  else
    vc_corpus_file_name(f->rel, out, n);
}

static bool path_matches(const vc_corpus_file *f, const char *glob) {
  char name[4096];
  vc_corpus_file_name(f->rel, name, sizeof name);
  return fnmatch(glob, f->rel, 0) == 0 || fnmatch(glob, name, 0) == 0;
}

void vc_corpus_select(vc_corpus *c, const char *const *globs, uint32_t nglobs, bool *matched) {
  if (!nglobs) return;
  for (uint32_t i = c->n; i-- > 0;) {
    vc_corpus_file *f = &c->files[i];
    bool keep = false, unseen = false;
    for (uint32_t g = 0; g < nglobs && (matched || !keep); g++) {
      bool m = path_matches(f, globs[g]);
      keep |= m;
      if (matched) {
        matched[g] |= m;
        unseen |= !matched[g];
      }
    }
    /* The declared name is only known by parsing (that parse is kept):
       needed when the path did not select the file, or a glob has not
       matched any file yet. */
    if (!keep || unseen) {
      parse_one(f);
      for (uint32_t g = 0; f->program && g < nglobs && (matched || !keep); g++) {
        bool m = fnmatch(globs[g], f->program->name, 0) == 0;
        keep |= m;
        if (matched) matched[g] |= m;
      }
    }
    if (!keep) vc_corpus_remove(c, i);
  }
}

void vc_corpus_remove(vc_corpus *c, uint32_t i) {
  free(c->files[i].path);
  free(c->files[i].rel);
  vc_program_free(c->files[i].program);
  vc_diags_free(&c->files[i].diags);
  memmove(&c->files[i], &c->files[i + 1], (c->n - i - 1) * sizeof *c->files);
  c->n--;
}

void vc_corpus_free(vc_corpus *c) {
  while (c->n) vc_corpus_remove(c, c->n - 1);
  free(c->files);
  memset(c, 0, sizeof *c);
}

void vc_corpus_file_name(const char *path, char *out, size_t n) {
  const char *base = strrchr(path, '/');
  snprintf(out, n, "%s", base ? base + 1 : path);
  char *dot = strrchr(out, '.');
  if (dot && dot != out) *dot = '\0';
}

uint32_t vc_corpus_filter(vc_corpus *c, const char *glob) {
  if (!glob) return c->n;
  for (uint32_t i = c->n; i-- > 0;)
    if (!path_matches(&c->files[i], glob)) vc_corpus_remove(c, i);
  return c->n;
}

