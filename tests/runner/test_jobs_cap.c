/* --jobs above the number of programs to run starts one worker for each
 * program and no more (harness/run/schedule.c, vc_schedule_workers): every
 * worker opens the device, so 256 workers for 3 programs cost seconds of
 * opens. Counted by the workers' `open` lines of VYRE_CONFORM_DEVICE_LOG
 * (one a worker started), not by time: the test holds on a loaded machine.
 * After --resume the programs to run are those left. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness/base/exitcodes.h"
#include "harness/run/schedule.h"
#include "run_util.h"

static const char prog_a[] =
    "(program a_first (workgroup 4) (grid 2)\n"
    "  (buffer o u32 8 write)\n"
    "  (entry (store o (global_id x) (mul (global_id x) 3u))))\n";
static const char prog_b[] =
    "(program b_second (workgroup 4) (grid 1)\n"
    "  (buffer o i32 4 write)\n"
    "  (entry (store o (global_id x) (sub 0i (cast i32 (global_id x))))))\n";
static const char prog_c[] =
    "(program c_third (workgroup 4) (grid 1)\n"
    "  (buffer o u32 4 write)\n"
    "  (entry (store o (global_id x) (add (global_id x) 7u))))\n";

static int setup(void **state) {
  (void)state;
  ru_make_dir("vc-jobs-cap");
  char sub[300];
  snprintf(sub, sizeof sub, "%s/corpus", ru_dir);
  mkdir(sub, 0777);
  ru_write_file("corpus/a.vyre", prog_a);
  ru_write_file("corpus/b.vyre", prog_b);
  ru_write_file("corpus/c.vyre", prog_c);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  return ru_remove_dir();
}

/* Workers started: the `open` lines of the device log NAME. */
static int opens(const char *name) {
  char buf[1 << 16];
  ru_read_text(name, buf, sizeof buf);
  int n = 0;
  for (const char *l = buf; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
    n += strncmp(l, "open ", 5) == 0;
  return n;
}

static void the_count_is_jobs_capped_at_the_programs(void **state) {
  (void)state;
  assert_int_equal(vc_schedule_workers(64, 3), 3);
  assert_int_equal(vc_schedule_workers(2, 3), 2);
  assert_int_equal(vc_schedule_workers(3, 3), 3);
  assert_int_equal(vc_schedule_workers(1, 1000), 1);
  /* a resumed run with nothing left still opens its device once */
  assert_int_equal(vc_schedule_workers(16, 0), 1);
}

/* 3 programs, --jobs 64: 3 workers open the device, every mode passes. */
static void three_programs_start_three_workers(void **state) {
  (void)state;
  assert_int_equal(ru_run("VYRE_CONFORM_DEVICE_LOG=dev.log ",
                          "--backend opencl --jobs 64 --db j.db --progress plain corpus"),
                   VC_EXIT_OK);
  int n = opens("dev.log");
  if (n > 3) fprintf(stderr, "%d workers started for 3 programs\n", n);
  assert_true(n >= 1 && n <= 3);
  assert_true(ru_file_contains("out.txt", "workers: 3 (--jobs 64, no more than the programs to run)"));
  assert_int_equal(ru_query("j.db", "select count(*) from results where status = 'pass'"), 9);
  /* the run records the --jobs asked for: a --resume takes it again */
  assert_int_equal(ru_query("j.db", "select count(*) from runs where options like '%jobs=64%'"), 1);
}

/* --repeat does not add workers: a worker runs every repeat of its program. */
static void repeats_run_in_the_programs_worker(void **state) {
  (void)state;
  assert_int_equal(ru_run("VYRE_CONFORM_DEVICE_LOG=rep.log ",
                          "--backend opencl --jobs 64 --repeat 3 --mode host-split --db r.db "
                          "--progress plain corpus/a.vyre corpus/b.vyre"),
                   VC_EXIT_OK);
  assert_true(opens("rep.log") <= 2);
  assert_int_equal(ru_query("r.db", "select count(*) from results where status = 'pass'"), 6);
}

/* c_third hangs; once a_first and b_second are recorded an interrupt ends
   the run. --resume with --jobs 64 has one program left: one worker. */
static void a_resumed_run_starts_a_worker_for_each_program_left(void **state) {
  (void)state;
  pid_t pid = ru_start("--backend opencl --jobs 1 --db i.db --progress plain "
                       "--timeout 600 --inject-hang c_third@setup corpus");
  char path[512];
  snprintf(path, sizeof path, "%s/i.db", ru_dir);
  int64_t done = 0;
  for (int i = 0; i < 3000 && done < 2; i++) {
    ru_nap_ms(100);
    if (access(path, F_OK) == 0 &&
        ru_query("i.db", "select count(*) from sqlite_master where name = 'programs'") == 1)
      done = ru_query("i.db", "select count(*) from programs");
  }
  assert_int_equal(done, 2);
  kill(pid, SIGINT);
  int st = 0;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), VC_EXIT_INTERRUPTED);
  assert_int_equal(ru_run("VYRE_CONFORM_DEVICE_LOG=res.log ", "--db i.db --resume 1 --jobs 64"),
                   VC_EXIT_OK);
  assert_true(ru_file_contains("out.txt", "2 programs done already"));
  assert_int_equal(opens("res.log"), 1);
  assert_true(ru_file_contains("out.txt", "workers: 1 (--jobs 64, no more than the programs to run)"));
  assert_int_equal(ru_query("i.db", "select count(*) from programs"), 3);
  assert_int_equal(ru_query("i.db", "select count(*) from runs where status = 'complete'"), 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(the_count_is_jobs_capped_at_the_programs),
      cmocka_unit_test(three_programs_start_three_workers),
      cmocka_unit_test(repeats_run_in_the_programs_worker),
      cmocka_unit_test(a_resumed_run_starts_a_worker_for_each_program_left),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
