/* vc_package_verify (package.h): the sums first, then the manifest against
 * the database it describes, run by run and program by program, then the
 * checkout's state. Every finding is one line naming the file, run, program
 * or mode; the manifest is never trusted where the database can say. */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness/base/file.h"
#include "harness/model/digest.h"
#include "results/gate/judged_by.h"
#include "results/gate/provenance.h"
#include "results/package/content.h"
#include "results/package/json.h"
#include "results/package/reasons.h"
#include "results/package/spawn.h"
#include "results/package/sums.h"
#include "results/report/qual.h"
#include "results/store/snapshot.h"

enum { PATH_LEN = 4096 };

typedef struct verifier {
  const char *dir;
  FILE *out;
  vc_verify_counts *c;
  vc_arena arena;
  const vc_json *man;
  const vc_json *corpus; /* its "corpus" array */
  uint32_t warm_runs, cold_runs;
} verifier;

static void say(verifier *v, bool invalid, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(verifier *v, bool invalid, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs(invalid ? "invalid: " : "warning: ", v->out);
  vfprintf(v->out, fmt, ap);
  fputc('\n', v->out);
  va_end(ap);
  if (invalid) v->c->problems++;
  else v->c->warnings++;
}

static const char *in(verifier *v, const char *rel) {
  size_t n = strlen(v->dir) + strlen(rel) + 2;
  char *p = vc_arena_alloc(&v->arena, n);
  snprintf(p, n, "%s/%s", v->dir, rel);
  return p;
}

static bool present(verifier *v, const char *rel) {
  struct stat st;
  return stat(in(v, rel), &st) == 0 && S_ISREG(st.st_mode);
}

static void sums_finding(void *ctx, const char *path, const char *what, int invalid) {
  say(ctx, invalid != 0, "%s: %s", path, what);
}

static int read_manifest(verifier *v) {
  vc_strbuf sb;
  vc_sb_init(&sb);
  vc_error err = {0};
  vc_json *j = NULL;
  int rc = vc_file_read(in(v, "manifest.json"), &sb, &err);
  if (!rc) rc = vc_json_parse(vc_sb_str(&sb), sb.len, "manifest.json", &v->arena, &j, &err);
  vc_sb_free(&sb);
  if (rc) {
    say(v, true, "manifest.json: %s", err.msg);
    return rc;
  }
  if (j->kind != VC_JSON_OBJECT || strcmp(vc_json_str(j, "format"), "vyre-conform package") != 0) {
    say(v, true, "manifest.json: not a vyre-conform package manifest");
    return 1;
  }
  if (vc_json_int(j, "format_version", 0) != VC_PACKAGE_FORMAT_VERSION) {
    say(v, true, "manifest.json: format_version %lld, this verifier reads %d",
        (long long)vc_json_int(j, "format_version", 0), VC_PACKAGE_FORMAT_VERSION);
    return 1;
  }
  v->man = j;
  v->corpus = vc_json_get(j, "corpus");
  if (!v->corpus || v->corpus->kind != VC_JSON_ARRAY) {
    say(v, true, "manifest.json: no \"corpus\" list");
    return 1;
  }
  return 0;
}

/* ---- a run: the manifest's entry against the database ---- */

static void join_array(const vc_json *a, char sep, vc_strbuf *sb) {
  for (uint32_t i = 0; a && a->kind == VC_JSON_ARRAY && i < a->n; i++) {
    if (i) vc_sb_putc(sb, sep);
    if (a->items[i]->kind == VC_JSON_STRING) vc_sb_puts(sb, a->items[i]->str);
  }
}

static void reset(vc_strbuf *sb) {
  sb->len = 0;
  if (sb->data) sb->data[0] = '\0';
}

static void env_text(const vc_json *o, vc_strbuf *sb) {
  for (uint32_t i = 0; o && o->kind == VC_JSON_OBJECT && i < o->n; i++)
    vc_sb_printf(sb, "%s=%s\n", o->keys[i], o->items[i]->kind == VC_JSON_STRING ? o->items[i]->str : "");
}

static void same(verifier *v, int64_t id, const char *field, const char *manifest, const char *db) {
  if (strcmp(manifest, db ? db : "") != 0)
    say(v, true, "manifest.json: run %lld: %s is \"%s\", results.db says \"%s\"", (long long)id, field,
        manifest, db ? db : "");
}

static void same_num(verifier *v, int64_t id, const char *field, int64_t manifest, int64_t db) {
  if (manifest != db)
    say(v, true, "manifest.json: run %lld: %s is %lld, results.db says %lld", (long long)id, field,
        (long long)manifest, (long long)db);
}

static void check_fields(verifier *v, const vc_json *m, const vc_run_data *r) {
  const vc_run_info *x = &r->info;
  const struct {
    const char *key, *db;
  } fields[] = {
      {"backend", x->backend},
      {"device", r->has_device ? r->device.device_name : ""},
      {"driver", r->has_device ? r->device.driver_version : ""},
      {"driver_name", r->has_device ? r->device.driver_name : ""},
      {"api_version", r->has_device ? r->device.api_version : ""},
      {"status", r->status},
      {"options", x->options},
      {"command_line", x->command_line},
      {"harness_version", x->harness_version},
      {"harness_commit", x->harness_commit},
      {"build_id", x->build_id},
      {"plugin_id", x->plugin_id},
      {"selection_digest", x->selection_digest},
      {"corpus_digest", x->corpus_digest},
  };
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
    same(v, r->id, fields[i].key, vc_json_str(m, fields[i].key), fields[i].db);
  same_num(v, r->id, "selection_programs", vc_json_int(m, "selection_programs", -1), x->selection_programs);
  same_num(v, r->id, "started_ns", vc_json_int(m, "started_ns", -1), x->started_ns);
  same_num(v, r->id, "ended_ns", vc_json_int(m, "ended_ns", -1), r->ended_ns);
  vc_strbuf sb;
  vc_sb_init(&sb);
  join_array(vc_json_get(m, "modes"), ',', &sb);
  same(v, r->id, "modes", vc_sb_str(&sb), x->modes);
  reset(&sb);
  join_array(vc_json_get(m, "hosts"), ',', &sb);
  same(v, r->id, "hosts", vc_sb_str(&sb), x->host);
  reset(&sb);
  env_text(vc_json_get(m, "environment"), &sb);
  same(v, r->id, "environment", vc_sb_str(&sb), x->environment);
  vc_sb_free(&sb);
  uint32_t results, warm;
  vc_pkg_cache_counts(r, &results, &warm);
  same(v, r->id, "kernel_cache.state", vc_json_str(vc_json_get(m, "kernel_cache"), "state"),
       warm ? "warm" : "cold");
  warm ? v->warm_runs++ : v->cold_runs++;
}

static void check_provenance(verifier *v, const vc_run_data *r) {
  char planted[VC_PLANTED_TEXT];
  vc_run_planted(r, planted, sizeof planted);
  if (strcmp(r->status, "complete") != 0)
    say(v, true, "results.db: run %lld (%s): status %s, not complete", (long long)r->id,
        r->info.backend, r->status);
  if (planted[0])
    say(v, true, "results.db: run %lld (%s): planted faults (%s): it qualifies nothing",
        (long long)r->id, r->info.backend, planted);
  if (r->info.shard && r->info.shard[0])
    say(v, true, "results.db: run %lld (%s): shard %s, not a whole run (merge the shards first)",
        (long long)r->id, r->info.backend, r->info.shard);
}

/* The run's selection is the corpus of the manifest: same digest, same count. */
static void check_selection(verifier *v, const vc_run_data *r) {
  const vc_json *cp = v->corpus;
  vc_named_digest *items = vc_arena_alloc(&v->arena, (cp->n ? cp->n : 1) * sizeof *items);
  for (uint32_t i = 0; i < cp->n; i++)
    items[i] = (vc_named_digest){vc_json_str(cp->items[i], "name"), vc_json_str(cp->items[i], "sha256")};
  char hex[65];
  vc_selection_digest(items, cp->n, hex);
  if (strcmp(hex, r->info.selection_digest ? r->info.selection_digest : "") != 0 ||
      r->info.selection_programs != cp->n)
    say(v, true,
        "manifest.json: corpus: %u programs of digest %s; run %lld (%s) selected %u programs of "
        "digest %s",
        cp->n, hex, (long long)r->id, r->info.backend, r->info.selection_programs,
        r->info.selection_digest ? r->info.selection_digest : "");
}

static const vc_prog_data *find_prog(const vc_run_data *r, const char *name) {
  for (uint32_t i = 0; i < r->nprogs; i++)
    if (strcmp(r->progs[i].info.name, name) == 0) return &r->progs[i];
  return NULL;
}

static bool in_corpus(verifier *v, const char *name) {
  for (uint32_t i = 0; i < v->corpus->n; i++)
    if (strcmp(vc_json_str(v->corpus->items[i], "name"), name) == 0) return true;
  return false;
}

static bool listed_mode(const char *modes, const char *mode) {
  size_t n = strlen(mode);
  for (const char *p = modes; p && *p;) {
    size_t k = strcspn(p, ",");
    if (k == n && strncmp(p, mode, n) == 0) return true;
    p += k + (p[k] == ',');
  }
  return false;
}

/* Every mode the run was asked for, every repeat, exactly once. */
static void check_program(verifier *v, const vc_run_data *r, const vc_prog_data *p, uint32_t repeats) {
  const char *be = r->info.backend, *name = p->info.name;
  long long id = (long long)r->id;
  for (uint32_t k = 0; k < p->nresults; k++) {
    const vc_result *x = &p->results[k];
    if (!listed_mode(r->info.modes, x->mode))
      say(v, true, "results.db: run %lld (%s): program %s: a result in mode %s, which the run was "
                   "not asked for", id, be, name, x->mode);
    if (x->status == VC_ST_UNSUPPORTED && !vc_unsupported_class(x->reason))
      say(v, true, "results.db: run %lld (%s): program %s: mode %s: unsupported without a reason "
                   "of a known class (device limit, missing feature, harness limit): \"%s\"",
          id, be, name, x->mode, x->reason);
  }
  for (const char *m = r->info.modes; m && *m;) {
    size_t len = strcspn(m, ",");
    char mode[64];
    snprintf(mode, sizeof mode, "%.*s", (int)len, m);
    m += len + (m[len] == ',');
    for (uint32_t rep = 0; rep < repeats; rep++) {
      uint32_t n = 0;
      for (uint32_t k = 0; k < p->nresults; k++)
        n += !strcmp(p->results[k].mode, mode) && p->results[k].repeat == rep;
      if (n != 1)
        say(v, true, "results.db: run %lld (%s): program %s: mode %s: repeat %u has %u results, "
                     "not 1%s", id, be, name, mode, rep, n, n ? " (duplicated)" : " (missing)");
    }
    for (uint32_t k = 0; k < p->nresults; k++)
      if (!strcmp(p->results[k].mode, mode) && p->results[k].repeat >= repeats)
        say(v, true, "results.db: run %lld (%s): program %s: mode %s: a result of repeat %u, "
                     "beyond the run's %u repeat%s (duplicated)", id, be, name, mode,
            p->results[k].repeat, repeats, repeats == 1 ? "" : "s");
  }
}

static void check_results(verifier *v, const vc_run_data *r) {
  char rep[32] = "1";
  vc_run_option(r, "repeat", rep, sizeof rep);
  uint32_t repeats = (uint32_t)strtoul(rep, NULL, 10);
  if (!repeats) repeats = 1;
  for (uint32_t i = 0; i < v->corpus->n; i++) {
    const vc_json *e = v->corpus->items[i];
    const char *name = vc_json_str(e, "name");
    const vc_prog_data *p = find_prog(r, name);
    if (!p) {
      say(v, true, "results.db: run %lld (%s): program %s of the corpus manifest has no result",
          (long long)r->id, r->info.backend, name);
      continue;
    }
    if (strcmp(p->info.source_digest, vc_json_str(e, "sha256")) != 0)
      say(v, true, "manifest.json: corpus: program %s: sha256 %s, run %lld ran source %s", name,
          vc_json_str(e, "sha256"), (long long)r->id, p->info.source_digest);
    check_program(v, r, p, repeats);
  }
  for (uint32_t i = 0; i < r->nprogs; i++)
    if (!in_corpus(v, r->progs[i].info.name))
      say(v, true, "results.db: run %lld (%s): program %s is not in the corpus manifest",
          (long long)r->id, r->info.backend, r->progs[i].info.name);
}

/* The expectations file: packaged, its hash the manifest's and the run's.
   Returns the packaged file's path, "none", or NULL when it cannot judge. */
static const char *check_exps(verifier *v, const vc_json *m, const vc_run_data *r) {
  char recorded[1024];
  long long id = (long long)r->id;
  bool has = vc_run_option(r, "expectations", recorded, sizeof recorded) && strcmp(recorded, "none");
  const vc_json *e = vc_json_get(m, "expectations");
  if (!has) {
    if (e && e->kind != VC_JSON_NULL)
      say(v, true, "manifest.json: run %lld: names an expectations file, the run recorded none", id);
    return "none";
  }
  const char *file = vc_json_str(e, "file"), *sha = vc_json_str(e, "sha256");
  if (!file[0] || strncmp(file, "expectations/", 13) != 0 || strstr(file, "..")) {
    say(v, true, "manifest.json: run %lld: judged by %s, which the package does not hold", id, recorded);
    return NULL;
  }
  same(v, r->id, "expectations.recorded", vc_json_str(e, "recorded"), recorded);
  char hex[65];
  if (!present(v, file) || vc_digest_file(in(v, file), hex) != 0) {
    say(v, true, "%s: missing: run %lld was judged by it", file, id);
    return NULL;
  }
  bool ok = true;
  if (strcmp(hex, sha) != 0) {
    say(v, true, "%s: sha256 %s, manifest.json says %s (run %lld)", file, hex, sha, id);
    ok = false;
  }
  const char *then = r->info.expectations_sha256 ? r->info.expectations_sha256 : "";
  if (!then[0])
    say(v, false, "results.db: run %lld recorded no digest of its expectations file (an older "
                  "harness): %s is taken as it is", id, file);
  else if (strcmp(then, hex) != 0) {
    say(v, true, "%s: sha256 %s, but run %lld was judged by a file of sha256 %s (swapped)", file,
        hex, id, then);
    ok = false;
  }
  return ok ? in(v, file) : NULL;
}

/* Judged by the packaged file: an excused failure needs a file that holds up. */
static void check_verdict(verifier *v, const vc_run_data *r, const char *exps) {
  vc_report_opts ro = {0};
  ro.expectations = exps ? exps : "none";
  vc_qual q;
  vc_error err = {0};
  if (vc_qual_build(&r, 1, &ro, &q, &err)) {
    say(v, true, "run %lld: cannot be judged: %s", (long long)r->id, err.msg);
    return;
  }
  const vc_qrun *qr = &q.runs[0];
  if (!exps && qr->nnew)
    say(v, true, "results.db: run %lld (%s): %u failing cells excused by no expectations file that "
                 "holds up", (long long)r->id, r->info.backend, qr->nnew);
  else if (qr->nnew)
    say(v, false, "results.db: run %lld (%s): %u new failures: verdict %s", (long long)r->id,
        r->info.backend, qr->nnew, vc_verdict_word(qr->verdict));
  vc_qual_free(&q);
}

static void check_run(verifier *v, const vc_json *m, const char *db) {
  int64_t id = vc_json_int(m, "id", -1);
  vc_run_data *r = NULL;
  vc_error err = {0};
  if (vc_run_load(db, id, &r, &err)) {
    say(v, true, "results.db: run %lld: %s", (long long)id, err.msg);
    return;
  }
  check_fields(v, m, r);
  check_provenance(v, r);
  check_selection(v, r);
  check_results(v, r);
  check_verdict(v, r, check_exps(v, m, r));
  vc_run_free(r);
}

static void check_runs(verifier *v) {
  const char *db = in(v, "results.db");
  const vc_json *runs = vc_json_get(v->man, "runs");
  if (!runs || runs->kind != VC_JSON_ARRAY || !runs->n) {
    say(v, true, "manifest.json: no runs");
    return;
  }
  vc_db_run_list l;
  vc_error err = {0};
  if (!present(v, "results.db") || vc_db_list_runs(db, &l, &err)) {
    say(v, true, "results.db: %s", err.msg[0] ? err.msg : "missing");
    return;
  }
  for (uint32_t i = 0; i < l.n; i++) {
    uint32_t k = 0;
    while (k < runs->n && vc_json_int(runs->items[k], "id", -1) != l.ids[i]) k++;
    if (k == runs->n)
      say(v, true, "results.db: run %lld (%s) is not in manifest.json", (long long)l.ids[i], l.status[i]);
  }
  for (uint32_t k = 0; k < runs->n; k++) {
    int64_t id = vc_json_int(runs->items[k], "id", -1);
    uint32_t i = 0;
    while (i < l.n && l.ids[i] != id) i++;
    if (i == l.n)
      say(v, true, "manifest.json: run %lld is not in results.db", (long long)id);
    else
      check_run(v, runs->items[k], db);
  }
  vc_db_run_list_free(&l);
  if (v->warm_runs && v->cold_runs)
    say(v, false, "manifest.json: %u runs with a cold kernel cache, %u with a warm one",
        v->cold_runs, v->warm_runs);
}

/* ---- the checkout ---- */

static bool file_says(verifier *v, const char *rel, const char *what, bool first_line) {
  char *text = vc_file_read_all(in(v, rel));
  if (!text) return false;
  if (first_line) text[strcspn(text, "\n")] = '\0';
  bool yes = strstr(text, what) != NULL;
  free(text);
  return yes;
}

static void check_tree(verifier *v) {
  const vc_json *t = vc_json_get(v->man, "tree");
  const vc_json *clean = vc_json_get(t, "clean"), *fs = vc_json_get(v->man, "for_submission");
  bool is_clean = clean && clean->kind == VC_JSON_BOOL && clean->b;
  bool submit = fs && fs->kind == VC_JSON_BOOL && fs->b;
  if (!present(v, "tree/git-status.txt") || !present(v, "tree/git-log.txt")) {
    say(v, true, "tree/: git-status.txt or git-log.txt missing");
    return;
  }
  struct stat st;
  stat(in(v, "tree/git-status.txt"), &st);
  if ((st.st_size == 0) != is_clean)
    say(v, true, "tree/git-status.txt: %s, manifest.json says the tree was %s",
        st.st_size ? "lists changes" : "is empty", is_clean ? "clean" : "dirty");
  if (!is_clean && !present(v, "tree/diff.patch"))
    say(v, true, "tree/diff.patch: missing for a dirty tree");
  if (!file_says(v, "tree/git-log.txt", "commit ", true))
    say(v, true, "tree/git-log.txt: no commit");
  if (is_clean && submit) return;
  if (submit) {
    say(v, true, "manifest.json: for_submission is true for a tree with uncommitted changes");
    return;
  }
  static const char *const marked[] = {"statement.txt", "records/qualification.md",
                                       "records/qualification.html", "records/qualification.xml"};
  for (size_t i = 0; i < sizeof marked / sizeof marked[0]; i++)
    if (!file_says(v, marked[i], "NOT FOR SUBMISSION", false))
      say(v, true, "%s: does not say NOT FOR SUBMISSION, which the package is", marked[i]);
  say(v, false, "manifest.json: NOT FOR SUBMISSION: made from a checkout with uncommitted "
                "changes (--allow-dirty)");
}

static void check_dir(verifier *v) {
  int bad = vc_sums_check(v->dir, sums_finding, v);
  if (bad < 0) say(v, true, VC_SUMS_FILE ": missing or unreadable");
  static const char *const required[] = {"results.db", "manifest.json", "statement.txt"};
  for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
    if (!present(v, required[i])) say(v, true, "%s: missing", required[i]);
  if (!present(v, "manifest.json") || read_manifest(v)) return;
  const vc_json *files = vc_json_get(v->man, "files");
  for (uint32_t i = 0; files && files->kind == VC_JSON_ARRAY && i < files->n; i++)
    if (files->items[i]->kind == VC_JSON_STRING && !present(v, files->items[i]->str))
      say(v, true, "%s: named by manifest.json, missing", files->items[i]->str);
  check_runs(v);
  check_tree(v);
}

/* A .tar.gz is unpacked into a temporary folder; it must hold one folder. */
static int unpack(const char *path, char *tmp, size_t n, char *dir, size_t dn, vc_error *err) {
  vc_temp_template(tmp, n, "vc-verify");
  if (!mkdtemp(tmp)) return vc_fail(err, VC_ERR_IO, "%s: %s", tmp, strerror(errno));
  const char *argv[] = {"tar", "-xzf", path, "-C", tmp, "--no-same-owner", NULL};
  int rc = vc_spawn(argv, NULL, NULL, err);
  if (rc) return rc;
  DIR *d = opendir(tmp);
  struct dirent *e;
  int count = 0;
  while (d && (e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
      count++;
      snprintf(dir, dn, "%s/%s", tmp, e->d_name);
    }
  if (d) closedir(d);
  if (count != 1) return vc_fail(err, VC_ERR_IO, "%s: holds %d entries at its top, not one folder", path, count);
  return 0;
}

int vc_package_verify(const char *path, FILE *out, vc_verify_counts *c, vc_error *err) {
  memset(c, 0, sizeof *c);
  struct stat st;
  if (stat(path, &st) != 0) return vc_fail(err, VC_ERR_IO, "%s: %s", path, strerror(errno));
  char tmp[PATH_LEN] = "", dir[PATH_LEN];
  int rc = 0;
  if (S_ISDIR(st.st_mode))
    snprintf(dir, sizeof dir, "%s", path);
  else
    rc = unpack(path, tmp, sizeof tmp, dir, sizeof dir, err);
  if (!rc) {
    verifier v = {.dir = dir, .out = out, .c = c};
    vc_arena_init(&v.arena);
    check_dir(&v);
    vc_arena_free(&v.arena);
  }
  if (tmp[0]) {
    const char *argv[] = {"rm", "-rf", "--", tmp, NULL};
    vc_error ignored = {0};
    vc_spawn(argv, NULL, NULL, &ignored);
  }
  return rc;
}
