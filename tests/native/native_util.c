#include "native_util.h"

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness/lang/diag.h"
#include "harness/lang/parse.h"

static void finish_load(native_case *c, vc_program *p, vc_diags *d, const char *what) {
  if (!p) fail_msg("%s does not parse: %s", what, d->count ? d->items[0].msg : "?");
  vc_diags_free(d);
  c->prog = p;
  vc_error err = {0};
  if (vc_split_program(p, &c->split, &err)) fail_msg("%s: split: %s", what, err.msg);
  vc_split_native_desc(c->split, &c->desc);
  c->kd = (vc_kernel_desc){VC_KERNEL_NATIVE, p, &c->desc, "native"};
}

void native_case_load(native_case *c, const char *path) {
  vc_diags d;
  vc_diags_init(&d);
  finish_load(c, vc_parse_file(path, &d), &d, path);
}

void native_case_text(native_case *c, const char *name, const char *text) {
  vc_diags d;
  vc_diags_init(&d);
  finish_load(c, vc_parse(name, text, strlen(text), &d), &d, name);
}

void native_case_free(native_case *c) {
  vc_split_free(c->split);
  vc_program_free(c->prog);
  memset(c, 0, sizeof *c);
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

char **native_list(const char *dir, size_t *n) {
  DIR *d = opendir(dir);
  if (!d) fail_msg("cannot open %s", dir);
  char **list = NULL;
  size_t cap = 0;
  *n = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    size_t len = strlen(e->d_name);
    if (len < 6 || strcmp(e->d_name + len - 5, ".vyre") != 0) continue;
    if (*n == cap) {
      cap = cap ? cap * 2 : 16;
      list = realloc(list, cap * sizeof *list);
      assert_non_null(list);
    }
    size_t size = strlen(dir) + len + 2;
    list[*n] = malloc(size);
    assert_non_null(list[*n]);
    snprintf(list[(*n)++], size, "%s/%s", dir, e->d_name);
  }
  closedir(d);
  if (*n) qsort(list, *n, sizeof *list, by_name);
  return list;
}

void native_list_free(char **list, size_t n) {
  for (size_t i = 0; i < n; i++) free(list[i]);
  free(list);
}

static void append(char ***all, size_t *n, char **more, size_t m) {
  *all = realloc(*all, (*n + m + 1) * sizeof **all);
  assert_non_null(*all);
  memcpy(*all + *n, more, m * sizeof *more);
  *n += m;
  free(more);
}

char **native_all_programs(size_t *n) {
  char **all = native_list(VC_SOURCE_DIR "/tests/native/cases", n);
  DIR *d = opendir(VC_SOURCE_DIR "/corpus");
  if (!d) fail_msg("cannot open the corpus");
  char **dirs = NULL;
  size_t nd = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    if (e->d_name[0] == '.') continue;
    size_t size = strlen(VC_SOURCE_DIR "/corpus/") + strlen(e->d_name) + 1;
    char *path = malloc(size);
    assert_non_null(path);
    snprintf(path, size, "%s/corpus/%s", VC_SOURCE_DIR, e->d_name);
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
      free(path);
      continue;
    }
    dirs = realloc(dirs, (nd + 1) * sizeof *dirs);
    assert_non_null(dirs);
    dirs[nd++] = path;
  }
  closedir(d);
  for (size_t i = 0; i < nd; i++) {
    size_t m = 0;
    char **more = native_list(dirs[i], &m);
    append(&all, n, more, m);
    free(dirs[i]);
  }
  free(dirs);
  return all;
}

bool native_case_try(native_case *c, const char *path) {
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = vc_parse_file(path, &d);
  vc_diags_free(&d);
  if (!p) return false;
  vc_split *s = NULL;
  vc_error err = {0};
  if (vc_split_program(p, &s, &err)) {
    vc_program_free(p);
    return false;
  }
  c->prog = p;
  c->split = s;
  vc_split_native_desc(s, &c->desc);
  c->kd = (vc_kernel_desc){VC_KERNEL_NATIVE, p, &c->desc, "native"};
  return true;
}

int native_tmpdir(char *dir, size_t n, const char *prefix) {
  snprintf(dir, n, "/tmp/%sXXXXXX", prefix);
  return mkdtemp(dir) ? 0 : -1;
}

int native_rmdir(const char *dir) {
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return native_sh(cmd) == 0 ? 0 : -1;
}

int native_sh(const char *cmd) {
  int st = system(cmd);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

size_t native_count(const char *hay, const char *needle) {
  size_t n = 0, len = strlen(needle);
  for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += len) n++;
  return n;
}
