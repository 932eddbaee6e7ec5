/* Helpers shared by the parser tests. */
#ifndef VC_TEST_PARSER_UTIL_H
#define VC_TEST_PARSER_UTIL_H

#include <stdint.h>

#include "harness/lang/diag.h"
#include "harness/model/program.h"

/* Parses text as the file "t.vyre"; d must be initialised. */
vc_program *pt_parse(const char *text, vc_diags *d);
/* Parses text that must be valid; fails the test with the messages if not. */
vc_program *pt_parse_ok(const char *text);
/* Fails unless some diagnostic is at line:col of t.vyre and contains fragment. */
void pt_assert_diag(const vc_diags *d, uint32_t line, uint32_t col, const char *fragment);
/* The canonical text of p (free() it). */
char *pt_print(const vc_program *p);
/* print -> parse gives a program equal to p, and printing that gives the same text. */
void pt_assert_roundtrip(const vc_program *p);

#endif
