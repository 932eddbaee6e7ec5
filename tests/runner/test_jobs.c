/* End-to-end runs on the OpenCL backend (PoCL) with several worker
 * processes: the database is the same whatever --jobs, a worker that dies
 * holding the device token costs its program only, an interrupt records
 * what finished, the plain progress names a program in flight every 10 s,
 * and --flake-reruns turns a failure that passes on a rerun into `flake`
 * (a failure unless a flake entry lists it: test_flakes.c) while a
 * persistent one stays a failure. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
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


/* Four small programs (a grid barrier in two of them), in this order. */
static const char prog_a[] =
    "(program a_spill (workgroup 8) (grid 4)\n"
    "  (buffer a u32 32 read_write (init iota))\n"
    "  (buffer out u32 32 write)\n"
    "  (entry (let g (global_id x)) (let v (load a g))\n"
    "    (store a g (add v 100u)) (barrier grid)\n"
    "    (store out g (add v (load a (sub 31u g))))))\n";
static const char prog_b[] =
    "(program b_plain (workgroup 4) (grid 2)\n"
    "  (buffer o u32 8 write)\n"
    "  (entry (store o (global_id x) (mul (global_id x) 3u))))\n";
static const char prog_c[] =
    "(program c_third (workgroup 4) (grid 1)\n"
    "  (buffer o i32 4 write)\n"
    "  (entry (store o (global_id x) (sub 0i (cast i32 (global_id x))))))\n";
static const char prog_d[] =
    "(program d_mirror (workgroup 4) (grid 2)\n"
    "  (buffer a u32 8 read_write (init iota))\n"
    "  (buffer o u32 8 write)\n"
    "  (entry (let g (global_id x)) (store a g (mul (load a g) 2u)) (barrier grid)\n"
    "    (store o g (load a (sub 7u g)))))\n";

static int setup(void **state) {
  (void)state;
  ru_make_dir("vc-jobs");
  char sub[300];
  snprintf(sub, sizeof sub, "%s/corpus", ru_dir);
  mkdir(sub, 0777);
  ru_write_file("corpus/a.vyre", prog_a);
  ru_write_file("corpus/b.vyre", prog_b);
  ru_write_file("corpus/c.vyre", prog_c);
  ru_write_file("corpus/d.vyre", prog_d);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  return ru_remove_dir();
}

/* What must not depend on --jobs: the rows of programs and results (ids,
   program, mode, repeat, status, reason, bytes moved, launches, output
   digest), not their timings. */
static const char results_sql[] =
    "select r.id, p.id, p.name, r.mode, r.repeat, r.status, r.reason, r.bytes_up, r.bytes_down, "
    "r.launches, r.output_digest, r.attempts from results r join programs p on "
    "r.program_id = p.id order by r.id";

/* The results digest (docs/reports.md) of the last run of dir/DB. */
static void results_digest(const char *db, char *out, size_t n) {
  assert_int_equal(ru_run(NULL, "report %s --md %s.md", db, db), 0);
  char name[300], buf[1 << 16];
  snprintf(name, sizeof name, "%s.md", db);
  ru_read_text(name, buf, sizeof buf);
  const char *d = strstr(buf, "| results digest (SHA-256) | ");
  assert_non_null(d);
  snprintf(out, n, "%.64s", d + strlen("| results digest (SHA-256) | "));
}

static void same_database(const char *db1, const char *db2) {
  char *r1 = ru_rows(db1, results_sql), *r2 = ru_rows(db2, results_sql);
  if (strcmp(r1, r2)) fprintf(stderr, "%s:\n%s\n%s:\n%s\n", db1, r1, db2, r2);
  assert_string_equal(r1, r2);
  free(r1);
  free(r2);
  char d1[80], d2[80];
  results_digest(db1, d1, sizeof d1);
  results_digest(db2, d2, sizeof d2);
  assert_string_equal(d1, d2);
}

/* The times the runner records (docs/database.md) add up: a mode holds the
   device at least as long as its own span on the device, the mode takes at
   least its wait and its hold, and a program's jobs at least its steps and
   its modes, every step of a program that ran its modes taking time. */
static void times_add_up(const char *db) {
  assert_int_equal(ru_query(db, "select count(*) from results where mode in ('native', "
                             "'host-split', 'resident-split') and status = 'pass' and not "
                             "(wall_ns > 0 and phase_ns >= wall_ns and mode_ns >= wait_ns + "
                             "phase_ns)"),
                   0);
  assert_int_equal(ru_query(db, "select count(*) from programs p where not (setup_ns > 0 and "
                             "reference_ns > 0 and oracle_ns > 0 and flight_ns >= setup_ns + "
                             "reference_ns + oracle_ns + (select sum(mode_ns) from results r "
                             "where r.program_id = p.id))"),
                   0);
}

