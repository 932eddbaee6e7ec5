/* The CUDA C dialect of the C-family code generator (see cgen_dialect.h).
 *
 * NVRTC compiles the result (backends/cuda/cuda_nvrtc.c) with --fmad=false,
 * -ftz=false and --prec-div=true: the semantics forbid contraction and
 * flushing, and CUDA's defaults do both. The code needs no header: bit
 * casts and rounding conversions are NVRTC built-ins, isnan is computed on
 * the bits by the core's helper, so nothing depends on <cmath>. */

#include "backends/common/cgen/cgen_dialect.h"
#include "backends/common/native/cgen_native_internal.h"
#include "harness/base/mutant.h"

static const char *const types[VC_TYPE_COUNT] = {
    "unsigned int", "int", "float", "void", "unsigned long long", "long long"};

static void prologue(const vc_cgen_layout *l, vc_strbuf *out) {
  (void)l;
  vc_sb_puts(out,
             "/* compile with --fmad=false -ftz=false --prec-div=true --prec-sqrt=true:\n"
             "   no contraction, denormals kept (docs/semantics.md) */\n\n");
}

static void seg_params(const vc_cgen_layout *l, vc_strbuf *out) {
  vc_cgen_pointer_params(l, &vc_cgen_dialect_cuda, "", "", out);
}

/* Parameter k is buffer k's device address, in the kernel table's order;
   one more, the last, is the launch's stamp slot (NULL: no stamp).
   __launch_bounds__ makes the compiler keep the register use low enough for
   the program's workgroup to launch as one block. */
static void kernel_begin(const vc_cgen_layout *l, vc_strbuf *out) {
  uint32_t threads = l->workgroup[0] * l->workgroup[1] * l->workgroup[2];
  vc_sb_printf(out, "extern \"C\" __global__ void __launch_bounds__(%u)\nvc_main(", threads);
  for (uint32_t k = 0; k < l->nbuffers; k++)
    vc_sb_printf(out, "%s *b%u /* %s */, ", types[l->buffers[k].type], k, l->buffers[k].name);
  vc_sb_puts(out, "unsigned long long *vc_stamp) {\n");
  for (uint32_t k = 0; k < l->nshared; k++)
    vc_sb_printf(out, "  __shared__ %s s%u[%u]; /* %s */\n", types[l->shared[k].type], k,
                 l->shared[k].count, l->shared[k].name);
  /* timing=stamps (docs/backend-cuda.md): the launch's start on the device
     clock, read by its first block before the body, so an early return of
     the body does not matter; the next launch's stamp ends it */
  vc_sb_puts(out, "  if (vc_stamp && (blockIdx.x | blockIdx.y | blockIdx.z | threadIdx.x | "
                  "threadIdx.y |\n"
                  "                   threadIdx.z) == 0u) {\n"
                  "    unsigned long long vc_t;\n"
                  "    asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(vc_t));\n"
                  "    *vc_stamp = vc_t;\n"
                  "  }\n");
}

static void builtin(vc_builtin b, unsigned axis, vc_strbuf *out) {
  char a = "xyz"[axis % 3];
  switch (b) {
  case VC_GLOBAL_ID:
    vc_sb_printf(out, "(blockIdx.%c * blockDim.%c + threadIdx.%c)", a, a, a);
    break;
  case VC_LOCAL_ID: vc_sb_printf(out, "threadIdx.%c", a); break;
  case VC_GROUP_ID: vc_sb_printf(out, "blockIdx.%c", a); break;
  case VC_NUM_GROUPS: vc_sb_printf(out, "gridDim.%c", a); break;
  case VC_GROUP_SIZE: vc_sb_printf(out, "blockDim.%c", a); break;
  default: vc_sb_puts(out, "0u"); break;
  }
}

/* __syncthreads orders the block's shared and global accesses. Ordering
   across blocks (__threadfence) belongs to a device-side grid barrier; a
   segment kernel's grid barrier is the launch boundary. */
static void barrier(vc_strbuf *out) { vc_sb_puts(out, "__syncthreads();\n"); }

/* CUDA's atomics are overloaded for int and unsigned int; the operands
   have the element's type, so atomicMin/Max compare in its signedness. On
   64 bits there are unsigned long long overloads of all but atomicSub (an
   add of the negation), and long long ones of atomicMin/Max only: the other
   i64 atomics act on the bits through an unsigned long long pointer. */
