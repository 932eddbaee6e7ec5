/* The CUDA C the plugin generates for one small program, checked for its
 * structure (signature, shared arrays, guards, helpers, builtins, atomics,
 * barriers, bit casts), not byte for byte; and a native kernel's source and
 * offline PTX. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness/lang/parse.h"
#include "harness/split/split.h"
#include "tests/cuda/cuda_fixture.h"

static const char *text =
    "(program src_check\n"
    "  (workgroup 64)\n"
    "  (grid 2)\n"
    "  (buffer in u32 128 read (init iota))\n"
    "  (buffer vals i32 128 read_write)\n"
    "  (buffer fl f32 128 write)\n"
    "  (shared tile u32 64)\n"
    "  (entry\n"
    "    (let i (global_id x))\n"
    "    (store tile (local_id x) (load in i))\n"
    "    (barrier workgroup)\n"
    "    (store vals i (div (load vals i) -3))\n"
    "    (atomic min vals 0u (cast i32 i))\n"
    "    (store fl i (cast f32 (cast i32 (max (bitcast f32 (load tile (local_id x))) 1.0))))))\n";

typedef struct fixture {
  vc_plugin plugin;
  vc_program *prog;
  char *src;
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  vc_error e;
  vc_diags d;
  if (!f) return -1;
  *state = f;
  if (cuda_fixture_load(&f->plugin) != 0) return -1;
  vc_diags_init(&d);
  f->prog = vc_parse("src_check.vyre", text, strlen(text), &d);
  vc_diags_print(&d, stderr);
  vc_diags_free(&d);
  if (!f->prog) return -1;
  vc_kernel_desc k = {.kind = VC_KERNEL_SEGMENT, .prog = f->prog, .label = "segment 0"};
  if (f->plugin.ops->emit(&k, NULL, &f->src, &e) != 0) {
    fprintf(stderr, "%s\n", e.msg);
    return -1;
  }
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  free(f->src);
  vc_program_free(f->prog);
  vc_plugin_unload(&f->plugin);
  free(f);
  return 0;
}

static void contains(const char *src, const char *what) {
  if (!strstr(src, what)) fail_msg("generated source lacks \"%s\":\n%s", what, src);
}

static void lacks(const char *src, const char *what) {
  if (strstr(src, what)) fail_msg("generated source has \"%s\":\n%s", what, src);
}

static void kernel_signature(void **state) {
  const char *src = ((fixture *)*state)->src;
  contains(src, "extern \"C\" __global__ void __launch_bounds__(64)\nvc_main(");
  /* element types by buffer type, in buffer order */
  contains(src, "vc_main(unsigned int *b0 /* in */, int *b1 /* vals */, float *b2 /* fl */, "
                "unsigned long long *vc_stamp)");
  contains(src, "__shared__ unsigned int s0[64]; /* tile */");
  contains(src, "static __device__ void vc_seg0(unsigned int *b0, int *b1, float *b2, "
                "unsigned int *s0,");
  contains(src, "unsigned int global_id_x, ");
  /* the segment runs with the hardware ids, shared arrays passed down */
  contains(src, "  vc_seg0(b0, b1, b2, s0,");
}

/* timing=stamps: the first thread of the first block stores the device
   clock to the launch's slot (when it has one) before the body runs, so
   that an early return in the body cannot skip it. */
static void start_stamp(void **state) {
  const char *src = ((fixture *)*state)->src;
  contains(src, "  if (vc_stamp && (blockIdx.x | blockIdx.y | blockIdx.z | threadIdx.x | "
                "threadIdx.y |\n                   threadIdx.z) == 0u) {\n");
  contains(src, "    asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(vc_t));\n"
                "    *vc_stamp = vc_t;\n");
  const char *stamp = strstr(src, "%%globaltimer");
  const char *body = strstr(src, "  vc_seg0(b0, b1, b2, s0,");
  const char *kernel = strstr(src, "\nvc_main(");
  assert_non_null(stamp);
  assert_non_null(body);
  assert_true(kernel < stamp && stamp < body);
  /* once: not in the segment function */
  assert_null(strstr(stamp + 1, "%%globaltimer"));
}

