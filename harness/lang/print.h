/* Writes a program back as .vyre text; vc_parse of the output gives an
 * equal program (vc_program_equal). */
#ifndef VC_PRINT_H
#define VC_PRINT_H

#include "harness/model/program.h"
#include "harness/base/strbuf.h"

void vc_print_program(const vc_program *p, vc_strbuf *out);
/* One expression or statement, on one line, for messages. */
void vc_print_node(const vc_program *p, const vc_node *n, vc_strbuf *out);
/* A literal as the parser reads it back (u32 "5u", i32 "-5i", f32 "1.5f" or "0x7fc00000f"). */
void vc_print_literal(vc_type t, uint64_t bits, vc_strbuf *out);

#endif
