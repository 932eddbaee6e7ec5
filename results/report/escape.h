/* Text from drivers and users placed into HTML, XML, JSON and Markdown.
 * Every escaper also repairs what the format cannot carry: bytes that are
 * not UTF-8 and control characters become '?' (XML 1.0 forbids them). */
#ifndef VC_RESULTS_ESCAPE_H
#define VC_RESULTS_ESCAPE_H

#include "harness/base/strbuf.h"

/* HTML text and attribute values, and XML: & < > " ' escaped. */
void vc_esc_markup(vc_strbuf *sb, const char *s);
/* A JSON string, quotes included. */
void vc_esc_json(vc_strbuf *sb, const char *s);
/* A Markdown table cell: | escaped, line breaks as spaces. */
void vc_esc_md(vc_strbuf *sb, const char *s);
/* The lines of a fenced code block: as they are, but for the repairs. */
void vc_esc_md_block(vc_strbuf *sb, const char *s);

#endif
