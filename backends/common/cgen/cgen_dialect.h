/* The dialect hook table of the C-family code generator (cgen.c).
 *
 * cgen.c walks the program and decides everything that docs/semantics.md
 * fixes: evaluation order, temporaries, guards, helper functions, integer
 * arithmetic through unsigned types, f32 rules. A dialect only spells
 * things: types, the kernel signature, buffers and shared arrays, builtins,
 * barriers, atomics, conversions and bit casts.
 *
 * Expressions the core writes itself are the C subset that OpenCL C, GLSL
 * and CUDA C share: + - * / % << >> & | ^ ~ == != < <= > >= && || ! ?:,
 * parentheses, function calls, `if`, `for`, `return`, array indexing.
 *
 * Names in the generated code (fixed by the core, so that hooks can use them):
 *   b<k>   buffer k of the kernel's table (layout->buffers[k])
 *   s<k>   shared array k (layout->shared[k])
 *   v<n>   program symbol n (let, var, loop variable)
 *   t<n>   expression temporaries
 *   global_id_x ... group_size_z   the builtin ids, parameters of each
 *          segment function (virtual ids in a future native kernel)
 *   vc_seg<s>  the function holding segment s's body; vc_main the kernel
 *
 * Layout of a generated segment kernel:
 *   prologue()                 version, pragmas, global declarations
 *   helper functions           div/rem, saturating casts, isnan, f32 min/max
 *   void vc_seg0(seg_params() builtin ids) { symbols = 0; body }
 *   kernel_begin()             signature, opening brace, shared arrays
 *     vc_seg0(seg_args() builtin() ...);
 *   kernel_end()
 *
 * What the expression hooks (elem, builtin, atomic, convert, bitcast) write
 * must be usable as an operand of any operator: a name, a call, an indexed
 * element or a parenthesised expression.
 *
 * Hooks marked "required" must be set; the core reports a dialect that lacks
 * one as VC_ERR_INTERNAL. Hooks marked "optional" have the default shown
 * when NULL; hooks added later will always come with a default, so a
 * dialect file keeps compiling and working. */
#ifndef VC_CGEN_DIALECT_H
#define VC_CGEN_DIALECT_H

#include <stdbool.h>
#include <stdint.h>

#include "backends/backend.h"
#include "harness/base/error.h"
#include "harness/model/program.h"
#include "harness/base/strbuf.h"

/* What one generated kernel binds. */
typedef struct vc_cgen_layout {
  const vc_kernel_desc *desc;
  const vc_program *prog;     /* the program whose entry is generated */
  const vc_buffer *buffers;   /* binding table: b<k> is buffers[k] */
  uint32_t nbuffers;
  const vc_shared *shared;    /* s<k> is shared[k] */
  uint32_t nshared;
  uint32_t workgroup[3];      /* invocations per workgroup, per axis */
} vc_cgen_layout;

