/* The GLSL dialect of the C-family code generator (see cgen_dialect.h):
 * GLSL 450 compute shaders for Vulkan, compiled to SPIR-V by glslang.
 *
 * Buffers and shared arrays are globals, so segment functions take only the
 * builtin ids. Every f32 declaration is `precise`: SPIR-V then carries
 * NoContraction on each float operation, and no a*b+c becomes an fma. */

#include "backends/common/cgen/cgen_dialect.h"
#include "backends/common/native/cgen_native_internal.h"
#include "harness/base/mutant.h"

static const char *const types[VC_TYPE_COUNT] = {"uint",  "int",      "float",
                                                 "void",  "uint64_t", "int64_t"};

/* 64-bit integers and their atomics are extensions of GLSL 450 (Vulkan
   shaderInt64, shaderBufferInt64Atomics / shaderSharedInt64Atomics). */
static void int64_extensions(const vc_program *p, vc_strbuf *out) {
  if (vc_cgen_uses_64(p)) vc_sb_puts(out, "#extension GL_ARB_gpu_shader_int64 : require\n");
  if (vc_cgen_uses_atomic_64(p))
    vc_sb_puts(out, "#extension GL_EXT_shader_atomic_int64 : require\n");
}

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
  vc_sb_puts(out, "#version 450\n");
  int64_extensions(l->prog, out);
  vc_sb_putc(out, '\n');
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
  else if (op == VC_AT_SUB && t == VC_I64)
    vc_sb_printf(out, "atomicAdd(%s, int64_t(0ul - uint64_t(%s)))", lvalue, a);
  else if (op == VC_AT_SUB)
    vc_sb_printf(out, "atomicAdd(%s, %s - %s)", lvalue, t == VC_U64 ? "0ul" : "0u", a);
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
    .type_name = {"uint", "int", "float", NULL, "uint64_t", "int64_t"},
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

/* ---- native kernels ---- */
/* GLSL spelling of native kernels (cgen_native_internal.h), for Vulkan.
 *
 * Buffers, shared arrays and the control buffer are globals: plan buffer k
 * is `b<k>` at binding k, the control buffer `ctrl` at binding nbuffers.
 * Segment functions name their own buffers, so their element hook maps a
 * segment's buffer k to its plan buffer (vc_native_seg_layout).
 *
 * Two orderings, chosen by the plugin (vc_native_opts):
 *  - with the Vulkan memory model (GL_KHR_memory_scope_semantics): control
 *    words through atomicLoad/atomicStore/atomicAdd... at gl_ScopeDevice with
 *    acquire/release and MakeAvailable/MakeVisible semantics; the workgroup
 *    barrier around each arrival is a controlBarrier with device-scope
 *    acquire-release semantics on buffer and shared storage; buffers are
 *    `nonprivate`, so that those availability and visibility operations
 *    cover every plain access;
 *  - without it: every buffer `coherent`, the control buffer also
 *    `volatile`, atomics (atomicOr(x, 0u) as the load) between
 *    memoryBarrierBuffer() calls, and memoryBarrierBuffer() before and after
 *    barrier(). */

static void seg_elem(const vc_cgen_layout *l, vc_space space, uint32_t k, const char *index,
                     vc_strbuf *out) {
  const vc_native_seg_layout *sl = (const vc_native_seg_layout *)l;
  if (space == VC_SPACE_SHARED)
    vc_sb_printf(out, "s%u[%s]", sl->sbind[k], index);
  else
    vc_sb_printf(out, "b%u.d[%s]", sl->bind[k], index);
}

/* Under the memory model, a workgroup barrier spelled with its scopes
   (memoryBarrierBuffer() would be a device-scope barrier, which needs a
   capability glslang does not declare for it). */
static void vmm_barrier(vc_strbuf *out) {
  vc_sb_puts(out, "controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsBuffer | "
                  "gl_StorageSemanticsShared, gl_SemanticsAcquireRelease | gl_SemanticsMakeAvailable "
                  "| gl_SemanticsMakeVisible);\n");
}

static void seg_dialect(const vc_native_opts *o, vc_cgen_dialect *d) {
  *d = vc_cgen_dialect_glsl;
  d->elem = seg_elem;
  if (o->vulkan_memory_model) d->barrier = vmm_barrier;
}

