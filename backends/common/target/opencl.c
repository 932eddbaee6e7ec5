/* The OpenCL C dialect of the C-family code generator (see cgen_dialect.h).
 *
 * OpenCL C 1.2 is enough: 32-bit atomics on __global and __local memory are
 * core, as_<type>() reinterprets bits, convert_<type>() spells rounding. */
#include "backends/common/cgen/cgen_dialect.h"
#include "backends/common/native/cgen_native_internal.h"
#include "harness/base/mutant.h"

static const char *const types[VC_TYPE_COUNT] = {"uint", "int", "float", "void", "ulong", "long"};

/* 64-bit atomics are extensions (long and ulong themselves are core). */
static void int64_atomics(const vc_program *p, vc_strbuf *out) {
  if (!vc_cgen_uses_atomic_64(p)) return;
  vc_sb_puts(out,
             "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n"
             "#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable\n");
}

static void prologue(const vc_cgen_layout *l, vc_strbuf *out) {
  /* OpenCL's default is FP_CONTRACT ON: a*b+c could become one fma. */
  if (!VC_MUTANT(CONTRACTION_ALLOWED)) vc_sb_puts(out, "#pragma OPENCL FP_CONTRACT OFF\n");
  int64_atomics(l->prog, out);
  vc_sb_putc(out, '\n');
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

/* atomic_min/max take the signedness from the pointer's element type; on
   long and ulong the cl_khr_int64_*_atomics spell them atom_*. */
static void atomic(vc_atomic_op op, vc_type t, vc_space space, const char *lvalue, const char *a,
                   const char *b, vc_strbuf *out) {
  static const char *const fn[VC_ATOMIC_OP_COUNT] = {
      [VC_AT_ADD] = "add", [VC_AT_SUB] = "sub", [VC_AT_AND] = "and",
      [VC_AT_OR] = "or", [VC_AT_XOR] = "xor", [VC_AT_MIN] = "min",
      [VC_AT_MAX] = "max", [VC_AT_EXCHANGE] = "xchg",
      [VC_AT_CMPXCHG] = "cmpxchg"};
  const char *pre = vc_type_is_64(t) ? "atom_" : "atomic_";
  (void)space;
  if (op == VC_AT_CMPXCHG)
    vc_sb_printf(out, "%s%s(&%s, %s, %s)", pre, fn[op], lvalue, a, b);
  else
    vc_sb_printf(out, "%s%s(&%s, %s)", pre, fn[op], lvalue, a);
}

static void convert(vc_type to, vc_type from, const char *x, vc_strbuf *out) {
  if (from != VC_F32 && to != VC_F32 && vc_type_is_64(from) == vc_type_is_64(to))
    vc_sb_printf(out, "as_%s(%s)", types[to], x); /* one size: the same bits */
  else if (from != VC_F32 && to != VC_F32) /* a value the target holds */
    vc_sb_printf(out, "convert_%s(%s)", types[to], x);
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
    .type_name = {"uint", "int", "float", NULL, "ulong", "long"},
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

/* ---- native kernels ---- */
/* OpenCL C spelling of native kernels (cgen_native_internal.h).
 *
 * Two orderings, chosen by the plugin (vc_native_opts):
 *  - device scope (OpenCL C 2.0, or 3.0 with __opencl_c_atomic_scope_device
 *    and __opencl_c_atomic_order_acq_rel): control words through
 *    atomic_*_explicit with acquire/release orders at memory_scope_device,
 *    and work_group_barrier(..., memory_scope_device) around each arrival,
 *    so that every invocation's writes before a grid barrier happen before
 *    every read after it;
 *  - OpenCL 1.2: the 1.1 atomic built-ins (atomic_or(p, 0) as the load),
 *    mem_fence(CLK_GLOBAL_MEM_FENCE) around them and before the workgroup
 *    barrier, and every buffer volatile so that no value is kept in a
 *    register across a barrier. OpenCL 1.2 defines no ordering between
 *    workgroups; this is the strongest it can say. */

static bool device_scope(const vc_native_opts *o) { return o->opencl_device_scope; }

static void volatile_params(const vc_cgen_layout *l, vc_strbuf *out) {
  for (uint32_t k = 0; k < l->nbuffers; k++)
    vc_sb_printf(out, "__global volatile %s *b%u, ", types[l->buffers[k].type], k);
  for (uint32_t k = 0; k < l->nshared; k++)
    vc_sb_printf(out, "__local %s *s%u, ", types[l->shared[k].type], k);
}

static void seg_dialect(const vc_native_opts *o, vc_cgen_dialect *d) {
  *d = vc_cgen_dialect_opencl;
  if (!device_scope(o)) d->seg_params = volatile_params;
}

static int check(const vc_native_opts *o, vc_error *err) {
  if (o->opencl_device_scope && o->opencl_c_version < 200)
    return vc_fail(err, VC_ERR_USAGE,
                   "native kernel: device-scope atomics need OpenCL C 2.0 or later, not %u.%u",
                   o->opencl_c_version / 100, o->opencl_c_version / 10 % 10);
  return 0;
}

static void native_prologue(const vc_native_layout *nl, vc_strbuf *out) {
  /* OpenCL's default is FP_CONTRACT ON: a*b+c could become one fma. */
  if (!VC_MUTANT(CONTRACTION_ALLOWED)) vc_sb_puts(out, "#pragma OPENCL FP_CONTRACT OFF\n");
  int64_atomics(nl->prog, out);
  if (device_scope(nl->o)) {
    vc_sb_puts(out,
               "#if !defined(__OPENCL_C_VERSION__) || __OPENCL_C_VERSION__ < 200\n"
               "#error \"this kernel needs OpenCL C 2.0 or later (device-scope atomics)\"\n"
               "#endif\n"
               "#if __OPENCL_C_VERSION__ >= 300 && !(defined(__opencl_c_atomic_scope_device) && "
               "defined(__opencl_c_atomic_order_acq_rel))\n"
               "#error \"this kernel needs __opencl_c_atomic_scope_device and "
               "__opencl_c_atomic_order_acq_rel\"\n"
               "#endif\n");
  }
  vc_sb_printf(out, "/* grid barrier ordering: %s */\n",
               device_scope(nl->o) ? "OpenCL C 2.0 atomics, acquire/release, memory_scope_device"
                                   : "OpenCL 1.2 atomics, mem_fence, volatile buffers");
}

static const char prims_device_scope[] =
    "#define VC_NC_A(i) ((volatile __global atomic_uint *)&ctrl[i])\n"
    "uint vc_nc_load(__global volatile uint *ctrl, uint i) {\n"
    "  return atomic_load_explicit(VC_NC_A(i), memory_order_acquire, memory_scope_device);\n"
    "}\n"
    "uint vc_nc_peek(__global volatile uint *ctrl, uint i) {\n"
    "  return atomic_load_explicit(VC_NC_A(i), memory_order_relaxed, memory_scope_device);\n"
    "}\n"
    "void vc_nc_store(__global volatile uint *ctrl, uint i, uint v) {\n"
    "  atomic_store_explicit(VC_NC_A(i), v, memory_order_release, memory_scope_device);\n"
    "}\n"
    "uint vc_nc_add(__global volatile uint *ctrl, uint i, uint v) {\n"
    "  return atomic_fetch_add_explicit(VC_NC_A(i), v, memory_order_acq_rel, "
    "memory_scope_device);\n"
    "}\n"
    "uint vc_nc_or(__global volatile uint *ctrl, uint i, uint v) {\n"
    "  return atomic_fetch_or_explicit(VC_NC_A(i), v, memory_order_acq_rel, "
    "memory_scope_device);\n"
    "}\n"
    "uint vc_nc_cas(__global volatile uint *ctrl, uint i, uint e, uint d) {\n"
    "  uint old = e;\n"
    "  atomic_compare_exchange_strong_explicit(VC_NC_A(i), &old, d, memory_order_acq_rel,\n"
    "      memory_order_acquire, memory_scope_device);\n"
    "  return old;\n"
    "}\n"
    "uint vc_nc_add_relaxed(__global volatile uint *ctrl, uint i, uint v) {\n"
    "  return atomic_fetch_add_explicit(VC_NC_A(i), v, memory_order_relaxed, memory_scope_device);\n"
    "}\n"
    "uint vc_nc_cas_relaxed(__global volatile uint *ctrl, uint i, uint e, uint d) {\n"
    "  uint old = e;\n"
    "  atomic_compare_exchange_strong_explicit(VC_NC_A(i), &old, d, memory_order_relaxed,\n"
    "      memory_order_relaxed, memory_scope_device);\n"
    "  return old;\n"
    "}\n"
    "void vc_nc_acquire(void) {\n"
    "  atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_acquire, memory_scope_device);\n"
    "}\n"
    "void vc_nc_sync(void) {\n"
    "  work_group_barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE, memory_scope_device);\n"
    "}\n\n";

static const char prims_cl12[] =
    "uint vc_nc_load(__global volatile uint *ctrl, uint i) {\n"
    "  return atomic_or(&ctrl[i], 0u);\n"
    "}\n"
    "uint vc_nc_peek(__global volatile uint *ctrl, uint i) {\n"
    "  return ctrl[i];\n"
    "}\n"
    "void vc_nc_store(__global volatile uint *ctrl, uint i, uint v) {\n"
    "  mem_fence(CLK_GLOBAL_MEM_FENCE);\n"
    "  atomic_xchg(&ctrl[i], v);\n"
    "  mem_fence(CLK_GLOBAL_MEM_FENCE);\n"
    "}\n"
    "uint vc_nc_add(__global volatile uint *ctrl, uint i, uint v) {\n"
    "  mem_fence(CLK_GLOBAL_MEM_FENCE);\n"
    "  uint r = atomic_add(&ctrl[i], v);\n"
    "  mem_fence(CLK_GLOBAL_MEM_FENCE);\n"
    "  return r;\n"
    "}\n"
    "uint vc_nc_or(__global volatile uint *ctrl, uint i, uint v) {\n"
    "  mem_fence(CLK_GLOBAL_MEM_FENCE);\n"
    "  uint r = atomic_or(&ctrl[i], v);\n"
    "  mem_fence(CLK_GLOBAL_MEM_FENCE);\n"
    "  return r;\n"
    "}\n"
    "uint vc_nc_cas(__global volatile uint *ctrl, uint i, uint e, uint d) {\n"
    "  mem_fence(CLK_GLOBAL_MEM_FENCE);\n"
    "  uint r = atomic_cmpxchg(&ctrl[i], e, d);\n"
    "  mem_fence(CLK_GLOBAL_MEM_FENCE);\n"
    "  return r;\n"
    "}\n"
    "uint vc_nc_add_relaxed(__global volatile uint *ctrl, uint i, uint v) {\n"
    "  return atomic_add(&ctrl[i], v);\n"
    "}\n"
    "uint vc_nc_cas_relaxed(__global volatile uint *ctrl, uint i, uint e, uint d) {\n"
    "  return atomic_cmpxchg(&ctrl[i], e, d);\n"
    "}\n"
    "void vc_nc_acquire(void) {\n"
    "  mem_fence(CLK_GLOBAL_MEM_FENCE);\n"
    "}\n"
    "void vc_nc_sync(void) {\n"
    "  mem_fence(CLK_GLOBAL_MEM_FENCE);\n"
    "  barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);\n"
    "  mem_fence(CLK_GLOBAL_MEM_FENCE);\n"
    "}\n\n";

/* gridbar=lead's workgroup barrier: work-group scope only; the lead's
   device-scope add and fence carry the order across work-groups
   (docs/native.md). In 1.2 a barrier's fence orders memory among the
   work-group's work-items, as grid.sync()'s __syncthreads() does. */
static const char wgsync_device_scope[] =
    "void vc_nc_wgsync(void) {\n"
    "  work_group_barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE, memory_scope_work_group);\n"
    "}\n\n";
static const char wgsync_cl12[] =
    "void vc_nc_wgsync(void) {\n"
    "  barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);\n"
    "}\n\n";

static void primitives(const vc_native_layout *nl, vc_strbuf *out) {
  /* native-fence-scope: the acquire fence and the workgroup barriers of the
     grid barrier at workgroup scope (OpenCL 1.2 has no scopes: no fence) */
  static const char *const narrow[] = {
      "memory_order_acquire, memory_scope_device", "memory_order_acquire, memory_scope_work_group",
      "CLK_LOCAL_MEM_FENCE, memory_scope_device", "CLK_LOCAL_MEM_FENCE, memory_scope_work_group",
      "  mem_fence(CLK_GLOBAL_MEM_FENCE);\n", ""};
  const char *prims = device_scope(nl->o) ? prims_device_scope : prims_cl12;
  if (VC_MUTANT(NATIVE_FENCE_SCOPE))
    vc_sb_puts_swapped(out, prims, narrow, 3);
  else
    vc_sb_puts(out, prims);
  /* gridbar=lead's; native-missing-acquire's grid barrier ends with it */
  if (vc_native_lead(nl) || VC_MUTANT(NATIVE_MISSING_ACQUIRE))
    vc_sb_puts(out, device_scope(nl->o) ? wgsync_device_scope : wgsync_cl12);
}

static void native_kernel_begin(const vc_native_layout *nl, vc_strbuf *out) {
  const uint32_t *wg = nl->prog->workgroup;
  vc_sb_printf(out, "__kernel __attribute__((reqd_work_group_size(%u, %u, %u)))\nvoid vc_main(",
               wg[0], wg[1], wg[2]);
  vc_native_kernel_params(nl, device_scope(nl->o) ? "__global " : "__global volatile ", "__local",
                          out);
}

const vc_native_spell vc_native_spell_opencl = {
    .name = "OpenCL C",
    .seg_dialect = seg_dialect,
    .check = check,
    .prologue = native_prologue,
    .primitives = primitives,
    .ctrl_param = "__global volatile uint *ctrl",
    .ctrl_arg = "ctrl",
    .kernel_begin = native_kernel_begin,
    .seg_args = vc_native_args_by_plan,
    .plan_elem = vc_native_array_elem,
};
