#include "harness/base/file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int vc_file_read(const char *path, vc_strbuf *sb, vc_error *err) {
  FILE *f = fopen(path, "rb");
  if (!f) return vc_fail(err, VC_ERR_IO, "cannot read %s: %s", path, strerror(errno));
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) vc_sb_putn(sb, buf, n);
  int bad = ferror(f);
  fclose(f);
  if (bad) return vc_fail(err, VC_ERR_IO, "cannot read %s", path);
  if (!sb->data) vc_sb_puts(sb, "");
  return 0;
}

char *vc_file_read_all(const char *path) {
  vc_strbuf sb;
  vc_sb_init(&sb);
  vc_error err;
  vc_error_clear(&err);
  if (vc_file_read(path, &sb, &err)) {
    vc_sb_free(&sb);
    return NULL;
  }
  return vc_sb_take(&sb);
}

int vc_file_write(const char *path, const vc_strbuf *sb, vc_error *err) {
  FILE *f = fopen(path, "wb");
  if (!f) return vc_fail(err, VC_ERR_IO, "cannot write %s: %s", path, strerror(errno));
  size_t n = sb->len ? fwrite(sb->data, 1, sb->len, f) : 0;
  int bad = n != sb->len || ferror(f);
  if (fclose(f) != 0) bad = 1;
  if (bad) return vc_fail(err, VC_ERR_IO, "cannot write %s: %s", path, strerror(errno));
  return 0;
}

void vc_temp_template(char *path, size_t n, const char *prefix) {
  const char *dir = getenv("TMPDIR");
  snprintf(path, n, "%s/%s-XXXXXX", dir && dir[0] ? dir : "/tmp", prefix);
}

static int make_dir(const char *path, vc_error *err) {
  if (mkdir(path, 0777) == 0 || errno == EEXIST) return 0;
  return vc_fail(err, VC_ERR_IO, "cannot create %s: %s", path, strerror(errno));
}

int vc_make_dirs(const char *dir, vc_error *err) {
  size_t n = strlen(dir);
  char *p = malloc(n + 1);
  if (!p) return vc_fail(err, VC_ERR_NOMEM, "out of memory");
  memcpy(p, dir, n + 1);
  int rc = 0;
  for (char *s = p + 1; *s && !rc; s++) {
    if (*s != '/') continue;
    *s = '\0';
    rc = make_dir(p, err);
    *s = '/';
  }
  if (!rc) rc = make_dir(p, err);
  free(p);
  return rc;
}
