/* The reduction loop (reduce.h): passes of edits, biggest first, each to a
 * fixpoint, repeated until a whole round keeps nothing. */
#include "harness/reduce/reduce.h"

#include <stdlib.h>
#include <string.h>

#include "harness/base/clock.h"
#include "harness/base/sha256.h"
#include "harness/base/strbuf.h"
#include "harness/lang/parse.h"
#include "harness/lang/read.h"
#include "harness/reduce/edit.h"
#include "harness/reduce/probe.h"

static void count_stmts(const vc_node *n, vc_reduce_size *s) {
  for (uint32_t i = 0; i < n->nkids; i++) {
    const vc_node *k = n->kids[i];
    if (!k || vc_node_is_expr(k)) continue;
    s->statements++;
    if (k->kind == VC_S_BARRIER && k->op == VC_BARRIER_GRID) s->segments++;
    count_stmts(k, s);
  }
}

void vc_reduce_size_of(const vc_program *p, vc_reduce_size *s) {
  memset(s, 0, sizeof *s);
  s->segments = 1;
  if (p->entry) count_stmts(p->entry, s);
  s->buffers = p->nbuffers;
  s->invocations = vc_program_invocations(p);
}

/* Texts already tried and refused: a later round meets most of them
   again, in the parts of the program that did not change. */
typedef struct seen_set {
  uint64_t *keys;
  size_t n, cap; /* cap a power of two */
} seen_set;

static uint64_t text_key(const char *t, size_t n) {
  vc_sha256 h;
  uint8_t d[32];
  vc_sha256_init(&h);
  vc_sha256_update(&h, t, n);
  vc_sha256_final(&h, d);
  uint64_t k = 0;
  for (int i = 0; i < 8; i++) k = k << 8 | d[i];
  return k ? k : 1;
}

/* true when key was there; else adds it */
static bool seen_add(seen_set *s, uint64_t key) {
  if (2 * (s->n + 1) > s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 1024;
    uint64_t *k = calloc(cap, sizeof *k);
    if (!k) abort();
    for (size_t i = 0; i < s->cap; i++)
      if (s->keys[i]) {
        size_t j = s->keys[i] & (cap - 1);
        while (k[j]) j = (j + 1) & (cap - 1);
        k[j] = s->keys[i];
      }
    free(s->keys);
    s->keys = k;
    s->cap = cap;
  }
  size_t j = key & (s->cap - 1);
  while (s->keys[j]) {
    if (s->keys[j] == key) return true;
    j = (j + 1) & (s->cap - 1);
  }
  s->keys[j] = key;
  s->n++;
  return false;
}

typedef struct reducer {
  const vc_reduce_opts *o;
  vc_probe_device dev;
  vc_mode mode; /* the mode the signature is of (device) */
  vc_reduce_sig sig;
  vc_reduce_result *r;
  seen_set seen;
  vc_error *err;
  int fatal; /* a device that cannot be started again ends the reduction */
} reducer;

/* What --check reduces: a wrong result, or a plan the validator refuses. */
static bool check_fails(vc_check_verdict v) {
  return v == VC_CHECK_FAILED || v == VC_CHECK_INTERNAL;
}

/* Judges the program p (text t): 1 when it fails with the signature. */
static bool interesting(reducer *x, const vc_program *p, const char *t) {
  vc_probe_oracle po;
  vc_probe_oracle_run(p, x->o, x->o->check, &po);
  vc_reduce_sig s;
  if (x->o->check) {
    if (po.status == VC_PROBE_INVALID) return false;
    x->r->ran++; /* checked: valid, or the check died on it */
    if (po.status == VC_PROBE_DIED)
      vc_reduce_sig_of_death(po.timed_out, po.died_sig, &s);
    else if (check_fails(po.r.verdict))
      vc_reduce_sig_of_check(&po.r, &s);
    else
      return false;
    return vc_reduce_sig_equal(&s, &x->sig);
  }
  if (po.status != VC_PROBE_VALID) return false;
  x->r->ran++;
  if (vc_probe_device_run(&x->dev, t, &x->mode, 1, &s, x->err)) {
    x->fatal = 1;
    return false;
  }
  return vc_reduce_sig_equal(&s, &x->sig);
}

