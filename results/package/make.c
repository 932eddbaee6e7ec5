/* vc_package_make (package.h): the checkout's state first (a dirty tree is
 * refused before anything is written), then the database copy, which every
 * other file is made from, then the manifest and the sums, last the tarball. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness/base/file.h"
#include "harness/model/digest.h"
#include "results/gate/judged_by.h"
#include "results/gate/provenance.h"
#include "results/package/content.h"
#include "results/package/spawn.h"
#include "results/package/sums.h"
#include "results/report/report.h"
#include "results/store/snapshot.h"

enum { PATH_MAX_LEN = 4096, MAX_FILES = 256 };

typedef struct maker {
  const vc_package_opts *o;
  vc_arena arena;
  vc_pkg_content c;
  vc_strbuf status; /* git status --porcelain */
  const char *files[MAX_FILES];
  uint32_t nfiles;
  vc_error *err;
} maker;

static const char *in(maker *m, const char *rel) {
  size_t n = strlen(m->o->out) + strlen(rel) + 2;
  char *p = vc_arena_alloc(&m->arena, n);
  snprintf(p, n, "%s/%s", m->o->out, rel);
  return p;
}

static int note(maker *m, const char *rel) {
  if (m->nfiles == MAX_FILES)
    return vc_fail(m->err, VC_ERR_USAGE, "more than %d files for one package", MAX_FILES);
  m->files[m->nfiles++] = vc_arena_strdup(&m->arena, rel);
  return 0;
}

static int make_dir(maker *m, const char *rel) {
  const char *p = rel ? in(m, rel) : m->o->out;
  if (mkdir(p, 0755) != 0) return vc_fail(m->err, VC_ERR_IO, "cannot create %s: %s", p, strerror(errno));
  return 0;
}

static int copy(maker *m, const char *src, const char *rel) {
  vc_strbuf sb;
  vc_sb_init(&sb);
  int rc = vc_file_read(src, &sb, m->err);
  if (!rc) rc = vc_file_write(in(m, rel), &sb, m->err);
  vc_sb_free(&sb);
  return rc ? rc : note(m, rel);
}

static int write_text(maker *m, const char *rel, const vc_strbuf *sb) {
  int rc = vc_file_write(in(m, rel), sb, m->err);
  return rc ? rc : note(m, rel);
}

