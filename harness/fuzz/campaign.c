/* A fuzz campaign (campaign.h): drawing programs, running them in batches,
 * filing what fails. */
#include "harness/fuzz/campaign.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness/base/clock.h"
#include "harness/base/exitcodes.h"
#include "harness/base/file.h"
#include "harness/base/plural.h"
#include "harness/base/strbuf.h"
#include "harness/fuzz/findings.h"
#include "harness/gen/prng.h"
#include "harness/lang/corpus.h"
#include "harness/lang/read.h"
#include "harness/reduce/edit.h"
#include "harness/run/runopts.h"
#include "results/store/load.h"

typedef struct campaign {
  const vc_fuzz_opts *o;
  vc_corpus from;
  uint32_t *usable; /* indices of from's files that can be drawn */
  uint32_t nusable;
  vc_fz_findings found;
  uint64_t run_ns;
  uint32_t programs;
} campaign;

/* The generator's splitmix64 step as a hash of x. */
static uint64_t mix(uint64_t x) {
  return vc_splitmix64(&x);
}

/* path and its parents (like mkdir -p). */
static int make_dir(const char *path, vc_error *e) {
  char p[4096];
  snprintf(p, sizeof p, "%s", path);
  for (char *s = p + 1; *s; s++)
    if (*s == '/') {
      *s = '\0';
      if (mkdir(p, 0777) != 0 && errno != EEXIST)
        return vc_fail(e, VC_ERR_IO, "cannot make %s: %s", p, strerror(errno));
      *s = '/';
    }
  if (mkdir(p, 0777) == 0 || errno == EEXIST) return 0;
  return vc_fail(e, VC_ERR_IO, "cannot make %s: %s", path, strerror(errno));
}

/* The programs that can be drawn: those that parse, are not meant to be
   refused and are not tagged large. */
static int collect(campaign *z, const char *const *paths, uint32_t n, vc_error *e) {
  if (vc_corpus_collect(&z->from, paths, n, e)) return VC_ERR_IO;
  vc_corpus_parse(&z->from);
  z->usable = calloc(z->from.n ? z->from.n : 1, sizeof *z->usable);
  if (!z->usable) abort();
  for (uint32_t i = 0; i < z->from.n; i++) {
    const vc_program *p = z->from.files[i].program;
    if (p && !vc_program_expect(p, VC_EXPECT_REJECT) && !vc_program_has_tag(p, "large"))
      z->usable[z->nusable++] = i;
  }
  if (!z->nusable) return vc_fail(e, VC_ERR_USAGE, "--from offers no program to run");
  return 0;
}

/* Program `index` of the seed: generated (a build with harness/gen and no
   --from), or drawn from --from's programs. */
static int program_text(campaign *z, uint64_t index, vc_strbuf *text, vc_error *e) {
#ifdef VC_HAVE_GEN
  if (!z->nusable) return vc_gen_program(&z->o->gen, z->o->seed, (uint32_t)index, text, e);
#endif
  const vc_corpus_file *src =
      &z->from.files[z->usable[mix(z->o->seed ^ mix(index)) % z->nusable]];
  return vc_file_read(src->path, text, e);
}

/* The program renamed (programs of a run have names of their own) into path. */
static int write_renamed(const char *text, size_t len, const char *name, const char *path,
                         vc_error *e) {
  vc_arena a;
  vc_arena_init(&a);
  vc_diags d;
  vc_diags_init(&d);
  vc_sx_file f;
  vc_read(&a, path, text, len, &d, &f);
  int rc = 0;
  if (!f.well_formed || f.n != 1 || f.forms[0]->n < 2) {
    rc = vc_fail(e, VC_ERR_PARSE, "%s: not one (program NAME ...) form", path);
  } else {
    vc_edit ed;
    memset(&ed, 0, sizeof ed);
    ed.kind = VC_EDIT_TEXT;
    ed.at = f.forms[0]->items[1];
    snprintf(ed.text, sizeof ed.text, "%s", name);
    vc_strbuf out;
    vc_sb_init(&out);
    vc_edit_print(f.forms[0], &ed, NULL, &out);
    rc = vc_file_write(path, &out, e);
    vc_sb_free(&out);
  }
  vc_diags_free(&d);
  vc_arena_free(&a);
  return rc;
}

