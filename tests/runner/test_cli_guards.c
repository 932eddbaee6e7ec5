/* The command line as a user mistypes it, on PoCL: selections that match
 * nothing in part, an option's value forgotten, an output named over an
 * input, `-` for standard output, the help of the results commands, counts
 * and their nouns, and a results file in a folder that does not exist. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness/base/exitcodes.h"
#include "run_util.h"

static const char prog_plain[] =
    "(program plain (workgroup 4) (grid 1) (buffer o u32 4 write)\n"
    " (entry (store o (global_id x) 7u)))\n";
static const char prog_other[] =
    "(program other (workgroup 4) (grid 1) (buffer o u32 4 write)\n"
    " (entry (store o (global_id x) (add (global_id x) 1u))))\n";

static bool exists(const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", ru_dir, name);
  return access(path, F_OK) == 0;
}

static int setup(void **state) {
  (void)state;
  ru_make_dir("vc-cli-guards");
  char sub[300];
  snprintf(sub, sizeof sub, "%s/corpus", ru_dir);
  mkdir(sub, 0777);
  ru_write_file("corpus/plain.vyre", prog_plain);
  ru_write_file("corpus/other.vyre", prog_other);
  /* one run to report on: plain, one element of it flipped */
  if (ru_run(NULL, "--backend opencl --mode host-split --db v.db --filter plain "
                   "--inject-flip host-split:o:1 corpus") != VC_EXIT_FAIL)
    return -1;
  return 0;
}

static int teardown(void **state) {
  (void)state;
  return ru_remove_dir();
}

/* Every caselist line and every --filter glob must select a program: a typo
   is refused (exit 2) naming it, and no run is written. */
static void each_selection_entry_must_match(void **state) {
  (void)state;
  ru_write_file("cl.txt", "plain\nno_such_prog\n");
  assert_int_equal(ru_run(NULL, "--backend opencl --mode host-split --db s.db --caselist cl.txt corpus"),
                   VC_EXIT_USAGE);
  assert_true(ru_file_contains("out.txt", "cl.txt:2: no_such_prog matches none of the 2 programs"));
  assert_false(exists("s.db"));
  /* a typo beside a glob that matches */
  assert_int_equal(ru_run(NULL, "--backend opencl --mode host-split --db s.db --filter plain "
                               "--filter bitonic_srot corpus"),
                   VC_EXIT_USAGE);
  assert_true(ru_file_contains("out.txt", "--filter bitonic_srot matches none of the 2 programs"));
  assert_false(exists("s.db"));
  /* a caselist entry that matches beside a filter that does */
  ru_write_file("ok.txt", "other\n");
  assert_int_equal(ru_run(NULL, "--backend opencl --mode host-split --db s.db --filter plain "
                               "--caselist ok.txt corpus"),
                   VC_EXIT_OK);
  assert_int_equal(ru_query("s.db", "select count(*) from programs"), 2);
  /* check and compile: a filter that matches nothing is no pass of nothing */
  assert_int_equal(ru_run(NULL, "check --filter bitonic_srot corpus"), VC_EXIT_USAGE);
  assert_true(ru_file_contains("out.txt", "--filter bitonic_srot matches none of the 2 programs"));
  /* compile needs a backend that compiles without a device */
  if (access(VC_BINARY_DIR "/vc-backend-vulkan.so", F_OK) == 0) {
    assert_int_equal(ru_run(NULL, "compile --backend vulkan --filter bitonic_srot corpus"),
                     VC_EXIT_USAGE);
    assert_true(ru_file_contains("out.txt", "--filter bitonic_srot matches none of the 2 programs"));
  }
}

/* `--filter --db x.db`: the glob was forgotten; "--db" is not taken for it,
   in the parser of every command. */
