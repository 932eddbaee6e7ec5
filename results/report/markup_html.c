/* The HTML spelling of the report sections (markup.h): tags, entities and
 * the classes that report_html.c's style sheet colours. */
#include "results/report/escape.h"
#include "results/report/markup.h"

static void code(vc_strbuf *sb, const char *text) {
  vc_sb_puts(sb, "<code>");
  vc_esc_markup(sb, text);
  vc_sb_puts(sb, "</code>");
}

static void link_open(vc_strbuf *sb, uint32_t ri, int section) {
  vc_sb_printf(sb, "<a href=\"#f-%u-%d\">", ri, section);
}

static void heading_open(vc_strbuf *sb, int level) {
  vc_sb_printf(sb, "<h%d>", level);
}
static void heading_close(vc_strbuf *sb, int level) {
  vc_sb_printf(sb, "</h%d>\n", level);
}

static void alert_open(vc_strbuf *sb, const char *cls) {
  vc_sb_printf(sb, "<p class=\"%s\">", cls);
}

static void verdict_open(vc_strbuf *sb, const vc_qual *q) {
  vc_sb_printf(sb, "<div class=\"verdict %s\" id=\"verdict\"><div class=\"word\">%s</div>\n",
               vc_verdict_class(q->verdict), vc_verdict_word(q->verdict));
}

static void failure_open(vc_strbuf *sb, uint32_t ri, int section, bool known) {
  vc_sb_printf(sb, "<div class=\"failure%s\" id=\"f-%u-%d\">\n", known ? " known" : "", ri,
               section);
}

static void lead(vc_strbuf *sb, const char *title, const char *text) {
  vc_sb_printf(sb, "<h4>%s</h4>\n", title);
  if (!text[0]) return;
  vc_sb_puts(sb, "<p>");
  vc_esc_markup(sb, text);
  vc_sb_puts(sb, "</p>\n");
}

static void command(vc_strbuf *sb, const char *intro, const char *cmd) {
  vc_sb_printf(sb, "<p>%s</p><code class=\"cmd\">", intro);
  vc_esc_markup(sb, cmd);
  vc_sb_puts(sb, "</code>\n");
}

static void collapsed(vc_strbuf *sb, const char *summary, const char *lang, const char *text) {
  (void)lang;
  vc_sb_printf(sb, "<details><summary>%s</summary><pre>", summary);
  vc_esc_markup(sb, text);
  vc_sb_puts(sb, "</pre></details>\n");
}

static void table_open(vc_strbuf *sb, const char *cls, const vc_col *cols, int ncols) {
  if (cls)
    vc_sb_printf(sb, "<table class=\"%s\">", cls);
  else
    vc_sb_puts(sb, "<table>");
  if (!cols[0].head) { /* keys and values */
    vc_sb_putc(sb, '\n');
    return;
  }
  vc_sb_puts(sb, "<tr>");
  for (int i = 0; i < ncols; i++) vc_sb_printf(sb, "<th>%s</th>", cols[i].head);
  vc_sb_puts(sb, "</tr>\n");
}

static void cell_open(vc_strbuf *sb, vc_col_kind kind, bool marked) {
  (void)marked; /* the row carries the mark */
  vc_sb_puts(sb, kind == VC_COL_HEAD   ? "<th>"
                 : kind == VC_COL_NUM  ? "<td class=\"n\">"
                 : kind == VC_COL_WRAP ? "<td class=\"w\">"
                                       : "<td>");
}

static void cell_close(vc_strbuf *sb, vc_col_kind kind, bool marked) {
  (void)marked;
  vc_sb_puts(sb, kind == VC_COL_HEAD ? "</th>" : "</td>");
}

const vc_markup vc_markup_html = {
    .name = "HTML",
    .esc = vc_esc_markup,
    .code = code,
    .link_open = link_open,
    .link_close = "</a>",
    .bold = {"<b>", "</b>"},
    .signs = {"&times;", "&#x2260;", "<br>"},
    .title_sep = " &mdash; ",
    .heading_open = heading_open,
    .heading_close = heading_close,
    .para = {"<p>", "</p>\n"},
    .list = {"<ul>\n", "</ul>\n"},
    .item = {"<li>", "</li>\n"},
    .alert_open = alert_open,
    .alert_close = "</p>\n",
    .verdict_open = verdict_open,
    .verdict_close = "</div>\n",
    .verdict_line = {"<p>", "</p>\n"},
    .failure_open = failure_open,
    .failure_close = "</div>\n",
    .lead = lead,
    .command = command,
    .collapsed = collapsed,
    .table_open = table_open,
    .table_close = "</table>\n",
    .row = {"<tr>", "</tr>\n"},
    .row_marked = "<tr class=\"bad\">",
    .cell_open = cell_open,
    .cell_close = cell_close,
    .chart = vc_svg_bars,
};
