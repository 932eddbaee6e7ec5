/* harness/lang: text to program and back (lexer, reader, parser, printer, diagnostics, corpus files). */
/* The .vyre parser: text to a validated, typed program.
 *
 * Parsing and validation are one step: a program is returned only when the
 * file has no errors; otherwise every error found is in diags (and
 * diags->expect_reject holds the file's (expect reject "...") if any). */
#ifndef VC_PARSE_H
#define VC_PARSE_H

#include <stddef.h>

#include "harness/lang/diag.h"
#include "harness/model/program.h"

/* path names the text in messages and is stored in the program. */
vc_program *vc_parse(const char *path, const char *text, size_t len, vc_diags *diags);
/* Reads the file; an unreadable file is one diagnostic at 0:0. */
vc_program *vc_parse_file(const char *path, vc_diags *diags);

#endif
