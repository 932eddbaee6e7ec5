/* Literal spellings of the .vyre format (docs/format.md, "Tokens"). */
#ifndef VC_PARSE_LIT_H
#define VC_PARSE_LIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "harness/model/program.h"

/* Does the atom look like a number (and so must be a valid literal)? */
bool vc_lit_is_number(const char *s);
/* Reads a u32, i32, f32, u64 or i64 literal (32-bit types: bits < 2^32).
   On failure why says what is wrong. */
bool vc_lit_parse(const char *s, vc_type *type, uint64_t *bits, char *why, size_t whylen);
/* A random seed: a u32 decimal or 0x and up to 16 hex digits. */
bool vc_lit_parse_seed(const char *s, uint64_t *seed, char *why, size_t whylen);

#endif