typedef struct vc_cgen_dialect {
  const char *name;           /* for messages: "OpenCL C", "GLSL", "CUDA C" */

  /* Spelling of each type (indexed by vc_type; VC_VOID unused). u32, i32
     and f32 required; u64 and i64 for programs that use them. */
  const char *type_name[VC_TYPE_COUNT];
  /* Suffixes of u64 and i64 literals. NULL = "ul", "l" (OpenCL C, GLSL with
     GL_ARB_gpu_shader_int64); CUDA C "ull", "ll". */
  const char *suffix_u64, *suffix_i64;
  /* Prefix of every f32 declaration (temporaries, symbols, helper locals):
     GLSL "precise ", elsewhere "". NULL = "". */
  const char *float_qual;
  /* Prefix of every non-kernel function (helpers, segment functions):
     CUDA "__device__ static ", elsewhere "". NULL = "". */
  const char *func_qual;

  /* Called first: may refuse a program the dialect cannot express (return a
     vc_errcode and fill err). Optional: NULL accepts everything. */
  int (*check)(const vc_cgen_layout *l, vc_error *err);

  /* Everything before the helper functions: version line, pragmas,
     extensions, and declarations at global scope (GLSL buffer blocks and
     shared arrays). Required. */
  void (*prologue)(const vc_cgen_layout *l, vc_strbuf *out);

  /* Parameters of a segment function that carry the buffers and shared
     arrays, each followed by ", " (the builtin ids follow them). GLSL, whose
     buffers and shared arrays are global, writes nothing. Required. */
  void (*seg_params)(const vc_cgen_layout *l, vc_strbuf *out);
  /* The matching arguments in the kernel's call, each followed by ", ". Required. */
  void (*seg_args)(const vc_cgen_layout *l, vc_strbuf *out);

  /* The kernel's signature and opening brace, then the declaration of the
     shared arrays where they live in the kernel (OpenCL __local, CUDA
     __shared__). Required. */
  void (*kernel_begin)(const vc_cgen_layout *l, vc_strbuf *out);
  /* Closes the kernel. Optional: NULL writes "}\n". */
  void (*kernel_end)(const vc_cgen_layout *l, vc_strbuf *out);

  /* An lvalue for element `index` (an expression of type u32 already known
     to be in bounds) of buffer or shared array k. Optional: NULL writes
     "b<k>[index]" or "s<k>[index]". */
  void (*elem)(const vc_cgen_layout *l, vc_space space, uint32_t k, const char *index,
               vc_strbuf *out);

  /* A u32 expression of the hardware builtin (used in the kernel body to
     pass the ids to the segment function). Required. */
  void (*builtin)(vc_builtin b, unsigned axis, vc_strbuf *out);

  /* A complete statement (with ";" and newline): workgroup execution barrier
     with global and shared memory ordering. Required. */
  void (*barrier)(vc_strbuf *out);

  /* An atomic expression returning the old value. lvalue comes from elem();
     t is the element type (VC_U32 or VC_I32; min/max compare in its
     signedness); a is the operand (cmpxchg: the expected value), b the
     desired value of cmpxchg (NULL otherwise). VC_AT_SUB may be spelled as
     an add of the negation. Required. */
  void (*atomic)(vc_atomic_op op, vc_type t, vc_space space, const char *lvalue,
                 const char *a, const char *b, vc_strbuf *out);

  /* Value conversion of expression x from `from` to `to`: between integers
     of one size (u32<->i32, u64<->i64) keeping the bits; between integers of
     different sizes only for values the target holds (the core masks and
     extends); integers -> f32 rounding to nearest even; f32 -> integers
     truncating (the core calls it only with x in range). Required. */
  void (*convert)(vc_type to, vc_type from, const char *x, vc_strbuf *out);
  /* Reinterpretation of x's bits (to != from). Required. */
  void (*bitcast)(vc_type to, vc_type from, const char *x, vc_strbuf *out);
} vc_cgen_dialect;

/* Does the program use a 64-bit type anywhere (memory, symbols, any
   expression)? Atomics on 64-bit memory? Dialects declare extensions. */
bool vc_cgen_uses_64(const vc_program *p);
bool vc_cgen_uses_atomic_64(const vc_program *p);

/* seg_params and seg_args for languages whose buffers and shared arrays are
   pointer parameters (OpenCL C, CUDA C): "<buf_q><type> *b<k>, " and
   "<shared_q><type> *s<k>, " with the dialect's type names; "b<k>, s<k>, ". */
void vc_cgen_pointer_params(const vc_cgen_layout *l, const vc_cgen_dialect *d, const char *buf_q,
                            const char *shared_q, vc_strbuf *out);
void vc_cgen_pointer_args(const vc_cgen_layout *l, vc_strbuf *out);

/* The dialect tables, one per file cgen_<dialect>.c. */
extern const vc_cgen_dialect vc_cgen_dialect_opencl;
extern const vc_cgen_dialect vc_cgen_dialect_glsl;
extern const vc_cgen_dialect vc_cgen_dialect_cuda;

#endif
