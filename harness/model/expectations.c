#include "harness/model/expectations.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness/base/mutant.h"
#include "harness/base/strbuf.h"
#include "harness/model/attempt_log.h"

const char *vc_exp_kind_name(vc_exp_kind k) {
  switch (k) {
  case VC_EXP_FAIL: return "fail";
  case VC_EXP_FLAKE: return "flake";
  case VC_EXP_SKIP: return "skip";
  }
  return "unknown";
}

int vc_today_utc(void) {
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  return (tm.tm_year + 1900) * 10000 + (tm.tm_mon + 1) * 100 + tm.tm_mday;
}

/* ---- the line scanner ---- */

typedef struct scanner {
  vc_expectations *e;
  const char *line; /* start of the current line */
  const char *p;
  uint32_t lineno;
  vc_error *err;
} scanner;

static int col(const scanner *s, const char *at) { return (int)(at - s->line) + 1; }

static int fail_at(const scanner *s, const char *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail_at(const scanner *s, const char *at, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return vc_fail(s->err, VC_ERR_PARSE, "%s:%u:%d: %s", s->e->file, s->lineno, col(s, at), msg);
}

static bool at_space(const char *p) { return *p == ' ' || *p == '\t' || *p == '\r'; }
static bool at_end(const char *p) { return *p == '\0' || *p == '\n' || *p == '#'; }

static void skip_space(scanner *s) {
  while (at_space(s->p)) s->p++;
}

/* A bare word: up to white space or the end of the line. */
static const char *word(scanner *s, const char **start) {
  *start = s->p;
  while (!at_space(s->p) && *s->p && *s->p != '\n') s->p++;
  return vc_arena_strndup(&s->e->arena, *start, (size_t)(s->p - *start));
}

/* "..." with \" and \\; s->p is at the opening quote. */
static int quoted(scanner *s, const char **out) {
  const char *open = s->p++;
  vc_strbuf sb;
  vc_sb_init(&sb);
  vc_sb_puts(&sb, "");
  for (;; s->p++) {
    if (*s->p == '\0' || *s->p == '\n') {
      vc_sb_free(&sb);
      return fail_at(s, open, "unterminated string");
    }
    if (*s->p == '"') break;
    if (*s->p == '\\') {
      if (s->p[1] != '"' && s->p[1] != '\\') {
        vc_sb_free(&sb);
        return fail_at(s, s->p, "unknown escape in a string (only \\\" and \\\\)");
      }
      s->p++;
    }
    vc_sb_putc(&sb, *s->p);
  }
  s->p++;
  *out = vc_arena_strdup(&s->e->arena, vc_sb_str(&sb));
  vc_sb_free(&sb);
  if (!at_space(s->p) && !at_end(s->p)) return fail_at(s, s->p, "expected a space after a string");
  return 0;
}

/* ---- fields ---- */

static int parse_date(const char *t, int *ymd) {
  static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (strlen(t) != 10 || t[4] != '-' || t[7] != '-') return -1;
  for (int i = 0; i < 10; i++)
    if (i != 4 && i != 7 && (t[i] < '0' || t[i] > '9')) return -1;
  int y = atoi(t), m = atoi(t + 5), d = atoi(t + 8);
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (m < 1 || m > 12 || d < 1 || d > mdays[m - 1] || (m == 2 && d == 29 && !leap)) return -1;
  *ymd = y * 10000 + m * 100 + d;
  return 0;
}

static int parse_kind(scanner *s, vc_expectation *x) {
  const char *at;
  const char *w = word(s, &at);
  if (strcmp(w, "fail") == 0)
    x->kind = VC_EXP_FAIL;
  else if (strcmp(w, "flake") == 0)
    x->kind = VC_EXP_FLAKE;
  else if (strcmp(w, "skip") == 0)
    x->kind = VC_EXP_SKIP;
  else
    return fail_at(s, at, "unknown status \"%s\"; expected fail, flake or skip", w);
  return 0;
}

static int parse_glob(scanner *s, const char *what, const char **out) {
  skip_space(s);
  if (at_end(s->p)) return fail_at(s, s->p, "missing the %s glob", what);
  const char *at;
  *out = word(s, &at);
  if (strchr(*out, '=')) return fail_at(s, at, "missing the %s glob before key=value pairs", what);
  return 0;
}

static bool has_glob_chars(const char *t) { return strpbrk(t, "*?[") != NULL; }

/* A status= without glob characters names a status that fails a run: an
   entry can excuse nothing else. */
static int check_status(scanner *s, const char *at, const char *v) {
  if (has_glob_chars(v)) return 0;
  int st = vc_status_from_name(v);
  if (st >= 0 && vc_status_is_failure((vc_status)st)) return 0;
  char names[256] = "";
  size_t u = 0;
  for (int i = 0; i < VC_STATUS_COUNT && u < sizeof names; i++)
    if (vc_status_is_failure((vc_status)i))
      u += (size_t)snprintf(names + u, sizeof names - u, "%s%s", u ? ", " : "",
                            vc_status_name((vc_status)i));
  return fail_at(s, at, "status=%s is not a failing status; expected one of %s", v, names);
}

static int check_class(scanner *s, const char *at, const char *v) {
  if (has_glob_chars(v) || vc_divclass_from_name(v) >= 0) return 0;
  char names[256] = "";
  size_t u = 0;
  for (int i = 0; i < VC_DIVCLASS_COUNT && u < sizeof names; i++)
    u += (size_t)snprintf(names + u, sizeof names - u, "%s%s", i ? ", " : "",
                          vc_divclass_name((vc_divclass)i));
  return fail_at(s, at, "class=%s is not a divergence class; expected one of %s", v, names);
}

static const char **key_slot(vc_expectation *x, const char *key, size_t n) {
  if (n == 7 && !strncmp(key, "backend", n)) return &x->backend;
  if (n == 6 && !strncmp(key, "device", n)) return &x->device;
  if (n == 6 && !strncmp(key, "driver", n)) return &x->driver;
  if (n == 7 && !strncmp(key, "expires", n)) return &x->expires_text;
  if (n == 6 && !strncmp(key, "reason", n)) return &x->reason;
  if (n == 6 && !strncmp(key, "status", n)) return &x->status;
  if (n == 4 && !strncmp(key, "note", n)) return &x->note;
  if (n == 6 && !strncmp(key, "buffer", n)) return &x->buffer;
  if (n == 5 && !strncmp(key, "class", n)) return &x->cls;
  return NULL;
}

static int parse_pair(scanner *s, vc_expectation *x) {
  const char *key = s->p;
  while (!at_space(s->p) && !at_end(s->p) && *s->p != '=') s->p++;
  char name[32];
  snprintf(name, sizeof name, "%.*s", (int)(s->p - key), key);
  if (*s->p != '=') return fail_at(s, key, "expected key=value, found \"%s\"", name);
  const char **slot = key_slot(x, key, (size_t)(s->p - key));
  if (!slot)
    return fail_at(s, key,
                   "unknown key \"%s\"; expected backend, device, driver, status, note, buffer, "
                   "class, expires or reason",
                   name);
  if (*slot) return fail_at(s, key, "%s is given twice", name);
  const char *value = ++s->p;
  int rc = 0;
  if (*s->p == '"')
    rc = quoted(s, slot);
  else
    *slot = word(s, &value);
  if (rc) return rc;
  if (!**slot && slot != &x->reason) return fail_at(s, value, "%s= needs a value", name);
  if (slot == &x->expires_text && parse_date(x->expires_text, &x->expires))
    return fail_at(s, value, "expires=%s is not a date YYYY-MM-DD", x->expires_text);
  if (slot == &x->status) return check_status(s, value, x->status);
  if (slot == &x->cls) return check_class(s, value, x->cls);
  return 0;
}

static int parse_entry(scanner *s, vc_expectation *x) {
  x->line = s->lineno;
  int rc = parse_kind(s, x);
  if (!rc) rc = parse_glob(s, "program", &x->program);
  if (!rc) rc = parse_glob(s, "mode", &x->mode);
  while (!rc) {
    skip_space(s);
    if (at_end(s->p)) break;
    rc = parse_pair(s, x);
  }
  if (!rc && (!x->reason || !x->reason[0]))
    rc = fail_at(s, s->p, "missing reason=\"...\": every entry says why");
  if (!rc && x->kind == VC_EXP_SKIP && (x->status || x->note || x->buffer || x->cls))
    rc = fail_at(s, s->line, "skip takes no status=, note=, buffer= or class=: a skipped program "
                             "has no result to scope");
  return rc;
}

/* ---- the file ---- */

static uint32_t count_lines(const char *text) {
  uint32_t n = 1;
  for (const char *p = text; *p; p++) n += *p == '\n';
  return n;
}

int vc_expectations_parse(const char *file, const char *text, vc_expectations *out, vc_error *err) {
  memset(out, 0, sizeof *out);
  vc_arena_init(&out->arena);
  out->file = vc_arena_strdup(&out->arena, file);
  out->items = vc_arena_alloc(&out->arena, count_lines(text) * sizeof *out->items);
  scanner s = {.e = out, .p = text, .err = err};
  int rc = 0;
  while (!rc && *s.p) {
    s.line = s.p;
    s.lineno++;
    skip_space(&s);
    if (!at_end(s.p)) {
      rc = parse_entry(&s, &out->items[out->n]);
      out->n++;
    }
    while (*s.p && *s.p != '\n') s.p++;
    if (*s.p) s.p++;
  }
  if (rc) vc_expectations_free(out);
  return rc;
}

int vc_expectations_load(const char *path, vc_expectations *out, vc_error *err) {
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "rb");
  if (!f)
    return vc_fail(err, VC_ERR_IO, "cannot read expectations file %s: %s", path, strerror(errno));
  vc_strbuf sb;
  vc_sb_init(&sb);
  vc_sb_puts(&sb, "");
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) vc_sb_putn(&sb, buf, n);
  int bad = ferror(f);
  fclose(f);
  int rc;
  if (bad)
    rc = vc_fail(err, VC_ERR_IO, "cannot read expectations file %s", path);
  else if (strlen(vc_sb_str(&sb)) != sb.len)
    rc = vc_fail(err, VC_ERR_PARSE, "%s: expectations file holds a NUL byte", path);
  else
    rc = vc_expectations_parse(path, vc_sb_str(&sb), out, err);
  vc_sb_free(&sb);
  return rc;
}

