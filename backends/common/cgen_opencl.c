/* The OpenCL C dialect of the C-family code generator (see cgen_dialect.h).
 *
 * OpenCL C 1.2 is enough: 32-bit atomics on __global and __local memory are
 * core, as_<type>() reinterprets bits, convert_<type>() spells rounding. */
#include "backends/common/cgen_dialect.h"

static const char *const types[3] = {"uint", "int", "float"};

static void prologue(const vc_cgen_layout *l, vc_strbuf *out) {
  (void)l;
  /* OpenCL's default is FP_CONTRACT ON: a*b+c could become one fma. */
  vc_sb_puts(out, "#pragma OPENCL FP_CONTRACT OFF\n\n");
}

static void seg_params(const vc_cgen_layout *l, vc_strbuf *out) {
  vc_cgen_pointer_params(l, &vc_cgen_dialect_opencl, "__global ", "__local ", out);
}

static void kernel_begin(const vc_cgen_layout *l, vc_strbuf *out) {
  vc_sb_printf(out, "__kernel __attribute__((reqd_work_group_size(%u, %u, %u)))\nvoid vc_main(",
               l->workgroup[0], l->workgroup[1], l->workgroup[2]);
  if (!l->nbuffers) vc_sb_puts(out, "void");
  for (uint32_t k = 0; k < l->nbuffers; k++)
    vc_sb_printf(out, "%s__global %s *b%u /* %s */", k ? ", " : "", types[l->buffers[k].type], k,
                 l->buffers[k].name);
  vc_sb_puts(out, ") {\n");
  for (uint32_t k = 0; k < l->nshared; k++)
    vc_sb_printf(out, "  __local %s s%u[%u]; /* %s */\n", types[l->shared[k].type], k,
                 l->shared[k].count, l->shared[k].name);
}

static void builtin(vc_builtin b, unsigned axis, vc_strbuf *out) {
  static const char *const fn[VC_BUILTIN_COUNT] = {
      [VC_GLOBAL_ID] = "get_global_id", [VC_LOCAL_ID] = "get_local_id",
      [VC_GROUP_ID] = "get_group_id", [VC_NUM_GROUPS] = "get_num_groups",
      [VC_GROUP_SIZE] = "get_local_size"};
  vc_sb_printf(out, "((uint)%s(%u))", fn[b], axis);
}

static void barrier(vc_strbuf *out) {
  vc_sb_puts(out, "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);\n");
}

/* atomic_min/max take the signedness from the pointer's element type. */
static void atomic(vc_atomic_op op, vc_type t, vc_space space, const char *lvalue, const char *a,
                   const char *b, vc_strbuf *out) {
  static const char *const fn[VC_ATOMIC_OP_COUNT] = {
      [VC_AT_ADD] = "atomic_add", [VC_AT_SUB] = "atomic_sub", [VC_AT_AND] = "atomic_and",
      [VC_AT_OR] = "atomic_or", [VC_AT_XOR] = "atomic_xor", [VC_AT_MIN] = "atomic_min",
      [VC_AT_MAX] = "atomic_max", [VC_AT_EXCHANGE] = "atomic_xchg",
      [VC_AT_CMPXCHG] = "atomic_cmpxchg"};
  (void)t;
  (void)space;
  if (op == VC_AT_CMPXCHG)
    vc_sb_printf(out, "%s(&%s, %s, %s)", fn[op], lvalue, a, b);
  else
    vc_sb_printf(out, "%s(&%s, %s)", fn[op], lvalue, a);
}

static void convert(vc_type to, vc_type from, const char *x, vc_strbuf *out) {
  if (from != VC_F32 && to != VC_F32) /* u32 <-> i32: the same bits */
    vc_sb_printf(out, "as_%s(%s)", types[to], x);
  else if (to == VC_F32) /* the default rounding of conversions to float is rte */
    vc_sb_printf(out, "convert_float_rte(%s)", x);
  else
    vc_sb_printf(out, "convert_%s_rtz(%s)", types[to], x);
}

static void bitcast(vc_type to, vc_type from, const char *x, vc_strbuf *out) {
  (void)from;
  vc_sb_printf(out, "as_%s(%s)", types[to], x);
}

const vc_cgen_dialect vc_cgen_dialect_opencl = {
    .name = "OpenCL C",
    .type_name = {"uint", "int", "float"},
    .prologue = prologue,
    .seg_params = seg_params,
    .seg_args = vc_cgen_pointer_args,
    .kernel_begin = kernel_begin,
    .builtin = builtin,
    .barrier = barrier,
    .atomic = atomic,
    .convert = convert,
    .bitcast = bitcast,
};