static void atomic(vc_atomic_op op, vc_type t, vc_space space, const char *lvalue, const char *a,
                   const char *b, vc_strbuf *out) {
  static const char *const fn[VC_ATOMIC_OP_COUNT] = {
      [VC_AT_ADD] = "atomicAdd", [VC_AT_SUB] = "atomicSub", [VC_AT_AND] = "atomicAnd",
      [VC_AT_OR] = "atomicOr", [VC_AT_XOR] = "atomicXor", [VC_AT_MIN] = "atomicMin",
      [VC_AT_MAX] = "atomicMax", [VC_AT_EXCHANGE] = "atomicExch", [VC_AT_CMPXCHG] = "atomicCAS"};
  (void)space;
  if (t == VC_I64 && op != VC_AT_MIN && op != VC_AT_MAX) {
    const char *u = "unsigned long long";
    vc_sb_printf(out, "((long long)%s((%s *)&%s, ", op == VC_AT_SUB ? "atomicAdd" : fn[op], u,
                 lvalue);
    if (op == VC_AT_SUB)
      vc_sb_printf(out, "0ull - (%s)(%s)))", u, a);
    else if (op == VC_AT_CMPXCHG)
      vc_sb_printf(out, "(%s)(%s), (%s)(%s)))", u, a, u, b);
    else
      vc_sb_printf(out, "(%s)(%s)))", u, a);
    return;
  }
  if (op == VC_AT_SUB && t == VC_U64)
    vc_sb_printf(out, "atomicAdd(&%s, 0ull - %s)", lvalue, a);
  else if (op == VC_AT_CMPXCHG)
    vc_sb_printf(out, "%s(&%s, %s, %s)", fn[op], lvalue, a, b);
  else
    vc_sb_printf(out, "%s(&%s, %s)", fn[op], lvalue, a);
}

/* The conversion intrinsics name their rounding: rn to f32, rz from it. */
static void convert(vc_type to, vc_type from, const char *x, vc_strbuf *out) {
  static const char *const to_f32[VC_TYPE_COUNT] = {
      [VC_U32] = "__uint2float_rn", [VC_I32] = "__int2float_rn",
      [VC_U64] = "__ull2float_rn", [VC_I64] = "__ll2float_rn"};
  static const char *const from_f32[VC_TYPE_COUNT] = {
      [VC_U32] = "__float2uint_rz", [VC_I32] = "__float2int_rz",
      [VC_U64] = "__float2ull_rz", [VC_I64] = "__float2ll_rz"};
  if (from != VC_F32 && to != VC_F32) /* one size: the same bits (modular in NVRTC) */
    vc_sb_printf(out, "((%s)(%s))", types[to], x);
  else if (to == VC_F32)
    vc_sb_printf(out, "%s(%s)", to_f32[from], x);
  else
    vc_sb_printf(out, "%s(%s)", from_f32[to], x);
}

static void bitcast(vc_type to, vc_type from, const char *x, vc_strbuf *out) {
  if (from == VC_F32)
    vc_sb_printf(out, "%s(%s)", to == VC_U32 ? "__float_as_uint" : "__float_as_int", x);
  else if (to == VC_F32)
    vc_sb_printf(out, "%s(%s)", from == VC_U32 ? "__uint_as_float" : "__int_as_float", x);
  else
    vc_sb_printf(out, "((%s)(%s))", types[to], x);
}