static void native_prologue(const vc_native_layout *nl, vc_strbuf *out) {
  const vc_native_desc *d = nl->d;
  const uint32_t *wg = nl->prog->workgroup;
  bool vmm = nl->o->vulkan_memory_model;
  vc_sb_puts(out, "#version 450\n");
  int64_extensions(nl->prog, out);
  if (vmm)
    /* glslang 11 does not declare VulkanMemoryModelDeviceScope (5346) for
       the device-scope operations it writes under the memory model; a
       declared, never called instruction carrying it declares it. */
    vc_sb_puts(out, "#extension GL_KHR_memory_scope_semantics : require\n"
                    "#extension GL_EXT_spirv_intrinsics : require\n"
                    "spirv_instruction(capabilities = [5346], id = 224)\n"
                    "void vc_declares_device_scope(uint e, uint m, uint s);\n");
  vc_sb_printf(out, "/* grid barrier ordering: %s */\n\n",
               vmm ? "Vulkan memory model, device scope, acquire/release"
                   : "coherent buffers, memoryBarrierBuffer() and atomics");
  vc_sb_printf(out, "layout(local_size_x = %u, local_size_y = %u, local_size_z = %u) in;\n\n",
               wg[0], wg[1], wg[2]);
  const char *q = vmm ? "nonprivate " : "coherent ";
  for (uint32_t k = 0; k < d->nbuffers; k++)
    vc_sb_printf(out,
                 "layout(std430, set = 0, binding = %u) %sbuffer B%u { %s d[]; } b%u; /* %s */\n",
                 k, q, k, types[d->buffers[k].type], k, d->buffers[k].name);
  vc_sb_printf(out, "layout(std430, set = 0, binding = %u) %sbuffer VcCtrl { uint w[]; } ctrl;\n",
               d->nbuffers, vmm ? "" : "coherent volatile ");
  for (uint32_t k = 0; k < d->nshared; k++)
    vc_sb_printf(out, "shared %s s%u[%u]; /* %s */\n", types[d->shared[k].type], k,
                 d->shared[k].count, d->shared[k].name);
}

#define DEV_SEM "gl_ScopeDevice, gl_StorageSemanticsBuffer"
#define ACQ "gl_SemanticsAcquire | gl_SemanticsMakeVisible"
#define REL "gl_SemanticsRelease | gl_SemanticsMakeAvailable"
#define ACQREL "gl_SemanticsAcquireRelease | gl_SemanticsMakeAvailable | gl_SemanticsMakeVisible"

static const char prims_vmm[] =
    "uint vc_nc_load(uint i) {\n"
    "  return atomicLoad(ctrl.w[i], " DEV_SEM ", " ACQ ");\n"
    "}\n"
    "uint vc_nc_peek(uint i) {\n"
    "  return atomicLoad(ctrl.w[i], " DEV_SEM ", gl_SemanticsRelaxed);\n"
    "}\n"
    "void vc_nc_store(uint i, uint v) {\n"
    "  atomicStore(ctrl.w[i], v, " DEV_SEM ", " REL ");\n"
    "}\n"
    "uint vc_nc_add(uint i, uint v) {\n"
    "  return atomicAdd(ctrl.w[i], v, " DEV_SEM ", " ACQREL ");\n"
    "}\n"
    "uint vc_nc_or(uint i, uint v) {\n"
    "  return atomicOr(ctrl.w[i], v, " DEV_SEM ", " ACQREL ");\n"
    "}\n"
    "uint vc_nc_cas(uint i, uint e, uint d) {\n"
    "  return atomicCompSwap(ctrl.w[i], e, d, gl_ScopeDevice,\n"
    "      gl_StorageSemanticsBuffer, " ACQREL ", gl_StorageSemanticsBuffer, " ACQ ");\n"
    "}\n"
    "uint vc_nc_add_relaxed(uint i, uint v) {\n"
    "  return atomicAdd(ctrl.w[i], v, " DEV_SEM ", gl_SemanticsRelaxed);\n"
    "}\n"
    "uint vc_nc_cas_relaxed(uint i, uint e, uint d) {\n"
    "  return atomicCompSwap(ctrl.w[i], e, d, gl_ScopeDevice,\n"
    "      gl_StorageSemanticsBuffer, gl_SemanticsRelaxed, gl_StorageSemanticsBuffer,\n"
    "      gl_SemanticsRelaxed);\n"
    "}\n"
    "void vc_nc_acquire() {\n"
    "  memoryBarrier(gl_ScopeDevice, gl_StorageSemanticsBuffer, " ACQ ");\n"
    "}\n"
    "void vc_nc_sync() {\n"
    "  controlBarrier(gl_ScopeWorkgroup, gl_ScopeDevice,\n"
    "      gl_StorageSemanticsBuffer | gl_StorageSemanticsShared, " ACQREL ");\n"
    "}\n\n";