/* The same rows, in the same order with the same ids, and the same results
   digest with one job and with several: on a clean corpus, and with a crash
   and a failure in it (the crashed program's worker is replaced). */
static void jobs_do_not_change_the_database(void **state) {
  (void)state;
  assert_int_equal(ru_run(NULL, "--backend opencl --jobs 1 --db j1.db --progress plain corpus"), 0);
  assert_int_equal(ru_run(NULL, "--backend opencl --jobs 2 --db j2.db --progress plain corpus"), 0);
  assert_true(ru_file_contains("out.txt", "[4/4] d_mirror"));
  assert_int_equal(ru_run(NULL, "--backend opencl --jobs 3 --device-jobs 2 --db j3.db corpus"), 0);
  assert_int_equal(ru_query("j1.db", "select count(*) from results where status='pass'"), 12);
  same_database("j1.db", "j2.db");
  same_database("j1.db", "j3.db");
  times_add_up("j1.db");
  times_add_up("j2.db");
  times_add_up("j3.db");
  /* recorded with the run's options, which do not enter the digest */
  assert_int_equal(ru_query("j2.db", "select count(*) from runs where options like '%jobs=2 %' and "
                                  "options like '%device-jobs=1%'"),
                   1);

  /* a_spill's first mode hangs until its timeout: with two jobs the other
     worker finishes the programs after it first, and they wait for it */
  const char faults[] = "--inject-hang a_spill@native --timeout 3 --inject-crash "
                        "c_third@resident-split --inject-flip native:o:1 --flake-reruns 0 corpus";
  assert_int_equal(ru_run(NULL, "--backend opencl --jobs 1 --db f1.db %s", faults), VC_EXIT_FAIL);
  assert_int_equal(ru_run(NULL, "--backend opencl --jobs 2 --db f2.db %s", faults), VC_EXIT_FAIL);
  assert_int_equal(ru_query("f1.db", "select count(*) from results where status='timeout'"), 1);
  assert_int_equal(ru_query("f1.db", "select count(*) from results where status='crash'"), 1);
  assert_int_equal(ru_query("f1.db", "select count(*) from results where status='diverge'"), 3);
  same_database("f1.db", "f2.db");
}

/* The most device phases open at once in dir/NAME, a VYRE_CONFORM_DEVICE_LOG
   file; *phases: how many there were. */
typedef struct phase_event {
  unsigned long long ns;
  int delta;
} phase_event;

static int cmp_event(const void *a, const void *b) {
  const phase_event *x = a, *y = b;
  if (x->ns != y->ns) return x->ns < y->ns ? -1 : 1;
  return x->delta - y->delta; /* a leave before an enter at the same instant */
}

static int most_open(const char *name, int *phases, unsigned long long *open_ns) {
  char path[512], what[16];
  snprintf(path, sizeof path, "%s/%s", ru_dir, name);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  phase_event ev[1024];
  int n = 0, pid;
  unsigned long long ns;
  while (n < 1024 && fscanf(f, "%15s %llu %d", what, &ns, &pid) == 3)
    if (!strcmp(what, "enter") || !strcmp(what, "leave")) /* not a worker's open, ready */
      ev[n++] = (phase_event){ns, strcmp(what, "enter") == 0 ? 1 : -1};
  fclose(f);
  qsort(ev, (size_t)n, sizeof *ev, cmp_event);
  int open = 0, most = 0;
  *phases = 0;
  *open_ns = 0;
  for (int i = 0; i < n; i++) {
    if (open && i) *open_ns += ev[i].ns - ev[i - 1].ns; /* time with a phase open */
    open += ev[i].delta;
    *phases += ev[i].delta > 0;
    if (open > most) most = open;
  }
  assert_int_equal(open, 0);
  return most;
}

/* With several workers, one program's device phase runs at a time by
   default (every mode of every program: 12 phases), at most M with
   --device-jobs M; compiles stay outside it. On a terminal the status line shows elapsed time, ETA,
   the counts and what is in flight. */
