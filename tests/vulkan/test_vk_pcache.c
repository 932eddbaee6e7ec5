/* The pipeline cache data of each pipeline in the kernel cache (vk_cache.c)
 * on lavapipe: a compile after a cold one in another process hits, two
 * processes compiling the same pipeline at once leave entries a third one
 * hits, and a damaged entry (the SPIR-V's or the pipeline's) is a miss
 * that is rewritten. Every compile runs in a child process of its own, as
 * a run's workers do, so that no Vulkan instance crosses a fork. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/vulkan/vk_test_util.h"

static vc_plugin plugin;
static const vc_backend *ops;
static char dir[64];

static const char prog[] = "(program pc (workgroup 8) (grid 2) (buffer o u32 16 write)\n"
                           "  (entry (store o (global_id x) (mul (global_id x) 5u))))";

static int setup(void **state) {
  (void)state;
  if (vkt_load(&plugin) != 0) return -1;
  ops = plugin.ops;
  return 0;
}

static int teardown(void **state) {
  (void)state;
  vc_plugin_unload(&plugin);
  return 0;
}

static void fresh_dir(void) {
  snprintf(dir, sizeof dir, "/tmp/vc-vk-pc-XXXXXX");
  assert_non_null(mkdtemp(dir));
}

static void remove_dir(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  assert_int_equal(system(cmd), 0);
}

/* Exit status of a child that compiles prog with cache=dir: 0 compiled
   with cache_hit == hit (hit < 0: either), 2 compiled with the other, 1
   failed. */
static pid_t spawn_compile(int hit) {
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid) return pid;
  char opts[128];
  snprintf(opts, sizeof opts, "cache=%s", dir);
  vc_dev *dev = NULL;
  vc_error e;
  if (ops->open(0, opts, &dev, &e) != 0) {
    fprintf(stderr, "open: %s\n", e.msg);
    _exit(1);
  }
  vc_program *p = vkt_parse_text("pc", prog);
  vc_kernel_desc k = {.kind = VC_KERNEL_SEGMENT, .prog = p, .label = "segment 0"};
  vc_kern *kern = NULL;
  vc_compile_info ci = {0, NULL, false};
  int status = 1;
  if (p && ops->compile(dev, &k, &kern, &ci, &e) == 0) {
    status = hit < 0 || ci.cache_hit == (hit == 1) ? 0 : 2;
    if (ci.log) fprintf(stderr, "log: %s\n", ci.log);
    free(ci.log);
    ops->free_kernel(dev, kern);
  } else {
    fprintf(stderr, "compile: %s\n", e.msg);
  }
  ops->close(dev);
  vc_program_free(p);
  _exit(status);
}

static int wait_for(pid_t pid) {
  int st = 0;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static int compile_in_child(int hit) { return wait_for(spawn_compile(hit)); }

/* The entry files, in name order. */
static size_t entries(char paths[][192], size_t cap) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "find %s -name '*.vck' | sort", dir);
  FILE *f = popen(cmd, "r");
  assert_non_null(f);
  size_t n = 0;
  while (n < cap && fgets(paths[n], 192, f)) {
    paths[n][strcspn(paths[n], "\n")] = '\0';
    n++;
  }
  pclose(f);
  return n;
}

/* Cold in one process, warm in the next: the warm compile hits, and the
   cache holds two entries, the SPIR-V and the pipeline's data. */
static void warm_after_cold(void **state) {
  (void)state;
  fresh_dir();
  assert_int_equal(compile_in_child(0), 0);
  char paths[8][192];
  assert_int_equal(entries(paths, 8), 2);
  assert_int_equal(compile_in_child(1), 0);
  assert_int_equal(compile_in_child(1), 0);
  remove_dir();
}

/* Two devices in two processes compile the same pipeline into an empty
   cache at once: whatever the order of their renames, the entries left are
   whole, and a third compile hits. */
static void concurrent_writers(void **state) {
  (void)state;
  for (int round = 0; round < 3; round++) {
    fresh_dir();
    pid_t a = spawn_compile(-1), b = spawn_compile(-1);
    assert_int_equal(wait_for(a), 0);
    assert_int_equal(wait_for(b), 0);
    char paths[8][192];
    assert_int_equal(entries(paths, 8), 2);
    assert_int_equal(compile_in_child(1), 0);
    remove_dir();
  }
}

/* Each entry damaged in turn (its last byte): the compile misses, whichever
   of the two it was, rewrites it, and the next one hits. */
static void damaged_entry_rewritten(void **state) {
  (void)state;
  fresh_dir();
  assert_int_equal(compile_in_child(0), 0);
  char paths[8][192];
  assert_int_equal(entries(paths, 8), 2);
  for (int i = 0; i < 2; i++) {
    struct stat st;
    assert_int_equal(stat(paths[i], &st), 0);
    FILE *f = fopen(paths[i], "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, st.st_size - 1, SEEK_SET), 0);
    int c = fgetc(f);
    assert_int_equal(fseek(f, st.st_size - 1, SEEK_SET), 0);
    fputc(c ^ 0x5a, f);
    fclose(f);
    assert_int_equal(compile_in_child(0), 0);
    assert_int_equal(compile_in_child(1), 0);
  }
  remove_dir();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(warm_after_cold),
      cmocka_unit_test(concurrent_writers),
      cmocka_unit_test(damaged_entry_rewritten),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