static void builtins_from_cuda(void **state) {
  const char *src = ((fixture *)*state)->src;
  contains(src, "(blockIdx.x * blockDim.x + threadIdx.x)");
  contains(src, "threadIdx.z");
  contains(src, "blockIdx.y");
  contains(src, "gridDim.z");
  contains(src, "blockDim.y");
}

/* Every access is guarded by its array's element count. */
static void guards(void **state) {
  const char *src = ((fixture *)*state)->src;
  contains(src, " < 128u) {");
  contains(src, " < 64u) {");
}

static void helpers_and_spellings(void **state) {
  const char *src = ((fixture *)*state)->src;
  contains(src, "static __device__ int vc_div_i32(int a, int b)");
  contains(src, "static __device__ unsigned int vc_isnan_f32(float x)");
  contains(src, "static __device__ float vc_max_f32(float a, float b)");
  contains(src, "static __device__ int vc_f32_to_i32(float x)");
  contains(src, "__float_as_uint(x)");
  contains(src, "__float2int_rz(x)");
  contains(src, "__int2float_rn(");
  contains(src, "__uint_as_float(");
  contains(src, "atomicMin(&b1[");
  contains(src, "__syncthreads();");
  /* nothing from headers: isnan on the bits, no fused multiply-add */
  lacks(src, "#include");
  lacks(src, "isnan(");
  lacks(src, "fmaf(");
  lacks(src, "__fma");
}

/* Two segments, a spilled value between them and a count fixpoint. */
static const char *native_text =
    "(program nat_check (workgroup 64) (grid 3) (fixpoint (max 2))\n"
    "  (buffer a u32 192 read_write (init iota))\n"
    "  (buffer o u32 192 write)\n"
    "  (entry (let i (global_id x)) (let v (load a i)) (store a i (add v 1u))\n"
    "    (barrier grid) (store o i (add v (load a (sub 191u i))))))\n";

typedef struct native_fixture {
  vc_program *prog;
  vc_split *split;
  vc_native_desc nd;
  vc_kernel_desc k;
} native_fixture;

static void native_load(native_fixture *n) {
  vc_diags d;
  vc_diags_init(&d);
  n->prog = vc_parse("nat_check.vyre", native_text, strlen(native_text), &d);
  vc_diags_print(&d, stderr);
  vc_diags_free(&d);
  assert_non_null(n->prog);
  vc_error e;
  if (vc_split_program(n->prog, &n->split, &e) != 0) fail_msg("split: %s", e.msg);
  vc_split_native_desc(n->split, &n->nd);
  n->k = (vc_kernel_desc){.kind = VC_KERNEL_NATIVE, .prog = n->prog, .native = &n->nd,
                          .label = "native"};
}

static void native_unload(native_fixture *n) {
  vc_split_free(n->split);
  vc_program_free(n->prog);
}

/* The shared native generator's CUDA C with the plugin's default barrier
   (no device: barrier=inline, inline-order=release, no cooperative
   groups), the plan buffers then the control buffer, one function per
   segment. */
static void native_source(void **state) {
  fixture *f = *state;
  native_fixture n;
  native_load(&n);
  char *src = NULL;
  vc_error e;
  assert_int_equal(f->plugin.ops->emit(&n.k, NULL, &src, &e), 0);
  lacks(src, "cooperative_groups");
  contains(src, "inline-order=release");
  contains(src, "atom.add.release.gpu.u32");
  contains(src, "extern \"C\" __global__ void __launch_bounds__(64)\nvc_main(");
  char ctrl[64];
  snprintf(ctrl, sizeof ctrl, "b%u /* ", n.split->nbuffers - 1);
  contains(src, ctrl); /* the last plan buffer (a spill) */
  contains(src, "unsigned int *ctrl)");
  /* one launch per run, timed by its events: no stamp slot, no clock read */
  lacks(src, "vc_stamp");
  lacks(src, "globaltimer");
  contains(src, "static __device__ void vc_seg0(");
  contains(src, "static __device__ void vc_seg1(");
  lacks(src, "vc_seg2(");
  free(src);
  native_unload(&n);
}

/* compile_offline finds cooperative_groups.h beside NVRTC: PTX with one
   parameter per plan buffer and the control buffer, no external calls (no
   separate compilation needed). An include folder named explicitly must
   hold the header. */
