/* The CUDA C of the native kernels of the native cases and of the corpus's
 * barrier-detection, fixpoint and shared-memory programs compiles with
 * NVRTC, with the options and include directories the CUDA plugin must use
 * (docs/native.md), and ptxas accepts the PTX for sm_90. No GPU is needed:
 * real runs happen on a GPU machine. (Each compile parses
 * cooperative_groups.h, about a second; the segment functions' CUDA C is
 * the CUDA backend's own and tests/cuda compiles it for the whole corpus.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <nvrtc.h>

#include "backends/common/native/cgen_native.h"
#include "backends/common/native/native_ctrl.h"
#include "native_util.h"

static char dir[64];

static int make_dir(void **state) {
  (void)state;
  return native_tmpdir(dir, sizeof dir, "vc-native-cuda-");
}

static int remove_dir(void **state) {
  (void)state;
  return native_rmdir(dir);
}

/* NVRTC to PTX (left in dir/k.ptx), then ptxas (dir/k.cubin); false on
   failure (the logs on stderr). */
static bool compiles_with(const native_case *c, const vc_native_opts *opts_in) {
  vc_native_opts o = *opts_in;
  vc_strbuf sb;
  vc_sb_init(&sb);
  vc_error err = {0};
  if (vc_cgen_native(&c->kd, &o, &sb, &err)) fail_msg("%s: %s", c->prog->name, err.msg);
  const char *opts[] = {"--gpu-architecture=compute_90", "--fmad=false", "--prec-div=true",
                        "--prec-sqrt=true", "-ftz=false", "-I" VC_CUDA_INCLUDE,
                        "-I" VC_CUDA_INCLUDE "/cccl"};
  nvrtcProgram prog;
  bool ok = nvrtcCreateProgram(&prog, vc_sb_str(&sb), "native.cu", 0, NULL, NULL) ==
            NVRTC_SUCCESS;
  vc_sb_free(&sb);
  assert_true(ok);
  nvrtcResult r = nvrtcCompileProgram(prog, (int)(sizeof opts / sizeof opts[0]), opts);
  if (r != NVRTC_SUCCESS) {
    size_t size = 0;
    nvrtcGetProgramLogSize(prog, &size);
    char *log = malloc(size + 1);
    assert_non_null(log);
    nvrtcGetProgramLog(prog, log);
    fprintf(stderr, "%s: %s\n%s\n", c->prog->name, nvrtcGetErrorString(r), log);
    free(log);
    nvrtcDestroyProgram(&prog);
    return false;
  }
  size_t size = 0;
  nvrtcGetPTXSize(prog, &size);
  char *ptx = malloc(size);
  assert_non_null(ptx);
  nvrtcGetPTX(prog, ptx);
  nvrtcDestroyProgram(&prog);
  char path[128], cmd[512];
  snprintf(path, sizeof path, "%s/k.ptx", dir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(ptx, f);
  fclose(f);
  free(ptx);
#ifdef VC_PTXAS
  snprintf(cmd, sizeof cmd, "'%s' -arch=sm_90 -o %s/k.cubin %s", VC_PTXAS, dir, path);
  if (native_sh(cmd) != 0) {
    fprintf(stderr, "%s: ptxas refused the PTX\n", c->prog->name);
    return false;
  }
#else
  (void)cmd;
#endif
  return true;
}

static bool compiles(const native_case *c) {
  vc_native_opts o;
  vc_native_opts_default(VC_DIALECT_CUDA, &o);
  return compiles_with(c, &o);
}

/* A file's text, malloc'ed. */
static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *t = malloc((size_t)n + 1);
  assert_non_null(t);
  size_t got = fread(t, 1, (size_t)n, f);
  fclose(f);
  t[got] = '\0';
  return t;
}

/* barrier=inline in each inline-order: NVRTC passes the inline assembly
   through, ptxas assembles it for sm_90 (where installed), and the PTX
   holds each order's instructions and no other's fence. */
static void inline_orders_assemble(void **state) {
  (void)state;
  static const struct {
    vc_cuda_inline order;
    const char *has[3], *lacks[2];
  } want[] = {
      {VC_CUDA_INLINE_FENCED, {"atom.acq_rel.gpu.global.add.u32", "ld.acquire.gpu.global.u32",
                               "membar.gl"}, {"ld.relaxed", "fence.acq_rel.gpu"}},
      {VC_CUDA_INLINE_RELEASE, {"atom.add.release.gpu.u32", "ld.acquire.gpu.u32", NULL},
       {"membar.gl", "fence."}},
      {VC_CUDA_INLINE_RELAXED, {"atom.add.release.gpu.u32", "ld.relaxed.gpu.u32",
                                "fence.acq_rel.gpu"}, {"membar.gl", "ld.acquire"}},
  };
  size_t n = 0;
  char **files = native_list(VC_SOURCE_DIR "/tests/native/cases", &n);
  assert_true(n >= 9);
  size_t bad = 0;
  for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
    for (size_t i = 0; i < n; i++) {
      native_case c;
      native_case_load(&c, files[i]);
      vc_native_opts o;
      vc_native_opts_default(VC_DIALECT_CUDA, &o);
      o.cuda_inline_barrier = true;
      o.cuda_inline = want[w].order;
      bool ok = compiles_with(&c, &o);
      bad += !ok;
      if (ok && vc_native_has_grid_barrier(&c.desc)) {
        char path[128];
        snprintf(path, sizeof path, "%s/k.ptx", dir);
        char *ptx = slurp(path);
        for (int h = 0; h < 3; h++)
          if (want[w].has[h] && !strstr(ptx, want[w].has[h]))
            fail_msg("%s, order %d: no %s in the PTX", files[i], (int)want[w].order,
                     want[w].has[h]);
        for (int l = 0; l < 2; l++)
          if (strstr(ptx, want[w].lacks[l]))
            fail_msg("%s, order %d: %s in the PTX", files[i], (int)want[w].order,
                     want[w].lacks[l]);
        free(ptx);
      }
      native_case_free(&c);
    }
  }
  native_list_free(files, n);
  assert_int_equal(bad, 0);
}

static void programs_compile(void **state) {
  (void)state;
  static const char *const dirs[] = {
      VC_SOURCE_DIR "/tests/native/cases", VC_SOURCE_DIR "/corpus/barrier-detect",
      VC_SOURCE_DIR "/corpus/fixpoint", VC_SOURCE_DIR "/corpus/shared"};
  size_t done = 0, bad = 0;
  for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
    size_t n = 0;
    char **files = native_list(dirs[d], &n);
    for (size_t i = 0; i < n; i++) {
      native_case c;
      native_case_load(&c, files[i]);
      bad += !compiles(&c);
      done++;
      native_case_free(&c);
    }
    native_list_free(files, n);
  }
  fprintf(stderr, "%zu programs, %zu failures\n", done, bad);
  assert_true(done >= 20);
  assert_int_equal(bad, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(programs_compile),
                                     cmocka_unit_test(inline_orders_assemble)};
  return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
