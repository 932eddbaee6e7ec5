/* Inline SVG charts for the HTML report: no scripts, no external resources. */
#ifndef VC_RESULTS_SVG_H
#define VC_RESULTS_SVG_H

#include <stdint.h>

#include "harness/base/strbuf.h"

typedef enum vc_chart_unit { VC_UNIT_NS = 0, VC_UNIT_BYTES, VC_UNIT_COUNT } vc_chart_unit;

/* A horizontal grouped bar chart: one group per label, one bar per series. */
typedef struct vc_chart {
  const char *title;
  vc_chart_unit unit;
  const char *const *labels;
  uint32_t nlabels;
  const char *const *series;
  uint32_t nseries;
  const uint64_t *values; /* nlabels rows of nseries */
} vc_chart;

void vc_svg_bars(vc_strbuf *sb, const vc_chart *c);

#endif
