/* End-to-end runs of the vyre-conform program on the OpenCL backend (PoCL in
 * CI): what the database holds afterwards, planted faults, crashes, hangs,
 * interrupts and resume, and the documented exit statuses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness/base/exitcodes.h"
#include "run_util.h"
#include "harness/exec/modes.h"
#include "harness/lang/parse.h"
#include "harness/split/split.h"


static const char prog_spill[] =
    "(program spill (workgroup 8) (grid 4)\n"
    "  (buffer a u32 32 read_write (init iota))\n"
    "  (buffer out u32 32 write)\n"
    "  (entry (let g (global_id x)) (let v (load a g))\n"
    "    (store a g (add v 100u)) (barrier grid)\n"
    "    (store out g (add v (load a (sub 31u g))))))\n";
static const char prog_plain[] =
    "(program plain (workgroup 4) (grid 2)\n"
    "  (buffer o u32 8 write)\n"
    "  (entry (store o (global_id x) (mul (global_id x) 3u))))\n";
static const char prog_third[] =
    "(program third (workgroup 4) (grid 1)\n"
    "  (buffer o i32 4 write)\n"
    "  (entry (store o (global_id x) (sub 0i (cast i32 (global_id x))))))\n";

static int setup(void **state) {
  (void)state;
  ru_make_dir("vc-runner");
  char sub[300];
  snprintf(sub, sizeof sub, "%s/corpus", ru_dir);
  mkdir(sub, 0777);
  ru_write_file("corpus/spill.vyre", prog_spill);
  ru_write_file("corpus/plain.vyre", prog_plain);
  ru_write_file("corpus/third.vyre", prog_third);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  return ru_remove_dir();
}

static void run_records_every_table(void **state) {
  (void)state;
  int rc = ru_run(NULL, "--backend opencl --mode host-split,resident-split --db a.db corpus");
  assert_int_equal(rc, VC_EXIT_OK);
  assert_int_equal(ru_query("a.db", "select count(*) from runs where status='complete'"), 1);
  assert_int_equal(ru_query("a.db", "select count(*) from devices where api='opencl'"), 1);
  assert_int_equal(ru_query("a.db", "select count(*) from programs"), 3);
  assert_int_equal(ru_query("a.db", "select count(*) from results"), 6);
  assert_int_equal(ru_query("a.db", "select count(*) from results where status='pass'"), 6);
  /* spill has 2 segments: one row per segment per mode; the others 1 */
  assert_int_equal(ru_query("a.db", "select count(*) from segments"), 2 * 2 + 2 + 2);
  assert_int_equal(ru_query("a.db", "select segments from programs where name='spill'"), 2);
  assert_true(ru_query("a.db", "select min(wall_ns) from results") > 0);
  assert_int_equal(ru_query("a.db", "select count(*) from divergences"), 0);
  /* a second invocation appends a run */
  assert_int_equal(ru_run(NULL, "--backend opencl --mode host-split --db a.db corpus/plain.vyre"), 0);
  assert_int_equal(ru_query("a.db", "select count(*) from runs"), 2);
}

/* The bytes and launches each mode recorded are the plan's prediction. */
static void traffic_matches_plan(void **state) {
  (void)state;
  assert_int_equal(ru_run(NULL, "--backend opencl --mode host-split,resident-split --db t.db "
                             "corpus/spill.vyre"), 0);
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = vc_parse("spill.vyre", prog_spill, strlen(prog_spill), &d);
  assert_non_null(p);
  vc_split *s = NULL;
  vc_error e;
  assert_int_equal(vc_split_program(p, &s, &e), 0);
  vc_traffic h = vc_plan_traffic(s, VC_MODE_HOST_SPLIT, 1);
  vc_traffic r = vc_plan_traffic(s, VC_MODE_RESIDENT_SPLIT, 1);
  assert_int_equal(ru_query("t.db", "select bytes_up from results where mode='host-split'"), h.up);
  assert_int_equal(ru_query("t.db", "select bytes_down from results where mode='host-split'"), h.down);
  assert_int_equal(ru_query("t.db", "select launches from results where mode='host-split'"), h.launches);
  assert_int_equal(ru_query("t.db", "select bytes_up from results where mode='resident-split'"), r.up);
  assert_int_equal(ru_query("t.db", "select bytes_down from results where mode='resident-split'"), r.down);
  /* host-split moves the spill buffer through the host; resident-split does not */
  assert_true(h.up > r.up);
  assert_int_equal(ru_query("t.db", "select sum(s.bytes_up) from segments s join results r on "
                                 "s.result_id = r.id where r.mode='host-split'"), h.up);
  vc_split_free(s);
  vc_program_free(p);
  vc_diags_free(&d);
}

