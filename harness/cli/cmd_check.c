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
#include "harness/base/clock.h"
#include "harness/base/exitcodes.h"
#include "harness/base/plural.h"
#include "harness/lang/parse.h"
#include "harness/lang/read.h"
#include "harness/base/strbuf.h"

static const char help[] =
    "usage: vyre-conform check [options] PATH...\n"
    "\n"
    "For every program: parse and validate it, run the CPU oracle (which\n"
    "refuses out-of-bounds accesses, data races, reads of uninitialised\n"
    "workgroup memory and divergent workgroup barriers), split it, validate the\n"
    "plan (no grid barrier inside a segment, every touched buffer bound with the\n"
    "access its use needs, spill slots written before read and as wide as their\n"
    "values, recomputed lets' operands at hand, one segment more than the source\n"
    "has grid barriers: docs/splitter.md, section 7), show that\n"
    "the comparison reports a bit flipped in the program's first and last output\n"
    "elements, run the split plan on the oracle in host-split and resident-split\n"
    "mode and compare every byte with the unsplit run (split-on-oracle), check\n"
    "the traffic and launches the plan predicts, and verify the program's golden\n"
    "output digest and its (expect (passes N)) and (expect (converges)).\n"
    "Programs with (expect reject \"...\") pass when refused with that text.\n"
    "\n"
    "  --filter GLOB        only programs whose name or relative path matches (one\n"
    "                       that matches none is a usage error)\n"
    "  --exclude-tag T      leave out programs tagged T (repeatable)\n"
    "  --oracle-order O     forward, reverse or shuffle:SEED (forward)\n"
    "  --timeout S          seconds per program before its oracle runs are stopped\n"
    "                       and it fails, reported TIME with the phase it was in;\n"
    "                       the next programs are still checked (600)\n"
    "  --max-memory BYTES   refuse (unsupported) a program whose oracle runs need\n"
    "                       more memory than this (default: the memory free now,\n"
    "                       MemAvailable of /proc/meminfo; 0: no budget)\n"
    "  --require-digests    a program without (expect (digest ...)) fails\n"
    "  --write-digests      write the oracle's digest into each program file\n"
    "                       (replacing the old one's hex, or inserted before\n"
    "                       (entry; no other byte of the file changes, and a\n"
    "                       file where that cannot be done is refused)\n"
    "  --quiet              print only failures, unsupported programs and the\n"
    "                       summary\n"
    "\n"
    "A program over a limit of the harness (a spilled value with more than 2^28\n"
    "invocations) or of this machine (--max-memory) is not checked: its line\n"
    "says \"not checked: unsupported\", naming the limit, and the summary counts\n"
    "it apart from the programs checked.\n"
    "\n"
    "A plan the validator refuses is a bug of the splitter, not of the program:\n"
    "its line is \"FAIL  PATH: plan validator: RULE: ...\", and check exits 7.\n"
    "\n"
    "Exit status: 0 all passed; 1 a check failed; 2 usage error (a --filter\n"
    "that matches no program included); 4 a file could not be read or parsed;\n"
    "7 the plan validator refused a plan (a harness bug; before 4 and 1).\n";

int vc_parse_oracle_order(const char *s, vc_oracle_opts *o, vc_error *err);

typedef struct check_opts {
  vc_oracle_opts oracle;
  uint32_t timeout_s;
  const char *const *exclude;
  uint32_t nexclude;
  bool require_digests, write_digests, quiet;
} check_opts;

typedef struct outcome {
  int status; /* VC_EXIT_OK, VC_EXIT_FAIL, VC_EXIT_INPUT or VC_EXIT_INTERNAL */
  bool unsupported; /* not checked: over a limit of the harness or this machine */
  bool timed_out;   /* stopped at --timeout (counted among the failed) */
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

/* The byte offset of a reader location: lines end at '\n', and a column
   counts characters (UTF-8 continuation bytes take none), as the lexer
   counts them. */
static bool offset_of(const char *t, size_t n, vc_loc loc, size_t *off) {
  uint32_t line = 1, col = 1;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)t[i];
    if ((c & 0xC0) == 0x80) continue;
    if (line == loc.line && col == loc.col) {
      *off = i;
      return true;
    }
    if (c == '\n') {
      line++;
      col = 1;
    } else {
      col++;
    }
  }
  return false;
}