/* The original's signature: the first failing mode's, or the check's. */
static int original(reducer *x, const vc_program *p, const char *t) {
  vc_reduce_result *r = x->r;
  vc_probe_oracle po;
  vc_probe_oracle_run(p, x->o, x->o->check, &po);
  if (x->o->check) {
    if (po.status == VC_PROBE_DIED) {
      vc_reduce_sig_of_death(po.timed_out, po.died_sig, &x->sig);
      return 0;
    }
    if (po.status == VC_PROBE_VALID && check_fails(po.r.verdict)) {
      vc_reduce_sig_of_check(&po.r, &x->sig);
      return 0;
    }
    r->nothing = true;
    snprintf(r->nothing_why, sizeof r->nothing_why, "%s",
             po.status == VC_PROBE_VALID ? "the check passes" : po.r.why);
    return 0;
  }
  if (po.status != VC_PROBE_VALID) {
    r->nothing = true;
    snprintf(r->nothing_why, sizeof r->nothing_why, "the oracle refuses the program: %.200s",
             po.status == VC_PROBE_DIED ? "its check died" : po.r.why);
    return 0;
  }
  vc_reduce_sig sigs[VC_MODE_COUNT];
  const vc_conform_opts *co = &x->o->conform;
  if (vc_probe_device_run(&x->dev, t, co->modes, co->nmodes, sigs, x->err)) return -1;
  for (uint32_t i = 0; i < co->nmodes; i++)
    if (vc_status_is_failure(sigs[i].status)) {
      x->mode = co->modes[i];
      x->sig = sigs[i];
      return 0;
    }
  r->nothing = true;
  snprintf(r->nothing_why, sizeof r->nothing_why, "no selected mode fails on %s", x->o->backend);
  return 0;
}

/* A doc string on one line, as the format wants. */
static void one_line(char *s) {
  for (; *s; s++)
    if ((unsigned char)*s < 0x20) *s = ' ';
}

