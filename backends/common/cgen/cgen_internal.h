/* Internal interface between the parts of the C-family code generator:
 * cgen.c assembles a kernel, cgen_stmt.c writes statements and segment
 * functions, cgen_expr.c writes expressions and memory accesses,
 * cgen_helpers.c writes the helper functions the body used. */
#ifndef VC_CGEN_INTERNAL_H
#define VC_CGEN_INTERNAL_H

#include "backends/common/cgen/cgen_dialect.h"

/* Helper functions a body may call; cgen_helpers.c writes the used ones. */
enum {
  VC_CG_H_DIV_U32 = 1u << 0,
  VC_CG_H_REM_U32 = 1u << 1,
  VC_CG_H_DIV_I32 = 1u << 2,
  VC_CG_H_REM_I32 = 1u << 3,
  VC_CG_H_ISNAN = 1u << 4,
  VC_CG_H_F32_TO_I32 = 1u << 5,
  VC_CG_H_F32_TO_U32 = 1u << 6,
  VC_CG_H_MIN_F32 = 1u << 7,
  VC_CG_H_MAX_F32 = 1u << 8,
  VC_CG_H_DIV_U64 = 1u << 9,
  VC_CG_H_REM_U64 = 1u << 10,
  VC_CG_H_DIV_I64 = 1u << 11,
  VC_CG_H_REM_I64 = 1u << 12,
  VC_CG_H_F32_TO_I64 = 1u << 13,
  VC_CG_H_F32_TO_U64 = 1u << 14
};

/* An operand: a temporary, symbol, builtin id or literal, as spelled in the
   generated code. Leaves are short; anything longer becomes a temporary. */
typedef struct vc_cg_val {
  char s[48];
  vc_type type;
} vc_cg_val;

/* The state of writing one function. */
typedef struct vc_cg {
  const vc_cgen_dialect *d;
  const vc_cgen_layout *l;
  vc_strbuf *out;      /* the function being written */
  uint32_t ntemps;     /* temporaries t0 ... */
  unsigned depth;      /* indentation level */
  unsigned helpers;    /* VC_CG_H_* used so far */
  int rc;              /* first error, 0 if none */
  vc_error *err;
} vc_cg;

/* Records the first error; later ones are dropped. Returns g->rc. */
int vc_cg_fail(vc_cg *g, vc_errcode code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void vc_cg_indent(vc_cg *g);
const char *vc_cg_type(const vc_cg *g, vc_type t);
const char *vc_cg_float_qual(const vc_cg *g, vc_type t);
/* The zero of type t ("0u", "0", "0.0f", "0ul"...) and the u64/i64 literal suffix. */
const char *vc_cg_zero(const vc_cg *g, vc_type t);
const char *vc_cg_suffix64(const vc_cg *g, vc_type t);

/* Spelling helpers: conversions that are the identity when to == from. */
void vc_cg_convert(const vc_cg *g, vc_type to, vc_type from, const char *x, vc_strbuf *out);
void vc_cg_bitcast(const vc_cg *g, vc_type to, vc_type from, const char *x, vc_strbuf *out);

/* Evaluates expression n (operands first, left to right) into *v. */
void vc_cg_expr(vc_cg *g, const vc_node *n, vc_cg_val *v);
/* Replaces *v by a new temporary holding its current value. */
void vc_cg_copy(vc_cg *g, vc_cg_val *v);
/* A guarded store, or a guarded atomic whose result is dropped (result
   NULL) or kept in the temporary named by result (declared and zeroed). */
void vc_cg_store(vc_cg *g, const vc_node *n, const vc_cg_val *idx, const vc_cg_val *val);
void vc_cg_atomic(vc_cg *g, const vc_node *n, const vc_cg_val *idx, const vc_cg_val *a,
                  const vc_cg_val *b, const char *result);

/* Names of the builtin-id parameters: global_id_x is "global_id" "_x". */
extern const char *const vc_cg_builtin_param[VC_BUILTIN_COUNT];

/* Writes `void vc_seg<s>(...) { ... }` for the statements of body. */
void vc_cg_segment(vc_cg *g, uint32_t s, const vc_node *body);
/* Writes the call of vc_seg<s> from the kernel, with the hardware builtins. */
void vc_cg_segment_call(vc_cg *g, uint32_t s);

/* Writes the helper functions named by mask (and those they need). */
void vc_cg_helpers(const vc_cgen_dialect *d, unsigned mask, vc_strbuf *out);

#endif
