/* vyre-conform fuzz --backend B --out DIR: programs run in every mode and
 * recorded as normal runs; every failure is reduced and written into DIR
 * with a command that reproduces it, findings deduplicated by signature. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/base/plural.h"
#include "harness/base/file.h"
#include "harness/base/clock.h"
#include "harness/base/exitcodes.h"
#include "harness/base/kcache.h"
#include "harness/base/strbuf.h"
#include "harness/cli/args.h"
#include "harness/cli/cmd_util.h"
#include "harness/cli/commands.h"
#include "harness/cli/fuzz_findings.h"
#include "harness/exec/plugin.h"
#ifdef VC_HAVE_GEN
#include "harness/gen/gen.h"
#endif
#include "harness/lang/corpus.h"
#include "harness/lang/read.h"
#include "harness/reduce/edit.h"
#include "harness/reduce/reduce.h"
#include "harness/run/runner.h"
#include "harness/run/runopts.h"
#include "results/store/load.h"

static const char help[] =
    "usage: vyre-conform fuzz --backend B [--mode LIST] [--seed S] [--count N | --time T]\n"
    "                         [--jobs N] [options] --out DIR\n"
    "\n"
    "Generates programs (or draws them from --from), each also transformed into\n"
    "an equivalent twin, runs each in every selected mode on the device exactly\n"
    "as `run` does, and records them in the results database as normal\n"
    "runs, each program with its source. Every program that diverges, crashes,\n"
    "times out, errs or is untrustworthy is reduced (`vyre-conform reduce`)\n"
    "in each failing mode, so that a cause that shows in one mode only is\n"
    "filed whatever the others show. A reduced program is written into\n"
    "DIR/findings with a one-line command that reproduces it. Findings are\n"
    "deduplicated by signature: backend, status, divergence class and the\n"
    "reduced program's shape, within a campaign and across the campaigns that\n"
    "share a results database (its findings table: modes, programs, first and\n"
    "last run); the summary (printed, and DIR/summary.txt) lists the distinct\n"
    "ones this campaign showed.\n"
    "\n"
    "  --out DIR            programs, findings, summary and (by default) the\n"
    "                       results database DIR/fuzz.db (required)\n"
    "  --backend B          the device's backend plugin (required)\n"
    "  --mode LIST          modes to run (all)\n"
    "  --seed S             which programs: the same seed and options give the\n"
    "                       same programs (1)\n"
    "  --count N            this many programs (and their twins), one run (100)\n"
    "  --time T             instead: runs of --batch programs until T seconds\n"
    "                       have passed\n"
    "  --batch N            programs per run with --time (20)\n"
    "  --jobs N             programs of a run prepared and run at once (1); the\n"
    "                       device phases still run one at a time (docs/usage.md)\n"
    "  --from PATH          draw the programs from PATH (files or folders) instead of\n"
    "                       generating them; without the generator (a build with no\n"
    "                       harness/gen) the default is corpus. Each program is\n"
    "                       renamed fz_S_I after its seed and index\n"
    "  --size S, --features LIST   the generator's (`generate --help`)\n"
    "  --transform T        with the generator: each program also runs transformed\n"
    "                       (fz_S_I_t) by T, a transformation's name, random (the\n"
    "                       default) or none\n"
    "  --db FILE            results database (DIR/fuzz.db)\n"
    "  --timeout S          seconds per program in the run (600)\n"
    "  --reduce-timeout S   seconds per candidate of a reduction (60)\n"
    "  --no-reduce          write the failing programs as they are\n"
    "  --device N, --device-options S, --cache DIR, --no-cache, --progress P:\n"
    "                       as for run\n"
    "  --inject-flip M:BUF:I, --inject-crash GLOB[@STEP], --inject-hang GLOB[@STEP]:\n"
    "                       as for run, in the runs and the reductions (for\n"
    "                       testing the harness)\n"
    "\n"
    "Exit status: 0 no finding; 1 findings (listed); 2 usage error; 3 no usable\n"
    "backend or device; 4 a program of --from cannot be read; 5 results database\n"
    "error; 7 the generator made a program the check refuses, or a transformation\n"
    "failed (a bug of the harness; the message names seed and index).\n";

typedef struct fuzz {
  const char *dir, *db;
  const char *backend;
  vc_runner_opts run;
  uint64_t seed;
  vc_corpus from;
#ifdef VC_HAVE_GEN
  vc_gen_opts gen;       /* with no --from */
  const char *transform; /* a transformation's name, "random", or NULL: none */
#endif
  uint32_t *usable; /* indices of from's files that can be drawn */
  uint32_t nusable;
  vc_fz_findings found;
  uint64_t run_ns;
  uint32_t programs;
} fuzz;

