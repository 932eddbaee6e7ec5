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

/* NVRTC to PTX, then ptxas; false on failure (the logs on stderr). */
static bool compiles(const native_case *c) {
  vc_native_opts o;
  vc_native_opts_default(VC_DIALECT_CUDA, &o);
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
  const struct CMUnitTest tests[] = {cmocka_unit_test(programs_compile)};
  return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
