/* The findings of fuzz campaigns (findings.h): filed, reduced, deduplicated, kept. */
#include "harness/fuzz/findings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/clock.h"
#include "harness/base/file.h"
#include "harness/base/sha256.h"
#include "harness/base/strbuf.h"
#include "harness/fuzz/differential.h"
#include "results/store/record.h"

static char *dup_or_null(const char *s) {
  if (!s) return NULL;
  char *d = strdup(s);
  if (!d) abort();
  return d;
}

static vc_fz_finding *add(vc_fz_findings *z, const char *key) {
  if (z->n == z->cap) {
    z->cap = z->cap ? z->cap * 2 : 8;
    z->f = realloc(z->f, z->cap * sizeof *z->f);
    if (!z->f) abort();
  }
  vc_fz_finding *f = &z->f[z->n++];
  memset(f, 0, sizeof *f);
  snprintf(f->key, sizeof f->key, "%s", key);
  return f;
}

static vc_fz_finding *find(vc_fz_findings *z, const char *key) {
  for (uint32_t i = 0; i < z->n; i++)
    if (strcmp(z->f[i].key, key) == 0) return &z->f[i];
  return NULL;
}

void vc_fz_load(vc_fz_findings *z, const vc_run_data *rd) {
  if (z->loaded) return;
  z->loaded = true;
  for (uint32_t i = 0; i < rd->nfindings; i++) {
    const vc_finding_rec *r = &rd->findings[i];
    if (find(z, r->key)) continue;
    vc_fz_finding *f = add(z, r->key);
    snprintf(f->sig, sizeof f->sig, "%s", r->failure);
    snprintf(f->file, sizeof f->file, "%s", r->file);
    snprintf(f->first, sizeof f->first, "%s", r->first_program);
    snprintf(f->modes, sizeof f->modes, "%s", r->modes);
    snprintf(f->mode, sizeof f->mode, "%.*s", (int)strcspn(r->modes, " "), r->modes);
    snprintf(f->command, sizeof f->command, "%s", r->command);
    f->source = dup_or_null(r->source);
    f->count = r->programs;
    f->first_run = r->first_run;
    f->last_run = r->last_run;
  }
}

static void add_mode(vc_fz_finding *f, const char *mode) {
  size_t n = strlen(mode);
  for (const char *s = f->modes; *s;) {
    size_t k = strcspn(s, " ");
    if (k == n && strncmp(s, mode, n) == 0) return;
    s += k;
    while (*s == ' ') s++;
  }
  size_t used = strlen(f->modes);
  snprintf(f->modes + used, sizeof f->modes - used, "%s%s", used ? " " : "", mode);
  f->dirty = true;
}

/* A program is counted once under a finding, whatever its modes. */
static void count(vc_fz_finding *f, const char *program, int64_t run_id) {
  if (strcmp(f->last_prog, program) != 0) {
    snprintf(f->last_prog, sizeof f->last_prog, "%s", program);
    f->count++;
    f->here++;
  }
  f->last_run = run_id;
  f->dirty = true;
}

/* The text but for the program's name, and the failure: a program drawn
   again that fails the same way. */
static void seen_key(const char *text, const char *name, const vc_reduce_sig *s, char *out,
                     size_t n) {
  const char *at = strstr(text, name);
  vc_sha256 h;
  uint8_t d[32];
  char digest[65], sig[512];
  vc_sha256_init(&h);
  if (at) {
    vc_sha256_update(&h, text, (size_t)(at - text));
    vc_sha256_update(&h, at + strlen(name), strlen(at + strlen(name)));
  } else {
    vc_sha256_update(&h, text, strlen(text));
  }
  vc_sha256_final(&h, d);
  vc_sha256_hex(d, digest);
  vc_reduce_sig_text(s, sig, sizeof sig);
  snprintf(out, n, "%s %.500s", digest, sig);
}

static void remember(vc_fz_findings *z, const char *key, const vc_fz_finding *f) {
  if (z->nseen == z->seencap) {
    z->seencap = z->seencap ? z->seencap * 2 : 16;
    z->seen = realloc(z->seen, z->seencap * sizeof *z->seen);
    if (!z->seen) abort();
  }
  snprintf(z->seen[z->nseen].key, sizeof z->seen[z->nseen].key, "%s", key);
  z->seen[z->nseen++].finding = (uint32_t)(f - z->f);
}

static void write_text(const char *path, const char *text) {
  vc_error e;
  vc_error_clear(&e);
  vc_strbuf out;
  vc_sb_init(&out);
  vc_sb_puts(&out, text);
  if (vc_file_write(path, &out, &e)) fprintf(stderr, "vyre-conform fuzz: %s\n", e.msg);
  vc_sb_free(&out);
}

/* A new finding's files: its program, and beside it (.txt) its command,
   after a planted fault of a mutant build (part of what reproduces it),
   and then what more it says (NULL: nothing). */
