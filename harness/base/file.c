#include "harness/base/file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
