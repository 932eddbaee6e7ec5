/* CUDA C spelling of native kernels (cgen_native_internal.h).
 *
 * CUDA promises co-residency to a cooperative launch
 * (cuLaunchCooperativeKernel with at most the blocks the occupancy API
 * allows), so there is no discovery: every block participates, block
 * blockIdx.x is participant p of gridDim.x, and the grid barrier is
 * cooperative_groups' grid sync, which also orders memory across the grid.
 * Block 0 counts the barriers in the control buffer for native_stats. */
#include "backends/common/cgen_native_internal.h"

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
    "  (void)ctrl;\n"
    "  (void)lead;\n"
    "  cooperative_groups::this_grid().sync();\n"
    "}\n\n";

static void runtime_fn(const vc_native_layout *nl, vc_strbuf *out) {
  (void)nl;
  vc_sb_puts(out, runtime);
}

/* Parameter k is plan buffer k's device address, the control buffer's last. */
static void kernel_begin(const vc_native_layout *nl, vc_strbuf *out) {
  const uint32_t *wg = nl->prog->workgroup;
  vc_sb_printf(out, "extern \"C\" __global__ void __launch_bounds__(%u)\nvc_main(",
               wg[0] * wg[1] * wg[2]);
  vc_native_kernel_params(nl, "", "__shared__", out);
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
    .seg_args = vc_native_args_by_plan,
    .plan_elem = vc_native_array_elem,
    .counts_barriers = true,
    .loop_segments = true,
};
