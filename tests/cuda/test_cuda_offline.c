/* Every program of tests/cuda/programs, cut by the splitter into segment
 * kernels and made into one native kernel, compiled offline for sm_90: the
 * oracle finds each program valid, NVRTC gives PTX without contraction
 * (native kernels: with cooperative_groups.h found beside NVRTC), and
 * ptxas assembles it. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness/model/inputs.h"
#include "harness/lang/parse.h"
#include "tests/cuda/cuda_fixture.h"
#include "harness/split/split.h"
#include "oracles/oracle.h"

#define PROGRAMS VC_SOURCE_DIR "/tests/cuda/programs"
#define MAX_PROGRAMS 64

static vc_plugin plugin;
static char *paths[MAX_PROGRAMS];
static unsigned npaths;

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int setup(void **state) {
  (void)state;
  if (cuda_fixture_load(&plugin) != 0) return -1;
  DIR *d = opendir(PROGRAMS);
  if (!d) return -1;
  for (struct dirent *de; (de = readdir(d)) && npaths < MAX_PROGRAMS;) {
    size_t n = strlen(de->d_name);
    if (n < 6 || strcmp(de->d_name + n - 5, ".vyre") != 0) continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", PROGRAMS, de->d_name);
    paths[npaths++] = strdup(path);
  }
  closedir(d);
  qsort(paths, npaths, sizeof paths[0], by_name);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  for (unsigned i = 0; i < npaths; i++) free(paths[i]);
  vc_plugin_unload(&plugin);
  return 0;
}

static vc_program *parse_or_fail(const char *path) {
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = vc_parse_file(path, &d);
  if (!p) {
    vc_diags_print(&d, stderr);
    vc_diags_free(&d);
    fail_msg("%s does not parse", path);
  }
  vc_diags_free(&d);
  return p;
}

/* The smoke run compares the device with the oracle on these programs:
   they must be valid, or a GPU failure would prove nothing. */
static void programs_valid(void **state) {
  (void)state;
  assert_true(npaths >= 8);
  for (unsigned i = 0; i < npaths; i++) {
    vc_program *p = parse_or_fail(paths[i]);
    uint32_t *bufs[VC_MAX_BUFFERS];
    for (uint32_t b = 0; b < p->nbuffers; b++) {
      bufs[b] = calloc(p->buffers[b].count, 4);
      vc_inputs_fill(&p->buffers[b], bufs[b]);
    }
    vc_oracle *o = NULL;
    vc_oracle_report r;
    vc_oracle_opts opts = {.order = VC_ORDER_FORWARD};
    vc_error e;
    int rc = vc_oracle_compile(p, &o, &e);
    if (rc == 0) rc = vc_oracle_run(o, bufs, &opts, &r, &e);
    char why[512] = "";
    if (rc != 0) fail_msg("%s: oracle: %s", paths[i], e.msg);
    if (vc_oracle_invalid(p, &r, why, sizeof why)) fail_msg("%s: invalid: %s", paths[i], why);
    vc_oracle_free(o);
    for (uint32_t b = 0; b < p->nbuffers; b++) free(bufs[b]);
    vc_program_free(p);
  }
}

static void offline(const vc_kernel_desc *k, const char *path, uint32_t nparams,
                    void (*fn)(const char *label, const char *ptx, uint32_t nbufs)) {
  void *ptx = NULL;
  size_t size = 0;
  char *log = NULL, where[1200];
  vc_error e;
  if (plugin.ops->compile_offline(k, "sm_90", &ptx, &size, &log, &e) != 0)
    fail_msg("%s: %s", path, e.msg);
  snprintf(where, sizeof where, "%s, %s", path, k->label);
  fn(where, ptx, nparams);
  free(ptx);
  free(log);
}

/* Calls fn for the PTX of every segment kernel and the native kernel of
   every program, with the kernel parameters it must have. */
