/* CUDA C spelling of native kernels (cgen_native_internal.h).
 *
 * CUDA promises co-residency to a cooperative launch
 * (cuLaunchCooperativeKernel with at most the blocks the occupancy API
 * allows), so there is no discovery: every block participates, block
 * blockIdx.x is participant p of gridDim.x, and the grid barrier is
 * cooperative_groups' grid sync, which also orders memory across the grid.
 * Block 0 counts the barriers in the control buffer for native_stats. */
#include "backends/common/cgen_native_internal.h"

static const char *const types[3] = {"unsigned int", "int", "float"};

static void seg_dialect(const vc_native_opts *o, vc_cgen_dialect *d) {
  (void)o;
  *d = vc_cgen_dialect_cuda;
}

static void prologue(const vc_native_layout *nl, vc_strbuf *out) {
  (void)nl;
  vc_sb_puts(out,
             "/* compile with --fmad=false -ftz=false --prec-div=true --prec-sqrt=true:\n"
             "   no contraction, denormals kept (docs/semantics.md); launch with\n"
             "   cuLaunchCooperativeKernel (docs/native.md) */\n"
             "#include <cooperative_groups.h>\n"
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
    "static __device__ unsigned int vc_nc_or(unsigned int *ctrl, unsigned int i, "
    "unsigned int v) {\n"
    "  return atomicOr(&ctrl[i], v);\n"
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
    "static __device__ void vc_nat_grid_barrier(unsigned int *ctrl, unsigned int lead,\n"
    "                                           unsigned int np) {\n"
    "  (void)np;\n"
    "  cooperative_groups::this_grid().sync();\n"
    "  if (blockIdx.x == 0u && lead != 0u) ctrl[VC_NC_GEN] = ctrl[VC_NC_GEN] + 1u;\n"
    "}\n\n";

static void runtime_fn(const vc_native_layout *nl, vc_strbuf *out) {
  (void)nl;
  vc_sb_puts(out, runtime);
}

/* Parameter k is plan buffer k's device address, the control buffer's last. */
static void kernel_begin(const vc_native_layout *nl, vc_strbuf *out) {
  const vc_native_desc *d = nl->d;
  const uint32_t *wg = nl->prog->workgroup;
  vc_sb_printf(out, "extern \"C\" __global__ void __launch_bounds__(%u)\nvc_main(",
               wg[0] * wg[1] * wg[2]);
  for (uint32_t k = 0; k < d->nbuffers; k++)
    vc_sb_printf(out, "%s *b%u /* %s */,\n    ", types[d->buffers[k].type], k, d->buffers[k].name);
  vc_sb_puts(out, "unsigned int *ctrl) {\n");
  for (uint32_t k = 0; k < d->nshared; k++)
    vc_sb_printf(out, "  __shared__ %s s%u[%u]; /* %s */\n", types[d->shared[k].type], k,
                 d->shared[k].count, d->shared[k].name);
  vc_sb_puts(out, "  __shared__ unsigned int vc_bc[3];\n");
}

static void seg_args(const vc_native_layout *nl, uint32_t s, vc_strbuf *out) {
  const vc_program *g = nl->d->segments[s];
  for (uint32_t k = 0; k < g->nbuffers; k++) vc_sb_printf(out, "b%u, ", nl->d->bind[s][k]);
  for (uint32_t k = 0; k < g->nshared; k++) vc_sb_printf(out, "s%u, ", nl->d->shared_bind[s][k]);
}

static void plan_elem(uint32_t k, const char *i, vc_strbuf *out) {
  vc_sb_printf(out, "b%u[%s]", k, i);
}

const vc_native_spell vc_native_spell_cuda = {
    .name = "CUDA C",
    .seg_dialect = seg_dialect,
    .prologue = prologue,
    .primitives = primitives,
    .runtime = runtime_fn,
    .ctrl_param = "unsigned int *ctrl",
    .ctrl_arg = "ctrl",
    .kernel_begin = kernel_begin,
    .seg_args = seg_args,
    .plan_elem = plan_elem,
};
