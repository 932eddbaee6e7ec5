/* vyre-conform check PATH...: parse, validate, oracle, split-on-oracle and
 * golden digests, one line per program, no device needed. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli/args.h"
#include "harness/exec/check.h"
#include "harness/cli/commands.h"
#include "harness/lang/corpus.h"
#include "harness/base/exitcodes.h"
#include "harness/lang/parse.h"
#include "harness/base/strbuf.h"

static const char help[] =
    "usage: vyre-conform check [options] PATH...\n"
    "\n"
    "For every program: parse and validate it, run the CPU oracle (which\n"
    "refuses out-of-bounds accesses, data races, reads of uninitialised\n"
    "workgroup memory and divergent workgroup barriers), split it, check that\n"
    "the plan has one segment more than the source has grid barriers, show that\n"
    "the comparison reports a bit flipped in the program's first and last output\n"
    "elements, run the split plan on the oracle in host-split and resident-split\n"
    "mode and compare every byte with the unsplit run (split-on-oracle), check\n"
    "the traffic and launches the plan predicts, and verify the program's golden\n"
    "output digest and its (expect (passes N)) and (expect (converges)).\n"
    "Programs with (expect reject \"...\") pass when refused with that text.\n"
    "\n"
    "  --filter GLOB        only programs whose name or relative path matches\n"
    "  --exclude-tag T      leave out programs tagged T (repeatable)\n"
    "  --oracle-order O     forward, reverse or shuffle:SEED (forward)\n"
    "  --require-digests    a program without (expect (digest ...)) fails\n"
    "  --write-digests      write the oracle's digest into each program file\n"
    "                       (inserted before (entry, or replacing the old one)\n"
    "  --quiet              print only failures and the summary\n"
    "\n"
    "Exit status: 0 all passed; 1 a check failed; 2 usage error; 4 a file could\n"
    "not be read or parsed.\n";

int vc_parse_oracle_order(const char *s, vc_oracle_opts *o, vc_error *err);

typedef struct check_opts {
  vc_oracle_opts oracle;
  const char *const *exclude;
  uint32_t nexclude;
  bool require_digests, write_digests, quiet;
} check_opts;

typedef struct outcome {
  int status; /* VC_EXIT_OK, VC_EXIT_FAIL or VC_EXIT_INPUT */
  char line[2048];
} outcome;

