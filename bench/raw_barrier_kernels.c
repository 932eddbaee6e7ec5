/* The raw kernels, GLSL and OpenCL C: one text per language, the variant
 * chosen by a #define in front. The grid barrier is the simplest correct
 * one: a single counter that only grows (barrier k is done when it reaches
 * k x G), so it needs no reset, no generation word and no last arriver;
 * the work is vc-cuda-bench's chain, B + 1 segments in one loop body (the
 * one-body form of part b's raw grid.sync()). A wait gives up after the
 * spin bound and says so in the control words; the host never hangs. */
#include "bench/raw_barrier.h"

/* ---- GLSL, the Vulkan memory model ---- */

/* glslang 11 does not declare VulkanMemoryModelDeviceScope (5346) for
   device-scope operations; a declared, never called instruction carrying
   the capability declares it (as the native kernel's GLSL does). */
#define GLSL_BODY                                                                                  \
  "#extension GL_KHR_memory_scope_semantics : require\n"                                           \
  "#extension GL_EXT_spirv_intrinsics : require\n"                                                 \
  "#pragma use_vulkan_memory_model\n"                                                              \
  "spirv_instruction(capabilities = [5346], id = 224)\n"                                           \
  "void rb_declares_device_scope(uint e, uint m, uint s);\n"                                       \
  "layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;\n"                           \
  "layout(std430, set = 0, binding = 0) nonprivate buffer O { uint w[]; } o;\n"                    \
  "layout(std430, set = 0, binding = 1) buffer C { uint w[]; } c;\n"                               \
  "layout(push_constant) uniform P { uint barriers; uint spin; } pc;\n"                            \
  "#define DEV gl_ScopeDevice, gl_StorageSemanticsBuffer\n"                                        \
  "#define ACQREL (gl_SemanticsAcquireRelease | gl_SemanticsMakeAvailable | "                      \
  "gl_SemanticsMakeVisible)\n"                                                                     \
  "#if RB_DEVBAR\n"                                                                                \
  "#define WG_SCOPE gl_ScopeDevice\n"                                                              \
  "#else\n"                                                                                        \
  "#define WG_SCOPE gl_ScopeWorkgroup\n"                                                           \
  "#endif\n"                                                                                       \
  "void wg_barrier() {\n"                                                                          \
  "  controlBarrier(gl_ScopeWorkgroup, WG_SCOPE, gl_StorageSemanticsBuffer, ACQREL);\n"            \
  "}\n"                                                                                            \
  "void work(uint i) {\n"                                                                          \
  "  if (i < 1024u) o.w[i] = o.w[i] + 1u;\n"                                                       \
  "}\n"                                                                                            \
  "void wait_all(uint k, uint target) {\n"                                                         \
  "  uint polls = 0u;\n"                                                                           \
  "  while (atomicLoad(c.w[0], DEV, gl_SemanticsRelaxed) < target && polls < pc.spin)\n"           \
  "    polls = polls + 1u;\n"                                                                      \
  "  if (atomicLoad(c.w[0], DEV, gl_SemanticsRelaxed) < target) {\n"                               \
  "    atomicAdd(c.w[1], 1u, DEV, gl_SemanticsRelaxed);\n"                                         \
  "    atomicCompSwap(c.w[2], 0u, k, gl_ScopeDevice, gl_StorageSemanticsBuffer,\n"                 \
  "        gl_SemanticsRelaxed, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);\n"                \
  "  }\n"                                                                                          \
  "#if !RB_RELAXED\n"                                                                              \
  "  memoryBarrier(gl_ScopeDevice, gl_StorageSemanticsBuffer,\n"                                   \
  "      gl_SemanticsAcquire | gl_SemanticsMakeVisible);\n"                                        \
  "#endif\n"                                                                                       \
  "}\n"                                                                                            \
  "void grid_barrier(uint k) {\n"                                                                  \
  "  uint target = k * gl_NumWorkGroups.x;\n"                                                      \
  "  wg_barrier();\n"                                                                              \
  "  if (gl_LocalInvocationIndex == 0u) {\n"                                                       \
  "#if RB_RELAXED\n"                                                                               \
  "    atomicAdd(c.w[0], 1u, DEV, gl_SemanticsRelaxed);\n"                                         \
  "#else\n"                                                                                        \
  "    atomicAdd(c.w[0], 1u, DEV, ACQREL);\n"                                                      \
  "#endif\n"                                                                                       \
  "#if !RB_ALLPOLL\n"                                                                              \
  "    wait_all(k, target);\n"                                                                     \
  "#endif\n"                                                                                       \
  "  }\n"                                                                                          \
  "#if RB_ALLPOLL\n"                                                                               \
  "  wait_all(k, target);\n"                                                                       \
  "#else\n"                                                                                        \
  "  wg_barrier();\n"                                                                              \
  "#endif\n"                                                                                       \
  "}\n"                                                                                            \
  "void main() {\n"                                                                                \
  "  uint i = gl_GlobalInvocationID.x;\n"                                                          \
  "#if !RB_NONE\n"                                                                                 \
  "  for (uint s = 0u; s < pc.barriers; s++) {\n"                                                  \
  "    work(i);\n"                                                                                 \
  "    grid_barrier(s + 1u);\n"                                                                    \
  "  }\n"                                                                                          \
  "#endif\n"                                                                                       \
  "  work(i);\n"                                                                                   \
  "}\n"