static void option_looking_values_are_refused(void **state) {
  (void)state;
  assert_int_equal(ru_run(NULL, "--backend opencl --filter --db x.db corpus"), VC_EXIT_USAGE);
  assert_true(ru_file_contains("out.txt", "'--filter' needs a value, and '--db' is an option"));
  assert_false(exists("x.db"));
  assert_int_equal(ru_run(NULL, "report v.db --html --md r.md"), VC_EXIT_USAGE);
  assert_true(ru_file_contains("out.txt", "--html needs a value, and --md is an option"));
  assert_false(exists("--md"));
  assert_int_equal(ru_run(NULL, "export v.db --csv --failures f.csv"), VC_EXIT_USAGE);
  assert_true(ru_file_contains("out.txt", "--csv needs a file, and --failures is an option"));
  assert_int_equal(ru_run(NULL, "compare v.db v.db --expectations --json"), VC_EXIT_USAGE);
  assert_true(ru_file_contains("out.txt", "--expectations needs a file or none, and --json is an option"));
  assert_int_equal(ru_run(NULL, "merge -o --output v.db"), VC_EXIT_USAGE);
  assert_true(ru_file_contains("out.txt", "-o needs a file, and --output is an option"));
  assert_int_equal(ru_run(NULL, "reduce corpus/plain.vyre --check --out --quiet"), VC_EXIT_USAGE);
  assert_true(ru_file_contains("out.txt", "'--out' needs a value, and '--quiet' is an option"));
  /* a caselist line that is an option pasted in */
  ru_write_file("opt.txt", "plain\n--db\n");
  assert_int_equal(ru_run(NULL, "--backend opencl --caselist opt.txt corpus"), VC_EXIT_USAGE);
  assert_true(ru_file_contains("out.txt", "opt.txt:2: an option, not a program name or glob"));
  /* --name=VALUE still gives a value that starts with a dash */
  assert_int_equal(ru_run(NULL, "report v.db --md=-"), VC_EXIT_OK);
  assert_true(ru_file_contains("out.txt", "# "));
}

/* Outputs named over what the command reads are refused (exit 2, naming
   both) and the input stays as it was. */
static void outputs_never_replace_inputs(void **state) {
  (void)state;
  static const char *const over_db[] = {
      "report v.db --html v.db",  "report v.db --md ./v.db", "report v.db --junit link.db",
      "report v.db --html v.db-wal", "report v.db --md v.db-journal",
      "report v.db --baseline v.db --md v.db", "export v.db --csv v.db",
      "export v.db:1 --failures link.db", "report v.db --md hard.db"};
  /* the same file by another name: a symbolic and a hard link */
  assert_int_equal(ru_sh("ln -s v.db link.db && ln v.db hard.db"), 0);
  for (size_t i = 0; i < sizeof over_db / sizeof over_db[0]; i++) {
    assert_int_equal(ru_run(NULL, "%s", over_db[i]), VC_EXIT_USAGE);
    assert_true(ru_file_contains("out.txt", "results database v.db, which this command reads"));
    assert_int_equal(ru_query("v.db", "select count(*) from runs"), 1);
  }
  /* SQLite's own -wal may exist (a reader's); no report went into it */
  char sib[4096];
  ru_read_text("v.db-wal", sib, sizeof sib);
  assert_null(strstr(sib, "<!DOCTYPE"));
  ru_read_text("v.db-journal", sib, sizeof sib);
  assert_null(strstr(sib, "# "));
  ru_write_file("exp.txt", "fail plain host-split reason=\"known\"\n");
  assert_int_equal(ru_run(NULL, "report v.db --expectations exp.txt --md exp.txt"), VC_EXIT_USAGE);
  assert_true(ru_file_contains("out.txt", "--md exp.txt is --expectations exp.txt"));
  assert_true(ru_file_contains("exp.txt", "fail plain host-split"));
  /* two outputs into one file */
  assert_int_equal(ru_run(NULL, "report v.db --html r.txt --md r.txt"), VC_EXIT_USAGE);
  assert_true(ru_file_contains("out.txt", "--html r.txt and --md r.txt are the same file"));
  assert_false(exists("r.txt"));
  /* reduce and transform: never over the program they read */
  assert_int_equal(ru_sh("cp corpus/plain.vyre f.vyre"), 0);
  assert_int_equal(ru_run(NULL, "reduce f.vyre --backend opencl --mode host-split "
                               "--inject-flip host-split:o:1 --out f.vyre"),
                   VC_EXIT_USAGE);
  assert_true(ru_file_contains("out.txt", "--out f.vyre is the program f.vyre"));
  assert_int_equal(ru_run(NULL, "transform f.vyre --seed 1 --out ./f.vyre"), VC_EXIT_USAGE);
  assert_true(ru_file_contains("out.txt", "--out ./f.vyre is the program f.vyre"));
  char text[4096];
  ru_read_text("f.vyre", text, sizeof text);
  assert_string_equal(text, prog_plain);
}

