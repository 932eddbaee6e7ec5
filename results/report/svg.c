#include "results/report/svg.h"

#include <stdio.h>
#include <string.h>

#include "results/report/escape.h"
#include "results/report/fmt.h"

enum { WIDTH = 960, LABEL_W = 260, VALUE_W = 110, BAR_H = 12, GAP = 8, TOP = 44, MAX_LABEL = 40 };

static const char *const palette[] = {"#3b6fb6", "#e08a2c", "#4a9a5b", "#a34f9e", "#8a8a8a"};

static void fmt_value(char out[VC_FMT_LEN], vc_chart_unit unit, uint64_t v) {
  if (unit == VC_UNIT_NS)
    vc_fmt_ns(out, v);
  else if (unit == VC_UNIT_BYTES)
    vc_fmt_bytes(out, v);
  else
    snprintf(out, VC_FMT_LEN, "%llu", (unsigned long long)v);
}

static void legend(vc_strbuf *sb, const vc_chart *c) {
  for (uint32_t s = 0; s < c->nseries; s++) {
    uint32_t x = LABEL_W + s * 150;
    vc_sb_printf(sb, "<rect x=\"%u\" y=\"26\" width=\"12\" height=\"12\" fill=\"%s\"/>", x,
                 palette[s % 5]);
    vc_sb_printf(sb, "<text x=\"%u\" y=\"36\">", x + 16);
    vc_esc_markup(sb, c->series[s]);
    vc_sb_puts(sb, "</text>");
  }
}

/* Long program names are cut so that the bars keep their room. */
static void label(vc_strbuf *sb, const char *text, uint32_t y) {
  char cut[MAX_LABEL + 4];
  size_t n = strlen(text);
  if (n > MAX_LABEL) snprintf(cut, sizeof cut, "%.*s...", MAX_LABEL - 3, text);
  vc_sb_printf(sb, "<text x=\"%u\" y=\"%u\" text-anchor=\"end\">", LABEL_W - 8, y);
  vc_esc_markup(sb, n > MAX_LABEL ? cut : text);
  vc_sb_puts(sb, "<title>");
  vc_esc_markup(sb, text);
  vc_sb_puts(sb, "</title></text>");
}

void vc_svg_bars(vc_strbuf *sb, const vc_chart *c) {
  uint64_t max = 1;
  for (uint32_t i = 0; i < c->nlabels * c->nseries; i++)
    if (c->values[i] > max) max = c->values[i];
  uint32_t group = c->nseries * BAR_H + GAP, bar_w = WIDTH - LABEL_W - VALUE_W;
  uint32_t height = TOP + c->nlabels * group + GAP;
  vc_sb_printf(sb,
               "<svg class=\"chart\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" "
               "role=\"img\" font-family=\"sans-serif\" font-size=\"11\">",
               WIDTH, height, WIDTH, height);
  vc_sb_puts(sb, "<text x=\"0\" y=\"16\" font-size=\"14\" font-weight=\"bold\">");
  vc_esc_markup(sb, c->title);
  vc_sb_puts(sb, "</text>");
  legend(sb, c);
  for (uint32_t l = 0; l < c->nlabels; l++) {
    uint32_t y0 = TOP + l * group;
    label(sb, c->labels[l], y0 + (c->nseries * BAR_H) / 2 + 4);
    for (uint32_t s = 0; s < c->nseries; s++) {
      uint64_t v = c->values[l * c->nseries + s];
      uint32_t w = (uint32_t)((double)v / (double)max * bar_w);
      char text[VC_FMT_LEN];
      fmt_value(text, c->unit, v);
      vc_sb_printf(sb,
                   "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" fill=\"%s\"/>"
                   "<text x=\"%u\" y=\"%u\">%s</text>",
                   LABEL_W, y0 + s * BAR_H, w ? w : 1, BAR_H - 2, palette[s % 5],
                   LABEL_W + (w ? w : 1) + 4, y0 + s * BAR_H + BAR_H - 3, text);
    }
  }
  vc_sb_puts(sb, "</svg>\n");
}
