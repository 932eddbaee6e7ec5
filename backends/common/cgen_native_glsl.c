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
#include "backends/common/cgen_native_internal.h"

static const char *const types[3] = {"uint", "int", "float"};

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

static void prologue(const vc_native_layout *nl, vc_strbuf *out) {
  const vc_native_desc *d = nl->d;
  const uint32_t *wg = nl->prog->workgroup;
  bool vmm = nl->o->vulkan_memory_model;
  vc_sb_puts(out, "#version 450\n");
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
  vc_sb_puts(out, "shared uint vc_bc[3];\n");
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
    "uint vc_nc_cas_relaxed(uint i, uint e, uint d) {\n"
    "  return atomicCompSwap(ctrl.w[i], e, d, gl_ScopeDevice,\n"
    "      gl_StorageSemanticsBuffer, gl_SemanticsRelaxed, gl_StorageSemanticsBuffer,\n"
    "      gl_SemanticsRelaxed);\n"
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
    "uint vc_nc_cas_relaxed(uint i, uint e, uint d) {\n"
    "  return atomicCompSwap(ctrl.w[i], e, d);\n"
    "}\n"
    "void vc_nc_sync() {\n"
    "  memoryBarrierBuffer();\n"
    "  memoryBarrierShared();\n"
    "  barrier();\n"
    "  memoryBarrierBuffer();\n"
    "}\n\n";

static void primitives(const vc_native_layout *nl, vc_strbuf *out) {
  vc_sb_puts(out, nl->o->vulkan_memory_model ? prims_vmm : prims_plain);
}

static void kernel_begin(const vc_native_layout *nl, vc_strbuf *out) {
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
    .prologue = prologue,
    .primitives = primitives,
    .ctrl_param = "",
    .ctrl_arg = "",
    .kernel_begin = kernel_begin,
    .seg_args = seg_args,
    .plan_elem = plan_elem,
};