static void native_offline(void **state) {
  fixture *f = *state;
  native_fixture n;
  native_load(&n);
  void *bin = NULL;
  size_t size = 0;
  char *log = NULL;
  vc_error e;
  if (f->plugin.ops->compile_offline(&n.k, "sm_90", &bin, &size, &log, &e) != 0)
    fail_msg("%s", e.msg);
  const char *ptx = bin;
  assert_int_equal(size, strlen(ptx));
  contains(ptx, ".visible .entry vc_main(");
  contains(ptx, ".target sm_90");
  unsigned params = 0;
  for (const char *p = strstr(ptx, ".param .u64 vc_main_param_"); p;
       p = strstr(p + 1, ".param .u64 vc_main_param_"))
    params++;
  assert_int_equal(params, n.split->nbuffers + 1);
  lacks(ptx, ".extern .func");
  lacks(ptx, "fma.");
  free(bin);
  free(log);
  setenv("VYRE_CONFORM_CUDA_INCLUDE", "/nonexistent/include", 1);
  assert_int_equal(f->plugin.ops->compile_offline(&n.k, "sm_90", &bin, &size, NULL, &e),
                   VC_ERR_USAGE);
  assert_null(bin);
  contains(e.msg, "kernel nat_check (native): CUDA include folder /nonexistent/include "
                  "(VYRE_CONFORM_CUDA_INCLUDE) has no cooperative_groups.h");
  /* segment kernels include nothing */
  vc_kernel_desc seg = {.kind = VC_KERNEL_SEGMENT, .prog = n.split->segs[0].prog,
                        .label = "segment 0"};
  assert_int_equal(f->plugin.ops->compile_offline(&seg, "sm_90", &bin, &size, NULL, &e), 0);
  free(bin);
  unsetenv("VYRE_CONFORM_CUDA_INCLUDE");
  native_unload(&n);
}

/* A native description that does not hold together is the generator's
   usage error, naming the kernel. */
static void native_refused(void **state) {
  fixture *f = *state;
  vc_native_desc nd = {0};
  vc_kernel_desc k = {.kind = VC_KERNEL_NATIVE, .prog = f->prog, .native = &nd, .label = "native"};
  char *src = NULL;
  void *bin = NULL;
  size_t size = 1;
  vc_error e;
  assert_int_equal(f->plugin.ops->emit(&k, NULL, &src, &e), VC_ERR_USAGE);
  assert_null(src);
  contains(e.msg, "kernel src_check (native): ");
  assert_int_equal(f->plugin.ops->compile_offline(&k, "sm_90", &bin, &size, NULL, &e),
                   VC_ERR_USAGE);
  assert_null(bin);
  assert_int_equal(size, 0);
  k.native = NULL;
  assert_int_equal(f->plugin.ops->emit(&k, NULL, &src, &e), VC_ERR_USAGE);
  contains(e.msg, "a native kernel without its description");
}

static void offline_targets(void **state) {
  fixture *f = *state;
  vc_kernel_desc k = {.kind = VC_KERNEL_SEGMENT, .prog = f->prog, .label = "segment 0"};
  void *bin = NULL;
  size_t size = 0;
  char *log = NULL;
  vc_error e;
  /* no target: the GPU the project runs on */
  assert_int_equal(f->plugin.ops->compile_offline(&k, NULL, &bin, &size, &log, &e), 0);
  assert_int_equal(size, strlen(bin));
  assert_non_null(strstr(bin, ".target sm_90"));
  free(bin);
  free(log);
  assert_int_equal(f->plugin.ops->compile_offline(&k, "sm_80", &bin, &size, &log, &e), 0);
  assert_non_null(strstr(bin, ".target sm_80"));
  free(bin);
  free(log);
  assert_int_equal(f->plugin.ops->compile_offline(&k, "spirv1.3", &bin, &size, &log, &e),
                   VC_ERR_USAGE);
  assert_null(bin);
  assert_non_null(strstr(e.msg, "CUDA target 'spirv1.3'"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(kernel_signature),      cmocka_unit_test(start_stamp),
      cmocka_unit_test(builtins_from_cuda),
      cmocka_unit_test(guards),                cmocka_unit_test(helpers_and_spellings),
      cmocka_unit_test(native_source),         cmocka_unit_test(native_offline),
      cmocka_unit_test(native_refused),        cmocka_unit_test(offline_targets),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
