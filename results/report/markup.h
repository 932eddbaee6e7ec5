/* The markup dialect table of the report sections (sections.c).
 *
 * sections.c decides everything a section says: which items, in which
 * order, how many before "and N more", every word and number. A dialect
 * only spells things: headings, paragraphs, lists, tables, bold and code,
 * links to a failure's section, collapsed text and commands, and the
 * escaping of text (HTML entities, or Markdown's | and the fences).
 *
 * Blocks: a section is a sequence of blocks (headings, paragraphs, lists,
 * tables, collapsed text, commands). HTML closes each block with a
 * newline; Markdown opens each with an empty line, which is what separates
 * its blocks, so that neither needs to know what came before.
 *
 * Text passed as `text` is escaped by the hook; strings in the table are
 * written as they are. The sections write the entity &mdash; themselves:
 * both markups read it. As in backends/common/cgen/cgen_dialect.h, optional
 * hooks have a default when NULL, so that a dialect names only what it
 * spells. */
#ifndef VC_RESULTS_MARKUP_H
#define VC_RESULTS_MARKUP_H

#include <stdbool.h>
#include <stdint.h>

#include "harness/base/strbuf.h"
#include "results/report/qual.h"
#include "results/report/svg.h"

/* What a table column holds: the dialect picks its cell and alignment. */
typedef enum {
  VC_COL_TEXT, /* words */
  VC_COL_WRAP, /* long words: paths, commits, option lists (may break anywhere) */
  VC_COL_NUM,  /* numbers and durations, right-aligned */
  VC_COL_CODE, /* bits and digests, monospaced; never marked */
  VC_COL_HEAD  /* the row's own name */
} vc_col_kind;

typedef struct vc_col {
  const char *head; /* written as it is; NULL in the first column: no heading row */
  vc_col_kind kind;
} vc_col;

/* An opening and a closing string; NULL writes nothing. */
typedef struct vc_mk_pair {
  const char *open, *close;
} vc_mk_pair;

/* Hooks and strings marked "optional" may be NULL, with the default shown;
   the others must be set. */
typedef struct vc_markup {
  const char *name; /* "HTML", "Markdown" */

  /* inline */
  void (*esc)(vc_strbuf *sb, const char *text);
  void (*code)(vc_strbuf *sb, const char *text);
  /* A program's name. Optional: NULL = esc (Markdown sets it off as code,
     since nothing else does). */
  void (*name_of)(vc_strbuf *sb, const char *text);
  /* Around what leads to section `section` of run `ri` (the anchor
     f-RI-SECTION). Optional: NULL = no link (Markdown has no anchors of
     its own). */
  void (*link_open)(vc_strbuf *sb, uint32_t ri, int section);
  const char *link_close;
  vc_mk_pair bold;
  /* the signs × and ≠, and a line break inside a table's heading */
  struct {
    const char *times, *ne, *br;
  } signs;
  const char *title_sep; /* between program, mode and backend in a failure's title */
  /* Before the status of a new failure in a matrix cell. Optional: NULL =
     nothing (HTML colours the cell and its legend names the colour). */
  const char *new_mark;

  /* blocks */
  void (*heading_open)(vc_strbuf *sb, int level);
  void (*heading_close)(vc_strbuf *sb, int level);
  vc_mk_pair para, list, item;
  /* A paragraph that stands out; cls is its kind ("planted", "warning"). */
  void (*alert_open)(vc_strbuf *sb, const char *cls);
  const char *alert_close;
  /* The verdict opens the first screen (HTML: the coloured box with the
     word; Markdown: the title); a line per run follows, then verdict_close
     (optional). */
  void (*verdict_open)(vc_strbuf *sb, const vc_qual *q);
  const char *verdict_close;
  vc_mk_pair verdict_line;
  /* Around a failure's section, whose anchor is f-RI-SECTION. Optional:
     NULL = nothing. */
  void (*failure_open)(vc_strbuf *sb, uint32_t ri, int section, bool known);
  const char *failure_close;
  /* A minor heading with what follows it on its own: "3 of 3 repeats:
     diverge" and the reason (text, may be empty). */
  void (*lead)(vc_strbuf *sb, const char *title, const char *text);
  /* intro (already spelled) and a command to paste */
  void (*command)(vc_strbuf *sb, const char *intro, const char *cmd);
  /* text collapsed under summary (written as it is); lang names the text
     for Markdown's fence ("lisp", "text") */
  void (*collapsed)(vc_strbuf *sb, const char *summary, const char *lang, const char *text);

  /* Tables: cls is the HTML class (NULL: none); table_close optional. A
     marked row (the elements that differ) opens with row_marked (optional:
     NULL = row.open) and passes the mark to its cells. */
  void (*table_open)(vc_strbuf *sb, const char *cls, const vc_col *cols, int ncols);
  const char *table_close;
  vc_mk_pair row;
  const char *row_marked;
  void (*cell_open)(vc_strbuf *sb, vc_col_kind kind, bool marked);
  void (*cell_close)(vc_strbuf *sb, vc_col_kind kind, bool marked);

  /* A chart of figures a table beside it holds too. Optional: NULL = not
     drawn (Markdown). */
  void (*chart)(vc_strbuf *sb, const vc_chart *c);
} vc_markup;

extern const vc_markup vc_markup_html;
extern const vc_markup vc_markup_md;

#endif