/* ---- OpenCL C ---- */

#define CL_COMMON_HEAD                                                                             \
  "#define WG 256\n"                                                                               \
  "void work(__global RB_O uint *o, uint i) {\n"                                                   \
  "  if (i < 1024u) o[i] = o[i] + 1u;\n"                                                           \
  "}\n"

/* OpenCL C 2.0/3.0: atomic_*_explicit at memory_scope_device. */
#define CL_DEVICE_SCOPE                                                                            \
  "#define RB_O\n"                                                                                 \
  "#define A(i) ((volatile __global atomic_uint *)&c[i])\n"                                        \
  "#if RB_DEVBAR\n"                                                                                \
  "#define WG_BARRIER() work_group_barrier(CLK_GLOBAL_MEM_FENCE, memory_scope_device)\n"           \
  "#else\n"                                                                                        \
  "#define WG_BARRIER() work_group_barrier(CLK_GLOBAL_MEM_FENCE, memory_scope_work_group)\n"       \
  "#endif\n"                                                                                       \
  "#if RB_RELAXED\n"                                                                               \
  "#define ARRIVE() atomic_fetch_add_explicit(A(0), 1u, memory_order_relaxed, "                    \
  "memory_scope_device)\n"                                                                         \
  "#define FENCE()\n"                                                                              \
  "#else\n"                                                                                        \
  "#define ARRIVE() atomic_fetch_add_explicit(A(0), 1u, memory_order_acq_rel, "                    \
  "memory_scope_device)\n"                                                                         \
  "#define FENCE() atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_acquire, "            \
  "memory_scope_device)\n"                                                                         \
  "#endif\n"                                                                                       \
  "#define POLL() atomic_load_explicit(A(0), memory_order_relaxed, memory_scope_device)\n"         \
  "void give_up(__global uint *c, uint k) {\n"                                                     \
  "  uint z = 0u;\n"                                                                               \
  "  atomic_fetch_add_explicit(A(1), 1u, memory_order_relaxed, memory_scope_device);\n"            \
  "  atomic_compare_exchange_strong_explicit(A(2), &z, k, memory_order_relaxed,\n"                 \
  "      memory_order_relaxed, memory_scope_device);\n"                                            \
  "}\n" CL_COMMON_HEAD

/* OpenCL 1.2: the 1.1 atomic built-ins, mem_fence as the fence, volatile
   loads as the polls, the buffer volatile (as the native kernel's 1.2
   ordering has it). */
#define CL_12                                                                                      \
  "#define RB_O volatile\n"                                                                        \
  "#if RB_DEVBAR\n"                                                                                \
  "#define WG_BARRIER() do { mem_fence(CLK_GLOBAL_MEM_FENCE); barrier(CLK_GLOBAL_MEM_FENCE); "     \
  "mem_fence(CLK_GLOBAL_MEM_FENCE); } while (0)\n"                                                 \
  "#else\n"                                                                                        \
  "#define WG_BARRIER() barrier(CLK_GLOBAL_MEM_FENCE)\n"                                           \
  "#endif\n"                                                                                       \
  "#if RB_RELAXED\n"                                                                               \
  "#define ARRIVE() atomic_add(&c[0], 1u)\n"                                                       \
  "#define FENCE()\n"                                                                              \
  "#else\n"                                                                                        \
  "#define ARRIVE() do { mem_fence(CLK_GLOBAL_MEM_FENCE); atomic_add(&c[0], 1u); "                 \
  "mem_fence(CLK_GLOBAL_MEM_FENCE); } while (0)\n"                                                 \
  "#define FENCE() mem_fence(CLK_GLOBAL_MEM_FENCE)\n"                                              \
  "#endif\n"                                                                                       \
  "#define POLL() (c[0])\n"                                                                        \
  "void give_up(__global volatile uint *c, uint k) {\n"                                            \
  "  atomic_add(&c[1], 1u);\n"                                                                     \
  "  atomic_cmpxchg(&c[2], 0u, k);\n"                                                              \
  "}\n" CL_COMMON_HEAD