static void planted_wrong_byte_is_caught(void **state) {
  (void)state;
  int rc = ru_run(NULL, "--backend opencl --mode host-split,resident-split --db f.db "
                     "--inject-flip resident-split:out:5 corpus");
  assert_int_equal(rc, VC_EXIT_FAIL);
  assert_int_equal(ru_query("f.db", "select count(*) from results where status='diverge'"), 1);
  assert_int_equal(ru_query("f.db", "select count(*) from results r join programs p on "
                                 "r.program_id=p.id where r.status='diverge' and "
                                 "p.name='spill' and r.mode='resident-split'"), 1);
  assert_int_equal(ru_query("f.db", "select first_index from divergences"), 5);
  assert_int_equal(ru_query("f.db", "select count from divergences"), 1);
  char cls[64], buf[64];
  ru_query_text("f.db", "select class from divergences", cls, sizeof cls);
  assert_string_equal(cls, "integer");
  ru_query_text("f.db", "select buffer from divergences", buf, sizeof buf);
  assert_string_equal(buf, "out");
  assert_true(ru_file_contains("out.txt", "out[5]"));
}

static void crash_and_hang_cost_one_program_each(void **state) {
  (void)state;
  int rc = ru_run(NULL, "--backend opencl --mode host-split --db c.db --timeout 3 "
                     "--inject-crash plain --inject-hang third corpus");
  assert_int_equal(rc, VC_EXIT_FAIL);
  assert_int_equal(ru_query("c.db", "select count(*) from runs where status='complete'"), 1);
  assert_int_equal(ru_query("c.db", "select count(*) from results r join programs p on "
                                 "r.program_id=p.id where p.name='plain' and r.status='crash' "
                                 "and r.reason like '%signal 11%'"), 1);
  assert_int_equal(ru_query("c.db", "select count(*) from results r join programs p on "
                                 "r.program_id=p.id where p.name='third' and r.status='timeout'"), 1);
  assert_int_equal(ru_query("c.db", "select count(*) from results r join programs p on "
                                 "r.program_id=p.id where p.name='spill' and r.status='pass'"), 1);
}

static void usage_errors(void **state) {
  (void)state;
  assert_int_equal(ru_run(NULL, "--backend opencl --no-such-flag corpus"), VC_EXIT_USAGE);
  assert_true(ru_file_contains("out.txt", "--no-such-flag"));
  assert_int_equal(ru_run(NULL, "--backend opencl --mode sideways corpus"), VC_EXIT_USAGE);
  assert_true(ru_file_contains("out.txt", "sideways"));
  assert_int_equal(ru_run(NULL, "--backend opencl --shard 3/3 corpus"), VC_EXIT_USAGE);
  assert_int_equal(ru_run(NULL, "corpus"), VC_EXIT_USAGE);
  assert_true(ru_file_contains("out.txt", "--backend is required"));
  assert_int_equal(ru_run(NULL, "frobnicate"), VC_EXIT_USAGE);
}

static void missing_icd_is_reported(void **state) {
  (void)state;
  char env[512];
  snprintf(env, sizeof env, "OCL_ICD_VENDORS=%s/no-icds ", ru_dir);
  int rc = ru_run(env, "--backend opencl --db m.db corpus");
  assert_int_equal(rc, VC_EXIT_NO_BACKEND);
  assert_true(ru_file_contains("out.txt", "OCL_ICD_VENDORS"));
  rc = ru_run(NULL, "--backend nosuchapi --db m.db corpus");
  assert_int_equal(rc, VC_EXIT_NO_BACKEND);
  assert_true(ru_file_contains("out.txt", "vc-backend-nosuchapi.so"));
}

