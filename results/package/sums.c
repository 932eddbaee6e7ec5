/* Walking the folder, hashing, and reading the list back (sums.h). */
#include "results/package/sums.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness/base/file.h"
#include "harness/model/digest.h"

static void add(vc_file_list *l, const char *p) {
  char **paths = realloc(l->paths, (l->n + 1) * sizeof *paths);
  if (!paths) abort();
  l->paths = paths;
  l->paths[l->n] = strdup(p);
  if (!l->paths[l->n]) abort();
  l->n++;
}

static int walk(const char *root, const char *rel, vc_file_list *out, vc_error *err) {
  char dir[8192];
  snprintf(dir, sizeof dir, "%s%s%s", root, rel[0] ? "/" : "", rel);
  DIR *d = opendir(dir);
  if (!d) return vc_fail(err, VC_ERR_IO, "%s: %s", dir, strerror(errno));
  int rc = 0;
  struct dirent *e;
  while (!rc && (e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char sub[8192], full[8192];
    snprintf(sub, sizeof sub, "%s%s%s", rel, rel[0] ? "/" : "", e->d_name);
    snprintf(full, sizeof full, "%s/%s", root, sub);
    struct stat st;
    if (lstat(full, &st) != 0)
      rc = vc_fail(err, VC_ERR_IO, "%s: %s", full, strerror(errno));
    else if (S_ISDIR(st.st_mode))
      rc = walk(root, sub, out, err);
    else if (S_ISREG(st.st_mode))
      add(out, sub);
    else
      rc = vc_fail(err, VC_ERR_IO, "%s: not a plain file (a package holds plain files only)", full);
  }
  closedir(d);
  return rc;
}

static int by_path(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int vc_files_under(const char *dir, vc_file_list *out, vc_error *err) {
  memset(out, 0, sizeof *out);
  int rc = walk(dir, "", out, err);
  if (rc) {
    vc_file_list_free(out);
    return rc;
  }
  qsort(out->paths, out->n, sizeof *out->paths, by_path);
  return 0;
}

void vc_file_list_free(vc_file_list *l) {
  for (uint32_t i = 0; i < l->n; i++) free(l->paths[i]);
  free(l->paths);
  memset(l, 0, sizeof *l);
}

int vc_sums_write(const char *dir, vc_error *err) {
  vc_file_list l;
  int rc = vc_files_under(dir, &l, err);
  if (rc) return rc;
  vc_strbuf sb;
  vc_sb_init(&sb);
  for (uint32_t i = 0; !rc && i < l.n; i++) {
    if (!strcmp(l.paths[i], VC_SUMS_FILE)) continue;
    char full[8192], hex[65];
    snprintf(full, sizeof full, "%s/%s", dir, l.paths[i]);
    if (vc_digest_file(full, hex) != 0)
      rc = vc_fail(err, VC_ERR_IO, "%s: cannot be read to hash it", full);
    else
      vc_sb_printf(&sb, "%s  %s\n", hex, l.paths[i]);
  }
  char path[8192];
  snprintf(path, sizeof path, "%s/%s", dir, VC_SUMS_FILE);
  if (!rc) rc = vc_file_write(path, &sb, err);
  vc_sb_free(&sb);
  vc_file_list_free(&l);
  return rc;
}

static bool is_hex64(const char *s) {
  for (int i = 0; i < 64; i++)
    if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))) return false;
  return true;
}

int vc_sums_check(const char *dir, vc_sums_finding found, void *ctx) {
  char path[8192];
  snprintf(path, sizeof path, "%s/%s", dir, VC_SUMS_FILE);
  char *text = vc_file_read_all(path);
  if (!text) return -1;
  vc_file_list l;
  vc_error err = {0};
  if (vc_files_under(dir, &l, &err)) {
    found(ctx, ".", err.msg, 1);
    free(text);
    return 1;
  }
  bool *listed = calloc(l.n ? l.n : 1, sizeof *listed);
  if (!listed) abort();
  int bad = 0;
  unsigned line = 0;
  for (char *s = text, *nl; *s; s = nl ? nl + 1 : s + strlen(s)) {
    nl = strchr(s, '\n');
    if (nl) *nl = '\0';
    line++;
    if (!*s) continue;
    if (strlen(s) < 67 || !is_hex64(s) || s[64] != ' ' || (s[65] != ' ' && s[65] != '*')) {
      char what[128];
      snprintf(what, sizeof what, "line %u is not \"SHA256  PATH\"", line);
      found(ctx, VC_SUMS_FILE, what, 1);
      bad++;
      continue;
    }
    const char *name = s + 66;
    uint32_t k = 0;
    while (k < l.n && strcmp(l.paths[k], name) != 0) k++;
    if (k == l.n) {
      found(ctx, name, "listed in " VC_SUMS_FILE ", missing from the package", 1);
      bad++;
      continue;
    }
    listed[k] = true;
    char full[8192], hex[65];
    snprintf(full, sizeof full, "%s/%s", dir, name);
    if (vc_digest_file(full, hex) != 0 || memcmp(hex, s, 64) != 0) {
      char what[256];
      snprintf(what, sizeof what, "sha256 %.64s, " VC_SUMS_FILE " says %.64s", hex, s);
      found(ctx, name, what, 1);
      bad++;
    }
  }
  for (uint32_t k = 0; k < l.n; k++)
    if (!listed[k] && strcmp(l.paths[k], VC_SUMS_FILE) != 0)
      found(ctx, l.paths[k], "not listed in " VC_SUMS_FILE " (an extra file, not checked)", 0);
  free(listed);
  vc_file_list_free(&l);
  free(text);
  return bad;
}
