/* Internal to the parser: the state shared by parse.c, parse_decl.c,
 * parse_init.c, parse_stmt.c, parse_expr.c and parse_scope.c while one file
 * becomes a program. Not for other parts of the harness. */
#ifndef VC_PARSE_INT_H
#define VC_PARSE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "harness/lang/diag.h"
#include "harness/model/program.h"
#include "harness/lang/read.h"

/* The type of an expression that already had an error: no further type
   errors are reported about it. Never escapes the parser. */
#define VC_P_BAD ((vc_type)VC_TYPE_COUNT)

typedef struct vc_pctx {
  vc_program *p;
  vc_diags *diags;
  const char *path;
  const vc_sx *program; /* the (program ...) form */
  /* the first of each form that may appear only once */
  const vc_sx *doc, *workgroup, *grid, *fixpoint, *entry; /* entry: also searched for
                                                             declarations in messages */
  uint32_t buffers_cap, shared_cap, syms_cap, expects_cap, tags_cap;
  uint64_t shared_bytes;
  bool has_ulp;
  vc_arena *scratch; /* freed when the parse ends */
  /* entry: the visible symbols, innermost last (in scratch) */
  uint32_t *scope;
  uint32_t nscope, scope_cap;
  /* name -> its visible symbol or -1; a name has at most one visible
     symbol, as redeclaration while visible is refused (open addressing) */
  struct vc_pname *names;
  uint32_t names_cap, names_used;
  /* every (let|var|loop NAME ...) of entry by name, then position; built on
     the first name that does not resolve, for its message */
  const vc_sx **decls;
  uint32_t ndecls;
  bool decls_built;
  const vc_sx *construct; /* innermost (if ...), (loop ...) or (while ...) being built, or NULL */
  uint32_t loops;         /* (loop ...) and (while ...) around the statement being built */
} vc_pctx;

void vc_perr(vc_pctx *c, vc_loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Room for one more element of an arena array (doubling). */
void *vc_p_grow(vc_arena *a, void *items, uint32_t n, uint32_t *cap, size_t size);
/* Checks that form f has min..max arguments (max UINT32_MAX: no limit); usage
   spells the form for the message, e.g. "(store B I V)". */
bool vc_p_arity(vc_pctx *c, const vc_sx *f, uint32_t min, uint32_t max, const char *usage);
/* A name the program declares: [A-Za-z_][A-Za-z0-9_]*, not beginning with __. */
bool vc_p_name(vc_pctx *c, const vc_sx *x, const char *what);
/* A program name or tag: [A-Za-z_][A-Za-z0-9_.-]*. */
bool vc_p_label(vc_pctx *c, const vc_sx *x, const char *what);
bool vc_p_type(vc_pctx *c, const vc_sx *x, vc_type *t);
/* Any literal; what names the place in the message. */
bool vc_p_literal(vc_pctx *c, const vc_sx *x, const char *what, vc_type *t, uint64_t *bits);
/* A literal of type want: of a 32-bit type, or of any (64). */
bool vc_p_literal_of(vc_pctx *c, const vc_sx *x, const char *what, vc_type want, uint32_t *bits);
bool vc_p_literal_of64(vc_pctx *c, const vc_sx *x, const char *what, vc_type want,
                       uint64_t *bits);

/* parse_decl.c: every form of the program except entry's statements. */
void vc_p_program_forms(vc_pctx *c);
/* Only keeps the (expect reject "...") of a file too malformed to build. */
void vc_p_expect_reject_only(vc_pctx *c);
/* parse_init.c: the (init ...) of buffer b; count_ok when b->count is valid. */
void vc_p_init(vc_pctx *c, vc_buffer *b, const vc_sx *init, bool count_ok);
/* parse_stmt.c: builds p->entry from the (entry ...) form. */
void vc_p_entry(vc_pctx *c, const vc_sx *entry);
vc_node *vc_p_stmt(vc_pctx *c, const vc_sx *x);
/* parse_expr.c: never NULL; type VC_P_BAD after an error. */
vc_node *vc_p_expr(vc_pctx *c, const vc_sx *x);
/* A load/store/atomic target: sets n->space and n->ref; false (reported) if none. */
bool vc_p_memory(vc_pctx *c, const vc_sx *x, vc_node *n, bool writes, const char *op);
/* An atomic (statement or expression) from (atomic OP B I V...). */
vc_node *vc_p_atomic(vc_pctx *c, const vc_sx *x, vc_node_kind kind);
/* Reports a type error unless t is want (or either is VC_P_BAD). */
bool vc_p_want(vc_pctx *c, const vc_node *e, vc_type want, const char *what);

/* parse_scope.c */
uint32_t vc_p_scope_mark(const vc_pctx *c);
void vc_p_scope_pop(vc_pctx *c, uint32_t mark);
/* Declares a let, var or loop variable; -1 (reported) when the name is taken. */
int vc_p_declare(vc_pctx *c, const vc_sx *name, vc_sym_kind kind, vc_type type);
/* The visible symbol named by x, or -1 after a precise message. */
int vc_p_lookup(vc_pctx *c, const vc_sx *x);
/* The visible symbol named name, or -1; reports nothing. */
int vc_p_lookup_quiet(const vc_pctx *c, const char *name);
/* The buffer or shared array named s (declared anywhere), for messages. */
bool vc_p_memory_named(const vc_pctx *c, const char *s, vc_space *space, uint32_t *index);

#endif
