/* Parses the text the litmus layer generates (parse_text.h). */
#include "harness/litmus/parse_text.h"

#include <string.h>

#include "harness/lang/parse.h"

vc_program *vc_litmus_parse_text(const char *what, const char *text, vc_error *err) {
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = vc_parse("litmus", text, strlen(text), &d);
  if (!p)
    vc_fail(err, VC_ERR_INTERNAL, "%s: the generated program does not parse: %s", what,
            d.count ? d.items[0].msg : "");
  vc_diags_free(&d);
  return p;
}