int vc_reduce(const char *path, const char *text, size_t len, const vc_reduce_opts *o,
              vc_reduce_result *r, vc_error *err) {
  memset(r, 0, sizeof *r);
  uint64_t t0 = vc_now_ns();
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = vc_parse(path, text, len, &d);
  if (!p) {
    int rc = d.count ? vc_fail(err, VC_ERR_PARSE, "%s:%u:%u: %s", d.items[0].file,
                               d.items[0].loc.line, d.items[0].loc.col, d.items[0].msg)
                     : vc_fail(err, VC_ERR_PARSE, "%s: not a program", path);
    vc_diags_free(&d);
    return rc;
  }
  vc_diags_free(&d);
  vc_reduce_size_of(p, &r->before);
  reducer x;
  memset(&x, 0, sizeof x);
  x.o = o;
  x.r = r;
  x.err = err;
  int rc = 0;
  if (!o->check && (rc = vc_probe_device_start(&x.dev, o, err))) goto out;
  if ((rc = original(&x, p, text)) || r->nothing) goto out;
  r->sig = x.sig;

  vc_strbuf cur;
  vc_sb_init(&cur);
  vc_sb_putn(&cur, text, len);
  vc_arena a;
  vc_arena_init(&a);
  vc_sx_file file;
  vc_diags rd;
  vc_diags_init(&rd);
  vc_read(&a, path, cur.data, cur.len, &rd, &file);
  vc_edits edits = {0};
  vc_strbuf cand;
  vc_sb_init(&cand);
  if (!file.well_formed || file.n != 1) { /* the parser took it: cannot happen */
    rc = vc_fail(err, VC_ERR_INTERNAL, "%s: not one form to reduce", path);
    goto free_all;
  }
  /* First, once: without its claims about its outputs (digest, values,
     passes), which the check holds it to and every smaller program breaks. */
  if (vc_edit_has_claims(file.forms[0])) {
    vc_edit claims;
    memset(&claims, 0, sizeof claims);
    claims.kind = VC_EDIT_CLAIMS;
    claims.pass = VC_PASS_DROP;
    claims.at = file.forms[0];
    vc_edit_print(file.forms[0], &claims, NULL, &cand);
    vc_diags cd;
    vc_diags_init(&cd);
    vc_program *c = vc_parse(path, cand.data, cand.len, &cd);
    vc_diags_free(&cd);
    if (c) r->parsed++;
    if (c && interesting(&x, c, vc_sb_str(&cand))) {
      r->steps++;
      if (o->log)
        fprintf(o->log, "step %u  claims  the expectations about outputs dropped\n", r->steps);
      vc_strbuf t = cur;
      cur = cand;
      cand = t;
      vc_diags_free(&rd);
      vc_diags_init(&rd);
      vc_arena_free(&a);
      vc_arena_init(&a);
      vc_read(&a, path, cur.data, cur.len, &rd, &file);
    }
    vc_program_free(c);
  }
  bool changed = true;
  while (changed && !x.fatal) {
    changed = false;
    for (int pass = 0; pass < VC_PASS_COUNT && !x.fatal; pass++) {
      vc_edits_of(file.forms[0], (vc_edit_pass)pass, &edits);
      for (uint32_t i = 0; i < edits.n && !x.fatal;) {
        cand.len = 0;
        vc_edit_print(file.forms[0], &edits.items[i], NULL, &cand);
        if (seen_add(&x.seen, text_key(cand.data, cand.len))) {
          i++;
          continue;
        }
        vc_diags cd;
        vc_diags_init(&cd);
        vc_program *c = vc_parse(path, cand.data, cand.len, &cd);
        vc_diags_free(&cd);
        if (c) r->parsed++;
        if (!c || !interesting(&x, c, vc_sb_str(&cand))) {
          vc_program_free(c);
          i++;
          continue;
        }
        /* kept: the candidate becomes the program; the same place is tried
           again with the edits of the new tree */
        r->steps++;
        vc_reduce_size sz;
        vc_reduce_size_of(c, &sz);
        vc_program_free(c);
        if (o->log)
          fprintf(o->log,
                  "step %u  %-7s statements %u, buffers %u, segments %u, invocations %llu\n",
                  r->steps, vc_edit_pass_name((vc_edit_pass)pass), sz.statements, sz.buffers,
                  sz.segments, (unsigned long long)sz.invocations);
        vc_strbuf t = cur;
        cur = cand;
        cand = t;
        vc_diags_free(&rd);
        vc_diags_init(&rd);
        vc_arena_free(&a);
        vc_arena_init(&a);
        vc_read(&a, path, cur.data, cur.len, &rd, &file);
        vc_edits_of(file.forms[0], (vc_edit_pass)pass, &edits);
        changed = true;
      }
    }
  }
  rc = x.fatal ? x.err->code : 0;
  if (!rc) {
    char sig[512], doc[1024];
    vc_reduce_sig_text(&x.sig, sig, sizeof sig);
    snprintf(doc, sizeof doc, "reduced from %s by vyre-conform reduce%s%s; keeps: %s",
             o->origin ? o->origin : path, o->check ? " --check" : " on ",
             o->check ? "" : o->backend, sig);
    one_line(doc);
    cand.len = 0;
    vc_edit_print(file.forms[0], NULL, doc, &cand);
    vc_diags cd;
    vc_diags_init(&cd);
    vc_program *c = vc_parse(path, cand.data, cand.len, &cd);
    vc_diags_free(&cd);
    if (c) {
      vc_reduce_size_of(c, &r->after);
      r->text = vc_sb_take(&cand);
    } else {
      /* cannot happen: the tree printed without an edit is the kept program */
      rc = vc_fail(err, VC_ERR_INTERNAL, "the reduced program does not parse with its doc");
    }
    vc_program_free(c);
  }
free_all:
  vc_sb_free(&cand);
  vc_edits_free(&edits);
  vc_diags_free(&rd);
  vc_arena_free(&a);
  vc_sb_free(&cur);
out:
  if (!o->check) vc_probe_device_stop(&x.dev);
  free(x.seen.keys);
  vc_program_free(p);
  r->wall_ns = vc_now_ns() - t0;
  return rc;
}

void vc_reduce_result_free(vc_reduce_result *r) {
  free(r->text);
  r->text = NULL;
}
