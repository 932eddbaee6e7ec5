#include "reduce_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/lang/parse.h"

char *ru_read(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  if (!s) abort();
  size_t got = fread(s, 1, (size_t)n, f);
  s[got] = '\0';
  fclose(f);
  return s;
}

void ru_tmpdir(char *buf, size_t n, const char *tag) {
  snprintf(buf, n, "%s/tests-reduce-%s-%d", VC_BINARY_DIR, tag, (int)getpid());
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", buf, buf);
  if (system(cmd) != 0) abort();
}

int ru_run(const char *env, const char *args, char **out) {
  char log[512], cmd[8192];
  snprintf(log, sizeof log, "%s/tests-reduce-log-%d.txt", VC_BINARY_DIR, (int)getpid());
  snprintf(cmd, sizeof cmd, "cd '%s' && %s '%s/vyre-conform' %s > '%s' 2>&1", VC_SOURCE_DIR, env,
           VC_BINARY_DIR, args, log);
  int st = system(cmd);
  char *text = ru_read(log);
  fprintf(stderr, "$ vyre-conform %s\n%s", args, text ? text : "");
  if (out)
    *out = text;
  else
    free(text);
  unlink(log);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

bool ru_size(const char *path, vc_reduce_size *s) {
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = vc_parse_file(path, &d);
  vc_diags_free(&d);
  if (!p) return false;
  vc_reduce_size_of(p, s);
  vc_program_free(p);
  return true;
}

bool ru_valid(const char *path) {
  char args[1200];
  snprintf(args, sizeof args, "check '%s'", path);
  return ru_run("env -u VYRE_CONFORM_MUTANT", args, NULL) == 0;
}