/* Where the digest goes in the file's text: `at` bytes are replaced by
   `with` from offset `off`. */
typedef struct digest_edit {
  size_t off, at;
  char with[160];
} digest_edit;

static const vc_sx *digest_string(const vc_sx *form) {
  if (form->kind != VC_SX_LIST || strcmp(vc_sx_head(form), "expect") != 0 || form->n != 2)
    return NULL;
  const vc_sx *d = form->items[1];
  if (d->kind != VC_SX_LIST || strcmp(vc_sx_head(d), "digest") != 0 || d->n != 2 ||
      d->items[1]->kind != VC_SX_STRING)
    return NULL;
  return d->items[1];
}

/* Finds the place from the reader's tree (never by searching the text, where
   a doc string may hold "(entry" or "(expect (digest"): the hex of an
   existing digest, or else just before (entry: on a line of its own when
   (entry begins its line, else on the same line. */
static int plan_digest_edit(const char *path, const char *t, size_t n, const char *hex,
                            digest_edit *ed, vc_error *err) {
  vc_arena a;
  vc_arena_init(&a);
  vc_diags d;
  vc_diags_init(&d);
  vc_sx_file file;
  vc_read(&a, path, t, n, &d, &file);
  int rc = 0;
  const vc_sx *prog = file.well_formed && file.n == 1 && !d.count ? file.forms[0] : NULL;
  if (!prog || strcmp(vc_sx_head(prog), "program") != 0) {
    rc = vc_fail(err, VC_ERR_PARSE, "%s: the file is not one well-formed (program ...) form; "
                 "digest not written", path);
    goto done;
  }
  const vc_sx *entry = NULL, *old = NULL;
  for (uint32_t i = 2; i < prog->n; i++) {
    if (!old) old = digest_string(prog->items[i]);
    if (!entry && strcmp(vc_sx_head(prog->items[i]), "entry") == 0) entry = prog->items[i];
  }
  size_t off;
  if (old) {
    if (!offset_of(t, n, old->loc, &off) || t[off] != '"' || n - off < 66 || t[off + 65] != '"' ||
        old->len != 64) {
      rc = vc_fail(err, VC_ERR_PARSE, "%s:%u:%u: the old digest is not 64 plain hex digits "
                   "between quotes; digest not written", path, old->loc.line, old->loc.col);
      goto done;
    }
    ed->off = off + 1;
    ed->at = 64;
    snprintf(ed->with, sizeof ed->with, "%s", hex);
    goto done;
  }
  if (!entry || !offset_of(t, n, entry->loc, &off) || t[off] != '(') {
    rc = vc_fail(err, VC_ERR_PARSE, "%s: cannot find where (entry begins; digest not written",
                 path);
    goto done;
  }
  size_t line = off;
  while (line > 0 && (t[line - 1] == ' ' || t[line - 1] == '\t')) line--;
  ed->at = 0;
  if (line == 0 || t[line - 1] == '\n') {
    /* the indentation of (entry, the form, and the file's own line ending */
    const char *eol = line >= 2 && t[line - 2] == '\r' ? "\r\n" : "\n";
    ed->off = line;
    snprintf(ed->with, sizeof ed->with, "%.*s(expect (digest \"%s\"))%s", (int)(off - line),
             t + line, hex, eol);
  } else {
    ed->off = off;
    snprintf(ed->with, sizeof ed->with, "(expect (digest \"%s\")) ", hex);
  }
done:
  vc_diags_free(&d);
  vc_arena_free(&a);
  return rc;
}

