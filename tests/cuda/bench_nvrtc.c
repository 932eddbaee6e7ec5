/* vc-nvrtc-bench: NVRTC compile time of CUDA C files, for
 * docs/performance.md (a benchmark run by hand, not a test).
 *
 *   vc-nvrtc-bench [--pch] [--repeat N] [-I DIR]... FILE.cu...
 *
 * Compiles every file N times (default 3) in this one process with the
 * options vyre-conform gives (docs/backend-cuda.md) for compute_90, and
 * prints each compile's wall time, then the median per file. --pch asks
 * NVRTC 12.8+ for its automatic precompiled header (created by the first
 * compile that includes a header, reused by later ones in the process). */
#include <dlfcn.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
    free(s);
    s = NULL;
  }
  if (s) s[n] = '\0';
  fclose(f);
  return s;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

typedef nvrtcResult (*create_fn)(nvrtcProgram *, const char *, const char *, int,
                                 const char *const *, const char *const *);
typedef nvrtcResult (*compile_fn)(nvrtcProgram, int, const char *const *);
typedef nvrtcResult (*destroy_fn)(nvrtcProgram *);
typedef nvrtcResult (*pchstat_fn)(nvrtcProgram);

int main(int argc, char **argv) {
  int repeat = 3, pch = 0, nopts = 0;
  const char *opts[32] = {"--gpu-architecture=compute_90", "--fmad=false", "--prec-div=true",
                          "--prec-sqrt=true", "-ftz=false"};
  nopts = 5;
  static char incs[8][1100];
  int ninc = 0, first = 1;
  for (; first < argc && argv[first][0] == '-'; first++) {
    if (strcmp(argv[first], "--pch") == 0) {
      pch = 1;
    } else if (strcmp(argv[first], "--repeat") == 0 && first + 1 < argc) {
      repeat = atoi(argv[++first]);
    } else if (strcmp(argv[first], "-I") == 0 && first + 1 < argc && ninc < 8) {
      snprintf(incs[ninc], sizeof incs[ninc], "-I%s", argv[++first]);
      opts[nopts++] = incs[ninc++];
    } else {
      fprintf(stderr, "usage: vc-nvrtc-bench [--pch] [--repeat N] [-I DIR]... FILE.cu...\n");
      return 2;
    }
  }
  if (first >= argc || repeat < 1 || repeat > 100) {
    fprintf(stderr, "usage: vc-nvrtc-bench [--pch] [--repeat N] [-I DIR]... FILE.cu...\n");
    return 2;
  }
  if (pch) opts[nopts++] = "--pch";
  const char *lib = getenv("VYRE_CONFORM_NVRTC");
  void *h = dlopen(lib && *lib ? lib : "libnvrtc.so.13", RTLD_NOW);
  if (!h) h = dlopen("/usr/local/cuda/lib64/libnvrtc.so", RTLD_NOW);
  if (!h) {
    fprintf(stderr, "no NVRTC: %s\n", dlerror());
    return 3;
  }
  create_fn create;
  compile_fn compile;
  destroy_fn destroy;
  pchstat_fn pchstat;
  *(void **)&create = dlsym(h, "nvrtcCreateProgram");
  *(void **)&compile = dlsym(h, "nvrtcCompileProgram");
  *(void **)&destroy = dlsym(h, "nvrtcDestroyProgram");
  *(void **)&pchstat = dlsym(h, "nvrtcGetPCHCreateStatus");
  int status = 0;
  for (int f = first; f < argc; f++) {
    char *src = slurp(argv[f]);
    if (!src) {
      fprintf(stderr, "%s: cannot read\n", argv[f]);
      return 2;
    }
    double t[100];
    for (int r = 0; r < repeat; r++) {
      nvrtcProgram p;
      double t0 = now_ms();
      nvrtcResult rc = create(&p, src, "vc_kernel.cu", 0, NULL, NULL);
      if (rc == NVRTC_SUCCESS) rc = compile(p, nopts, opts);
      t[r] = now_ms() - t0;
      int made = pch && pchstat ? pchstat(p) == NVRTC_SUCCESS : 0;
      if (rc != NVRTC_SUCCESS) status = 1;
      printf("%s compile %d: %.1f ms%s%s\n", argv[f], r + 1, t[r],
             rc == NVRTC_SUCCESS ? "" : " FAILED", made ? " (created the PCH)" : "");
      destroy(&p);
    }
    qsort(t, (size_t)repeat, sizeof t[0], cmp);
    printf("%s median: %.1f ms\n", argv[f], t[repeat / 2]);
    free(src);
  }
  return status;
}
