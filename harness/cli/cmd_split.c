/* vyre-conform split [--programs] FILE: the segments and the plan;
   split --coverage PATH...: how often each splitter decision was taken. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/exitcodes.h"
#include "harness/base/plural.h"
#include "harness/cli/args.h"
#include "harness/cli/commands.h"
#include "harness/lang/corpus.h"
#include "harness/lang/parse.h"
#include "harness/split/decisions.h"
#include "harness/split/split.h"

static const char help[] =
    "usage: vyre-conform split [--programs] FILE\n"
    "       vyre-conform split --coverage [--min-programs N] [--min-themes N] PATH...\n"
    "\n"
    "Prints how FILE is cut at its grid barriers: per segment the buffers it\n"
    "binds and how (read, write, read_write), the values it reloads from and\n"
    "saves to spill buffers, the lets it recomputes, and the bytes host-split\n"
    "moves; then what resident-split moves.\n"
    "\n"
    "With --coverage, splits every program under PATH (files, or folders\n"
    "searched for *.vyre) and prints one row per splitter decision\n"
    "(docs/splitter.md, section 8): how many programs took it, from how many\n"
    "themes (the first folder under PATH), and the first few of them. A\n"
    "decision taken by fewer than N programs (--min-programs, default 2) or\n"
    "from fewer than N themes (--min-themes, default 2) is named on a BELOW\n"
    "line and the status is 1. Programs that expect a refusal are not counted;\n"
    "one that cannot be read, parsed or split is reported with its file, is\n"
    "not counted and makes the status non-zero (docs/usage.md, exit status).\n"
    "\n"
    "  --programs        also print every segment program\n"
    "  --coverage        decision coverage over PATH... instead of one plan\n"
    "  --min-programs N  programs a decision needs (default 2)\n"
    "  --min-themes N    themes those programs must come from (default 2)\n";

/* Rows show this many program names, then "...". */
#define SHOW_NAMES 3

typedef struct taker {
  char *name;  /* THEME/NAME */
  char *theme;
} taker;

typedef struct cover {
  taker *t[VC_DEC_COUNT];
  uint32_t n[VC_DEC_COUNT], cap[VC_DEC_COUNT];
} cover;

/* The theme of a file: the first folder under its PATH argument, else the
   folder that holds it. */
static char *theme_of(const vc_corpus_file *f) {
  const char *slash = strchr(f->rel, '/');
  if (slash) return strndup(f->rel, (size_t)(slash - f->rel));
  const char *end = strrchr(f->path, '/');
  if (!end) return strdup(".");
  const char *start = end;
  while (start > f->path && start[-1] != '/') start--;
  return start == end ? strdup("/") : strndup(start, (size_t)(end - start));
}

static void add_taker(cover *c, vc_split_decision d, const char *name, const char *theme) {
  if (c->n[d] == c->cap[d]) {
    c->cap[d] = c->cap[d] ? 2 * c->cap[d] : 8;
    c->t[d] = realloc(c->t[d], c->cap[d] * sizeof *c->t[d]);
    if (!c->t[d]) abort();
  }
  c->t[d][c->n[d]++] = (taker){strdup(name), strdup(theme)};
}

static uint32_t themes_of(const cover *c, vc_split_decision d) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < c->n[d]; i++) {
    bool seen = false;
    for (uint32_t j = 0; j < i && !seen; j++) seen = strcmp(c->t[d][i].theme, c->t[d][j].theme) == 0;
    n += !seen;
  }
  return n;
}

/* One program: its decisions into c, or a line saying why it is not counted. */
static int cover_file(const vc_corpus_file *f, cover *c, uint32_t *counted, uint32_t *refused) {
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = vc_parse_file(f->path, &d);
  int status = VC_EXIT_OK;
  if (!p) {
    if (d.expect_reject && vc_diags_contain(&d, d.expect_reject)) {
      (*refused)++;
    } else {
      vc_diags_print(&d, stderr);
      printf("FAIL  %s: cannot be parsed, not counted\n", f->path);
      status = VC_EXIT_INPUT;
    }
    vc_diags_free(&d);
    return status;
  }
  vc_diags_free(&d);
  if (vc_program_expect(p, VC_EXPECT_REJECT)) {
    /* it never runs on a device: its plan exercises nothing */
    (*refused)++;
    vc_program_free(p);
    return VC_EXIT_OK;
  }
  vc_split *s = NULL;
  vc_error e;
  vc_error_clear(&e);
  vc_split_decisions dec;
  if (vc_split_program(p, &s, &e)) {
    bool limit = e.code == VC_ERR_LIMIT;
    printf("%s  %s: %s, not counted\n", limit ? "unsup" : "FAIL ", f->path, e.msg);
    status = limit ? VC_EXIT_OK : e.code == VC_ERR_INTERNAL ? VC_EXIT_INTERNAL : VC_EXIT_FAIL;
  } else if (vc_split_decisions_of(s, &dec, &e)) {
    printf("FAIL  %s: %s, not counted\n", f->path, e.msg);
    status = VC_EXIT_INTERNAL;
  } else {
    char name[512], file[256];
    char *theme = theme_of(f);
    vc_corpus_file_name(f->path, file, sizeof file);
    snprintf(name, sizeof name, "%s/%s", theme, file);
    for (uint32_t k = 0; k < VC_DEC_COUNT; k++)
      if (dec.n[k]) add_taker(c, (vc_split_decision)k, name, theme);
    free(theme);
    (*counted)++;
  }
  vc_split_free(s);
  vc_program_free(p);
  return status;
}