#define CL_BODY                                                                                    \
  "void wait_all(__global RB_C uint *c, uint k, uint target, uint spin) {\n"                       \
  "  uint polls = 0u;\n"                                                                           \
  "  while (POLL() < target && polls < spin) polls = polls + 1u;\n"                                \
  "  if (POLL() < target) give_up(c, k);\n"                                                        \
  "  FENCE();\n"                                                                                   \
  "}\n"                                                                                            \
  "void grid_barrier(__global RB_C uint *c, uint k, uint spin) {\n"                                \
  "  uint target = k * (uint)get_num_groups(0);\n"                                                 \
  "  WG_BARRIER();\n"                                                                              \
  "  if (get_local_id(0) == 0u) {\n"                                                               \
  "    ARRIVE();\n"                                                                                \
  "#if !RB_ALLPOLL\n"                                                                              \
  "    wait_all(c, k, target, spin);\n"                                                            \
  "#endif\n"                                                                                       \
  "  }\n"                                                                                          \
  "#if RB_ALLPOLL\n"                                                                               \
  "  wait_all(c, k, target, spin);\n"                                                              \
  "#else\n"                                                                                        \
  "  WG_BARRIER();\n"                                                                              \
  "#endif\n"                                                                                       \
  "}\n"                                                                                            \
  "__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))\n"                                     \
  "void rb_main(__global RB_O uint *o, __global RB_C uint *c, uint barriers, uint spin) {\n"       \
  "  uint i = (uint)get_global_id(0);\n"                                                           \
  "#if !RB_NONE\n"                                                                                 \
  "  for (uint s = 0u; s < barriers; s++) {\n"                                                     \
  "    work(o, i);\n"                                                                              \
  "    grid_barrier(c, s + 1u, spin);\n"                                                           \
  "  }\n"                                                                                          \
  "#endif\n"                                                                                       \
  "  work(o, i);\n"                                                                                \
  "}\n"

#define V(none, relaxed, allpoll, devbar)                                                          \
  "#define RB_NONE " #none "\n#define RB_RELAXED " #relaxed "\n#define RB_ALLPOLL " #allpoll       \
  "\n#define RB_DEVBAR " #devbar "\n"

/* per variant: none, relaxed, allpoll, devbar (in RB_VARIANTS' order) */
#define RB_FLAGS_NONE V(1, 0, 0, 0)
#define RB_FLAGS_ACQREL V(0, 0, 0, 0)
#define RB_FLAGS_RELAXED V(0, 1, 0, 0)
#define RB_FLAGS_ALLPOLL V(0, 0, 1, 0)
#define RB_FLAGS_DEVBAR V(0, 0, 0, 1)

static const char *const glsl[] = {
#define RB_GLSL(e, key, what) "#version 450\n" RB_FLAGS_##e GLSL_BODY,
    RB_VARIANTS(RB_GLSL)
#undef RB_GLSL
};

static const char *const cl_device[] = {
#define RB_CLD(e, key, what) RB_FLAGS_##e "#define RB_C\n" CL_DEVICE_SCOPE CL_BODY,
    RB_VARIANTS(RB_CLD)
#undef RB_CLD
};

static const char *const cl_12[] = {
#define RB_CL12(e, key, what) RB_FLAGS_##e "#define RB_C volatile\n" CL_12 CL_BODY,
    RB_VARIANTS(RB_CL12)
#undef RB_CL12
};

const char *rb_glsl(rb_variant v) {
  return v < RB_NVARIANTS ? glsl[v] : NULL;
}

const char *rb_opencl_c(rb_variant v, bool device_scope) {
  if (v >= RB_NVARIANTS) return NULL;
  return device_scope ? cl_device[v] : cl_12[v];
}