void vc_expectations_free(vc_expectations *e) {
  vc_arena_free(&e->arena);
  memset(e, 0, sizeof *e);
}

/* ---- matching ---- */

static bool glob(const char *pattern, const char *s) {
  return !pattern || fnmatch(pattern, s ? s : "", 0) == 0;
}

static bool driver_matches(const char *pattern, const vc_exp_config *cfg) {
  if (!pattern) return true;
  char both[300];
  snprintf(both, sizeof both, "%s %s", cfg->driver_name ? cfg->driver_name : "",
           cfg->driver_version ? cfg->driver_version : "");
  return glob(pattern, cfg->driver_name) || glob(pattern, cfg->driver_version) ||
         glob(pattern, both);
}

bool vc_expectation_applies(const vc_expectation *x, const vc_exp_config *cfg) {
  return glob(x->backend, cfg->backend) && glob(x->device, cfg->device_name) &&
         driver_matches(x->driver, cfg);
}

bool vc_expectation_expired(const vc_expectation *x, int today) {
  return x->expires && today > x->expires;
}

/* For the planted faults exp-program-prefix, exp-mode-literal and
   exp-note-literal: a pattern read as a prefix of the name, or as the name
   itself. */
static bool prefix(const char *pattern, const char *s) {
  return !pattern || strncmp(pattern, s ? s : "", strlen(pattern)) == 0;
}
static bool literal(const char *pattern, const char *s) {
  return !pattern || strcmp(pattern, s ? s : "") == 0;
}