static int coverage(const char *const *paths, uint32_t npaths, uint32_t min_programs,
                    uint32_t min_themes) {
  vc_corpus files;
  vc_error e;
  vc_error_clear(&e);
  if (vc_corpus_collect(&files, paths, npaths, &e)) {
    fprintf(stderr, "vyre-conform: %s\n", e.msg);
    vc_corpus_free(&files);
    return VC_EXIT_INPUT;
  }
  cover c;
  memset(&c, 0, sizeof c);
  uint32_t counted = 0, refused = 0;
  int status = VC_EXIT_OK;
  for (uint32_t i = 0; i < files.n; i++)
    status = vc_exit_worst(status, cover_file(&files.files[i], &c, &counted, &refused));
  printf("%-30s %8s %6s  %s\n", "decision", "programs", "themes", "first programs");
  uint32_t below = 0;
  for (uint32_t k = 0; k < VC_DEC_COUNT; k++) {
    printf("%-30s %8u %6u  ", vc_split_decision_name((vc_split_decision)k), c.n[k],
           themes_of(&c, (vc_split_decision)k));
    for (uint32_t i = 0; i < c.n[k] && i < SHOW_NAMES; i++)
      printf("%s%s", i ? " " : "", c.t[k][i].name);
    printf("%s\n", c.n[k] > SHOW_NAMES ? " ..." : c.n[k] ? "" : "-");
  }
  for (uint32_t k = 0; k < VC_DEC_COUNT; k++) {
    uint32_t th = themes_of(&c, (vc_split_decision)k);
    if (c.n[k] >= min_programs && th >= min_themes) continue;
    below++;
    printf("BELOW %s: %u %s in %u %s, the minimum is %u in %u: %s\n",
           vc_split_decision_name((vc_split_decision)k), c.n[k],
           vc_plural(c.n[k], "program", "programs"), th, vc_plural(th, "theme", "themes"),
           min_programs, min_themes, vc_split_decision_what((vc_split_decision)k));
  }
  printf("%u %s counted, %u expecting a refusal left out; %u of %u decisions below the minimum\n",
         counted, vc_plural(counted, "program", "programs"), refused, below, (unsigned)VC_DEC_COUNT);
  for (uint32_t k = 0; k < VC_DEC_COUNT; k++) {
    for (uint32_t i = 0; i < c.n[k]; i++) {
      free(c.t[k][i].name);
      free(c.t[k][i].theme);
    }
    free(c.t[k]);
  }
  vc_corpus_free(&files);
  return vc_exit_worst(status, below ? VC_EXIT_FAIL : VC_EXIT_OK);
}

int vc_cmd_split(int argc, char **argv) {
  if (vc_wants_help(argc, argv)) {
    fputs(help, stdout);
    return VC_EXIT_OK;
  }
  vc_opt opts[] = {VC_OPT("programs", false, false), VC_OPT("coverage", false, false),
                   VC_OPT("min-programs", true, false), VC_OPT("min-themes", true, false)};
  const uint32_t nopts = sizeof opts / sizeof opts[0];
  vc_args a;
  vc_error e;
  vc_error_clear(&e);
  if (vc_args_parse(argc, argv, opts, nopts, &a, &e)) {
    vc_args_free(opts, nopts, &a);
    return vc_usage_error("split", e.msg);
  }
  bool cov = vc_args_get(opts, nopts, "coverage") != NULL;
  uint32_t min_programs = 2, min_themes = 2;
  vc_opt *o;
  const char *bad = NULL;
  if ((o = vc_args_get(opts, nopts, "min-programs")) && vc_args_u32(o, 0, UINT32_MAX, &min_programs, &e))
    bad = e.msg;
  else if ((o = vc_args_get(opts, nopts, "min-themes")) && vc_args_u32(o, 0, UINT32_MAX, &min_themes, &e))
    bad = e.msg;
  else if (cov && vc_args_get(opts, nopts, "programs"))
    bad = "--programs prints one plan; it does not go with --coverage";
  else if (!cov && (vc_args_get(opts, nopts, "min-programs") || vc_args_get(opts, nopts, "min-themes")))
    bad = "--min-programs and --min-themes go with --coverage";
  else if (cov && !a.npos)
    bad = "split --coverage takes one PATH or more";
  else if (!cov && a.npos != 1)
    bad = "split takes exactly one FILE (or --coverage PATH...)";
  if (bad) {
    int rc = vc_usage_error("split", bad);
    vc_args_free(opts, nopts, &a);
    return rc;
  }
  if (cov) {
    int rc = coverage(a.pos, a.npos, min_programs, min_themes);
    vc_args_free(opts, nopts, &a);
    return rc;
  }
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = vc_parse_file(a.pos[0], &d);
  int status = VC_EXIT_OK;
  if (!p) {
    vc_diags_print(&d, stderr);
    status = VC_EXIT_INPUT;
  } else {
    vc_split *s = NULL;
    if (vc_split_program(p, &s, &e)) {
      fprintf(stderr, "vyre-conform: %s\n", e.msg);
      status = VC_EXIT_FAIL;
    } else {
      vc_strbuf out;
      vc_sb_init(&out);
      vc_split_describe(s, vc_args_get(opts, nopts, "programs") != NULL, &out);
      fputs(vc_sb_str(&out), stdout);
      vc_sb_free(&out);
    }
    vc_split_free(s);
  }
  vc_program_free(p);
  vc_diags_free(&d);
  vc_args_free(opts, nopts, &a);
  return status;
}
