/* The programs the litmus layer writes, parsed: one that does not parse is
 * the layer's own error (VC_ERR_INTERNAL, naming what it was), never the
 * device's. */
#ifndef VC_LITMUS_PARSE_TEXT_H
#define VC_LITMUS_PARSE_TEXT_H

#include "harness/base/error.h"
#include "harness/model/program.h"

/* The program of text, or NULL with err set; what names it in the message. */
vc_program *vc_litmus_parse_text(const char *what, const char *text, vc_error *err);

#endif