static const char prims_plain[] =
    "uint vc_nc_load(uint i) {\n"
    "  return atomicOr(ctrl.w[i], 0u);\n"
    "}\n"
    "uint vc_nc_peek(uint i) {\n"
    "  return ctrl.w[i];\n"
    "}\n"
    "void vc_nc_store(uint i, uint v) {\n"
    "  memoryBarrierBuffer();\n"
    "  atomicExchange(ctrl.w[i], v);\n"
    "  memoryBarrierBuffer();\n"
    "}\n"
    "uint vc_nc_add(uint i, uint v) {\n"
    "  memoryBarrierBuffer();\n"
    "  uint r = atomicAdd(ctrl.w[i], v);\n"
    "  memoryBarrierBuffer();\n"
    "  return r;\n"
    "}\n"
    "uint vc_nc_or(uint i, uint v) {\n"
    "  memoryBarrierBuffer();\n"
    "  uint r = atomicOr(ctrl.w[i], v);\n"
    "  memoryBarrierBuffer();\n"
    "  return r;\n"
    "}\n"
    "uint vc_nc_cas(uint i, uint e, uint d) {\n"
    "  memoryBarrierBuffer();\n"
    "  uint r = atomicCompSwap(ctrl.w[i], e, d);\n"
    "  memoryBarrierBuffer();\n"
    "  return r;\n"
    "}\n"
    "uint vc_nc_add_relaxed(uint i, uint v) {\n"
    "  return atomicAdd(ctrl.w[i], v);\n"
    "}\n"
    "uint vc_nc_cas_relaxed(uint i, uint e, uint d) {\n"
    "  return atomicCompSwap(ctrl.w[i], e, d);\n"
    "}\n"
    "void vc_nc_acquire() {\n"
    "  memoryBarrierBuffer();\n"
    "}\n"
    "void vc_nc_sync() {\n"
    "  memoryBarrierBuffer();\n"
    "  memoryBarrierShared();\n"
    "  barrier();\n"
    "  memoryBarrierBuffer();\n"
    "}\n\n";

/* gridbar=lead's workgroup barrier: workgroup scope for buffers and shared
   memory; the lead's device-scope add and fence extend the availability
   and visibility chains across workgroups (docs/native.md). */
static const char wgsync_vmm[] =
    "void vc_nc_wgsync() {\n"
    "  controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup,\n"
    "      gl_StorageSemanticsBuffer | gl_StorageSemanticsShared, " ACQREL ");\n"
    "}\n\n";
static const char wgsync_plain[] =
    "void vc_nc_wgsync() {\n"
    "  groupMemoryBarrier();\n"
    "  barrier();\n"
    "  groupMemoryBarrier();\n"
    "}\n\n";

static void primitives(const vc_native_layout *nl, vc_strbuf *out) {
  bool vmm = nl->o->vulkan_memory_model;
  /* native-fence-scope: the acquire fence and the workgroup barriers of the
     grid barrier at workgroup scope (plain GLSL: buffer barriers only) */
  static const char *const narrow[] = {
      "memoryBarrier(gl_ScopeDevice,", "memoryBarrier(gl_ScopeWorkgroup,",
      "controlBarrier(gl_ScopeWorkgroup, gl_ScopeDevice,", "controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup,",
      "memoryBarrierBuffer();", "groupMemoryBarrier();"};
  if (VC_MUTANT(NATIVE_FENCE_SCOPE))
    vc_sb_puts_swapped(out, vmm ? prims_vmm : prims_plain, narrow, 3);
  else
    vc_sb_puts(out, vmm ? prims_vmm : prims_plain);
  /* gridbar=lead's; native-missing-acquire's grid barrier ends with it */
  if (vc_native_lead(nl) || VC_MUTANT(NATIVE_MISSING_ACQUIRE))
    vc_sb_puts(out, vmm ? wgsync_vmm : wgsync_plain);
}

static void native_kernel_begin(const vc_native_layout *nl, vc_strbuf *out) {
  (void)nl;
  vc_sb_puts(out, "void main() {\n");
}

static void seg_args(const vc_native_layout *nl, uint32_t s, vc_strbuf *out) {
  (void)nl;
  (void)s;
  (void)out;
}

static void plan_elem(uint32_t k, const char *i, vc_strbuf *out) {
  vc_sb_printf(out, "b%u.d[%s]", k, i);
}

const vc_native_spell vc_native_spell_glsl = {
    .name = "GLSL",
    .seg_dialect = seg_dialect,
    .prologue = native_prologue,
    .primitives = primitives,
    .ctrl_param = "",
    .ctrl_arg = "",
    .kernel_begin = native_kernel_begin,
    .seg_args = seg_args,
    .plan_elem = plan_elem,
};
