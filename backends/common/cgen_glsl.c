/* The GLSL dialect of the C-family code generator (see cgen_dialect.h):
 * GLSL 450 compute shaders for Vulkan, compiled to SPIR-V by glslang.
 *
 * Buffers and shared arrays are globals, so segment functions take only the
 * builtin ids. Every f32 declaration is `precise`: SPIR-V then carries
 * NoContraction on each float operation, and no a*b+c becomes an fma. */
#include "backends/common/cgen_dialect.h"

static const char *const types[3] = {"uint", "int", "float"};

/* Buffers written by one invocation and read by another across a workgroup
   barrier must be `coherent`: without it GLSL promises the barrier's memory
   ordering to nothing in the buffer. Without such a barrier nothing is
   shared within a segment (that would be a race), so caches stay allowed. */
static void buffers(const vc_cgen_layout *l, vc_strbuf *out) {
  const char *coherent =
      vc_node_has_barrier(l->prog->entry, VC_BARRIER_WORKGROUP) ? "coherent " : "";
  for (uint32_t k = 0; k < l->nbuffers; k++)
    vc_sb_printf(out,
                 "layout(std430, set = 0, binding = %u) %sbuffer B%u { %s d[]; } b%u; /* %s */\n",
                 k, coherent, k, types[l->buffers[k].type], k, l->buffers[k].name);
}

static void prologue(const vc_cgen_layout *l, vc_strbuf *out) {
  vc_sb_puts(out, "#version 450\n\n");
  vc_sb_printf(out, "layout(local_size_x = %u, local_size_y = %u, local_size_z = %u) in;\n\n",
               l->workgroup[0], l->workgroup[1], l->workgroup[2]);
  buffers(l, out);
  for (uint32_t k = 0; k < l->nshared; k++)
    vc_sb_printf(out, "shared %s s%u[%u]; /* %s */\n", types[l->shared[k].type], k,
                 l->shared[k].count, l->shared[k].name);
  vc_sb_putc(out, '\n');
}

static void no_params(const vc_cgen_layout *l, vc_strbuf *out) {
  (void)l;
  (void)out;
}

static void kernel_begin(const vc_cgen_layout *l, vc_strbuf *out) {
  (void)l;
  vc_sb_puts(out, "void main() {\n");
}

static void elem(const vc_cgen_layout *l, vc_space space, uint32_t k, const char *index,
                 vc_strbuf *out) {
  (void)l;
  if (space == VC_SPACE_SHARED)
    vc_sb_printf(out, "s%u[%s]", k, index);
  else
    vc_sb_printf(out, "b%u.d[%s]", k, index);
}

static void builtin(vc_builtin b, unsigned axis, vc_strbuf *out) {
  static const char *const var[VC_BUILTIN_COUNT] = {[VC_GLOBAL_ID] = "gl_GlobalInvocationID",
                                                    [VC_LOCAL_ID] = "gl_LocalInvocationID",
                                                    [VC_GROUP_ID] = "gl_WorkGroupID",
                                                    [VC_NUM_GROUPS] = "gl_NumWorkGroups",
                                                    [VC_GROUP_SIZE] = "gl_WorkGroupSize"};
  vc_sb_printf(out, "%s.%c", var[b], "xyz"[axis % 3]);
}

/* barrier() orders shared memory only; the buffer fence covers the rest. */
static void barrier(vc_strbuf *out) {
  vc_sb_puts(out, "memoryBarrierShared(); memoryBarrierBuffer(); barrier();\n");
}

/* The overloads pick the signedness of min/max from the element type. */
static void atomic(vc_atomic_op op, vc_type t, vc_space space, const char *lvalue, const char *a,
                   const char *b, vc_strbuf *out) {
  static const char *const fn[VC_ATOMIC_OP_COUNT] = {
      [VC_AT_ADD] = "atomicAdd",         [VC_AT_SUB] = "atomicAdd",
      [VC_AT_AND] = "atomicAnd",         [VC_AT_OR] = "atomicOr",
      [VC_AT_XOR] = "atomicXor",         [VC_AT_MIN] = "atomicMin",
      [VC_AT_MAX] = "atomicMax",         [VC_AT_EXCHANGE] = "atomicExchange",
      [VC_AT_CMPXCHG] = "atomicCompSwap"};
  (void)space;
  if (op == VC_AT_CMPXCHG)
    vc_sb_printf(out, "%s(%s, %s, %s)", fn[op], lvalue, a, b);
  else if (op == VC_AT_SUB && t == VC_I32) /* negated on the bits: -INT_MIN wraps */
    vc_sb_printf(out, "atomicAdd(%s, int(0u - uint(%s)))", lvalue, a);
  else if (op == VC_AT_SUB)
    vc_sb_printf(out, "atomicAdd(%s, 0u - %s)", lvalue, a);
  else
    vc_sb_printf(out, "%s(%s, %s)", fn[op], lvalue, a);
}

/* GLSL constructors: int(uint) and uint(int) keep the bits, float(int)
   rounds, int(float) and uint(float) truncate (the core passes values in
   range). */
static void convert(vc_type to, vc_type from, const char *x, vc_strbuf *out) {
  (void)from;
  vc_sb_printf(out, "%s(%s)", types[to], x);
}

static void bitcast(vc_type to, vc_type from, const char *x, vc_strbuf *out) {
  if (from == VC_F32)
    vc_sb_printf(out, "%s(%s)", to == VC_U32 ? "floatBitsToUint" : "floatBitsToInt", x);
  else if (to == VC_F32)
    vc_sb_printf(out, "%s(%s)", from == VC_U32 ? "uintBitsToFloat" : "intBitsToFloat", x);
  else
    vc_sb_printf(out, "%s(%s)", types[to], x);
}

const vc_cgen_dialect vc_cgen_dialect_glsl = {
    .name = "GLSL",
    .type_name = {"uint", "int", "float"},
    .float_qual = "precise ",
    .prologue = prologue,
    .seg_params = no_params,
    .seg_args = no_params,
    .kernel_begin = kernel_begin,
    .elem = elem,
    .builtin = builtin,
    .barrier = barrier,
    .atomic = atomic,
    .convert = convert,
    .bitcast = bitcast,
};