static void set(outcome *o, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set(outcome *o, int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(o->line, sizeof o->line, fmt, ap);
  va_end(ap);
  o->status = status;
}

/* Replaces the hex of an existing (expect (digest "...")) or inserts the
   form on its own line before (entry, keeping the file otherwise as it is. */
static int write_digest(const char *path, const char *hex, vc_error *err) {
  FILE *f = fopen(path, "rb");
  if (!f) return vc_fail(err, VC_ERR_IO, "cannot read %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = malloc((size_t)n + 1);
  if (!text || fread(text, 1, (size_t)n, f) != (size_t)n) {
    fclose(f);
    free(text);
    return vc_fail(err, VC_ERR_IO, "cannot read %s", path);
  }
  fclose(f);
  text[n] = '\0';
  vc_strbuf out;
  vc_sb_init(&out);
  const char *old = strstr(text, "(expect (digest \"");
  if (old) {
    const char *h = old + strlen("(expect (digest \"");
    vc_sb_putn(&out, text, (size_t)(h - text));
    vc_sb_puts(&out, hex);
    const char *q = strchr(h, '"');
    vc_sb_puts(&out, q ? q : "\"))");
  } else {
    const char *entry = strstr(text, "(entry");
    if (!entry) {
      free(text);
      return vc_fail(err, VC_ERR_PARSE, "%s: no (entry to place the digest before", path);
    }
    const char *line = entry;
    while (line > text && line[-1] != '\n') line--;
    vc_sb_putn(&out, text, (size_t)(line - text));
    vc_sb_putn(&out, line, (size_t)(entry - line)); /* the indentation */
    vc_sb_printf(&out, "(expect (digest \"%s\"))\n", hex);
    vc_sb_puts(&out, line);
  }
  free(text);
  f = fopen(path, "wb");
  int bad = !f || fwrite(out.data, 1, out.len, f) != out.len;
  if (f && fclose(f)) bad = 1;
  vc_sb_free(&out);
  return bad ? vc_fail(err, VC_ERR_IO, "cannot write %s", path) : 0;
}

static void check_program(const char *path, const check_opts *co, outcome *out) {
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = vc_parse_file(path, &d);
  if (!p) {
    if (d.expect_reject && vc_diags_contain(&d, d.expect_reject)) {
      set(out, VC_EXIT_OK, "ok    %s: refused as expected: %s", path, d.items[0].msg);
    } else {
      vc_diags_print(&d, stderr);
      set(out, VC_EXIT_INPUT, "FAIL  %s: %u error%s", path, d.count, d.count == 1 ? "" : "s");
    }
    vc_diags_free(&d);
    return;
  }
  vc_diags_free(&d);
  for (uint32_t i = 0; i < co->nexclude; i++)
    if (vc_program_has_tag(p, co->exclude[i])) {
      set(out, VC_EXIT_OK, "skip  %s: tagged %s", path, co->exclude[i]);
      vc_program_free(p);
      return;
    }
  vc_check_result r;
  vc_check_program(p, &co->oracle, &r);
  const vc_expect *reject = vc_program_expect(p, VC_EXPECT_REJECT);
  const vc_expect *golden = vc_program_expect(p, VC_EXPECT_DIGEST);
  vc_error e;
  vc_error_clear(&e);
  const char *note = "";
  if (r.verdict == VC_CHECK_INVALID) {
    if (reject && strstr(r.why, reject->text))
      set(out, VC_EXIT_OK, "ok    %s: refused as expected: %s", path, r.why);
    else
      set(out, VC_EXIT_FAIL, "FAIL  %s: invalid: %s", path, r.why);
  } else if (reject) {
    set(out, VC_EXIT_FAIL, "FAIL  %s: expected a refusal containing \"%s\", but it is valid", path,
        reject->text);
  } else if (r.verdict == VC_CHECK_FAILED) {
    set(out, VC_EXIT_FAIL, "FAIL  %s: %s", path, r.why);
  } else if (co->write_digests && (!golden || strcmp(golden->text, r.digest) != 0) &&
             write_digest(path, r.digest, &e)) {
    set(out, VC_EXIT_FAIL, "FAIL  %s: %s", path, e.msg);
  } else if (!co->write_digests && golden && strcmp(golden->text, r.digest) != 0) {
    set(out, VC_EXIT_FAIL, "FAIL  %s: oracle output digest %s differs from the golden %s", path,
        r.digest, golden->text);
  } else if (!co->write_digests && !golden && co->require_digests) {
    set(out, VC_EXIT_FAIL, "FAIL  %s: no (expect (digest ...)); the oracle's is %s", path,
        r.digest);
  } else {
    if (co->write_digests && (!golden || strcmp(golden->text, r.digest) != 0))
      note = ", digest written";
    else if (!golden)
      note = ", no golden digest";
    const char *conv = p->fixpoint.present && p->fixpoint.has_flag && !r.report.converged
                           ? ", did not converge"
                           : "";
    set(out, VC_EXIT_OK,
        "ok    %s: %u segment%s, %u spill%s, %u recomputed, %u pass%s%s, %llu ops%s", path,
        r.segments, r.segments == 1 ? "" : "s", r.spills, r.spills == 1 ? "" : "s", r.recomputed,
        r.report.passes, r.report.passes == 1 ? "" : "es", conv, (unsigned long long)r.report.ops,
        note);
  }
  vc_program_free(p);
}

int vc_cmd_check(int argc, char **argv) {
  if (vc_wants_help(argc, argv)) {
    fputs(help, stdout);
    return VC_EXIT_OK;
  }
  vc_opt opts[] = {VC_OPT("filter", true, false),         VC_OPT("exclude-tag", true, true),
                   VC_OPT("oracle-order", true, false),   VC_OPT("require-digests", false, false),
                   VC_OPT("write-digests", false, false), VC_OPT("quiet", false, false)};
  const uint32_t nopts = sizeof opts / sizeof opts[0];
  vc_args a;
  vc_error e;
  vc_error_clear(&e);
  check_opts co;
  memset(&co, 0, sizeof co);
  if (vc_args_parse(argc, argv, opts, nopts, &a, &e)) goto usage;
  vc_opt *o;
  if ((o = vc_args_get(opts, nopts, "oracle-order")) &&
      vc_parse_oracle_order(o->value, &co.oracle, &e))
    goto usage;
  co.require_digests = vc_args_get(opts, nopts, "require-digests") != NULL;
  co.write_digests = vc_args_get(opts, nopts, "write-digests") != NULL;
  co.quiet = vc_args_get(opts, nopts, "quiet") != NULL;
  if ((o = vc_args_get(opts, nopts, "exclude-tag"))) {
    co.exclude = o->values;
    co.nexclude = o->count;
  }
  if (!a.npos) {
    vc_fail(&e, VC_ERR_USAGE, "no PATH given");
    goto usage;
  }
  vc_corpus c;
  if (vc_corpus_collect(&c, a.pos, a.npos, &e)) {
    fprintf(stderr, "vyre-conform: %s\n", e.msg);
    vc_corpus_free(&c);
    vc_args_free(opts, nopts, &a);
    return VC_EXIT_INPUT;
  }
  if ((o = vc_args_get(opts, nopts, "filter"))) vc_corpus_filter(&c, o->value);
  uint32_t failed = 0, bad_input = 0;
  for (uint32_t i = 0; i < c.n; i++) {
    outcome out;
    memset(&out, 0, sizeof out);
    check_program(c.files[i].path, &co, &out);
    if (out.status != VC_EXIT_OK || !co.quiet) printf("%s\n", out.line);
    fflush(stdout);
    failed += out.status == VC_EXIT_FAIL;
    bad_input += out.status == VC_EXIT_INPUT;
  }
  printf("%u program%s checked, %u failed, %u unreadable or malformed\n", c.n, c.n == 1 ? "" : "s",
         failed, bad_input);
  vc_corpus_free(&c);
  vc_args_free(opts, nopts, &a);
  return failed ? VC_EXIT_FAIL : bad_input ? VC_EXIT_INPUT : VC_EXIT_OK;
usage:
  vc_args_free(opts, nopts, &a);
  return vc_usage_error("check", e.msg);
}