static uint64_t splitmix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
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
static int collect(fuzz *z, const char *const *paths, uint32_t n, vc_error *e) {
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
static int program_text(fuzz *z, uint64_t index, vc_strbuf *text, vc_error *e) {
#ifdef VC_HAVE_GEN
  if (!z->nusable) return vc_gen_program(&z->gen, z->seed, (uint32_t)index, text, e);
#endif
  const vc_corpus_file *src =
      &z->from.files[z->usable[splitmix(z->seed ^ splitmix(index)) % z->nusable]];
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
static int write_programs(fuzz *z, uint64_t index, const char *dir, vc_error *e) {
  vc_strbuf text;
  vc_sb_init(&text);
  char path[4200], name[32];
  int n = -1;
  unsigned long long s = (unsigned long long)z->seed, i = (unsigned long long)index;
  if (program_text(z, index, &text, e)) goto done;
  snprintf(path, sizeof path, "%s/fz-%llu-%llu.vyre", dir, s, i);
  snprintf(name, sizeof name, "fz_%llu_%llu", s, i);
  if (write_renamed(text.data, text.len, name, path, e)) goto done;
  n = 1;
#ifdef VC_HAVE_GEN
  if (z->transform) {
    vc_strbuf t;
    vc_sb_init(&t);
    if (vc_gen_transform(z->transform, text.data, splitmix(z->seed ^ index) + 1, &t, e)) {
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
static int run_batch(fuzz *z, uint64_t first, uint32_t n, uint32_t batch, vc_error *e) {
  char bdir[4096];
  snprintf(bdir, sizeof bdir, "%s/programs/%llu-%u", z->dir, (unsigned long long)z->seed, batch);
  if (make_dir(bdir, e)) return VC_EXIT_INPUT;
  uint32_t files = 0;
  for (uint32_t i = 0; i < n; i++) {
    int k = write_programs(z, first + i, bdir, e);
    if (k < 0) return e->code == VC_ERR_INTERNAL ? VC_EXIT_INTERNAL : VC_EXIT_INPUT;
    files += (uint32_t)k;
  }
  const char *paths[1] = {bdir};
  vc_runner_opts ro = z->run;
  ro.paths = paths;
  ro.npaths = 1;
  uint64_t t0 = vc_now_ns();
  int st = vc_run_corpus(&ro);
  z->run_ns += vc_now_ns() - t0;
  if (st != VC_EXIT_OK && st != VC_EXIT_FAIL && st != VC_EXIT_INPUT) return st;
  z->programs += files;
  vc_run_data *rd = NULL;
  if (vc_run_load(z->db, VC_RUN_LATEST, &rd, e)) return VC_EXIT_DB;
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

static int summary(fuzz *z) {
  char path[4200];
  snprintf(path, sizeof path, "%s/summary.txt", z->dir);
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
            z->programs, vc_plural(z->programs, "program", "programs"), z->backend,
            (unsigned long long)z->seed, run_s, run_s > 0 ? z->programs / run_s : 0.0,
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

int vc_cmd_fuzz(int argc, char **argv) {
  if (vc_wants_help(argc, argv)) {
    fputs(help, stdout);
    return VC_EXIT_OK;
  }
  enum { O_OUT, O_BACKEND, O_MODE, O_SEED, O_COUNT_, O_TIME, O_BATCH, O_JOBS, O_FROM, O_DB,
         O_TIMEOUT, O_RTIMEOUT, O_NOREDUCE, O_DEVICE, O_DEVOPTS, O_CACHE, O_NOCACHE, O_PROGRESS,
         O_SIZE, O_FEATURES, O_TRANSFORM, O_FLIP, O_CRASH, O_HANG, O_COUNT };
  vc_opt opts[O_COUNT] = {[O_OUT] = VC_OPT("out", true, false),
                          [O_BACKEND] = VC_OPT("backend", true, false),
                          [O_MODE] = VC_OPT("mode", true, false),
                          [O_SEED] = VC_OPT("seed", true, false),
                          [O_COUNT_] = VC_OPT("count", true, false),
                          [O_TIME] = VC_OPT("time", true, false),
                          [O_BATCH] = VC_OPT("batch", true, false),
                          [O_JOBS] = VC_OPT("jobs", true, false),
                          [O_FROM] = VC_OPT("from", true, true),
                          [O_DB] = VC_OPT("db", true, false),
                          [O_TIMEOUT] = VC_OPT("timeout", true, false),
                          [O_RTIMEOUT] = VC_OPT("reduce-timeout", true, false),
                          [O_NOREDUCE] = VC_OPT("no-reduce", false, false),
                          [O_DEVICE] = VC_OPT("device", true, false),
                          [O_DEVOPTS] = VC_OPT("device-options", true, false),
                          [O_CACHE] = VC_OPT("cache", true, false),
                          [O_NOCACHE] = VC_OPT("no-cache", false, false),
                          [O_PROGRESS] = VC_OPT("progress", true, false),
                          [O_SIZE] = VC_OPT("size", true, false),
                          [O_FEATURES] = VC_OPT("features", true, false),
                          [O_TRANSFORM] = VC_OPT("transform", true, false),
                          [O_FLIP] = VC_OPT("inject-flip", true, false),
                          [O_CRASH] = VC_OPT("inject-crash", true, false),
                          [O_HANG] = VC_OPT("inject-hang", true, false)};
  vc_args a;
  vc_error e;
  vc_error_clear(&e);
  fuzz z;
  memset(&z, 0, sizeof z);
  z.seed = 1;
  z.found.reduce = true;
  vc_runner_opts *r = &z.run;
  r->conform.repeat = 1;
  r->conform.nmodes = VC_MODE_COUNT;
  for (int m = 0; m < VC_MODE_COUNT; m++) r->conform.modes[m] = (vc_mode)m;
  r->timeout_s = 600;
  r->expectations = "none"; /* every failure is a finding; the gate is not fuzz's */
  r->progress = isatty(STDERR_FILENO);
  z.found.red.timeout_s = 60;
  char *devopts = NULL, dbbuf[4200], flipbuf[512];
  uint32_t count = 100, time_s = 0, batch = 20, jobs = 1;
  int status = VC_EXIT_OK;
  if (vc_args_parse(argc, argv, opts, O_COUNT, &a, &e)) goto usage;
  vc_opt *o;
  if (a.npos) {
    vc_fail(&e, VC_ERR_USAGE, "unexpected argument '%s' (programs come from --from)", a.pos[0]);
    goto usage;
  }
  if (!(o = vc_args_get(opts, O_COUNT, "backend"))) {
    char names[2048];
    vc_plugin_names(names, sizeof names);
    vc_fail(&e, VC_ERR_USAGE, "--backend is required (backends found: %s)", names);
    goto usage;
  }
  z.backend = r->backend = o->value;
  if (!(o = vc_args_get(opts, O_COUNT, "out"))) {
    vc_fail(&e, VC_ERR_USAGE, "--out DIR is required");
    goto usage;
  }
  z.dir = o->value;
  if ((o = vc_args_get(opts, O_COUNT, "mode")) && vc_parse_modes(o->value, &r->conform, &e))
    goto usage;
  if ((o = vc_args_get(opts, O_COUNT, "seed")) && vc_args_u64(o, &z.seed, &e)) goto usage;
  if (vc_args_get(opts, O_COUNT, "count") && vc_args_get(opts, O_COUNT, "time")) {
    vc_fail(&e, VC_ERR_USAGE, "--count and --time exclude each other");
    goto usage;
  }
  if ((o = vc_args_get(opts, O_COUNT, "count")) && vc_args_u32(o, 1, 1000000, &count, &e))
    goto usage;
  if ((o = vc_args_get(opts, O_COUNT, "time")) && vc_args_u32(o, 1, 7 * 86400, &time_s, &e))
    goto usage;
  if ((o = vc_args_get(opts, O_COUNT, "batch")) && vc_args_u32(o, 1, 100000, &batch, &e))
    goto usage;
  if ((o = vc_args_get(opts, O_COUNT, "jobs")) && vc_args_u32(o, 1, 1024, &jobs, &e)) goto usage;
  r->jobs = jobs;
  r->device_jobs = 1;
  if ((o = vc_args_get(opts, O_COUNT, "timeout")) && vc_args_u32(o, 1, 86400, &r->timeout_s, &e))
    goto usage;
  if ((o = vc_args_get(opts, O_COUNT, "reduce-timeout")) &&
      vc_args_u32(o, 1, 86400, &z.found.red.timeout_s, &e))
    goto usage;
  z.found.reduce = !vc_args_get(opts, O_COUNT, "no-reduce");
  if ((o = vc_args_get(opts, O_COUNT, "inject-flip")) &&
      vc_parse_flip(o->value, &r->conform, NULL, flipbuf, sizeof flipbuf, &e))
    goto usage;
  if ((o = vc_args_get(opts, O_COUNT, "inject-crash"))) r->inject_crash = o->value;
  if ((o = vc_args_get(opts, O_COUNT, "inject-hang"))) r->inject_hang = o->value;
  if ((o = vc_args_get(opts, O_COUNT, "device")) && vc_args_u32(o, 0, 1024, &r->device, &e))
    goto usage;
  if ((o = vc_args_get(opts, O_COUNT, "device-options"))) r->device_options = o->value;
  o = vc_args_get(opts, O_COUNT, "cache");
  if (vc_kcache_device_options(o ? o->value : NULL, vc_args_get(opts, O_COUNT, "no-cache") != NULL,
                               r->device_options, &r->device_options, &devopts, &e))
    goto usage;
  if ((o = vc_args_get(opts, O_COUNT, "progress"))) {
    if (strcmp(o->value, "tty") == 0)
      r->progress = 1;
    else if (strcmp(o->value, "plain") == 0)
      r->progress = 0;
    else if (strcmp(o->value, "auto") != 0) {
      vc_fail(&e, VC_ERR_USAGE, "--progress: '%s' is not auto, tty or plain", o->value);
      goto usage;
    }
  }
  snprintf(dbbuf, sizeof dbbuf, "%s/fuzz.db", z.dir);
  z.db = r->db_path = (o = vc_args_get(opts, O_COUNT, "db")) ? o->value : dbbuf;
  r->command_line = "fuzz";
  z.found.red.backend = r->backend;
  z.found.red.device = r->device;
  z.found.red.device_options = r->device_options;
  z.found.red.conform = r->conform;
  z.found.red.inject_crash = r->inject_crash;
  z.found.red.inject_hang = r->inject_hang;
  z.found.dir = z.dir;
  z.found.backend = z.backend;
  z.found.db = z.db;
  z.found.busy_ms = vc_run_db_busy_ms(r);
  vc_opt *from = vc_args_get(opts, O_COUNT, "from");
  int rc = 0;
#ifdef VC_HAVE_GEN
  vc_gen_opts_default(&z.gen);
  z.transform = "random";
  if ((o = vc_args_get(opts, O_COUNT, "size")) && vc_gen_size_parse(o->value, &z.gen.size, &e))
    goto usage;
  if ((o = vc_args_get(opts, O_COUNT, "features")) &&
      vc_gen_opts_features_parse(o->value, &z.gen, &e))
    goto usage;
  if ((o = vc_args_get(opts, O_COUNT, "transform")))
    z.transform = strcmp(o->value, "none") == 0 ? NULL : o->value;
  if (from) rc = collect(&z, from->values, from->count, &e);
#else
  for (const char *const *g = (const char *const[]){"size", "features", "transform", NULL}; *g; g++)
    if (vc_args_get(opts, O_COUNT, *g)) {
      vc_fail(&e, VC_ERR_USAGE, "--%s needs the program generator, which this build lacks", *g);
      goto usage;
    }
  static const char *const default_from[] = {"corpus"};
  rc = collect(&z, from ? from->values : default_from, from ? from->count : 1, &e);
#endif
  if (rc == VC_ERR_USAGE) goto usage;
  if (rc) {
    fprintf(stderr, "vyre-conform fuzz: %s\n", e.msg);
    status = VC_EXIT_INPUT;
    goto done;
  }
  char sub[4200];
  snprintf(sub, sizeof sub, "%s/programs", z.dir);
  if (make_dir(z.dir, &e) || make_dir(sub, &e)) {
    fprintf(stderr, "vyre-conform fuzz: %s\n", e.msg);
    status = VC_EXIT_INPUT;
    goto done;
  }
  snprintf(sub, sizeof sub, "%s/findings", z.dir);
  if (make_dir(sub, &e)) {
    fprintf(stderr, "vyre-conform fuzz: %s\n", e.msg);
    status = VC_EXIT_INPUT;
    goto done;
  }
  uint64_t t0 = vc_now_ns(), next = 0;
  for (uint32_t b = 0;; b++) {
    uint32_t n = time_s ? batch : count;
    status = run_batch(&z, next, n, b, &e);
    next += n;
    if (status) {
      if (status == VC_EXIT_DB) fprintf(stderr, "vyre-conform fuzz: %s\n", e.msg);
      if (status == VC_EXIT_INPUT || status == VC_EXIT_INTERNAL)
        fprintf(stderr, "vyre-conform fuzz: %s\n", e.msg);
      goto done;
    }
    if (!time_s || vc_now_ns() - t0 >= (uint64_t)time_s * 1000000000u) break;
  }
  status = summary(&z);
done:
  vc_corpus_free(&z.from);
  free(z.usable);
  vc_fz_free(&z.found);
  free(devopts);
  vc_args_free(opts, O_COUNT, &a);
  return status;
usage:
  vc_corpus_free(&z.from);
  free(z.usable);
  vc_fz_free(&z.found);
  free(devopts);
  vc_args_free(opts, O_COUNT, &a);
  return vc_usage_error("fuzz", e.msg);
}