static void bad_input_is_named(void **state) {
  (void)state;
  char sub[300];
  snprintf(sub, sizeof sub, "%s/bad", ru_dir);
  mkdir(sub, 0777);
  ru_write_file("bad/broken.vyre", "(program broken\n  (entry (store nowhere 0u 1u)))\n");
  int rc = ru_run(NULL, "--backend opencl --mode host-split --db b.db bad");
  assert_int_equal(rc, VC_EXIT_INPUT);
  assert_int_equal(ru_query("b.db", "select count(*) from results where status='invalid' and "
                                 "reason like '%broken.vyre:2:%'"), 1);
  assert_int_equal(ru_run(NULL, "--backend opencl --db b.db no/such/dir"), VC_EXIT_INPUT);
  assert_true(ru_file_contains("out.txt", "no/such/dir"));
}

static void corrupt_database_is_refused_untouched(void **state) {
  (void)state;
  ru_write_file("junk.db", "this is not a database, and it must stay as it is\n");
  int rc = ru_run(NULL, "--backend opencl --db junk.db corpus");
  assert_int_equal(rc, VC_EXIT_DB);
  assert_true(ru_file_contains("out.txt", "junk.db"));
  char path[512], buf[128];
  snprintf(path, sizeof path, "%s/junk.db", ru_dir);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  assert_non_null(fgets(buf, sizeof buf, f));
  fclose(f);
  assert_string_equal(buf, "this is not a database, and it must stay as it is\n");
}


/* Rows in the runs table of dir/DB, 0 when the file does not exist. */
static int64_t run_rows(const char *db) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", ru_dir, db);
  if (access(path, F_OK) != 0) return 0;
  return ru_query(db, "select count(*) from runs");
}

/* A selection of no program is a usage error that writes no run: a run of
   nothing would be a green run. */
static void empty_selection_is_a_usage_error(void **state) {
  (void)state;
  assert_int_equal(ru_run(NULL, "--backend opencl --mode host-split --db e.db corpus/plain.vyre"), 0);
  assert_int_equal(run_rows("e.db"), 1);
  assert_int_equal(ru_run(NULL, "--backend opencl --mode host-split --db e.db --filter 'nosuch*' corpus"),
                   VC_EXIT_USAGE);
  assert_true(ru_file_contains("out.txt", "--filter nosuch* matches none of the 3 programs"));
  char sub[300];
  snprintf(sub, sizeof sub, "%s/nothing", ru_dir);
  mkdir(sub, 0777);
  assert_int_equal(ru_run(NULL, "--backend opencl --mode host-split --db e.db nothing"), VC_EXIT_USAGE);
  assert_true(ru_file_contains("out.txt", "no *.vyre program under nothing"));
  assert_int_equal(ru_run(NULL, "--backend opencl --mode host-split --db e.db --shard 4/5 corpus"),
                   VC_EXIT_USAGE);
  assert_true(ru_file_contains("out.txt", "shard 4/5 of 3 programs is empty"));
  assert_int_equal(ru_run(NULL, "--backend opencl --mode host-split --db e.db --filter plain "
                             "--exclude-tag x corpus"), 0);
  assert_int_equal(run_rows("e.db"), 2);
}

/* Each of these is refused before the run is written. */
static void usage_errors_write_no_run(void **state) {
  (void)state;
  assert_int_equal(ru_run(NULL, "--backend opencl --mode host-split --db u.db corpus/plain.vyre"), 0);
  assert_int_equal(ru_run(NULL, "--backend opencl --db u.db --device-options no-such-option=1 corpus"),
                   VC_EXIT_USAGE);
  assert_true(ru_file_contains("out.txt", "no-such-option=1"));
  assert_int_equal(ru_run(NULL, "--backend opencl --db u.db --mode native, corpus"), VC_EXIT_USAGE);
  assert_true(ru_file_contains("out.txt", "native,"));
  assert_int_equal(ru_run(NULL, "--backend opencl --db u.db --device 7 corpus"), VC_EXIT_NO_BACKEND);
  assert_true(ru_file_contains("out.txt", "no device 7"));
  assert_int_equal(ru_run(NULL, "--backend nope --db u.db corpus"), VC_EXIT_NO_BACKEND);
  assert_int_equal(ru_run(NULL, "--backend opencl --mode host-split --db u.db "
                             "--inject-flip host-split:nosuchbuf:0 corpus"), VC_EXIT_USAGE);
  assert_true(ru_file_contains("out.txt", "nosuchbuf"));
  assert_int_equal(ru_run(NULL, "--backend opencl --mode host-split --db u.db "
                             "--inject-flip host-split:out:32 corpus"), VC_EXIT_USAGE);
  assert_true(ru_file_contains("out.txt", "index 32"));
  assert_int_equal(ru_run(NULL, "--backend opencl --mode host-split --db u.db "
                             "--inject-flip native:out:0 corpus"), VC_EXIT_USAGE);
  assert_int_equal(run_rows("u.db"), 1);
  /* the last element is still a valid target */
  assert_int_equal(ru_run(NULL, "--backend opencl --mode host-split --db u.db "
                             "--inject-flip host-split:out:31 corpus"), VC_EXIT_FAIL);
  assert_int_equal(run_rows("u.db"), 2);
}

