/* The blocks the report sections write (sections.c, section_litmus.c):
 * strings of the dialect table, paragraphs, headings, and tables a row at a
 * time, the column kinds from the header. Header-only and static, so that
 * each section file has its own copy and no name leaves it. */
#ifndef VC_RESULTS_BLOCKS_H
#define VC_RESULTS_BLOCKS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "harness/base/strbuf.h"
#include "results/report/markup.h"
#include "results/store/load.h"

/* A string of the dialect table; NULL writes nothing. */
static inline void put(vc_strbuf *sb, const char *s) {
  if (s) vc_sb_puts(sb, s);
}

static inline void name_of(const vc_markup *d, vc_strbuf *sb, const char *text) {
  (d->name_of ? d->name_of : d->esc)(sb, text);
}

static inline void link_open(const vc_markup *d, vc_strbuf *sb, uint32_t ri, int section) {
  if (d->link_open) d->link_open(sb, ri, section);
}

static inline void link_close(const vc_markup *d, vc_strbuf *sb) {
  if (d->link_open) put(sb, d->link_close);
}

static inline void bold(const vc_markup *d, vc_strbuf *sb, const char *text) {
  put(sb, d->bold.open);
  d->esc(sb, text);
  put(sb, d->bold.close);
}

static inline void para(const vc_markup *d, vc_strbuf *sb, const char *text) {
  put(sb, d->para.open);
  d->esc(sb, text);
  put(sb, d->para.close);
}

static inline void heading(const vc_markup *d, vc_strbuf *sb, int level, const char *text) {
  d->heading_open(sb, level);
  d->esc(sb, text);
  d->heading_close(sb, level);
}

/* "Run 3, cuda" */
static inline void run_heading(const vc_markup *d, vc_strbuf *sb, int level, const vc_run_data *r) {
  d->heading_open(sb, level);
  vc_sb_printf(sb, "Run %lld, ", (long long)r->id);
  d->esc(sb, r->info.backend);
  d->heading_close(sb, level);
}

/* A program in a mode: "name mode". */
static inline void cell_name(const vc_markup *d, vc_strbuf *sb, const char *program, const char *mode) {
  name_of(d, sb, program);
  vc_sb_puts(sb, " ");
  d->esc(sb, mode);
}

/* ---- tables: a row at a time, the column kinds from the header ---- */

typedef struct table {
  const vc_markup *d;
  vc_strbuf *sb;
  const vc_col *cols;
  int col;
  bool marked;
} table;

static inline table table_open(const vc_markup *d, vc_strbuf *sb, const char *cls, const vc_col *cols,
                        int ncols) {
  d->table_open(sb, cls, cols, ncols);
  return (table){d, sb, cols, 0, false};
}

static inline void row_open(table *t, bool marked) {
  t->col = 0;
  t->marked = marked;
  put(t->sb, marked && t->d->row_marked ? t->d->row_marked : t->d->row.open);
}

static inline void row_close(table *t) {
  put(t->sb, t->d->row.close);
}

static inline void cell_open(table *t) {
  t->d->cell_open(t->sb, t->cols[t->col].kind, t->marked);
}

static inline void cell_close(table *t) {
  t->d->cell_close(t->sb, t->cols[t->col].kind, t->marked);
  t->col++;
}

static inline void cell_text(table *t, const char *text) {
  cell_open(t);
  t->d->esc(t->sb, text);
  cell_close(t);
}

static inline void cell_fmt(table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void cell_fmt(table *t, const char *fmt, ...) {
  cell_open(t);
  va_list ap;
  va_start(ap, fmt);
  vc_sb_vprintf(t->sb, fmt, ap);
  va_end(ap);
  cell_close(t);
}

#endif