static void each_ptx(void (*fn)(const char *label, const char *ptx, uint32_t nbufs)) {
  for (unsigned i = 0; i < npaths; i++) {
    vc_program *p = parse_or_fail(paths[i]);
    vc_split *s = NULL;
    vc_error e;
    if (vc_split_program(p, &s, &e) != 0) fail_msg("%s: split: %s", paths[i], e.msg);
    for (uint32_t g = 0; g < s->nsegs; g++) {
      char label[64];
      snprintf(label, sizeof label, "segment %u", g);
      vc_kernel_desc k = {.kind = VC_KERNEL_SEGMENT, .prog = s->segs[g].prog, .label = label};
      /* the buffers, then the stamp slot */
      offline(&k, paths[i], s->segs[g].prog->nbuffers + 1, fn);
    }
    /* the plan buffers, then the control buffer */
    vc_native_desc nd;
    vc_split_native_desc(s, &nd);
    vc_kernel_desc k = {.kind = VC_KERNEL_NATIVE, .prog = p, .native = &nd, .label = "native"};
    offline(&k, paths[i], s->nbuffers + 1, fn);
    vc_split_free(s);
    vc_program_free(p);
  }
}

static unsigned count_of(const char *text, const char *what) {
  unsigned n = 0;
  for (const char *p = strstr(text, what); p; p = strstr(p + 1, what)) n++;
  return n;
}

static unsigned kernels;

static void check_ptx(const char *where, const char *ptx, uint32_t nbufs) {
  if (!strstr(ptx, ".visible .entry vc_main(")) fail_msg("%s: no vc_main entry", where);
  if (!strstr(ptx, ".target sm_90")) fail_msg("%s: not for sm_90", where);
  /* one 64-bit address parameter per bound buffer, then the stamp slot
     (segment kernels) or the control buffer (native) */
  if (count_of(ptx, ".param .u64 vc_main_param_") != nbufs)
    fail_msg("%s: %u kernel parameters, %u expected", where,
             count_of(ptx, ".param .u64 vc_main_param_"), nbufs);
  /* segment kernels read the clock once, native kernels never */
  size_t len = strlen(where);
  bool native = len >= 8 && strcmp(where + len - 8, ", native") == 0;
  if (count_of(ptx, "%globaltimer") != (native ? 0u : 1u))
    fail_msg("%s: %u reads of %%globaltimer", where, count_of(ptx, "%globaltimer"));
  /* the core never asks for a fused multiply-add: any would be contraction.
     Without --fmad=false NVRTC writes mul.f32/add.f32, which ptxas may
     fuse; an explicit .rn forbids that. */
  if (strstr(ptx, "fma.")) fail_msg("%s: PTX contracts into fma", where);
  const char *fusable[] = {"mul.f32", "add.f32", "sub.f32"};
  for (size_t i = 0; i < sizeof fusable / sizeof fusable[0]; i++)
    if (strstr(ptx, fusable[i])) fail_msg("%s: PTX has %s without .rn", where, fusable[i]);
  if (strstr(ptx, ".ftz")) fail_msg("%s: PTX flushes denormals", where);
  /* a grid sync needs no separately compiled device code */
  if (strstr(ptx, ".extern .func")) fail_msg("%s: PTX calls external functions", where);
  kernels++;
}

static void offline_ptx(void **state) {
  (void)state;
  kernels = 0;
  each_ptx(check_ptx);
  assert_true(kernels > 2 * npaths); /* the split programs give more than one kernel */
}

static void assemble(const char *where, const char *ptx, uint32_t nbufs) {
  (void)nbufs;
  char path[] = "/tmp/vc-cuda-ptx-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  size_t n = strlen(ptx);
  assert_int_equal(write(fd, ptx, n), (ssize_t)n);
  close(fd);
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "'%s' -arch=sm_90 -o /dev/null '%s' 2>&1", VC_PTXAS, path);
  int status = system(cmd);
  unlink(path);
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    fail_msg("%s: ptxas -arch=sm_90 refused the PTX (status %d)", where, status);
  kernels++;
}

static void ptxas_assembles(void **state) {
  (void)state;
  if (VC_PTXAS[0] == '\0') {
    fprintf(stderr, "ptxas was not found when the build was configured: PTX not assembled\n");
    skip();
  }
  kernels = 0;
  each_ptx(assemble);
  assert_true(kernels > 2 * npaths);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(programs_valid),
      cmocka_unit_test(offline_ptx),
      cmocka_unit_test(ptxas_assembles),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