/* --filter matches the declared program name too, and may be repeated. */
static void filter_matches_declared_names(void **state) {
  (void)state;
  char sub[300];
  snprintf(sub, sizeof sub, "%s/named", ru_dir);
  mkdir(sub, 0777);
  ru_write_file("named/file_one.vyre", "(program alpha (workgroup 4) (grid 1)\n"
                                    "  (buffer o u32 4 write)\n"
                                    "  (entry (store o (global_id x) 1u)))\n");
  ru_write_file("named/file_two.vyre", "(program beta (workgroup 4) (grid 1)\n"
                                    "  (buffer o u32 4 write)\n"
                                    "  (entry (store o (global_id x) 2u)))\n");
  ru_write_file("named/file_three.vyre", "(program gamma (workgroup 4) (grid 1)\n"
                                      "  (buffer o u32 4 write)\n"
                                      "  (entry (store o (global_id x) 3u)))\n");
  assert_int_equal(ru_run(NULL, "--backend opencl --mode host-split --db n.db --filter alpha "
                             "--filter 'file_t*o' named"), 0);
  assert_int_equal(ru_query("n.db", "select count(*) from programs"), 2);
  assert_int_equal(ru_query("n.db", "select count(*) from programs where name in ('alpha','beta')"), 2);
}

/* The corpus digest is of what ran: a filtered directory has the digest of
   the file it selected. */
static void digest_covers_the_selection(void **state) {
  (void)state;
  assert_int_equal(ru_run(NULL, "--backend opencl --mode host-split --db d.db --filter plain corpus"), 0);
  assert_int_equal(ru_run(NULL, "--backend opencl --mode host-split --db d.db corpus/plain.vyre"), 0);
  assert_int_equal(ru_run(NULL, "--backend opencl --mode host-split --db d.db corpus"), 0);
  char a[80], b[80], c[80];
  ru_query_text("d.db", "select corpus_digest from runs where id = 1", a, sizeof a);
  ru_query_text("d.db", "select corpus_digest from runs where id = 2", b, sizeof b);
  ru_query_text("d.db", "select corpus_digest from runs where id = 3", c, sizeof c);
  assert_string_equal(a, b);
  assert_string_not_equal(a, c);
}

/* Waits until dir/DB holds n programs (at most a minute). */
static void wait_programs(const char *db, int64_t n) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", ru_dir, db);
  int64_t done = 0;
  /* the file exists a moment before its tables do */
  for (int i = 0; i < 600 && done < n; i++) {
    ru_nap_ms(100);
    if (access(path, F_OK) == 0 &&
        ru_query(db, "select count(*) from sqlite_master where name = 'programs'") == 1)
      done = ru_query(db, "select count(*) from programs");
  }
  assert_int_equal(done, n);
}

/* --resume RUN takes the run's own options and PATH (here a path with a
   space); an option given that differs from the stored one is refused. */