/* Writes program `index` into dir as fz-S-I.vyre, and with transformations
   (a build with harness/gen) its transformed twin fz-S-I-t.vyre, which must
   give the same bytes. Returns the number of files written, or -1. */
static int write_programs(campaign *z, uint64_t index, const char *dir, vc_error *e) {
  vc_strbuf text;
  vc_sb_init(&text);
  char path[4200], name[32];
  int n = -1;
  unsigned long long s = (unsigned long long)z->o->seed, i = (unsigned long long)index;
  if (program_text(z, index, &text, e)) goto done;
  snprintf(path, sizeof path, "%s/fz-%llu-%llu.vyre", dir, s, i);
  snprintf(name, sizeof name, "fz_%llu_%llu", s, i);
  if (write_renamed(text.data, text.len, name, path, e)) goto done;
  n = 1;
#ifdef VC_HAVE_GEN
  if (z->o->transform) {
    vc_strbuf t;
    vc_sb_init(&t);
    if (vc_gen_transform(z->o->transform, text.data, mix(z->o->seed ^ index) + 1, &t, e)) {
      vc_sb_free(&t);
      n = -1;
      goto done;
    }
    snprintf(path, sizeof path, "%s/fz-%llu-%llu-t.vyre", dir, s, i);
    snprintf(name, sizeof name, "fz_%llu_%llu_t", s, i);
    if (write_renamed(t.data, t.len, name, path, e)) n = -1;
    else n = 2;
    vc_sb_free(&t);
  }
#endif
done:
  vc_sb_free(&text);
  return n;
}

/* One run of the programs first .. first+n-1; then every failure filed. */
static int run_batch(campaign *z, uint64_t first, uint32_t n, uint32_t batch, vc_error *e) {
  char bdir[4096];
  snprintf(bdir, sizeof bdir, "%s/programs/%llu-%u", z->o->dir, (unsigned long long)z->o->seed,
           batch);
  if (make_dir(bdir, e)) return VC_EXIT_INPUT;
  uint32_t files = 0;
  for (uint32_t i = 0; i < n; i++) {
    int k = write_programs(z, first + i, bdir, e);
    if (k < 0) return e->code == VC_ERR_INTERNAL ? VC_EXIT_INTERNAL : VC_EXIT_INPUT;
    files += (uint32_t)k;
  }
  const char *paths[1] = {bdir};
  vc_runner_opts ro = z->o->run;
  ro.paths = paths;
  ro.npaths = 1;
  uint64_t t0 = vc_now_ns();
  int st = vc_run_corpus(&ro);
  z->run_ns += vc_now_ns() - t0;
  if (st != VC_EXIT_OK && st != VC_EXIT_FAIL && st != VC_EXIT_INPUT) return st;
  z->programs += files;
  vc_run_data *rd = NULL;
  if (vc_run_load(z->o->db, VC_RUN_LATEST, &rd, e)) return VC_EXIT_DB;
  vc_fz_load(&z->found, rd);
  for (uint32_t i = 0; i < rd->nprogs; i++) vc_fz_file_program(&z->found, &rd->progs[i], rd->id);
  vc_fz_file_differentials(&z->found, rd);
  vc_run_free(rd);
  return vc_fz_save(&z->found, e) ? VC_EXIT_DB : VC_EXIT_OK;
}

/* One finding this campaign showed; one found by an earlier campaign of the
   results file says so. */
static void summary_finding(FILE *o, uint32_t k, const vc_fz_finding *f) {
  fprintf(o, "  %u. %s\n     modes: %s\n     %u %s", k, f->sig, f->modes, f->here,
          vc_plural(f->here, "program", "programs"));
  if (f->count != f->here)
    fprintf(o, " (%u in all), first seen in run %lld by %s\n", f->count, (long long)f->first_run,
            f->first);
  else
    fprintf(o, ", first %s\n", f->first);
  fprintf(o, "     %s\n", f->command);
}