const vc_cgen_dialect vc_cgen_dialect_cuda = {
    .name = "CUDA C",
    .type_name = {"unsigned int", "int", "float", NULL, "unsigned long long", "long long"},
    .suffix_u64 = "ull",
    .suffix_i64 = "ll",
    .func_qual = "static __device__ ",
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
/* CUDA C spelling of native kernels (cgen_native_internal.h).
 *
 * CUDA promises co-residency to a cooperative launch
 * (cuLaunchCooperativeKernel with at most the blocks the occupancy API
 * allows), so there is no discovery: every block participates, block
 * blockIdx.x is participant p of gridDim.x, and the grid barrier is
 * cooperative_groups' grid sync, which also orders memory across the grid.
 * Block 0 counts the barriers in the control buffer for native_stats. */

static void seg_dialect(const vc_native_opts *o, vc_cgen_dialect *d) {
  (void)o;
  *d = vc_cgen_dialect_cuda;
}

static void native_prologue(const vc_native_layout *nl, vc_strbuf *out) {
  vc_sb_puts(out,
             "/* compile with --fmad=false -ftz=false --prec-div=true --prec-sqrt=true:\n"
             "   no contraction, denormals kept (docs/semantics.md); launch with\n"
             "   cuLaunchCooperativeKernel (docs/native.md) */\n");
  static const char *const order[] = {
#define VC_CUDA_INLINE_NAME(n, s) [VC_CUDA_INLINE_##n] = s,
      VC_CUDA_INLINE_LIST(VC_CUDA_INLINE_NAME)
#undef VC_CUDA_INLINE_NAME
  };
  unsigned o = (unsigned)nl->o->cuda_inline;
  if (nl->o->cuda_inline_barrier)
    vc_sb_printf(out, "/* grid barrier ordering: a flip word at gpu scope, inline-order=%s */\n",
                 o < sizeof order / sizeof order[0] ? order[o] : order[0]);
  else
    vc_sb_puts(out, "#include <cooperative_groups.h>\n"
                    "/* grid barrier ordering: cooperative_groups grid sync */\n");
}

static const char prims[] =
    "static __device__ unsigned int vc_nc_load(unsigned int *ctrl, unsigned int i) {\n"
    "  return atomicAdd(&ctrl[i], 0u);\n"
    "}\n"
    "static __device__ void vc_nc_store(unsigned int *ctrl, unsigned int i, unsigned int v) {\n"
    "  atomicExch(&ctrl[i], v);\n"
    "}\n"
    "static __device__ unsigned int vc_nc_add(unsigned int *ctrl, unsigned int i, "
    "unsigned int v) {\n"
    "  return atomicAdd(&ctrl[i], v);\n"
    "}\n"
    "static __device__ unsigned int vc_nc_add_relaxed(unsigned int *ctrl, unsigned int i, "
    "unsigned int v) {\n"
    "  return atomicAdd(&ctrl[i], v);\n"
    "}\n"
    "static __device__ unsigned int vc_nc_or(unsigned int *ctrl, unsigned int i, "
    "unsigned int v) {\n"
    "  return atomicOr(&ctrl[i], v);\n"
    "}\n"
    "static __device__ void vc_nc_sync(void) {\n"
    "  __syncthreads();\n"
    "}\n\n";

static void primitives(const vc_native_layout *nl, vc_strbuf *out) {
  (void)nl;
  vc_sb_puts(out, prims);
}

static const char runtime[] =
    "/* Every block of the cooperative launch participates. */\n"
    "static __device__ unsigned int vc_nat_discover(unsigned int *ctrl) {\n"
    "  (void)ctrl;\n"
    "  return blockIdx.x;\n"
    "}\n"
    "static __device__ unsigned int vc_nat_count(unsigned int *ctrl) {\n"
    "  (void)ctrl;\n"
    "  return gridDim.x;\n"
    "}\n"
    "static __device__ void vc_nat_publish(unsigned int *ctrl, unsigned int t) {\n"
    "  (void)ctrl;\n"
    "  (void)t;\n"
    "}\n"
    "static __device__ unsigned int vc_nat_ticket(unsigned int *ctrl) {\n"
    "  (void)ctrl;\n"
    "  return blockIdx.x;\n"
    "}\n"
    "static __device__ void vc_nat_grid_barrier(unsigned int *ctrl, unsigned int lead,\n"
    "                                           unsigned int np) {\n"
    "  (void)np;\n"
    "  (void)ctrl;\n"
    "  (void)lead;\n"
    "  cooperative_groups::this_grid().sync();\n"
    "}\n\n";

/* The grid barrier written out (barrier=inline), the algorithm of
   cooperative_groups' grid sync in CUDA 12/13 (details/sync.h): block 0
   adds 0x80000000 - (np - 1), every other block 1, so that each barrier
   adds exactly 2^31 to the word and flips its top bit; a block waits until
   the bit differs from what its own add saw. The word needs no reset
   between barriers, and a waiter cannot miss a flip (the next one needs
   its own arrival). __syncthreads() collects the block's writes before the
   arrival and hands the order on to the block after the wait. The memory
   orders around the add and the poll are the inline-order option
   (vc_cuda_inline): grid.sync()'s own on sm_70+ is a release add and
   acquire polls with no fence; the first inline barrier fenced both sides
   with __threadfence() (fence.sc.gpu) and added acq_rel. VC_NC_ARRIVE is
   zero at launch (the plugin writes the control words before every
   launch). */
static const char runtime_inline_head[] =
    "/* Every block of the cooperative launch participates. */\n"
    "static __device__ unsigned int vc_nat_discover(unsigned int *ctrl) {\n"
    "  (void)ctrl;\n"
    "  return blockIdx.x;\n"
    "}\n"
    "static __device__ unsigned int vc_nat_count(unsigned int *ctrl) {\n"
    "  (void)ctrl;\n"
    "  return gridDim.x;\n"
    "}\n"
    "static __device__ void vc_nat_publish(unsigned int *ctrl, unsigned int t) {\n"
    "  (void)ctrl;\n"
    "  (void)t;\n"
    "}\n"
    "static __device__ unsigned int vc_nat_ticket(unsigned int *ctrl) {\n"
    "  (void)ctrl;\n"
    "  return blockIdx.x;\n"
    "}\n"
    "static __device__ void vc_nat_grid_barrier(unsigned int *ctrl, unsigned int lead,\n"
    "                                           unsigned int np) {\n"
    "  __syncthreads();\n"
    "  if (lead != 0u) {\n"
    "    unsigned int *w = &ctrl[1]; /* VC_NC_ARRIVE */\n"
    "    unsigned int add = blockIdx.x == 0u ? 0x80000000u - (np - 1u) : 1u;\n"
    "    unsigned int old, cur;\n";

/* The arrival and the wait per inline-order, indexed by vc_cuda_inline. */
static const char *const inline_wait[] = {
    [VC_CUDA_INLINE_RELEASE] =
        "    /* inline-order=release: grid.sync()'s orders on sm_70+ */\n"
        "    asm volatile(\"atom.add.release.gpu.u32 %0, [%1], %2;\"\n"
        "                 : \"=r\"(old) : \"l\"(w), \"r\"(add) : \"memory\");\n"
        "    do {\n"
        "      asm volatile(\"ld.acquire.gpu.u32 %0, [%1];\" : \"=r\"(cur) : \"l\"(w) : \"memory\");\n"
        "    } while (((old ^ cur) & 0x80000000u) == 0u);\n",
    [VC_CUDA_INLINE_RELAXED] =
        "    /* inline-order=relaxed: relaxed polls, one acquire fence after */\n"
        "    asm volatile(\"atom.add.release.gpu.u32 %0, [%1], %2;\"\n"
        "                 : \"=r\"(old) : \"l\"(w), \"r\"(add) : \"memory\");\n"
        "    do {\n"
        "      asm volatile(\"ld.relaxed.gpu.u32 %0, [%1];\" : \"=r\"(cur) : \"l\"(w) : \"memory\");\n"
        "    } while (((old ^ cur) & 0x80000000u) == 0u);\n"
        "    asm volatile(\"fence.acq_rel.gpu;\" ::: \"memory\");\n",
    [VC_CUDA_INLINE_FENCED] =
        "    /* inline-order=fenced: fence.sc.gpu on both sides, acq_rel add */\n"
        "    __threadfence();\n"
        "    asm volatile(\"atom.acq_rel.gpu.global.add.u32 %0, [%1], %2;\"\n"
        "                 : \"=r\"(old) : \"l\"(w), \"r\"(add) : \"memory\");\n"
        "    do {\n"
        "      asm volatile(\"ld.acquire.gpu.global.u32 %0, [%1];\" : \"=r\"(cur) : \"l\"(w) : \"memory\");\n"
        "    } while (((old ^ cur) & 0x80000000u) == 0u);\n"
        "    __threadfence();\n",
};

static const char runtime_inline_tail[] =
    "  }\n"
    "  __syncthreads();\n"
    "}\n\n";

static void runtime_fn(const vc_native_layout *nl, vc_strbuf *out) {
  if (!nl->o->cuda_inline_barrier) {
    vc_sb_puts(out, runtime);
    return;
  }
  unsigned order = (unsigned)nl->o->cuda_inline;
  if (order >= sizeof inline_wait / sizeof inline_wait[0]) order = VC_CUDA_INLINE_FENCED;
  vc_sb_puts(out, runtime_inline_head);
  /* native-fence-scope: the arrival, the polls and the fences at block scope */
  static const char *const narrow[] = {".gpu", ".cta", "__threadfence()", "__threadfence_block()"};
  /* native-missing-acquire: relaxed polls and no fence after them; the
     arrival's release (and fenced's first __threadfence) stay */
  static const char *const no_acquire[] = {
      "ld.acquire.", "ld.relaxed.",
      "    asm volatile(\"fence.acq_rel.gpu;\" ::: \"memory\");\n", "",
      "== 0u);\n    __threadfence();\n", "== 0u);\n"};
  if (VC_MUTANT(NATIVE_FENCE_SCOPE))
    vc_sb_puts_swapped(out, inline_wait[order], narrow, 2);
  else if (VC_MUTANT(NATIVE_MISSING_ACQUIRE))
    vc_sb_puts_swapped(out, inline_wait[order], no_acquire, 3);
  else
    vc_sb_puts(out, inline_wait[order]);
  vc_sb_puts(out, runtime_inline_tail);
}

/* Parameter k is plan buffer k's device address, the control buffer's last. */
static void native_kernel_begin(const vc_native_layout *nl, vc_strbuf *out) {
  const uint32_t *wg = nl->prog->workgroup;
  vc_sb_printf(out, "extern \"C\" __global__ void __launch_bounds__(%u)\nvc_main(",
               wg[0] * wg[1] * wg[2]);
  vc_native_kernel_params(nl, "", "__shared__", out);
}

const vc_native_spell vc_native_spell_cuda = {
    .name = "CUDA C",
    .seg_dialect = seg_dialect,
    .prologue = native_prologue,
    .primitives = primitives,
    .runtime = runtime_fn,
    .ctrl_param = "unsigned int *ctrl",
    .ctrl_arg = "ctrl",
    .kernel_begin = native_kernel_begin,
    .seg_args = vc_native_args_by_plan,
    .plan_elem = vc_native_array_elem,
    .counts_barriers = true,
    .loop_segments = true,
};