static void resume_restores_the_runs_options(void **state) {
  (void)state;
  char sub[300];
  snprintf(sub, sizeof sub, "%s/with space", ru_dir);
  mkdir(sub, 0777);
  ru_write_file("with space/spill.vyre", prog_spill);
  ru_write_file("with space/plain.vyre", prog_plain);
  ru_write_file("with space/third.vyre", prog_third);
  pid_t pid = ru_start("--backend opencl --mode resident-split --repeat 2 --filter spill "
                    "--filter third --db r.db --inject-hang third 'with space'");
  wait_programs("r.db", 1);
  ru_nap_ms(200);
  kill(pid, SIGINT);
  int st = 0;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), VC_EXIT_INTERRUPTED);

  /* the backend agrees; the modes do not */
  assert_int_equal(ru_run(NULL, "--resume 1 --db r.db --backend opencl --mode host-split"),
                   VC_EXIT_USAGE);
  assert_true(ru_file_contains("out.txt", "mode host-split given, but the run was started with mode "
                              "resident-split"));
  assert_int_equal(ru_run(NULL, "--resume 1 --db r.db corpus"), VC_EXIT_USAGE);
  assert_true(ru_file_contains("out.txt", "PATH corpus given"));
  assert_int_equal(ru_query("r.db", "select count(*) from runs where status='interrupted'"), 1);

  assert_int_equal(ru_run(NULL, "--resume 1 --db r.db"), 0);
  assert_true(ru_file_contains("out.txt", "1 program done already"));
  assert_int_equal(ru_query("r.db", "select count(*) from runs where status='complete'"), 1);
  assert_int_equal(ru_query("r.db", "select count(*) from programs"), 2);
  assert_int_equal(ru_query("r.db", "select count(*) from results where mode='resident-split'"), 4);
  assert_int_equal(ru_query("r.db", "select count(*) from results"), 4);
}

/* A crash or hang before the device modes is charged to its step, not to
   the first mode; one in a mode costs that mode only: the others run in a
   fresh worker. */
static void failures_are_charged_to_their_step(void **state) {
  (void)state;
  int rc = ru_run(NULL, "--backend opencl --db s.db --timeout 3 --inject-crash 'plain@oracle' "
                     "--inject-hang 'third@native' corpus");
  assert_int_equal(rc, VC_EXIT_FAIL);
  assert_int_equal(ru_query("s.db", "select count(*) from results r join programs p on "
                                 "r.program_id=p.id where p.name='plain' and r.mode='oracle' "
                                 "and r.status='crash' and r.reason like '%during oracle%'"), 1);
  assert_int_equal(ru_query("s.db", "select count(*) from results where status='crash'"), 1);
  assert_int_equal(ru_query("s.db", "select count(*) from results r join programs p on "
                                 "r.program_id=p.id where p.name='plain' and r.status='skip'"), 3);
  /* the native hang costs native; the split modes still ran */
  assert_int_equal(ru_query("s.db", "select count(*) from results r join programs p on "
                                 "r.program_id=p.id where p.name='third' and r.mode='native' "
                                 "and r.status='timeout'"), 1);
  assert_int_equal(ru_query("s.db", "select count(*) from results r join programs p on "
                                 "r.program_id=p.id where p.name='third' and r.mode<>'native' "
                                 "and r.status='pass'"), 2);
  assert_true(ru_file_contains("out.txt", "oracle "));
  /* the reference run, in the default step of an injection: setup */
  assert_int_equal(ru_run(NULL, "--backend opencl --mode host-split --db s2.db "
                             "--inject-crash 'spill@reference' --inject-hang plain --timeout 3 "
                             "corpus"), VC_EXIT_FAIL);
  assert_int_equal(ru_query("s2.db", "select count(*) from results r join programs p on "
                                  "r.program_id=p.id where p.name='spill' and r.mode='reference' "
                                  "and r.status='crash'"), 1);
  assert_int_equal(ru_query("s2.db", "select count(*) from results r join programs p on "
                                  "r.program_id=p.id where p.name='plain' and r.mode='setup' "
                                  "and r.status='timeout'"), 1);
  assert_int_equal(ru_query("s2.db", "select count(*) from results where mode='host-split' and "
                                  "status in ('crash','timeout')"), 0);
}

/* Each file is parsed once, by the runner, before the worker starts: what
   runs is what was read then, even if the file changes later. */
static void each_file_is_parsed_once(void **state) {
  (void)state;
  char sub[300];
  snprintf(sub, sizeof sub, "%s/once", ru_dir);
  mkdir(sub, 0777);
  ru_write_file("once/a.vyre", prog_plain);
  ru_write_file("once/b.vyre", prog_third);
  /* a hangs for its 3 s timeout; meanwhile b's file is overwritten */
  pid_t pid = ru_start("--backend opencl --mode host-split --db p.db --timeout 3 --inject-hang plain "
                    "once");
  ru_nap_ms(1000);
  ru_write_file("once/b.vyre", "(program broken\n");
  int st = 0;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), VC_EXIT_FAIL);
  assert_int_equal(ru_query("p.db", "select count(*) from results r join programs p on "
                                 "r.program_id=p.id where p.name='third' and r.status='pass'"), 1);
}

