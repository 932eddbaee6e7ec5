/* The named killers of the catalogue (harness/base/mutants.h,
 * docs/detection.md), without a device: every program a fault names is in
 * corpus/, every unit test it names is registered, its CPU killers come
 * from two themes (corpus top-level folders) or the row says why not, and
 * docs/detection.md's catalogue row names the same killers. The checker is
 * first shown to catch each kind of bad row on made-up rows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "harness/base/mutant.h"
#include "harness/litmus/litmus.h"
#include "harness/litmus/progress.h"

enum { MAX_TOKEN = 128, MAX_THEMES = 32 };

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *buf = NULL;
  size_t n = 0, cap = 0;
  int c;
  while ((c = fgetc(f)) != EOF) {
    if (n + 2 > cap) {
      cap = cap ? 2 * cap : 4096;
      char *grown = realloc(buf, cap);
      if (!grown) break;
      buf = grown;
    }
    buf[n++] = (char)c;
  }
  fclose(f);
  if (buf) buf[n] = 0;
  return buf;
}

static int is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Is a test of this name registered in some area's tests.cmake
   (vc_add_test(NAME ...), vc_vk_test(NAME ...))? */
static int unit_test_registered(const char *src, const char *name) {
  char dir[1024], path[1024 + 256 + 16], spaced[MAX_TOKEN + 4], ended[MAX_TOKEN + 4];
  snprintf(dir, sizeof dir, "%s/tests", src);
  snprintf(spaced, sizeof spaced, "(%s ", name);
  snprintf(ended, sizeof ended, "(%s\n", name);
  DIR *d = opendir(dir);
  if (!d) return 0;
  int found = 0;
  for (struct dirent *e; !found && (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    snprintf(path, sizeof path, "%s/%s/tests.cmake", dir, e->d_name);
    char *text = slurp(path);
    found = text && (strstr(text, spaced) || strstr(text, ended));
    free(text);
  }
  closedir(d);
  return found;
}

/* The problems of one row, each a line on err; returns their count.
   src is the source tree (its corpus/ and tests/). */
static int check_row(const char *src, const char *name, const char *killers, const char *why,
                     FILE *err) {
  int problems = 0, ncpu = 0, nthemes = 0;
  char themes[MAX_THEMES][MAX_TOKEN];
  const char *p = killers;
  while (*p) {
    while (*p == ' ') p++;
    size_t len = strcspn(p, " ");
    if (!len) break;
    char tok[MAX_TOKEN];
    if (len >= sizeof tok) {
      fprintf(err, "%s: killer '%.40s...' too long\n", name, p);
      return problems + 1;
    }
    memcpy(tok, p, len);
    tok[len] = 0;
    p += len;
    if (strncmp(tok, "unit:", 5) == 0) {
      if (!unit_test_registered(src, tok + 5)) {
        fprintf(err, "%s: unit test %s is not registered in any tests/*/tests.cmake\n", name, tok + 5);
        problems++;
      }
      continue;
    }
    /* GPU-only: litmus:TEST/PLACE, or litmus:progress/CHECK */
    if (strncmp(tok, "litmus:", 7) == 0) {
      const char *lt = tok + 7, *ls = strchr(lt, '/');
      char test[MAX_TOKEN] = "";
      if (ls) snprintf(test, sizeof test, "%.*s", (int)(ls - lt), lt);
      bool progress = ls && !strcmp(test, "progress");
      if (progress ? vc_progress_check_from_name(ls + 1) < 0
                   : !ls || vc_litmus_test_from_name(test) < 0 ||
                         vc_litmus_place_from_name(ls + 1) < 0 ||
                         vc_litmus_place_is_control(
                             (vc_litmus_place)vc_litmus_place_from_name(ls + 1))) {
        fprintf(err,
                "%s: killer %s: not litmus:TEST/PLACE of a litmus test and a barrier place, nor "
                "litmus:progress/CHECK\n",
                name, tok);
        problems++;
      }
      continue;
    }
    int gpu = strncmp(tok, "gpu:", 4) == 0;
    const char *prog = gpu ? tok + 4 : tok;
    const char *slash = strchr(prog, '/');
    char path[1024];
    snprintf(path, sizeof path, "%s/corpus/%s.vyre", src, prog);
    if (!slash || slash == prog || strchr(slash + 1, '/') || !is_file(path)) {
      fprintf(err, "%s: killer %s: no program corpus/%s.vyre\n", name, tok, prog);
      problems++;
      continue;
    }
    if (gpu) continue;
    ncpu++;
    size_t tlen = (size_t)(slash - prog);
    int seen = 0;
    for (int t = 0; t < nthemes; t++) seen |= strlen(themes[t]) == tlen && !strncmp(themes[t], prog, tlen);
    if (!seen && nthemes < MAX_THEMES) {
      memcpy(themes[nthemes], prog, tlen);
      themes[nthemes++][tlen] = 0;
    }
  }
  if (!ncpu && !*why) {
    fprintf(err, "%s: no program kills it on the CPU devices, and the row says not why\n", name);
    problems++;
  } else if (nthemes < 2 && !*why) {
    fprintf(err, "%s: its CPU killers are of %d theme(s), and the row says not why\n", name, nthemes);
    problems++;
  } else if (nthemes >= 2 && *why) {
    fprintf(err, "%s: killers of %d themes, but the row says why fewer: \"%s\"\n", name, nthemes, why);
    problems++;
  }
  return problems;
}

/* The problems of docs/detection.md's catalogue row of a fault: the row
   "| `name` |" must exist and name each killer as `TOKEN`. */
static int check_docs_row(const char *docs, const char *name, const char *killers, FILE *err) {
  char head[MAX_TOKEN + 8];
  snprintf(head, sizeof head, "\n| `%s` |", name);
  const char *row = strstr(docs, head);
  if (!row) {
    fprintf(err, "%s: no catalogue row in docs/detection.md\n", name);
    return 1;
  }
  const char *eol = strchr(row + 1, '\n');
  size_t rowlen = eol ? (size_t)(eol - row) : strlen(row);
  int problems = 0;
  const char *p = killers;
  while (*p) {
    while (*p == ' ') p++;
    size_t len = strcspn(p, " ");
    if (!len) break;
    char tok[MAX_TOKEN + 3];
    snprintf(tok, sizeof tok, "`%.*s`", (int)(len < MAX_TOKEN ? len : MAX_TOKEN), p);
    p += len;
    int found = 0;
    for (size_t i = 0; !found && i + strlen(tok) <= rowlen; i++) found = !strncmp(row + i, tok, strlen(tok));
    if (!found) {
      fprintf(err, "%s: docs/detection.md's row does not name %s\n", name, tok);
      problems++;
    }
  }
  return problems;
}

static FILE *sink(void) {
  FILE *f = fopen("/dev/null", "w");
  assert_non_null(f);
  return f;
}

/* The checker catches each kind of bad row, and passes good ones. */
static void checker_catches_bad_rows(void **state) {
  (void)state;
  FILE *err = sink();
  const char *src = VC_SOURCE_DIR;
  assert_int_equal(check_row(src, "ok", "semantics/shifts algorithms/cg_fixed_point", "", err), 0);
  assert_int_equal(check_row(src, "missing", "semantics/shifts algorithms/no_such_program", "", err), 2);
  assert_int_equal(check_row(src, "one-theme", "semantics/shifts semantics/int_wrap", "", err), 1);
  assert_int_equal(check_row(src, "one-theme-why", "semantics/shifts", "a stated reason", err), 0);
  assert_int_equal(check_row(src, "stale-why", "semantics/shifts values/let_load", "a reason", err), 1);
  assert_int_equal(check_row(src, "gpu-only", "unit:test_cgen_rules_text gpu:semantics/shifts", "", err), 1);
  assert_int_equal(check_row(src, "litmus-ok", "unit:test_cgen_rules_text litmus:mp/native", "CPU-invisible", err), 0);
  assert_int_equal(check_row(src, "litmus-bad", "litmus:mq/native litmus:mp/none litmus:mp", "CPU-invisible", err), 3);
  assert_int_equal(check_row(src, "progress-ok", "unit:test_native_text litmus:progress/over-occupancy litmus:progress/co-resident", "CPU-invisible", err), 0);
  assert_int_equal(check_row(src, "progress-bad", "litmus:progress/over litmus:progress", "CPU-invisible", err), 2);
  assert_int_equal(check_row(src, "gpu-missing", "gpu:shared/no_such semantics/shifts values/let_load", "", err), 1);
  assert_int_equal(check_row(src, "unit-missing", "unit:test_no_such semantics/shifts values/let_load", "", err), 1);
  assert_int_equal(check_row(src, "no-theme", "shifts values/let_load", "", err), 2);
  const char *docs = "x\n| `f` | a | b | `semantics/shifts`, `unit:test_x` |\n| `g` | `values/let_load` |\n";
  assert_int_equal(check_docs_row(docs, "f", "semantics/shifts unit:test_x", err), 0);
  assert_int_equal(check_docs_row(docs, "f", "semantics/shifts values/let_load", err), 1);
  assert_int_equal(check_docs_row(docs, "h", "semantics/shifts", err), 1);
  fclose(err);
}

/* The catalogue itself. */
static void catalogue_killers_hold(void **state) {
  (void)state;
  char path[1024];
  snprintf(path, sizeof path, "%s/docs/detection.md", VC_SOURCE_DIR);
  char *docs = slurp(path);
  assert_non_null(docs);
  int problems = 0;
  for (int id = 0; id < VC_MUT_COUNT; id++) {
    const char *name = vc_mutant_name(id), *killers = vc_mutant_killers(id);
    problems += check_row(VC_SOURCE_DIR, name, killers, vc_mutant_why_one_theme(id), stderr);
    problems += check_docs_row(docs, name, killers, stderr);
  }
  free(docs);
  if (problems) fail_msg("%d problem(s) with the named killers (above)", problems);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(checker_catches_bad_rows),
      cmocka_unit_test(catalogue_killers_hold),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