static void device_phases_do_not_overlap(void **state) {
  (void)state;
  assert_int_equal(ru_run(NULL, "--backend opencl --jobs 3 --no-cache --db d1.db --progress tty corpus"), 0);
  assert_true(ru_file_contains("out.txt", ", ETA "));
  assert_true(ru_file_contains("out.txt", "running: a_spill setup"));
  assert_true(ru_file_contains("out.txt", "[4/4] 0:"));
  assert_true(ru_file_contains("out.txt", "; 4 passed, 0 failed, 0 running:"));
  char cmd[1200];
  snprintf(cmd, sizeof cmd,
           "cd %s && VYRE_CONFORM_DEVICE_LOG=%s/one.log %s/vyre-conform --backend opencl "
           "--jobs 3 --no-cache --db d3.db corpus >out.txt 2>&1",
           ru_dir, ru_dir, VC_BINARY_DIR);
  assert_int_equal(system(cmd), 0);
  int phases = 0;
  unsigned long long open_ns = 0;
  assert_int_equal(most_open("one.log", &phases, &open_ns), 1);
  assert_int_equal(phases, 12);
  /* Kernels are compiled before the device phase, not inside it: the
     phases took less than the native compiles alone (no cache: each one
     compiled, for tens of milliseconds). */
  long long compile_ns = ru_query("d3.db", "select sum(compile_ns) from results where mode='native'");
  if ((long long)open_ns >= compile_ns)
    fprintf(stderr, "device phases %llu ns, native compiles %lld ns\n", open_ns, compile_ns);
  assert_true((long long)open_ns < compile_ns);
  /* the runner's hold of the device spans each worker's phase (one at a
     time here): together no shorter than the phases the workers logged */
  assert_true(ru_query("d3.db", "select sum(phase_ns) from results") >= (long long)open_ns);
  snprintf(cmd, sizeof cmd,
           "cd %s && VYRE_CONFORM_DEVICE_LOG=%s/two.log %s/vyre-conform --backend opencl "
           "--jobs 3 --device-jobs 2 --no-cache --db d4.db corpus >out.txt 2>&1",
           ru_dir, ru_dir, VC_BINARY_DIR);
  assert_int_equal(system(cmd), 0);
  assert_true(most_open("two.log", &phases, &open_ns) <= 2);
  assert_int_equal(phases, 12);
}

/* A worker that crashes while it holds the device token (in a mode's
   device phase) costs its program's mode only: the token comes back, the
   other programs all run (a lost token would stall the run until the test's
   timeout). */
static void crash_holding_the_device_frees_it(void **state) {
  (void)state;
  int rc = ru_run(NULL, "--backend opencl --jobs 2 --device-jobs 1 --mode host-split,native --db t.db "
               "--flake-reruns 0 --inject-crash b_plain@device corpus");
  assert_int_equal(rc, VC_EXIT_FAIL);
  assert_int_equal(ru_query("t.db", "select count(*) from results r join programs p on "
                                 "r.program_id = p.id where p.name='b_plain' and "
                                 "r.status='crash' and "
                                 "r.reason like '%signal 11%during host-split%'"),
                   1);
  /* b_plain's native ran in a fresh worker; it crashed there too */
  assert_int_equal(ru_query("t.db", "select count(*) from results where status='crash'"), 2);
  assert_int_equal(ru_query("t.db", "select count(*) from results where status='pass'"), 6);
  assert_int_equal(ru_query("t.db", "select count(*) from runs where status='complete'"), 1);
}

/* a_spill hangs in every device phase, holding the token until its 3 s
   timeout: the others wait for the token for longer than their own 3 s,
   which the wait does not count against. */
static void waiting_for_the_device_is_not_timed(void **state) {
  (void)state;
  int rc = ru_run(NULL, "--backend opencl --jobs 2 --device-jobs 1 --timeout 3 --flake-reruns 0 --db w.db "
               "--inject-hang a_spill@device corpus");
  assert_int_equal(rc, VC_EXIT_FAIL);
  assert_int_equal(ru_query("w.db", "select count(*) from results r join programs p on "
                                 "r.program_id = p.id where p.name = 'a_spill' and "
                                 "r.status = 'timeout'"),
                   3);
  assert_int_equal(ru_query("w.db", "select count(*) from results where status = 'pass'"), 9);
  /* the other worker's programs waited for the hung one's device phase,
     and their rows say so (how long depends on when they asked: no bound
     in seconds, which a loaded machine would break) */
  assert_true(ru_query("w.db", "select max(wait_ns) from results where status = 'pass'") > 0);
  times_add_up("w.db");
}

/* b_plain hangs in its native mode while two workers run the others. The
   plain progress prints a line at least every 10 s naming what is in
   flight; once it names b_plain alone, the other programs have finished
   (recorded after b_plain, in corpus order). SIGINT then records the
   finished ones, skipping b_plain, and exits 130; --resume runs b_plain. */