/* A program that reads workgroup memory before writing it (the corpus's
   reject/ programs without their (expect reject)) is invalid, whatever the
   device left there: never a device divergence. */
static void poison_read_is_an_invalid_program(void **state) {
  (void)state;
  ru_write_file("poison.vyre", "(program poison (workgroup 32) (grid 2)\n"
                            "  (buffer out u32 64 write) (shared tile u32 64)\n"
                            "  (entry (let g (global_id x)) (let l (local_id x))\n"
                            "    (store tile l g) (barrier workgroup)\n"
                            "    (store out g (load tile (add l 32u)))))\n");
  assert_int_equal(ru_run(NULL, "--backend opencl --db q.db poison.vyre"), VC_EXIT_INPUT);
  assert_int_equal(ru_query("q.db", "select count(*) from results where status='invalid' and "
                                 "reason like '%before any write%'"), 3);
  assert_int_equal(ru_query("q.db", "select count(*) from results where status<>'invalid'"), 0);
}

/* A native launch that never finishes on the device (a barrier waiting for
   an arrival that never comes, under a 1 s deadline) retires the worker:
   the split modes still run, in a fresh one, instead of being skipped. */
static void stuck_native_launch_spares_the_split_modes(void **state) {
  (void)state;
  int rc = ru_run(NULL, "--backend opencl --db k.db --repeat 2 --device-options "
                     "native-phantoms=1,native-spin=0,deadline=1 corpus/spill.vyre");
  assert_int_equal(rc, VC_EXIT_FAIL);
  assert_int_equal(ru_query("k.db", "select count(*) from results where mode='native' and "
                                 "repeat=0 and status='timeout'"), 1);
  assert_int_equal(ru_query("k.db", "select count(*) from results where mode='native' and "
                                 "repeat=1 and status='skip'"), 1);
  assert_int_equal(ru_query("k.db", "select count(*) from results where mode<>'native' and "
                                 "status='pass'"), 4);
}

static void exec_sql(const char *db, const char *sql) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", ru_dir, db);
  sqlite3 *h = NULL;
  assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
  assert_int_equal(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(h);
}

/* The options line quotes what needs it, and reads back as it was given
   (every filter must match a program: the odd one matches plain too). */
static void stored_options_read_back(void **state) {
  (void)state;
  assert_int_equal(ru_run(NULL, "--backend opencl --mode host-split --db w.db --filter '[p\"]la\\in*' "
                             "--filter 'pl*' --exclude-tag 'two words' corpus"), 0);
  char opts[1024];
  ru_query_text("w.db", "select options from runs", opts, sizeof opts);
  assert_non_null(strstr(opts, "filter=\"[p\\\"]la\\\\in*\" filter=pl* exclude-tag=\"two words\""));
  exec_sql("w.db", "update runs set status = 'interrupted'");
  assert_int_equal(ru_run(NULL, "--resume 1 --db w.db --filter '[p\"]la\\in*' --filter 'pl*' "
                             "--exclude-tag 'two words'"), 0);
  assert_true(ru_file_contains("out.txt", "1 program done already"));
  assert_int_equal(ru_query("w.db", "select count(*) from runs where status = 'complete'"), 1);
  assert_int_equal(ru_run(NULL, "--resume 1 --db w.db --filter 'pl*'"), VC_EXIT_USAGE);
}

