/* The Markdown spelling of the report sections (markup.h), as GitHub
 * renders it: every block opens with an empty line; <details> is the one
 * HTML element used, since Markdown has no collapsed text of its own. */
#include <string.h>

#include "results/report/escape.h"
#include "results/report/markup.h"

static void backticks(vc_strbuf *sb, int n) {
  for (int i = 0; i < n; i++) vc_sb_putc(sb, '`');
}

/* Text in a fenced block cannot close it: the fence is longer than any run
   of backticks inside. */
static void fenced(vc_strbuf *sb, const char *lang, const char *text) {
  int longest = 0, run = 0;
  for (const char *p = text; *p; p++) {
    run = *p == '`' ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  int n = longest >= 3 ? longest + 1 : 3;
  backticks(sb, n);
  vc_sb_printf(sb, "%s\n", lang);
  vc_strbuf clean;
  vc_sb_init(&clean);
  vc_esc_md_block(&clean, text);
  vc_sb_puts(sb, vc_sb_str(&clean));
  if (!clean.len || vc_sb_str(&clean)[clean.len - 1] != '\n') vc_sb_putc(sb, '\n');
  vc_sb_free(&clean);
  backticks(sb, n);
  vc_sb_putc(sb, '\n');
}

/* A code span; one holding a backtick is opened by two and padded, as
   CommonMark allows. */
static void code(vc_strbuf *sb, const char *text) {
  bool tick = strchr(text, '`') != NULL;
  vc_sb_puts(sb, tick ? "`` " : "`");
  vc_esc_md(sb, text);
  vc_sb_puts(sb, tick ? " ``" : "`");
}

static void heading_open(vc_strbuf *sb, int level) {
  vc_sb_putc(sb, '\n');
  for (int i = 0; i < level; i++) vc_sb_putc(sb, '#');
  vc_sb_putc(sb, ' ');
}

static void heading_close(vc_strbuf *sb, int level) {
  (void)level;
  vc_sb_putc(sb, '\n');
}

static void alert_open(vc_strbuf *sb, const char *cls) {
  (void)cls;
  vc_sb_puts(sb, "\n> ");
}

static void verdict_open(vc_strbuf *sb, const vc_qual *q) {
  vc_sb_puts(sb, "# ");
  vc_sb_puts(sb, vc_qual_title_prefix(q));
  vc_sb_printf(sb, "%s &mdash; vyre-conform qualification record\n\n", vc_verdict_word(q->verdict));
}

static void lead(vc_strbuf *sb, const char *title, const char *text) {
  vc_sb_printf(sb, "\n**%s**", title);
  if (text[0]) {
    vc_sb_puts(sb, " &mdash; ");
    vc_esc_md(sb, text);
  }
  vc_sb_putc(sb, '\n');
}

static void command(vc_strbuf *sb, const char *intro, const char *cmd) {
  vc_sb_printf(sb, "\n%s\n\n", intro);
  fenced(sb, "sh", cmd);
}

static void collapsed(vc_strbuf *sb, const char *summary, const char *lang, const char *text) {
  vc_sb_printf(sb, "\n<details><summary>%s</summary>\n\n", summary);
  fenced(sb, lang, text);
  vc_sb_puts(sb, "\n</details>\n");
}

static void table_open(vc_strbuf *sb, const char *cls, const vc_col *cols, int ncols) {
  (void)cls;
  vc_sb_puts(sb, "\n|");
  for (int i = 0; i < ncols; i++) {
    if (cols[i].head) vc_sb_printf(sb, " %s", cols[i].head);
    vc_sb_puts(sb, " |");
  }
  vc_sb_puts(sb, "\n|");
  for (int i = 0; i < ncols; i++) vc_sb_puts(sb, cols[i].kind == VC_COL_NUM ? " ---: |" : " --- |");
  vc_sb_putc(sb, '\n');
}

static void cell_open(vc_strbuf *sb, vc_col_kind kind, bool marked) {
  vc_sb_puts(sb, kind == VC_COL_CODE ? " `" : marked ? " **" : " ");
}

static void cell_close(vc_strbuf *sb, vc_col_kind kind, bool marked) {
  vc_sb_puts(sb, kind == VC_COL_CODE ? "` |" : marked ? "** |" : " |");
}

/* No anchors, links or sections around failures: their defaults. */
const vc_markup vc_markup_md = {
    .name = "Markdown",
    .esc = vc_esc_md,
    .code = code,
    .name_of = code,
    .bold = {"**", "**"},
    .signs = {"×", "≠", " "},
    .title_sep = " ",
    .new_mark = "**NEW** ",
    .heading_open = heading_open,
    .heading_close = heading_close,
    .para = {"\n", "\n"},
    .list = {"\n", NULL},
    .item = {"- ", "\n"},
    .alert_open = alert_open,
    .alert_close = "\n",
    .verdict_open = verdict_open,
    .verdict_line = {"- ", "\n"},
    .lead = lead,
    .command = command,
    .collapsed = collapsed,
    .table_open = table_open,
    .row = {"|", "\n"},
    .cell_open = cell_open,
    .cell_close = cell_close,
};