static void interrupt_records_what_finished(void **state) {
  (void)state;
  pid_t pid = ru_start("--backend opencl --jobs 2 --mode native --db i.db --progress plain "
                    "--inject-hang b_plain@native corpus");
  bool alone = false;
  for (int i = 0; i < 600 && !alone; i++) {
    ru_nap_ms(100);
    char buf[1 << 14];
    ru_read_text("bg.txt", buf, sizeof buf);
    /* a heartbeat line with b_plain and no other program in flight */
    for (char *l = strstr(buf, "running: "); l && !alone; l = strstr(l + 1, "running: ")) {
      char *end = strchr(l, '\n');
      if (!end) break;
      *end = '\0';
      alone = strncmp(l, "running: [2/4] b_plain native for ", 34) == 0 && !strstr(l, ", [");
      *end = '\n';
    }
  }
  assert_true(alone);
  /* nothing after a_spill is recorded yet: b_plain is in flight */
  assert_int_equal(ru_query("i.db", "select count(*) from programs"), 1);
  kill(pid, SIGINT);
  int st = 0;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), VC_EXIT_INTERRUPTED);
  assert_true(ru_file_contains("bg.txt", "(1 of 4 recorded,"));
  assert_int_equal(ru_query("i.db", "select count(*) from runs where status='interrupted'"), 1);
  char *names = ru_rows("i.db", "select name from programs order by id");
  assert_string_equal(names, "a_spill\nc_third\nd_mirror\n");
  free(names);
  assert_int_equal(ru_query("i.db", "select count(*) from results where status='pass'"), 3);

  /* --jobs may differ from the run's: it changes the speed, not the results */
  assert_int_equal(ru_run(NULL, "--db i.db --resume 1 --jobs 1"), 0);
  assert_true(ru_file_contains("out.txt", "3 programs done already"));
  names = ru_rows("i.db", "select name from programs order by id");
  assert_string_equal(names, "a_spill\nc_third\nd_mirror\nb_plain\n");
  free(names);
  assert_int_equal(ru_query("i.db", "select count(*) from runs where status='complete'"), 1);
}

/* A flip on the first attempt only: the rerun passes, the result is
   `flake` with both attempts in its log, and the summary lists it; no flake
   entry lists it, so it fails the run (test_flakes.c has the rest). A flip
   on every attempt stays a failure after the reruns; without reruns nothing
   is rerun. */
static void flake_reruns(void **state) {
  (void)state;
  assert_int_equal(ru_run(NULL, "--backend opencl --mode host-split,native --db k.db --progress plain "
                       "--expectations none --inject-flip host-split:o:2@1 corpus"),
                   VC_EXIT_FAIL);
  /* o[2] is in b_plain, c_third and d_mirror */
  assert_int_equal(ru_query("k.db", "select count(*) from results where status='flake'"), 3);
  assert_int_equal(ru_query("k.db", "select count(*) from results r join programs p on "
                                 "r.program_id = p.id where p.name = 'b_plain' and "
                                 "r.mode = 'host-split' and r.status = 'flake' and "
                                 "r.attempts = 2 and r.attempt_log like '1 diverge: %; 2 pass%'"),
                   1);
  /* the other modes ran once */
  assert_int_equal(ru_query("k.db", "select count(*) from results where attempts = 1 and "
                                 "attempt_log = '' and status = 'pass'"),
                   5);
  assert_int_equal(ru_query("k.db", "select count(*) from results"), 8);
  assert_true(ru_file_contains("out.txt", "3 flakes (failed, then passed on a rerun)"));
  assert_true(ru_file_contains("out.txt", "flakes not listed in any expectations file (none was "
                                          "read): b_plain host-split, c_third host-split, "
                                          "d_mirror host-split"));

  assert_int_equal(ru_run(NULL, "--backend opencl --mode host-split --db p.db --flake-reruns 2 "
                       "--inject-flip host-split:o:2 corpus"),
                   VC_EXIT_FAIL);
  assert_int_equal(ru_query("p.db", "select count(*) from results where status='diverge' and "
                                 "attempts = 3 and attempt_log like '1 diverge%; 2 diverge%; "
                                 "3 diverge%'"),
                   3);
  assert_int_equal(ru_query("p.db", "select count(*) from results where status='flake'"), 0);

  /* two failing attempts, one rerun: still a failure */
  assert_int_equal(ru_run(NULL, "--backend opencl --mode host-split --db q.db --flake-reruns 1 "
                       "--inject-flip host-split:o:2@2 corpus"),
                   VC_EXIT_FAIL);
  assert_int_equal(ru_query("q.db", "select count(*) from results where status='diverge' and "
                                 "attempts = 2"),
                   3);
  assert_int_equal(ru_run(NULL, "--backend opencl --mode host-split --db z.db --flake-reruns 0 "
                       "--inject-flip host-split:o:2@1 corpus"),
                   VC_EXIT_FAIL);
  assert_int_equal(ru_query("z.db", "select count(*) from results where status='diverge' and "
                                 "attempts = 1 and attempt_log = ''"),
                   3);
  assert_int_equal(ru_run(NULL, "--backend opencl --db z.db --inject-flip host-split:o:2@x corpus"),
                   VC_EXIT_USAGE);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(jobs_do_not_change_the_database),
      cmocka_unit_test(device_phases_do_not_overlap),
      cmocka_unit_test(crash_holding_the_device_frees_it),
      cmocka_unit_test(waiting_for_the_device_is_not_timed),
      cmocka_unit_test(interrupt_records_what_finished),
      cmocka_unit_test(flake_reruns),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