static void write_files(const vc_fz_finding *f, const char *body, const char *more) {
  write_text(f->file, body);
  vc_strbuf t;
  vc_sb_init(&t);
  const char *mut = getenv("VYRE_CONFORM_MUTANT"), *flt = getenv("VYRE_CONFORM_FAULT");
  if (mut && *mut) vc_sb_printf(&t, "VYRE_CONFORM_MUTANT=%s ", mut);
  if (flt && *flt) vc_sb_printf(&t, "VYRE_CONFORM_FAULT=%s ", flt);
  vc_sb_printf(&t, "%s\n%s", f->command, more ? more : "");
  char path[4200];
  snprintf(path, sizeof path, "%.*s.txt", (int)(strlen(f->file) - 5), f->file);
  write_text(path, vc_sb_str(&t));
  vc_sb_free(&t);
}

/* Reduces text in r's mode; *reduced is the reduced program (or NULL) and s
   its signature. */
static const char *reduce_one(vc_fz_findings *z, const vc_prog_data *p, const char *text,
                              const vc_result *r, vc_reduce_sig *s, char **reduced) {
  int m = vc_mode_from_name(r->mode);
  *reduced = NULL;
  if (r->status == VC_ST_INVALID) return " (the oracle refuses the program: a generator bug)";
  if (m < 0) return " (in a step before the modes: not reduced)";
  if (!z->reduce) return "";
  vc_reduce_opts ro = z->red;
  ro.conform.nmodes = 1;
  ro.conform.modes[0] = (vc_mode)m;
  ro.origin = p->info.path;
  vc_reduce_result rr;
  vc_error e;
  vc_error_clear(&e);
  uint64_t t0 = vc_now_ns();
  int rc = vc_reduce(p->info.path, text, strlen(text), &ro, &rr, &e);
  z->reduce_ns += vc_now_ns() - t0;
  z->reductions++;
  const char *note = "";
  if (rc) {
    note = " (not reduced: the reducer failed)";
  } else if (rr.nothing) {
    note = " (not reduced: it did not fail again)";
  } else {
    *s = rr.sig;
    *reduced = rr.text;
    rr.text = NULL;
    printf("fuzz: reduced %s (%s %s): statements %u -> %u, %.1f s\n", p->info.name, r->mode,
           vc_status_name(r->status), rr.before.statements, rr.after.statements,
           (double)rr.wall_ns / 1e9);
    fflush(stdout);
  }
  vc_reduce_result_free(&rr);
  return note;
}

/* One failing mode of a program: counted under the finding it was seen
   with before, or reduced in that mode and filed. */
static void file_mode(vc_fz_findings *z, const vc_prog_data *p, const char *text,
                      const vc_result *r, int64_t run_id) {
  vc_reduce_sig s;
  vc_reduce_sig_of_result(r, &s);
  char skey[600];
  seen_key(text, p->info.name, &s, skey, sizeof skey);
  for (uint32_t i = 0; i < z->nseen; i++)
    if (strcmp(z->seen[i].key, skey) == 0) {
      vc_fz_finding *f = &z->f[z->seen[i].finding];
      count(f, p->info.name, run_id);
      add_mode(f, r->mode);
      return;
    }
  char *reduced = NULL;
  const char *note = reduce_one(z, p, text, r, &s, &reduced);
  const char *body = reduced ? reduced : text;
  char shape[13], key[256], sig[512];
  vc_reduce_shape(body, strlen(body), shape);
  vc_reduce_sig_text(&s, sig, sizeof sig);
  snprintf(key, sizeof key, "%s %s %s %s", z->backend, vc_status_name(s.status),
           s.cls >= 0 ? vc_divclass_name((vc_divclass)s.cls) : "-", shape);
  vc_fz_finding *f = find(z, key);
  if (!f) {
    f = add(z, key);
    snprintf(f->sig, sizeof f->sig, "%s%s", sig, note);
    snprintf(f->first, sizeof f->first, "%s", p->info.name);
    snprintf(f->mode, sizeof f->mode, "%s", s.mode);
    snprintf(f->file, sizeof f->file, "%s/findings/%u-%s-%s.vyre", z->dir, z->n, s.mode,
             vc_status_name(s.status));
    snprintf(f->command, sizeof f->command,
             "vyre-conform --backend %s --mode %s --expectations none %s", z->backend, f->mode,
             f->file);
    f->source = dup_or_null(body);
    f->first_run = run_id;
    write_files(f, body, NULL);
  }
  remember(z, skey, f);
  count(f, p->info.name, run_id);
  add_mode(f, r->mode);
  free(reduced);
}

