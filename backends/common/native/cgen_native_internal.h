/* Internal interface of the native kernel generator: cgen_native.c writes
 * what every language shares (segment functions, discovery, the counter
 * barrier, the kernel's loops); a spelling table per language
 * (target/opencl.c, target/glsl.c, target/cuda.c, after each dialect) writes the
 * rest.
 *
 * Names in a native kernel, beyond those of cgen_dialect.h:
 *   b<k>      plan buffer k (in segment functions b<k> is the segment's own
 *             buffer k, a parameter, except in GLSL where the spelling maps it)
 *   s<k>      the program's shared array k (likewise)
 *   ctrl      the control buffer; VC_NC_* its word numbers (native_ctrl.h),
 *             then a slot per launched workgroup (VC_NC_SLOTS + group id)
 *   vc_nc_load/store/add/or/cas(ctrl word ...)   atomics on control words
 *   vc_nc_peek(ctrl word)   the cheapest read (relaxed), where a stale value is
 *             harmless or the order comes from elsewhere
 *   vc_nc_acquire()  an acquire fence at device scope, after a vc_nc_peek that
 *             saw a release
 *   vc_nc_sync()     workgroup barrier ordering global memory at device scope
 *   vc_nc_wgsync()   workgroup barrier ordering global and workgroup memory at
 *             workgroup scope only (gridbar=lead; written only then)
 *   vc_nat_discover, vc_nat_count, vc_nat_publish, vc_nat_ticket,
 *   vc_nat_grid_barrier(ctrl, lead, np)
 *             the runtime; `lead` is nonzero in one invocation of each
 *             participant (late workgroups have none)
 *
 * Text templates (vc_native_put) expand: $U the u32 type, $F the function
 * prefix, $P the control parameter followed by ", " (nothing in GLSL), $p
 * the control parameter alone, $A and $a the same for arguments, $G the
 * physical workgroup id in x, $N the physical workgroups in x, $R the read
 * of a control word the workgroup barrier has ordered (vc_nc_peek with the
 * flip barrier, vc_nc_load with the counter barrier), $W the workgroup
 * barrier on either side of a flip grid barrier (vc_nc_wgsync with
 * gridbar=lead, else vc_nc_sync). */
#ifndef VC_CGEN_NATIVE_INTERNAL_H
#define VC_CGEN_NATIVE_INTERNAL_H

#include "backends/common/cgen/cgen_dialect.h"
#include "backends/common/native/cgen_native.h"

typedef struct vc_native_spell vc_native_spell;

/* What one native kernel is made of. */
typedef struct vc_native_layout {
  const vc_kernel_desc *k;
  const vc_native_desc *d;
  const vc_program *prog;  /* the whole program: workgroup, grid, name */
  const vc_native_opts *o;
  const vc_native_spell *sp;
  const vc_cgen_dialect *seg; /* the dialect segment functions are written in */
} vc_native_layout;

/* A segment's layout as the dialect hooks see it: a hook that gets &l can
   reach the plan indices of the segment's buffers and shared arrays. */
typedef struct vc_native_seg_layout {
  vc_cgen_layout l; /* first member */
  const uint32_t *bind;
  const uint32_t *sbind;
} vc_native_seg_layout;

struct vc_native_spell {
  const char *name;
  /* Fills *d with the dialect the segment functions are written in. */
  void (*seg_dialect)(const vc_native_opts *o, vc_cgen_dialect *d);
  /* Refuses options the language cannot honour. Optional. */
  int (*check)(const vc_native_opts *o, vc_error *err);
  /* Version line, pragmas, extensions, global declarations. */
  void (*prologue)(const vc_native_layout *nl, vc_strbuf *out);
  /* vc_nc_load, vc_nc_peek, vc_nc_store, vc_nc_add, vc_nc_or, vc_nc_cas,
     vc_nc_acquire, vc_nc_sync. */
  void (*primitives)(const vc_native_layout *nl, vc_strbuf *out);
  /* vc_nat_discover, vc_nat_count, vc_nat_publish, vc_nat_ticket,
     vc_nat_grid_barrier. Optional: NULL writes occupancy discovery, the
     ticket slots and the counter barrier (cgen_native_kernel.c). */
  void (*runtime)(const vc_native_layout *nl, vc_strbuf *out);
  const char *ctrl_param; /* "__global uint *ctrl"; "" where ctrl is global */
  const char *ctrl_arg;   /* "ctrl"; "" */
  /* Opens the kernel (or the function main calls), declares the shared
     arrays where they live in the kernel. */
  void (*kernel_begin)(const vc_native_layout *nl, vc_strbuf *out);
  void (*kernel_end)(const vc_native_layout *nl, vc_strbuf *out); /* optional: "}\n" */
  /* Arguments of vc_seg<s> before the builtin ids, each followed by ", ". */
  void (*seg_args)(const vc_native_layout *nl, uint32_t s, vc_strbuf *out);
  /* Element i (an expression) of plan buffer k as an lvalue. */
  void (*plan_elem)(uint32_t k, const char *i, vc_strbuf *out);
  /* The grid barrier keeps no generation in the control buffer (CUDA's
     grid sync): the kernel counts its barriers in a register and stores the
     count as VC_NC_GEN at its end, so nothing is added to the critical path
     after every barrier. */
  bool counts_barriers;
  /* A pass is one loop over the segments with a switch into their calls,
     so that the grid barrier's code is one copy that stays warm (CUDA;
     the others keep one straight block per segment, as PoCL and lavapipe
     were qualified with). */
  bool loop_segments;
};

extern const vc_native_spell vc_native_spell_opencl;
extern const vc_native_spell vc_native_spell_glsl;
extern const vc_native_spell vc_native_spell_cuda;

/* Spellings two languages share (cgen_native.c): the plan buffers and the
   program's shared arrays a segment binds, as arguments "b3, s0, "; and
   element i of plan buffer k as "b<k>[i]". */
void vc_native_args_by_plan(const vc_native_layout *nl, uint32_t s, vc_strbuf *out);
void vc_native_array_elem(uint32_t k, const char *i, vc_strbuf *out);
/* The rest of a kernel's opening, after "...vc_main(", where buffers are
   parameters (OpenCL C, CUDA C): plan buffer k as "<buf_prefix><type> *b<k>",
   the control parameter, then in the body the shared arrays, declared with
   shared_kw ("__local", "__shared__"). */
void vc_native_kernel_params(const vc_native_layout *nl, const char *buf_prefix,
                             const char *shared_kw, vc_strbuf *out);

/* Appends template t, expanded for nl (see above). */
void vc_native_put(const vc_native_layout *nl, vc_strbuf *out, const char *t);

/* cgen_native_kernel.c: occupancy discovery and the counter barrier (the
   default runtime), and the kernel's body between kernel_begin and
   kernel_end. */
void vc_native_runtime(const vc_native_layout *nl, vc_strbuf *out);
/* The kernel uses the flip barrier (gridbar=flip or lead, a language
   without its own runtime); vc_native_lead: with workgroup-scope workgroup
   barriers around it (gridbar=lead); the kernel counts its barriers itself (the spelling's
   counts_barriers, or the flip barrier, which keeps no generation word). */
bool vc_native_flip(const vc_native_layout *nl);
bool vc_native_lead(const vc_native_layout *nl);
bool vc_native_counts_barriers(const vc_native_layout *nl);
void vc_native_kernel_body(const vc_native_layout *nl, vc_strbuf *out);

#endif