static int summary(campaign *z) {
  char path[4200];
  snprintf(path, sizeof path, "%s/summary.txt", z->o->dir);
  const vc_fz_findings *fd = &z->found;
  uint32_t shown = 0, earlier = 0;
  for (uint32_t i = 0; i < fd->n; i++)
    if (fd->f[i].here) {
      shown++;
      earlier += fd->f[i].count != fd->f[i].here;
    }
  FILE *files[2] = {stdout, fopen(path, "w")};
  for (int k = 0; k < 2; k++) {
    FILE *o = files[k];
    if (!o) continue;
    double run_s = (double)z->run_ns / 1e9;
    fprintf(o, "fuzz: %u %s on %s, seed %llu: %.1f s running (%.2f programs/s), %.1f s "
            "reducing (%u %s); %u failing, %u distinct finding%s",
            z->programs, vc_plural(z->programs, "program", "programs"), z->o->backend,
            (unsigned long long)z->o->seed, run_s, run_s > 0 ? z->programs / run_s : 0.0,
            (double)fd->reduce_ns / 1e9, fd->reductions,
            vc_plural(fd->reductions, "reduction", "reductions"), fd->failures, shown,
            shown == 1 ? "" : "s");
    if (earlier) fprintf(o, ", %u of them found by an earlier campaign", earlier);
    fputc('\n', o);
    for (uint32_t i = 0, n = 0; i < fd->n; i++)
      if (fd->f[i].here) summary_finding(o, ++n, &fd->f[i]);
    if (o != stdout) fclose(o);
  }
  return shown ? VC_EXIT_FAIL : VC_EXIT_OK;
}

/* The campaign's statuses but the summary's; e holds the message. */
static int campaign_run(campaign *z, vc_error *e) {
  const vc_fuzz_opts *o = z->o;
  int rc = 0;
#ifdef VC_HAVE_GEN
  if (o->from) rc = collect(z, o->from, o->nfrom, e);
#else
  static const char *const default_from[] = {"corpus"};
  rc = collect(z, o->from ? o->from : default_from, o->from ? o->nfrom : 1, e);
#endif
  if (rc == VC_ERR_USAGE) return VC_EXIT_USAGE;
  if (rc) {
    fprintf(stderr, "vyre-conform fuzz: %s\n", e->msg);
    return VC_EXIT_INPUT;
  }
  char sub[4200];
  snprintf(sub, sizeof sub, "%s/programs", o->dir);
  if (make_dir(o->dir, e) || make_dir(sub, e)) {
    fprintf(stderr, "vyre-conform fuzz: %s\n", e->msg);
    return VC_EXIT_INPUT;
  }
  snprintf(sub, sizeof sub, "%s/findings", o->dir);
  if (make_dir(sub, e)) {
    fprintf(stderr, "vyre-conform fuzz: %s\n", e->msg);
    return VC_EXIT_INPUT;
  }
  uint64_t t0 = vc_now_ns(), next = 0;
  for (uint32_t b = 0;; b++) {
    uint32_t n = o->time_s ? o->batch : o->count;
    int status = run_batch(z, next, n, b, e);
    next += n;
    if (status) {
      if (status == VC_EXIT_DB) fprintf(stderr, "vyre-conform fuzz: %s\n", e->msg);
      if (status == VC_EXIT_INPUT || status == VC_EXIT_INTERNAL)
        fprintf(stderr, "vyre-conform fuzz: %s\n", e->msg);
      return status;
    }
    if (!o->time_s || vc_now_ns() - t0 >= (uint64_t)o->time_s * 1000000000u) break;
  }
  return summary(z);
}

int vc_fuzz_campaign(const vc_fuzz_opts *o, vc_error *e) {
  campaign z;
  memset(&z, 0, sizeof z);
  z.o = o;
  z.found.reduce = o->reduce;
  z.found.red.timeout_s = o->reduce_timeout_s;
  z.found.red.backend = o->run.backend;
  z.found.red.device = o->run.device;
  z.found.red.device_options = o->run.device_options;
  z.found.red.conform = o->run.conform;
  z.found.red.inject_crash = o->run.inject_crash;
  z.found.red.inject_hang = o->run.inject_hang;
  z.found.dir = o->dir;
  z.found.backend = o->backend;
  z.found.db = o->db;
  z.found.busy_ms = vc_run_db_busy_ms(&o->run);
  int status = campaign_run(&z, e);
  vc_corpus_free(&z.from);
  free(z.usable);
  vc_fz_free(&z.found);
  return status;
}