/* `-` is standard output for every output option, never a file named "-". */
static void dash_is_standard_output(void **state) {
  (void)state;
  assert_int_equal(ru_run(NULL, "report v.db --html - --junit j.xml"), VC_EXIT_OK);
  assert_true(ru_file_contains("out.txt", "<!DOCTYPE html>"));
  assert_true(exists("j.xml"));
  assert_int_equal(ru_run(NULL, "report v.db --junit -"), VC_EXIT_OK);
  assert_true(ru_file_contains("out.txt", "<testsuites"));
  assert_int_equal(ru_run(NULL, "export v.db --failures -"), VC_EXIT_OK);
  assert_true(ru_file_contains("out.txt", "plain,host-split,diverge"));
  assert_int_equal(ru_run(NULL, "report v.db --html - --md -"), VC_EXIT_USAGE);
  assert_true(ru_file_contains("out.txt", "--html - and --md - both write to standard output"));
  /* reduce: the program alone on standard output, its steps on standard error */
  assert_int_equal(ru_sh("%s/vyre-conform reduce corpus/plain.vyre --backend opencl --mode "
                         "host-split --inject-flip host-split:o:1 --out - >red.vyre 2>red.log",
                         VC_BINARY_DIR),
                   VC_EXIT_OK);
  assert_true(ru_file_contains("red.vyre", "(program plain"));
  assert_false(ru_file_contains("red.vyre", "signature:"));
  assert_true(ru_file_contains("red.log", "signature: host-split diverge"));
  /* a database is no text for standard output */
  assert_int_equal(ru_run(NULL, "merge -o - v.db"), VC_EXIT_USAGE);
  assert_true(ru_file_contains("out.txt", "a results database cannot go to standard output"));
  assert_int_equal(ru_run(NULL, "transform corpus/plain.vyre --seed 1 --out -"), VC_EXIT_OK);
  assert_true(ru_file_contains("out.txt", "(program plain"));
  assert_false(exists("-"));
}

/* compare, merge, report, export, verdict, package, verify and mutants
   --help: every option,
   the exit statuses. */
static void help_describes_options_and_exit_statuses(void **state) {
  (void)state;
  static const struct {
    const char *cmd;
    const char *options[10];
  } cmds[] = {
      {"compare", {"--expectations", "--strict-expectations", "--threshold", "--min-delta-ms",
                   "--no-timing", "--json", "6 an expectation has expired", NULL}},
      {"merge", {"-o OUT", "--output", "--allow-mixed", "4 the shards\nwere refused", NULL}},
      {"report", {"--run", "--baseline", "--expectations", "--html", "--md", "--junit ",
                  "--junit-limit", "--junit-link", "5 a database cannot be read", NULL}},
      {"export", {"--run", "--csv", "--failures", "5 the database cannot be read", NULL}},
      {"verdict", {"--expectations", "1 a new failure", "4 an invalid program",
                   "9 nothing was checked", "10 the run was made with planted faults",
                   "5 the database cannot be read", NULL}},
      {"mutants", {"--killers", "0 listed", NULL}},
      {"package", {"-o DIR", "--source", "--log", "--backends", "--product", "--driver", "--os",
                   "--allow-dirty", "4 a file cannot be", NULL}},
      {"verify", {"11 invalid", "12 valid with warnings", "4 PACKAGE cannot be read", NULL}},
  };
  for (size_t c = 0; c < sizeof cmds / sizeof cmds[0]; c++) {
    assert_int_equal(ru_run(NULL, "%s --help", cmds[c].cmd), VC_EXIT_OK);
    assert_true(ru_file_contains("out.txt", "Exit status: 0"));
    assert_true(ru_file_contains("out.txt", "2 usage error"));
    for (size_t o = 0; cmds[c].options[o]; o++) {
      if (!ru_file_contains("out.txt", cmds[c].options[o]))
        fail_msg("%s --help does not describe %s", cmds[c].cmd, cmds[c].options[o]);
    }
  }
  /* a usage error shows the synopsis, not the whole help */
  assert_int_equal(ru_run(NULL, "compare --bogus"), VC_EXIT_USAGE);
  assert_true(ru_file_contains("out.txt", "usage: vyre-conform compare"));
  assert_false(ru_file_contains("out.txt", "Exit status"));
}