static void interrupt_then_resume(void **state) {
  (void)state;
  /* third is the last program in sorted order and hangs: the run is
     interrupted while it is in flight, after plain and spill are recorded. */
  pid_t pid = ru_start("--backend opencl --mode host-split --db i.db --inject-hang third corpus");
  wait_programs("i.db", 2);
  ru_nap_ms(200);
  kill(pid, SIGINT);
  int st = 0;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), VC_EXIT_INTERRUPTED);
  assert_int_equal(ru_query("i.db", "select count(*) from runs where status='interrupted'"), 1);
  assert_int_equal(ru_query("i.db", "select count(*) from results"), 2);
  int64_t first_ids = ru_query("i.db", "select max(id) from results");

  assert_int_equal(ru_run(NULL, "--backend opencl --mode host-split --db i.db --resume 1 corpus"), 0);
  assert_true(ru_file_contains("out.txt", "2 programs done already"));
  assert_int_equal(ru_query("i.db", "select count(*) from runs"), 1);
  assert_int_equal(ru_query("i.db", "select count(*) from runs where status='complete'"), 1);
  assert_int_equal(ru_query("i.db", "select count(*) from programs"), 3);
  assert_int_equal(ru_query("i.db", "select count(*) from results"), 3);
  /* finished programs were not redone: their rows are the first ones */
  assert_int_equal(ru_query("i.db", "select count(*) from results where id <= 2"), first_ids);
  /* a complete run cannot be resumed; another corpus cannot either */
  assert_int_equal(ru_run(NULL, "--backend opencl --db i.db --resume 1 corpus"), VC_EXIT_USAGE);
  assert_true(ru_file_contains("out.txt", "complete"));
}

/* Valid by the race rules (atomics never race), yet its bytes depend on the
   order invocations run in: other oracle orders across repeats expose it. */
static void oracle_order_flags_scheduling_dependence(void **state) {
  (void)state;
  ru_write_file("order_dep.vyre", "(program order_dep (workgroup 4) (grid 2)\n"
                               "  (buffer x u32 1 read_write) (buffer o u32 8 write)\n"
                               "  (entry (store o (global_id x) (atomic exchange x 0u (global_id x)))))\n");
  ru_run(NULL, "--backend opencl --mode host-split --db o.db --repeat 3 --oracle-order shuffle:7 "
            "order_dep.vyre");
  assert_true(ru_query("o.db", "select count(*) from results where nondeterministic=1") >= 1);
  assert_true(ru_query("o.db", "select count(*) from results where reason like '%depends on scheduling%'") >= 1);
  /* an order-independent program is not flagged, in any order */
  assert_int_equal(ru_run(NULL, "--backend opencl --mode host-split --db o2.db --repeat 3 "
                             "--oracle-order shuffle:7 corpus/spill.vyre"), 0);
  assert_int_equal(ru_query("o2.db", "select count(*) from results where nondeterministic=1"), 0);
  assert_int_equal(ru_run(NULL, "--backend opencl --mode host-split --db o2.db --repeat 2 "
                             "--oracle-order reverse corpus/spill.vyre"), 0);
}

/* A program above the buffer budget is refused with both figures, before any
   device allocation; a run of nothing else checked nothing (exit 9). */
static void buffer_budget_refuses_clearly(void **state) {
  (void)state;
  assert_int_equal(ru_run(NULL, "--backend opencl --mode host-split --db l.db "
                             "--max-buffer-bytes 200 corpus/spill.vyre"), VC_EXIT_NOT_RUN);
  assert_int_equal(ru_query("l.db", "select count(*) from results where status='unsupported' and "
                                 "reason like '%256 bytes%budget of 200%'"), 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(run_records_every_table),
      cmocka_unit_test(traffic_matches_plan),
      cmocka_unit_test(planted_wrong_byte_is_caught),
      cmocka_unit_test(crash_and_hang_cost_one_program_each),
      cmocka_unit_test(usage_errors),
      cmocka_unit_test(missing_icd_is_reported),
      cmocka_unit_test(bad_input_is_named),
      cmocka_unit_test(corrupt_database_is_refused_untouched),
      cmocka_unit_test(interrupt_then_resume),
      cmocka_unit_test(oracle_order_flags_scheduling_dependence),
      cmocka_unit_test(buffer_budget_refuses_clearly),
      cmocka_unit_test(empty_selection_is_a_usage_error),
      cmocka_unit_test(usage_errors_write_no_run),
      cmocka_unit_test(filter_matches_declared_names),
      cmocka_unit_test(digest_covers_the_selection),
      cmocka_unit_test(resume_restores_the_runs_options),
      cmocka_unit_test(failures_are_charged_to_their_step),
      cmocka_unit_test(each_file_is_parsed_once),
      cmocka_unit_test(stuck_native_launch_spares_the_split_modes),
      cmocka_unit_test(stored_options_read_back),
      cmocka_unit_test(poison_read_is_an_invalid_program),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