void vc_fz_file_program(vc_fz_findings *z, const vc_prog_data *p, int64_t run_id) {
  uint32_t failing[VC_MODE_COUNT + 4], nfailing = 0;
  for (uint32_t k = 0; k < p->nresults && nfailing < VC_MODE_COUNT + 4; k++) {
    const vc_result *r = &p->results[k];
    bool again = false;
    for (uint32_t i = 0; i < nfailing; i++) again |= !strcmp(p->results[failing[i]].mode, r->mode);
    if (vc_status_is_failure(r->status) && !again) failing[nfailing++] = k;
  }
  if (!nfailing) return;
  z->failures++;
  vc_strbuf text;
  vc_sb_init(&text);
  vc_error e;
  vc_error_clear(&e);
  if (vc_file_read(p->info.path, &text, &e)) {
    fprintf(stderr, "vyre-conform fuzz: %s\n", e.msg);
    vc_sb_free(&text);
    return;
  }
  for (uint32_t i = 0; i < nfailing; i++) file_mode(z, p, text.data, &p->results[failing[i]], run_id);
  vc_sb_free(&text);
}


/* One pair of passing results whose bytes differ: filed as it is (a
   reduction would need the pair as its test), the original program and,
   for a twin, the twin beside it. */
static void file_differential(void *ctx, const vc_fz_diff *d) {
  vc_fz_findings *z = ctx;
  vc_strbuf a, b;
  vc_sb_init(&a);
  vc_sb_init(&b);
  vc_error e;
  vc_error_clear(&e);
  bool twin = d->kind == VC_FZ_DIFF_TWIN;
  if (vc_file_read(d->a->info.path, &a, &e) || (twin && vc_file_read(d->b->info.path, &b, &e))) {
    fprintf(stderr, "vyre-conform fuzz: %s\n", e.msg);
    goto done;
  }
  char shape[13], key[256], what[32];
  vc_reduce_shape(a.data, a.len, shape);
  snprintf(what, sizeof what, "%s", twin ? "twin" : d->rb->mode);
  snprintf(key, sizeof key, "%s differential %s %s", z->backend, what, shape);
  vc_fz_finding *f = find(z, key);
  if (!f) {
    f = add(z, key);
    if (twin)
      snprintf(f->sig, sizeof f->sig,
               "%s differential: the twin's bytes differ from the original's, both passed "
               "(output %.12s vs %.12s)",
               d->ra->mode, d->ra->output_digest, d->rb->output_digest);
    else
      snprintf(f->sig, sizeof f->sig,
               "%s differential: its bytes differ from native's, both passed (output %.12s vs "
               "%.12s)",
               d->rb->mode, d->rb->output_digest, d->ra->output_digest);
    snprintf(f->first, sizeof f->first, "%s", d->a->info.name);
    snprintf(f->mode, sizeof f->mode, "%s", twin ? d->ra->mode : d->rb->mode);
    snprintf(f->file, sizeof f->file, "%s/findings/%u-%s-differential.vyre", z->dir, z->n,
             twin ? "twin" : f->mode);
    f->source = dup_or_null(a.data);
    f->first_run = z->run_id;
    if (twin) {
      char tw[4200];
      snprintf(tw, sizeof tw, "%.*s-t.vyre", (int)(strlen(f->file) - 5), f->file);
      write_text(tw, b.data);
      snprintf(f->command, sizeof f->command,
               "vyre-conform --backend %s --mode %s --expectations none %s %s", z->backend,
               f->mode, f->file, tw);
    } else {
      snprintf(f->command, sizeof f->command,
               "vyre-conform --backend %s --mode native,%s --expectations none %s", z->backend,
               f->mode, f->file);
    }
    write_files(f, a.data,
                "# then compare the output digests: sqlite3 vyre-conform.db "
                "\"SELECT mode, output_digest FROM results\"\n");
  }
  add_mode(f, d->ra->mode);
  add_mode(f, d->rb->mode);
  count(f, d->a->info.name, z->run_id);
done:
  vc_sb_free(&a);
  vc_sb_free(&b);
}

void vc_fz_file_differentials(vc_fz_findings *z, const vc_run_data *rd) {
  z->run_id = rd->id;
  vc_fz_differentials(rd, file_differential, z);
}

int vc_fz_save(vc_fz_findings *z, vc_error *err) {
  bool any = false;
  for (uint32_t i = 0; i < z->n; i++) any |= z->f[i].dirty;
  if (!any) return 0;
  vc_db *db = NULL;
  int rc = vc_db_open(z->db, z->busy_ms, &db, err);
  for (uint32_t i = 0; !rc && i < z->n; i++) {
    vc_fz_finding *f = &z->f[i];
    if (!f->dirty) continue;
    vc_finding_rec rec = {.key = f->key,
                          .backend = z->backend,
                          .modes = f->modes,
                          .failure = f->sig,
                          .first_program = f->first,
                          .file = f->file,
                          .command = f->command,
                          .source = f->source ? f->source : "",
                          .programs = f->count,
                          .first_run = f->first_run,
                          .last_run = f->last_run};
    rc = vc_db_record_finding(db, &rec, err);
    if (!rc) f->dirty = false;
  }
  if (db) vc_db_close(db);
  return rc;
}

void vc_fz_free(vc_fz_findings *z) {
  for (uint32_t i = 0; i < z->n; i++) free(z->f[i].source);
  free(z->f);
  free(z->seen);
  z->f = NULL;
  z->seen = NULL;
  z->n = z->cap = z->nseen = z->seencap = 0;
}
