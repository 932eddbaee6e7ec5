/* The plugin boundary seen from the command line, with the OpenCL plugin on
 * PoCL: the harness learns backend names from the files it finds (a copy of
 * the plugin under a new name is a new backend; help and errors list exactly
 * what is there), and a device option the plugin refuses is a usage error
 * (exit 2) naming the option and what is accepted. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness/base/exitcodes.h"
#include "harness/exec/plugin.h"

static char dir[256];

static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sh(const char *fmt, ...) {
  char cmd[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  int st = system(cmd);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) fail_msg("failed: %s", cmd);
}

static void write_file(const char *name, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

/* dir/bin holds a copy of vyre-conform and the OpenCL plugin as "alpha" and
   "beta", beside files that are not plugins by their names; dir/extra holds
   it as "gamma". */
static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/vc-cli-XXXXXX");
  assert_non_null(mkdtemp(dir));
  sh("mkdir %s/bin %s/extra %s/corpus", dir, dir, dir);
  sh("cp %s/vyre-conform %s/bin/", VC_BINARY_DIR, dir);
  const char *copies[] = {"bin/vc-backend-alpha.so", "bin/vc-backend-beta.so",
                          "extra/vc-backend-gamma.so"};
  for (size_t i = 0; i < sizeof copies / sizeof copies[0]; i++)
    sh("cp %s/vc-backend-opencl.so %s/%s", VC_BINARY_DIR, dir, copies[i]);
  const char *not_plugins[] = {"bin/vc-backend-.so", "bin/vc-backend-delta.so.1",
                               "bin/vc-backend-a.b.so", "bin/libvc-backend-eps.so",
                               "bin/vc-backend-zeta.dll"};
  for (size_t i = 0; i < sizeof not_plugins / sizeof not_plugins[0]; i++)
    write_file(not_plugins[i], "not a plugin\n");
  write_file("corpus/plain.vyre", "(program plain (workgroup 4) (grid 2)\n"
                                  "  (buffer o u32 8 write)\n"
                                  "  (entry (store o (global_id x) (mul (global_id x) 3u))))\n");
  return 0;
}

static int teardown(void **state) {
  (void)state;
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  return system(cmd) == 0 ? 0 : -1;
}

static char out[65536];

/* Runs dir/bin/vyre-conform (or the build's with build=1) with args, the
   backend path set to path (NULL: unset); output in out; the exit status. */