/* Replaces the hex of an existing (expect (digest "...")) or inserts the
   form before (entry; every other byte of the file stays as it was. The
   edited text must parse to a program holding the new digest before it
   replaces the file; otherwise the file is left untouched, with the reason. */
static int write_digest(const char *path, const char *hex, vc_error *err) {
  FILE *f = fopen(path, "rb");
  if (!f) return vc_fail(err, VC_ERR_IO, "cannot read %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (!text || fread(text, 1, (size_t)n, f) != (size_t)n) {
    fclose(f);
    free(text);
    return vc_fail(err, VC_ERR_IO, "cannot read %s", path);
  }
  fclose(f);
  text[n] = '\0';
  digest_edit ed;
  int rc = plan_digest_edit(path, text, (size_t)n, hex, &ed, err);
  vc_strbuf out;
  vc_sb_init(&out);
  if (!rc) {
    vc_sb_putn(&out, text, ed.off);
    vc_sb_puts(&out, ed.with);
    vc_sb_putn(&out, text + ed.off + ed.at, (size_t)n - ed.off - ed.at);
    vc_diags d;
    vc_diags_init(&d);
    vc_program *p = vc_parse(path, out.data, out.len, &d);
    const vc_expect *got = p ? vc_program_expect(p, VC_EXPECT_DIGEST) : NULL;
    if (!got || strcmp(got->text, hex) != 0)
      rc = vc_fail(err, VC_ERR_PARSE, "%s: the file with the digest inserted %s; digest not "
                   "written", path, p ? "does not hold it" : "does not parse");
    vc_program_free(p);
    vc_diags_free(&d);
  }
  free(text);
  if (!rc) {
    f = fopen(path, "wb");
    int bad = !f || fwrite(out.data, 1, out.len, f) != out.len;
    if (f && fclose(f)) bad = 1;
    if (bad) rc = vc_fail(err, VC_ERR_IO, "cannot write %s", path);
  }
  vc_sb_free(&out);
  return rc;
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
      uint32_t n = vc_diags_reported(&d);
      set(out, VC_EXIT_INPUT, "FAIL  %s: %u error%s", path, n, n == 1 ? "" : "s");
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
  vc_oracle_opts oo = co->oracle;
  oo.deadline_ns = vc_now_ns() + (uint64_t)co->timeout_s * 1000000000u;
  vc_check_program(p, &oo, &r);
  const vc_expect *reject = vc_program_expect(p, VC_EXPECT_REJECT);
  const vc_expect *golden = vc_program_expect(p, VC_EXPECT_DIGEST);
  vc_error e;
  vc_error_clear(&e);
  const char *note = "";
  if (r.verdict == VC_CHECK_TIMEOUT) {
    /* the oracle stopped at the deadline: the next program gets its own */
    set(out, VC_EXIT_FAIL,
        "TIME  %s: program %s timed out in %s: not finished within the time limit (--timeout) "
        "of %u s", path, p->name, r.why, co->timeout_s);
    out->timed_out = true;
  } else if (r.verdict == VC_CHECK_INTERNAL) {
    /* the plan validator: a bug of the splitter, whatever the program says */
    set(out, VC_EXIT_INTERNAL, "FAIL  %s: %s", path, r.why);
  } else if (r.verdict == VC_CHECK_UNSUPPORTED) {
    set(out, VC_EXIT_OK, "unsup %s: not checked: unsupported: %s", path, r.why);
    out->unsupported = true;
  } else if (r.verdict == VC_CHECK_INVALID) {
    if (reject && strstr(r.why, reject->text))
      set(out, VC_EXIT_OK, "ok    %s: refused as expected: %s", path, r.why);
    else
      set(out, VC_EXIT_FAIL, "FAIL  %s: invalid: %s", path, r.why);
  } else if (reject) {
    set(out, VC_EXIT_FAIL, "FAIL  %s: expected a refusal containing \"%s\", but it is valid", path,
        reject->text);
  } else if (r.verdict == VC_CHECK_FAILED) {
    set(out, VC_EXIT_FAIL, "FAIL  %s: %s%s", path, r.why,
        vc_now_ns() > oo.deadline_ns ? " (--timeout)" : "");
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

/* MemAvailable of /proc/meminfo in bytes, or 0 when it cannot be read (then
   there is no budget). */
static uint64_t free_memory(void) {
  FILE *f = fopen("/proc/meminfo", "r");
  if (!f) return 0;
  char line[256];
  unsigned long long kb = 0;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) break;
  fclose(f);
  return (uint64_t)kb * 1024u;
}

int vc_cmd_check(int argc, char **argv) {
  if (vc_wants_help(argc, argv)) {
    fputs(help, stdout);
    return VC_EXIT_OK;
  }
  vc_opt opts[] = {VC_OPT("filter", true, false),         VC_OPT("exclude-tag", true, true),
                   VC_OPT("oracle-order", true, false),   VC_OPT("require-digests", false, false),
                   VC_OPT("write-digests", false, false), VC_OPT("quiet", false, false),
                   VC_OPT("timeout", true, false),        VC_OPT("max-memory", true, false)};
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
  co.timeout_s = 600;
  if ((o = vc_args_get(opts, nopts, "timeout")) && vc_args_u32(o, 1, 86400, &co.timeout_s, &e))
    goto usage;
  co.oracle.max_bytes = free_memory();
  if ((o = vc_args_get(opts, nopts, "max-memory")) && vc_args_u64(o, &co.oracle.max_bytes, &e))
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
  const uint32_t found = c.n;
  if ((o = vc_args_get(opts, nopts, "filter")) && !vc_corpus_filter(&c, o->value)) {
    /* a typo selects nothing: "0 programs checked" would read as a pass */
    fprintf(stderr, "vyre-conform check: --filter %s matches none of the %u %s under PATH\n",
            o->value, found, vc_plural(found, "program", "programs"));
    vc_corpus_free(&c);
    vc_args_free(opts, nopts, &a);
    return VC_EXIT_USAGE;
  }
  uint32_t failed = 0, bad_input = 0, unsupported = 0, timed_out = 0, internal = 0;
  for (uint32_t i = 0; i < c.n; i++) {
    outcome out;
    memset(&out, 0, sizeof out);
    check_program(c.files[i].path, &co, &out);
    if (out.status != VC_EXIT_OK || out.unsupported || !co.quiet) printf("%s\n", out.line);
    fflush(stdout);
    failed += out.status == VC_EXIT_FAIL || out.status == VC_EXIT_INTERNAL;
    internal += out.status == VC_EXIT_INTERNAL;
    bad_input += out.status == VC_EXIT_INPUT;
    unsupported += out.unsupported;
    timed_out += out.timed_out;
  }
  /* an unsupported program was not checked: it is not counted as checked */
  const uint32_t checked = c.n - unsupported;
  printf("%u %s checked, %u failed, %u unreadable or malformed", checked,
         vc_plural(checked, "program", "programs"), failed, bad_input);
  if (timed_out) printf(" (%u of them timed out)", timed_out);
  if (internal)
    printf(" (%u of them by a plan the plan validator refuses: a harness bug)", internal);
  if (unsupported)
    printf(", %u %s not checked (unsupported)", unsupported,
           vc_plural(unsupported, "program", "programs"));
  printf("\n");
  vc_corpus_free(&c);
  vc_args_free(opts, nopts, &a);
  return internal    ? VC_EXIT_INTERNAL
         : failed    ? VC_EXIT_FAIL
         : bad_input ? VC_EXIT_INPUT
                     : VC_EXIT_OK;
usage:
  vc_args_free(opts, nopts, &a);
  return vc_usage_error("check", e.msg);
}
