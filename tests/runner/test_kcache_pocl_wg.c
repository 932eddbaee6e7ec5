/* PoCL's kernels in the kernel cache hold the code a launch needs
 * (backends/opencl/ocl_cache.c): PoCL compiles a kernel's work-group
 * function for the launch's local size at the first launch, and a binary
 * read after that launch carries it (a directory NAME/LX-LY-LZ-... beside
 * the generic 0-0-0 one); one read after the build alone does not, and a
 * warm run would compile it again. A cold run on PoCL must leave every
 * entry with the function for its program's workgroup: native (its
 * warm-up launch at compile) and segment kernels (stored when freed). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness/base/exitcodes.h"

static char dir[256];

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/vc-kcwg-XXXXXX");
  assert_non_null(mkdtemp(dir));
  char path[512];
  snprintf(path, sizeof path, "%s/spill.vyre", dir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs("(program spill (workgroup 8) (grid 4)\n"
        "  (buffer a u32 32 read_write (init iota))\n"
        "  (buffer out u32 32 write)\n"
        "  (entry (let g (global_id x)) (let v (load a g))\n"
        "    (store a g (add v 100u)) (barrier grid)\n"
        "    (store out g (add v (load a (sub 31u g))))))\n",
        f);
  fclose(f);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  return system(cmd) == 0 ? 0 : -1;
}

/* Counts in the file at path the work-group functions PoCL specialised
   for a local size ("/vc_main/LX-LY-LZ-...", not the generic
   "/vc_main/0-0-0/"), and those for prefix ("/vc_main/8-1-1-"). */
static void functions_in(const char *path, const char *prefix, int *special, int *sized) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  static char buf[1 << 22];
  size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  static const char dirname[] = "/vc_main/";
  const size_t k = sizeof dirname - 1, kp = strlen(prefix);
  *special = *sized = 0;
  for (size_t i = 0; i + k + 6 <= n; i++) {
    if (memcmp(buf + i, dirname, k) != 0) continue;
    if (memcmp(buf + i, "/vc_main/0-0-0/", 15) != 0 && buf[i + k] >= '1' && buf[i + k] <= '9')
      (*special)++;
    if (i + kp <= n && memcmp(buf + i, prefix, kp) == 0) (*sized)++;
  }
}

static void entries_hold_the_launch_sized_function(void **state) {
  (void)state;
  char cmd[2048];
  /* PoCL's own cache off and empty: only the harness's entries count. */
  snprintf(cmd, sizeof cmd,
           "cd %s && mkdir -p pc && POCL_KERNEL_CACHE=0 POCL_CACHE_DIR=%s/pc %s/vyre-conform "
           "--backend opencl --cache kc --db k.db --expectations none --progress plain "
           "spill.vyre >out.txt 2>&1",
           dir, dir, VC_BINARY_DIR);
  int st = system(cmd);
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), VC_EXIT_OK);
  snprintf(cmd, sizeof cmd, "find %s/kc -type f -name '*.vck' | sort", dir);
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  char line[1024];
  int n = 0, specialised = 0, program = 0;
  while (fgets(line, sizeof line, p)) {
    line[strcspn(line, "\n")] = '\0';
    n++;
    int special = 0, sized = 0;
    functions_in(line, "/vc_main/8-1-1-", &special, &sized);
    if (!special) fprintf(stderr, "%s holds no work-group function of a launch\n", line);
    specialised += special > 0;
    program += sized > 0;
  }
  pclose(p);
  /* the program's native kernel and two segment kernels, and the device
     fingerprint's probe (one invocation: 1-1-1) */
  assert_int_equal(n, 4);
  assert_int_equal(specialised, n);
  assert_int_equal(program, 3);
}

/* A segment kernel's first launch is the device phase's: nothing launches
   it at compile (ocl_kernel.c), since a warm-up launch would need a kernel
   that runs nothing, and the guard that did that (`if (!b0) return;`) was
   miscompiled by PoCL 3.1. A worker that hangs as it enters its first
   device phase (--inject-hang ...@device) has therefore built no segment
   kernel's work-group function; PoCL's own cache (on, in a folder of its
   own) shows what it built. */
static void segment_functions_built_in_the_device_phase_only(void **state) {
  (void)state;
  char cmd[2048];
  snprintf(cmd, sizeof cmd,
           "cd %s && mkdir -p pc2 && POCL_KERNEL_CACHE=1 POCL_CACHE_DIR=%s/pc2 %s/vyre-conform "
           "--backend opencl --no-cache --db h.db --expectations none --progress plain "
           "--mode host-split --timeout 8 --flake-reruns 0 --inject-hang 'spill@device' "
           "spill.vyre >hang.txt 2>&1",
           dir, dir, VC_BINARY_DIR);
  int st = system(cmd);
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), VC_EXIT_FAIL); /* the program timed out */
  snprintf(cmd, sizeof cmd, "grep -c 'timeout' %s/hang.txt", dir);
  assert_int_equal(system(cmd), 0);
  /* no function for the program's workgroup (a host-split run compiles
     no native kernel, whose warm-up would make one) */
  snprintf(cmd, sizeof cmd, "find %s/pc2 -type d -path '*/vc_main/8-1-1-*' | wc -l", dir);
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  int n = -1;
  assert_int_equal(fscanf(p, "%d", &n), 1);
  pclose(p);
  assert_int_equal(n, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(entries_hold_the_launch_sized_function, setup, teardown),
      cmocka_unit_test_setup_teardown(segment_functions_built_in_the_device_phase_only, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