static int run(int build, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int run(int build, const char *path, const char *fmt, ...) {
  char args[2048], cmd[4096], env[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(args, sizeof args, fmt, ap);
  va_end(ap);
  if (path)
    snprintf(env, sizeof env, "VYRE_CONFORM_BACKEND_PATH=%s", path);
  else
    snprintf(env, sizeof env, "-u VYRE_CONFORM_BACKEND_PATH");
  snprintf(cmd, sizeof cmd, "cd %s && env %s %s/vyre-conform %s >out.txt 2>&1", dir, env,
           build ? VC_BINARY_DIR : "bin", args);
  int st = system(cmd);
  assert_true(WIFEXITED(st));
  char file[512];
  snprintf(file, sizeof file, "%s/out.txt", dir);
  FILE *f = fopen(file, "r");
  assert_non_null(f);
  size_t n = fread(out, 1, sizeof out - 1, f);
  fclose(f);
  out[n] = '\0';
  return WEXITSTATUS(st);
}

static void contains(const char *text) {
  if (!strstr(out, text)) fail_msg("output lacks \"%s\":\n%s", text, out);
}

/* The names a directory offers as plugins, the test's own reading of the
   rule (vc-backend-NAME.so, NAME of letters, digits, '-', '_'), ", "-joined
   in sorted order. The install directory is searched too, so what it holds
   belongs to the expected list. */
static int by_name(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void expected_names(const char *extra1, const char *extra2, char *buf, size_t n) {
  char *names[64];
  size_t count = 0;
  const char *dirs[] = {extra1, extra2, VC_INSTALL_PLUGIN_DIR};
  for (size_t d = 0; d < 3; d++) {
    if (!dirs[d]) continue;
    DIR *h = opendir(dirs[d]);
    struct dirent *ent;
    while (h && (ent = readdir(h)) && count < 64) {
      size_t len = strlen(ent->d_name);
      if (len <= 14 || strncmp(ent->d_name, "vc-backend-", 11) || strcmp(ent->d_name + len - 3, ".so"))
        continue;
      char *name = strndup(ent->d_name + 11, len - 14);
      int ok = 1;
      for (char *c = name; *c; c++)
        ok &= (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '-' || *c == '_';
      for (size_t i = 0; i < count && ok; i++) ok = strcmp(names[i], name) != 0;
      if (ok)
        names[count++] = name;
      else
        free(name);
    }
    if (h) closedir(h);
  }
  qsort(names, count, sizeof names[0], by_name);
  size_t u = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < count; i++) {
    u += (size_t)snprintf(buf + u, n - u, "%s%s", i ? ", " : "", names[i]);
    free(names[i]);
  }
}

/* The scanner in process: the search path in order, each name once, sorted. */
static void find_scans_the_search_path(void **state) {
  (void)state;
  char extra[300], both[700];
  snprintf(extra, sizeof extra, "%s/extra", dir);
  snprintf(both, sizeof both, "%s/extra:%s/bin::%s/extra", dir, dir, dir);
  assert_int_equal(setenv("VYRE_CONFORM_BACKEND_PATH", both, 1), 0);
  vc_plugin_found f;
  vc_plugin_find(&f);
  assert_true(f.ndirs >= 4);
  assert_string_equal(f.dirs[0], extra);
  assert_string_equal(f.dirs[2], extra);
  assert_string_equal(f.dirs[f.ndirs - 1], VC_INSTALL_PLUGIN_DIR);
  char text[4096], want[4096], bin[300];
  vc_plugin_found_text(&f, text, sizeof text);
  snprintf(bin, sizeof bin, "%s/bin", dir);
  expected_names(bin, extra, want, sizeof want); /* this test's own folder has none */
  assert_string_equal(text, want);
  assert_non_null(strstr(text, "alpha, beta"));
  assert_non_null(strstr(text, "gamma"));
  for (unsigned i = 1; i < f.n; i++) assert_true(strcmp(f.names[i - 1], f.names[i]) < 0);
  unsetenv("VYRE_CONFORM_BACKEND_PATH");
  vc_plugin_found none;
  memset(&none, 0, sizeof none);
  vc_plugin_found_text(&none, text, sizeof text);
  assert_string_equal(text, "none");
}

/* Help and the missing-backend message list exactly the plugins present. */
static void help_lists_the_plugins_present(void **state) {
  (void)state;
  char bin[300], want[4096], line[4200];
  snprintf(bin, sizeof bin, "%s/bin", dir);
  expected_names(bin, NULL, want, sizeof want);
  assert_non_null(strstr(want, "alpha, beta"));
  snprintf(line, sizeof line, "Backends found: %s.\n", want);
  const char *commands[] = {"run", "emit", "compile", "backends"};
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
    assert_int_equal(run(0, NULL, "%s --help", commands[i]), VC_EXIT_OK);
    contains(line);
  }
  assert_int_equal(run(0, NULL, "corpus"), VC_EXIT_USAGE);
  snprintf(line, sizeof line, "--backend is required (backends found: %s)", want);
  contains(line);
  /* a directory on the variable adds its plugins */
  char extra[300];
  snprintf(extra, sizeof extra, "%s/extra", dir);
  assert_int_equal(run(0, extra, "run --help"), VC_EXIT_OK);
  contains("alpha, beta");
  contains("gamma");
}

/* A copy of the plugin under a new name is a backend of that name. */
static void a_renamed_plugin_is_a_backend(void **state) {
  (void)state;
  char extra[300], line[700];
  snprintf(extra, sizeof extra, "%s/extra", dir);
  assert_int_equal(run(0, extra, "backends"), VC_EXIT_OK);
  snprintf(line, sizeof line, "gamma: %s/extra/vc-backend-gamma.so\n  device 0: ", dir);
  contains(line);
  snprintf(line, sizeof line, "alpha: %s/bin/vc-backend-alpha.so\n  device 0: ", dir);
  contains(line);
  assert_int_equal(run(0, extra, "backends --backend beta"), VC_EXIT_OK);
  contains("beta: ");
  assert_null(strstr(out, "alpha"));
  assert_int_equal(run(0, extra, "emit --backend gamma corpus/plain.vyre"), VC_EXIT_OK);
  contains("__kernel");
  assert_int_equal(run(0, NULL, "--backend alpha --mode host-split --db r.db corpus"), VC_EXIT_OK);
  contains("1 of 1 program in");
}

/* A name no file has: exit 3, naming the backends that are there. */
static void an_unknown_backend_lists_those_found(void **state) {
  (void)state;
  char bin[300], want[4096], line[4200];
  snprintf(bin, sizeof bin, "%s/bin", dir);
  expected_names(bin, NULL, want, sizeof want);
  snprintf(line, sizeof line, "no usable plugin for backend 'gamma' (backends found: %s)", want);
  assert_int_equal(run(0, NULL, "emit --backend gamma corpus/plain.vyre"), VC_EXIT_NO_BACKEND);
  contains(line);
  contains("/bin/vc-backend-gamma.so: not found");
  assert_int_equal(run(0, NULL, "compile --backend gamma corpus"), VC_EXIT_NO_BACKEND);
  contains(line);
  assert_int_equal(run(0, NULL, "--backend gamma --db u.db corpus"), VC_EXIT_NO_BACKEND);
  contains(line);
  assert_int_equal(run(0, NULL, "backends --backend gamma"), VC_EXIT_NO_BACKEND);
  contains("gamma: not loaded: ");
  /* a name is never a path: this one would reach extra/vc-backend-gamma.so */
  sh("mkdir -p %s/bin/vc-backend-x", dir);
  assert_int_equal(run(0, NULL, "emit --backend x/../../extra/vc-backend-gamma corpus/plain.vyre"),
                   VC_EXIT_NO_BACKEND);
  contains("a backend's name is letters, digits, '-' and '_'");
  assert_null(strstr(out, "__kernel"));
}

/* Options the plugin refuses: exit 2, the option and what it accepts named. */
static void bad_device_options_exit_2(void **state) {
  (void)state;
  assert_int_equal(run(1, NULL, "--backend opencl --device-options bogus=1 --db o.db corpus"),
                   VC_EXIT_USAGE);
  contains("unknown OpenCL option 'bogus=1' (known: cl-std=CLx.y, build=FLAGS, "
           "deadline=SECONDS, native-wgs=N");
  contains("native-atomics=auto|cl12|device, host-memory=backend|malloc, gridbar=flip|counter|lead, native-join=slot|direct, native-segments=unrolled|loop, native-discovery=add|cas, cache=DIR)");
  assert_int_equal(
      run(1, NULL, "--backend opencl --device-options native-wgs=4,deadline=0 --db o.db corpus"),
      VC_EXIT_USAGE);
  contains("OpenCL option deadline=0: expected a number from 1 to 86400");
  assert_int_equal(run(1, NULL, "--backend opencl --device-options deadline=5 --mode host-split "
                                "--db o.db corpus"),
                   VC_EXIT_OK);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(find_scans_the_search_path),
      cmocka_unit_test(help_lists_the_plugins_present),
      cmocka_unit_test(a_renamed_plugin_is_a_backend),
      cmocka_unit_test(an_unknown_backend_lists_those_found),
      cmocka_unit_test(bad_device_options_exit_2),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