/* One element, one program, one shard, one entry: singular. MISSING says
   that no skip expectation allows it. */
static void counts_agree_with_their_nouns(void **state) {
  (void)state;
  char reason[512];
  ru_query_text("v.db", "select reason from results where status = 'diverge'", reason,
                sizeof reason);
  assert_string_equal(reason, "1 element differs in 1 buffer; first: o[1] (integer)");
  assert_int_equal(ru_run(NULL, "report v.db --html r.html --md r.md"), VC_EXIT_OK);
  assert_true(ru_file_contains("r.html", "1 element differs, first at 1"));
  assert_true(ru_file_contains("r.html", "1 program in 1 folder;"));
  assert_true(ru_file_contains("r.md", "1 of 1 program is listed"));
  ru_write_file("one.txt", "fail plain host-split reason=\"known\"\n");
  assert_int_equal(ru_run(NULL, "report v.db --expectations one.txt"), VC_EXIT_OK);
  assert_true(ru_file_contains("out.txt", "one.txt (1 entry, given)"));
  assert_int_equal(ru_run(NULL, "--backend opencl --mode host-split --db sh.db --shard 0/1 "
                               "--filter plain corpus"),
                   VC_EXIT_OK);
  assert_int_equal(ru_run(NULL, "merge -o m.db sh.db"), VC_EXIT_OK);
  assert_true(ru_file_contains("out.txt", "merged 1 shard into m.db run 1: complete, 1 program\n"));
  /* the baseline has plain and other, the candidate plain only */
  assert_int_equal(ru_run(NULL, "--backend opencl --mode host-split --db base.db corpus"),
                   VC_EXIT_OK);
  assert_int_equal(ru_run(NULL, "compare base.db sh.db --no-timing --expectations none"),
                   VC_EXIT_FAIL);
  assert_true(ru_file_contains("out.txt", "MISSING"));
  assert_false(ru_file_contains("out.txt", "(a skip expectation allows that)"));
  assert_true(ru_file_contains("out.txt", "judged by no expectations: only a skip expectation "
                                          "would allow that"));
  assert_int_equal(ru_run(NULL, "compare base.db sh.db --no-timing --expectations one.txt"),
                   VC_EXIT_FAIL);
  assert_false(ru_file_contains("out.txt", "(a skip expectation allows that)"));
  assert_true(ru_file_contains("out.txt", "and no skip expectation covers it"));
}

/* --db in a folder that does not exist names the folder. */
static void missing_directory_is_named(void **state) {
  (void)state;
  assert_int_equal(ru_run(NULL, "--backend opencl --mode host-split --db nodir/x.db corpus"),
                   VC_EXIT_DB);
  assert_true(ru_file_contains("out.txt", "no such directory: nodir"));
  assert_int_equal(ru_run(NULL, "report nodir/x.db"), VC_EXIT_DB);
  assert_true(ru_file_contains("out.txt", "no such directory: nodir"));
  assert_false(exists("nodir"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(each_selection_entry_must_match),
      cmocka_unit_test(option_looking_values_are_refused),
      cmocka_unit_test(outputs_never_replace_inputs),
      cmocka_unit_test(dash_is_standard_output),
      cmocka_unit_test(help_describes_options_and_exit_statuses),
      cmocka_unit_test(counts_agree_with_their_nouns),
      cmocka_unit_test(missing_directory_is_named),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
