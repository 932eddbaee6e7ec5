#include "results/report/source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/base/file.h"
#include "harness/model/digest.h"
#include "results/report/qual.h"

/* The string after "(doc", its \" and \\ escapes undone. */
static void doc_of(const char *text, char *out, size_t n) {
  out[0] = '\0';
  const char *p = strstr(text, "(doc \"");
  if (!p) return;
  p += 6;
  size_t used = 0;
  for (; *p && *p != '"'; p++) {
    if (*p == '\\' && p[1]) p++;
    if (used + 1 < n) out[used++] = *p;
  }
  out[used] = '\0';
}

void vc_prog_source_read(const vc_prog_data *p, vc_prog_source *out) {
  memset(out, 0, sizeof *out);
  const char *path = p->info.path ? p->info.path : "";
  char digest[65];
  if (!path[0]) {
    snprintf(out->note, sizeof out->note, "the run recorded no path for this program");
    return;
  }
  if (access(path, R_OK) != 0 || vc_digest_file(path, digest) != 0) {
    snprintf(out->note, sizeof out->note, "%s does not exist here (source digest %s)", path,
             p->info.source_digest ? p->info.source_digest : "");
    return;
  }
  if (p->info.source_digest && strcmp(digest, p->info.source_digest) != 0) {
    snprintf(out->note, sizeof out->note,
             "%s has changed since the run (its digest is %.16s..., the run's %.16s...): "
             "not shown",
             path, digest, p->info.source_digest);
    return;
  }
  out->text = vc_file_read_all(path);
  if (!out->text) {
    snprintf(out->note, sizeof out->note, "%s cannot be read here", path);
    return;
  }
  doc_of(out->text, out->doc, sizeof out->doc);
}

void vc_prog_source_free(vc_prog_source *s) {
  free(s->text);
  s->text = NULL;
}

/* A shell word: as it is when safe, else in single quotes. */
static void shell_word(vc_strbuf *out, const char *s) {
  bool plain = s[0] != '\0';
  for (const char *p = s; *p && plain; p++)
    plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=,:+@%",
                   *p) != NULL;
  if (plain) {
    vc_sb_puts(out, s);
    return;
  }
  vc_sb_putc(out, '\'');
  for (const char *p = s; *p; p++) {
    if (*p == '\'')
      vc_sb_puts(out, "'\\''");
    else
      vc_sb_putc(out, *p);
  }
  vc_sb_putc(out, '\'');
}

static void device_args(const vc_run_data *r, vc_strbuf *out) {
  char v[1024];
  if (vc_qual_option(r, "device", v, sizeof v) && strcmp(v, "0") != 0) {
    vc_sb_puts(out, " --device ");
    shell_word(out, v);
  }
  if (vc_qual_option(r, "device-options", v, sizeof v) && (vc_qual_strip_cache(v), v[0])) {
    vc_sb_puts(out, " --device-options ");
    shell_word(out, v);
  }
}

void vc_repro_command(const vc_run_data *r, const vc_prog_data *p, const char *mode,
                      vc_strbuf *out) {
  char v[64];
  vc_sb_puts(out, "vyre-conform --backend ");
  shell_word(out, r->info.backend);
  device_args(r, out);
  vc_sb_puts(out, " --mode ");
  shell_word(out, mode);
  if (vc_qual_option(r, "repeat", v, sizeof v) && strcmp(v, "1") != 0) {
    vc_sb_puts(out, " --repeat ");
    shell_word(out, v);
  }
  if (vc_qual_option(r, "oracle-order", v, sizeof v) && strcmp(v, "forward") != 0) {
    vc_sb_puts(out, " --oracle-order ");
    shell_word(out, v);
  }
  vc_sb_puts(out, " --expectations none --db repro.db ");
  shell_word(out, p->info.path && p->info.path[0] ? p->info.path : p->info.name);
}

void vc_emit_command(const vc_run_data *r, const vc_prog_data *p, const char *mode,
                     vc_strbuf *out) {
  vc_sb_puts(out, "vyre-conform emit --backend ");
  shell_word(out, r->info.backend);
  if (vc_mode_from_name(mode) >= 0) {
    vc_sb_puts(out, " --mode ");
    shell_word(out, mode);
  }
  vc_sb_putc(out, ' ');
  shell_word(out, p->info.path && p->info.path[0] ? p->info.path : p->info.name);
}