bool vc_expectation_matches(const vc_expectation *x, const vc_exp_config *cfg, int today,
                            const char *program, const char *mode) {
  return !vc_expectation_expired(x, today) &&
         (VC_MUTANT(EXP_PROGRAM_PREFIX) ? prefix(x->program, program) : glob(x->program, program)) &&
         (VC_MUTANT(EXP_MODE_LITERAL) ? literal(x->mode, mode) : glob(x->mode, mode)) &&
         vc_expectation_applies(x, cfg);
}

const vc_expectation *vc_expectations_match(const vc_expectations *e, const vc_exp_config *cfg,
                                            int today, const char *program, const char *mode) {
  for (uint32_t i = 0; e && i < e->n; i++)
    if (vc_expectation_matches(&e->items[i], cfg, today, program, mode)) return &e->items[i];
  return NULL;
}

const vc_expectation *vc_expectations_match_kind(const vc_expectations *e, const vc_exp_config *cfg,
                                                 int today, const char *program, const char *mode,
                                                 vc_exp_kind kind) {
  for (uint32_t i = 0; e && i < e->n; i++)
    if (e->items[i].kind == kind &&
        vc_expectation_matches(&e->items[i], cfg, today, program, mode))
      return &e->items[i];
  return NULL;
}

/* An entry of one of `kinds` (a mask of 1u << vc_exp_kind) for this
   program, mode and status. */
static bool may_cover(const vc_expectation *x, unsigned kinds, const vc_exp_config *cfg,
                      int today, const char *program, const vc_result *r) {
  return (kinds & (1u << x->kind)) && vc_expectation_matches(x, cfg, today, program, r->mode) &&
         glob(x->status, vc_status_name(r->status)) &&
         (VC_MUTANT(EXP_NOTE_LITERAL) ? literal(x->note, r->reason) : glob(x->note, r->reason));
}