static const char *base_name(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

/* ---- the checkout ---- */

static int tree_state(maker *m) {
  const char *src = m->o->source;
  const char *st[] = {"git", "-C", src, "status", "--porcelain", NULL};
  int rc = vc_spawn(st, NULL, &m->status, m->err);
  if (rc) {
    char said[sizeof m->err->msg];
    snprintf(said, sizeof said, "%s", m->err->msg);
    return vc_fail(m->err, VC_ERR_IO, "--source %s: not a git checkout? %s", src, said);
  }
  m->c.clean = m->status.len == 0;
  m->c.status_text = vc_sb_str(&m->status);
  if (!m->c.clean && !m->o->allow_dirty) {
    char list[3000];
    snprintf(list, sizeof list, "%s", vc_sb_str(&m->status));
    for (char *p = list; *p; p++)
      if (*p == '\n') *p = p[1] ? ';' : '\0';
    return vc_fail(m->err, VC_ERR_USAGE,
                   "the checkout %s has uncommitted changes, no evidence for submission: %s "
                   "(commit them, or --allow-dirty for a package marked NOT FOR SUBMISSION)",
                   src, list);
  }
  vc_strbuf head;
  vc_sb_init(&head);
  const char *rev[] = {"git", "-C", src, "rev-parse", "HEAD", NULL};
  rc = vc_spawn(rev, NULL, &head, m->err);
  snprintf(m->c.commit, sizeof m->c.commit, "%.*s", (int)strcspn(vc_sb_str(&head), "\n"),
           vc_sb_str(&head));
  vc_sb_free(&head);
  return rc;
}

static int tree_files(maker *m) {
  const char *src = m->o->source;
  int rc = make_dir(m, "tree");
  if (!rc) rc = write_text(m, "tree/git-status.txt", &m->status);
  const char *log[] = {"git", "-C", src, "log", "-1", "--format=fuller", NULL};
  if (!rc) rc = vc_spawn(log, in(m, "tree/git-log.txt"), NULL, m->err);
  if (!rc) rc = note(m, "tree/git-log.txt");
  const char *diff[] = {"git", "-C", src, "diff", "HEAD", "--binary", NULL};
  if (!rc && !m->c.clean) rc = vc_spawn(diff, in(m, "tree/diff.patch"), NULL, m->err);
  if (!rc && !m->c.clean) rc = note(m, "tree/diff.patch");
  return rc;
}

/* ---- the runs ---- */

static int load_runs(maker *m) {
  vc_db_run_list l;
  int rc = vc_db_list_runs(in(m, "results.db"), &l, m->err);
  if (rc) return rc;
  if (!l.n) rc = vc_fail(m->err, VC_ERR_DB, "results database %s holds no runs", m->o->db);
  m->c.runs = vc_arena_alloc(&m->arena, (l.n ? l.n : 1) * sizeof *m->c.runs);
  for (uint32_t i = 0; !rc && i < l.n; i++) {
    rc = vc_run_load(in(m, "results.db"), l.ids[i], &m->c.runs[i], m->err);
    if (!rc) m->c.nruns++;
  }
  vc_db_run_list_free(&l);
  return rc;
}

/* Each run's expectations file, copied once however many runs used it. */
static int expectations(maker *m) {
  m->c.exps = vc_arena_alloc(&m->arena, (m->c.nruns ? m->c.nruns : 1) * sizeof *m->c.exps);
  int rc = make_dir(m, "expectations");
  for (uint32_t i = 0; !rc && i < m->c.nruns; i++) {
    const vc_run_data *r = m->c.runs[i];
    vc_pkg_exps *e = &m->c.exps[i];
    if (!vc_run_option(r, "expectations", e->recorded, sizeof e->recorded) ||
        strcmp(e->recorded, "none") == 0) {
      e->recorded[0] = '\0';
      continue;
    }
    if (vc_digest_file(e->recorded, e->sha256) != 0)
      return vc_fail(m->err, VC_ERR_IO,
                     "run %lld was judged by %s, which cannot be read here: a package holds the "
                     "expectations of every run",
                     (long long)r->id, e->recorded);
    const char *then = r->info.expectations_sha256;
    if (then && then[0] && strcmp(then, e->sha256) != 0)
      return vc_fail(m->err, VC_ERR_IO,
                     "run %lld was judged by %s with sha256 %s; the file is %s now: it changed "
                     "since the run",
                     (long long)r->id, e->recorded, then, e->sha256);
    uint32_t j = 0;
    while (j < i && strcmp(m->c.exps[j].recorded, e->recorded) != 0) j++;
    if (j < i) {
      snprintf(e->file, sizeof e->file, "%s", m->c.exps[j].file);
      continue;
    }
    snprintf(e->file, sizeof e->file, "expectations/%s", base_name(e->recorded));
    for (uint32_t k = 0; k < i; k++)
      if (!strcmp(m->c.exps[k].file, e->file)) /* another file of that name */
        snprintf(e->file, sizeof e->file, "expectations/run-%lld-%s", (long long)r->id,
                 base_name(e->recorded));
    rc = copy(m, e->recorded, e->file);
  }
  return rc;
}

static void warn_runs(maker *m, FILE *warn) {
  for (uint32_t i = 0; i < m->c.nruns; i++) {
    const vc_run_data *r = m->c.runs[i];
    char planted[VC_PLANTED_TEXT];
    vc_run_planted(r, planted, sizeof planted);
    if (strcmp(r->status, "complete") != 0)
      fprintf(warn, "vyre-conform package: warning: run %lld is %s: the package will not verify\n",
              (long long)r->id, r->status);
    if (planted[0])
      fprintf(warn, "vyre-conform package: warning: run %lld had planted faults (%s): the package "
                    "will not verify\n",
              (long long)r->id, planted);
  }
}

/* ---- the records ---- */

static int records(maker *m) {
  vc_report_opts ro = {0};
  ro.not_for_submission = !m->c.clean;
  vc_qual q;
  int rc = make_dir(m, "records");
  if (!rc) rc = vc_qual_build((const vc_run_data *const *)m->c.runs, m->c.nruns, &ro, &q, m->err);
  if (rc) return rc;
  static const struct {
    const char *name;
    int (*fn)(const vc_qual *, vc_strbuf *, vc_error *);
  } outs[] = {{"records/qualification.md", vc_report_markdown},
              {"records/qualification.html", vc_report_html},
              {"records/qualification.xml", vc_report_junit}};
  for (size_t i = 0; !rc && i < sizeof outs / sizeof outs[0]; i++) {
    vc_strbuf sb;
    vc_sb_init(&sb);
    rc = outs[i].fn(&q, &sb, m->err);
    if (!rc) rc = write_text(m, outs[i].name, &sb);
    vc_sb_free(&sb);
  }
  vc_qual_free(&q);
  return rc;
}

static int logs(maker *m) {
  int rc = make_dir(m, "logs");
  for (uint32_t i = 0; !rc && i < m->o->nlogs; i++) {
    char rel[PATH_MAX_LEN];
    snprintf(rel, sizeof rel, "logs/%s", base_name(m->o->logs[i]));
    for (uint32_t k = 0; k < m->nfiles; k++)
      if (!strcmp(m->files[k], rel))
        return vc_fail(m->err, VC_ERR_USAGE, "--log %s: a log of that name is in the package already",
                       m->o->logs[i]);
    rc = copy(m, m->o->logs[i], rel);
  }
  return rc;
}

static int describe(maker *m) {
  vc_pkg_corpus(m->c.runs, m->c.nruns, &m->arena, &m->c.corpus, &m->c.ncorpus);
  m->c.files = m->files;
  m->c.nfiles = m->nfiles;
  vc_strbuf sb;
  vc_sb_init(&sb);
  vc_pkg_statement(&m->c, &sb);
  int rc = write_text(m, "statement.txt", &sb);
  vc_sb_free(&sb);
  m->c.nfiles = m->nfiles;
  vc_sb_init(&sb);
  vc_pkg_manifest(&m->c, &sb);
  if (!rc) rc = write_text(m, "manifest.json", &sb);
  vc_sb_free(&sb);
  return rc;
}

static int tarball(maker *m) {
  const char *out = m->o->out;
  char parent[PATH_MAX_LEN], tgz[PATH_MAX_LEN];
  snprintf(parent, sizeof parent, "%s", out);
  char *slash = strrchr(parent, '/');
  if (slash == parent) slash[1] = '\0';
  else if (slash) *slash = '\0';
  else snprintf(parent, sizeof parent, ".");
  snprintf(tgz, sizeof tgz, "%s.tar.gz", out);
  const char *argv[] = {"tar", "-czf", tgz, "-C", parent, base_name(out), NULL};
  return vc_spawn(argv, NULL, NULL, m->err);
}

static int exists(const char *p) {
  struct stat st;
  return lstat(p, &st) == 0;
}

static void remove_tree(const char *p) {
  const char *argv[] = {"rm", "-rf", "--", p, NULL};
  vc_error ignored = {0};
  vc_spawn(argv, NULL, NULL, &ignored);
}

int vc_package_make(const vc_package_opts *o, FILE *warn, vc_error *err) {
  maker m = {.o = o, .err = err};
  char tgz[PATH_MAX_LEN];
  snprintf(tgz, sizeof tgz, "%s.tar.gz", o->out);
  size_t len = strlen(o->out);
  while (len > 1 && o->out[len - 1] == '/') len--;
  if (len != strlen(o->out) || !strcmp(base_name(o->out), ".") || !strcmp(base_name(o->out), ".."))
    return vc_fail(err, VC_ERR_USAGE, "-o %s: name the package's folder, without a trailing /", o->out);
  if (exists(o->out) || exists(tgz))
    return vc_fail(err, VC_ERR_USAGE, "-o %s: %s is there already; a package is written afresh",
                   o->out, exists(o->out) ? o->out : tgz);
  vc_arena_init(&m.arena);
  vc_sb_init(&m.status);
  m.c.o = o;
  int rc = tree_state(&m);
  bool made = false;
  if (!rc) rc = make_dir(&m, NULL), made = rc == 0;
  if (!rc) rc = vc_db_snapshot(o->db, in(&m, "results.db"), err);
  if (!rc) rc = note(&m, "results.db");
  if (!rc) rc = load_runs(&m);
  if (!rc) rc = expectations(&m);
  if (!rc) rc = tree_files(&m);
  if (!rc) rc = records(&m);
  if (!rc) rc = logs(&m);
  if (!rc && o->backends) rc = copy(&m, o->backends, "backends.txt");
  if (!rc) rc = describe(&m);
  if (!rc) rc = vc_sums_write(o->out, err);
  if (!rc) rc = tarball(&m);
  if (!rc) warn_runs(&m, warn);
  if (rc && made) {
    remove_tree(o->out);
    remove(tgz);
  }
  for (uint32_t i = 0; i < m.c.nruns; i++) vc_run_free(m.c.runs[i]);
  vc_sb_free(&m.status);
  vc_arena_free(&m.arena);
  return rc;
}