static const vc_expectation *cover_div(const vc_expectations *e, unsigned kinds,
                                       const vc_exp_config *cfg, int today, const char *program,
                                       const vc_result *r, const vc_divergence *d) {
  for (uint32_t i = 0; i < e->n; i++) {
    const vc_expectation *x = &e->items[i];
    if (may_cover(x, kinds, cfg, today, program, r) && glob(x->buffer, d->buffer) &&
        glob(x->cls, vc_divclass_name(d->cls)))
      return x;
  }
  return NULL;
}

static const vc_expectation *cover(const vc_expectations *e, unsigned kinds,
                                   const vc_exp_config *cfg, int today, const char *program,
                                   const vc_result *r) {
  if (!e) return NULL;
  const vc_expectation *first = NULL;
  bool any_div = false;
  for (uint32_t k = 0; k < r->ndivs; k++) {
    if (r->divs[k].cls == VC_DIV_NAN_PAYLOAD) continue; /* allowed, never a failure */
    const vc_expectation *x = cover_div(e, kinds, cfg, today, program, r, &r->divs[k]);
    if (!x) return NULL;
    if (!first) first = x;
    any_div = true;
  }
  if (any_div) return first;
  for (uint32_t i = 0; i < e->n; i++) {
    const vc_expectation *x = &e->items[i];
    if (may_cover(x, kinds, cfg, today, program, r) && !x->buffer && !x->cls) return x;
  }
  return NULL;
}

const vc_expectation *vc_expectations_cover(const vc_expectations *e, const vc_exp_config *cfg,
                                            int today, const char *program, const vc_result *r) {
  return cover(e, 1u << VC_EXP_FAIL | 1u << VC_EXP_FLAKE, cfg, today, program, r);
}

const vc_expectation *vc_expectations_cover_kind(const vc_expectations *e,
                                                 const vc_exp_config *cfg, int today,
                                                 const char *program, const vc_result *r,
                                                 vc_exp_kind kind) {
  return cover(e, 1u << kind, cfg, today, program, r);
}

/* Failed attempt k of flake result r as a result of its own: its status and
   reason from the attempt log, its divergences from attempt_divs (into
   divs, which has room for all of them). */
static void failed_attempt(const vc_result *r, const vc_attempt_entry *at, vc_divergence *divs,
                           vc_result *t) {
  memset(t, 0, sizeof *t);
  t->mode = r->mode;
  t->status = at->status;
  snprintf(t->reason, sizeof t->reason, "%s", at->reason);
  t->divs = divs;
  for (uint32_t k = 0; k < r->nattempt_divs; k++)
    if (r->attempt_divs[k].attempt == at->attempt) divs[t->ndivs++] = r->attempt_divs[k];
}

const vc_expectation *vc_expectations_cover_flake(const vc_expectations *e,
                                                  const vc_exp_config *cfg, int today,
                                                  const char *program, const vc_result *r) {
  if (!e || r->status != VC_ST_FLAKE) return NULL;
  vc_attempt_entry *at = malloc(VC_EXP_MAX_ATTEMPTS * sizeof *at);
  vc_divergence *divs = malloc((r->nattempt_divs ? r->nattempt_divs : 1) * sizeof *divs);
  if (!at || !divs) abort();
  uint32_t n = vc_attempt_log_parse(r->attempt_log, at, VC_EXP_MAX_ATTEMPTS);
  const vc_expectation *first = NULL;
  bool any = false, all = true;
  for (uint32_t k = 0; k < n && all; k++) {
    if (!vc_status_is_failure(at[k].status)) continue;
    vc_result t;
    failed_attempt(r, &at[k], divs, &t);
    const vc_expectation *x = cover(e, 1u << VC_EXP_FLAKE, cfg, today, program, &t);
    all = x != NULL;
    if (!first) first = x;
    any = true;
  }
  free(at);
  free(divs);
  if (!all) return NULL;
  if (any) return first;
  /* an attempt log that names no failure (cut, or from an older file): only
     an entry about the program and mode alone speaks for it */
  for (uint32_t i = 0; i < e->n; i++) {
    const vc_expectation *x = &e->items[i];
    if (x->kind == VC_EXP_FLAKE && !x->status && !x->note && !x->buffer && !x->cls &&
        vc_expectation_matches(x, cfg, today, program, r->mode))
      return x;
  }
  return NULL;
}
