/* End-to-end runs on the OpenCL backend (PoCL): workers open the device at
 * once and get jobs only once ready; --device-lock keeps the device phases
 * of two runs that share the lock apart, a lock held by another process
 * makes a run wait (not counted in --timeout), and a lock file that cannot
 * be opened is refused before the run is written. The workers' device log
 * (VYRE_CONFORM_DEVICE_LOG, docs/usage.md) shows what happened when. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "run_util.h"

#include "harness/base/exitcodes.h"


static int setup(void **state) {
  (void)state;
  ru_make_dir("vc-dlock");
  char sub[300];
  snprintf(sub, sizeof sub, "%s/corpus", ru_dir);
  mkdir(sub, 0777);
  ru_write_file("corpus/a.vyre",
             "(program a_spill (workgroup 8) (grid 4)\n"
             "  (buffer a u32 32 read_write (init iota))\n"
             "  (buffer out u32 32 write)\n"
             "  (entry (let g (global_id x)) (let v (load a g))\n"
             "    (store a g (add v 100u)) (barrier grid)\n"
             "    (store out g (add v (load a (sub 31u g))))))\n");
  ru_write_file("corpus/b.vyre", "(program b_plain (workgroup 4) (grid 2)\n"
                              "  (buffer o u32 8 write)\n"
                              "  (entry (store o (global_id x) (mul (global_id x) 3u))))\n");
  ru_write_file("corpus/c.vyre",
             "(program c_mirror (workgroup 4) (grid 2)\n"
             "  (buffer a u32 8 read_write (init iota))\n"
             "  (buffer o u32 8 write)\n"
             "  (entry (let g (global_id x)) (store a g (mul (load a g) 2u)) (barrier grid)\n"
             "    (store o g (load a (sub 7u g)))))\n");
  return 0;
}

static int teardown(void **state) {
  (void)state;
  return ru_remove_dir();
}

static int read_int(const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", ru_dir, name);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  int v = -1;
  assert_int_equal(fscanf(f, "%d", &v), 1);
  fclose(f);
  return v;
}

/* One line of a device log. */
typedef struct ev {
  char what[8]; /* open, ready, want, enter, leave */
  unsigned long long ns;
  int pid;
} ev;

enum { MAX_EV = 256 };

static int read_log(const char *name, ev *e) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", ru_dir, name);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  int n = 0;
  while (n < MAX_EV && fscanf(f, "%7s %llu %d", e[n].what, &e[n].ns, &e[n].pid) == 3) n++;
  fclose(f);
  return n;
}

/* The device phases of a log as [enter, leave] pairs by process. */
static int phases(const ev *e, int n, unsigned long long (*iv)[2]) {
  int k = 0;
  for (int i = 0; i < n; i++) {
    if (strcmp(e[i].what, "enter") != 0) continue;
    int j = i + 1;
    while (j < n && !(e[j].pid == e[i].pid && strcmp(e[j].what, "leave") == 0)) j++;
    assert_true(j < n); /* every phase left */
    iv[k][0] = e[i].ns;
    iv[k][1] = e[j].ns;
    k++;
  }
  return k;
}

static const char env[] = "POCL_KERNEL_CACHE=0";

/* Two runs at once, sharing one lock: no device phase of the one overlaps
   one of the other, and both finish with every program passing. A program
   of a million invocations makes the phases long enough that two runs
   without the lock overlap theirs (they did in each try). */
static void two_runs_never_share_the_device(void **state) {
  (void)state;
  ru_write_file("corpus/d.vyre",
             "(program d_wide (workgroup 256) (grid 64 64)\n"
             "  (buffer h u32 1048576 write)\n"
             "  (buffer out u32 1048576 write)\n"
             "  (entry\n"
             "    (let g (add (global_id x) (mul (global_id y) 16384u)))\n"
             "    (store h g (mul (xor g 0xa5a5a5a5u) 2246822519u))\n"
             "    (barrier grid)\n"
             "    (store out g (xor (load h g) (load h (and (mul g 40503u) 0xfffffu))))))\n");
#define RUN                                                                                    \
  "%s VYRE_CONFORM_DEVICE_LOG=%s %s/vyre-conform --backend opencl --no-cache --jobs 2 "        \
  "--device-lock dev.lock --db %s --progress plain corpus >%s 2>&1; echo $? >%s"
  char one[1024], two[1024];
  snprintf(one, sizeof one, RUN, env, "log1", VC_BINARY_DIR, "r1.db", "out1.txt", "rc1");
  snprintf(two, sizeof two, RUN, env, "log2", VC_BINARY_DIR, "r2.db", "out2.txt", "rc2");
#undef RUN
  assert_int_equal(ru_sh("(%s) & (%s) & wait", one, two), 0);
  assert_int_equal(read_int("rc1"), VC_EXIT_OK);
  assert_int_equal(read_int("rc2"), VC_EXIT_OK);
  static ev e1[MAX_EV], e2[MAX_EV];
  static unsigned long long p1[MAX_EV][2], p2[MAX_EV][2];
  int n1 = phases(e1, read_log("log1", e1), p1), n2 = phases(e2, read_log("log2", e2), p2);
  assert_int_equal(n1, 12); /* four programs, three modes */
  assert_int_equal(n2, 12);
  for (int i = 0; i < n1; i++)
    for (int j = 0; j < n2; j++) {
      bool apart = p1[i][1] <= p2[j][0] || p2[j][1] <= p1[i][0];
      if (!apart)
        fprintf(stderr, "phase [%llu, %llu] of run 1 overlaps [%llu, %llu] of run 2\n", p1[i][0],
                p1[i][1], p2[j][0], p2[j][1]);
      assert_true(apart);
    }
}

static unsigned long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

/* Whether the device log NAME has a line starting with WHAT. */
static bool log_has(const char *name, const char *what) {
  char path[512], line[128];
  snprintf(path, sizeof path, "%s/%s", ru_dir, name);
  FILE *f = fopen(path, "r");
  if (!f) return false;
  bool found = false;
  size_t n = strlen(what);
  while (!found && fgets(line, sizeof line, f)) found = strncmp(line, what, n) == 0 && line[n] == ' ';
  fclose(f);
  return found;
}

/* Another process holds the lock until a worker of the run asks for the
   device ("want" in the device log: the run now waits), then for HOLD_S
   more, longer than the run's --timeout of 20 s (waiting for the device is
   not charged to a program; a program's own compile and run stay well
   inside 20 s on a busy machine, and inside 3 s they did not). The run then runs every program, each device
   phase after the lock was let go, and the wait is in its rows: at least
   the time the holder held the lock after the run began to wait, as the
   holder measured it. Nothing here depends on how fast the machine is:
   the hold starts at the run's own event. */
enum { HOLD_S = 24 };
static void a_held_lock_makes_the_run_wait(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s/dev.lock", ru_dir);
  int ready[2];
  assert_int_equal(pipe(ready), 0);
  pid_t holder = fork();
  assert_true(holder >= 0);
  if (holder == 0) {
    int fd = open(path, O_RDWR | O_CREAT, 0666);
    if (fd < 0 || flock(fd, LOCK_EX) != 0) _exit(1);
    if (write(ready[1], "x", 1) != 1) _exit(1);
    /* polling a file for an event: the interval only delays the hold */
    while (!log_has("log", "want")) ru_nap_ms(5);
    unsigned long long seen = now_ns();
    sleep(HOLD_S);
    char rel[64];
    snprintf(rel, sizeof rel, "%s/released", ru_dir);
    FILE *f = fopen(rel, "w");
    if (!f) _exit(1);
    unsigned long long released = now_ns();
    fprintf(f, "%llu %llu\n", released, released - seen);
    fclose(f);
    flock(fd, LOCK_UN);
    _exit(0);
  }
  close(ready[1]);
  char c;
  assert_int_equal(read(ready[0], &c, 1), 1); /* the lock is held */
  close(ready[0]);
  int rc = ru_sh("%s VYRE_CONFORM_DEVICE_LOG=log %s/vyre-conform --backend opencl --no-cache "
              "--jobs 2 --device-lock dev.lock --timeout 20 --flake-reruns 0 --mode host-split "
              "--db w.db --progress plain corpus >out.txt 2>&1",
              env, VC_BINARY_DIR);
  int st = 0;
  assert_int_equal(waitpid(holder, &st, 0), holder);
  assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  if (rc) ru_sh("cat out.txt >&2");
  assert_int_equal(rc, VC_EXIT_OK);
  snprintf(path, sizeof path, "%s/released", ru_dir);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  unsigned long long released = 0, held = 0;
  assert_int_equal(fscanf(f, "%llu %llu", &released, &held), 2);
  fclose(f);
  assert_true(held >= HOLD_S * 1000000000ull);
  static ev e[MAX_EV];
  static unsigned long long p[MAX_EV][2];
  int n = phases(e, read_log("log", e), p);
  assert_int_equal(n, 3);
  for (int i = 0; i < n; i++) assert_true(p[i][0] >= released);
  /* the wait is in the results: the first mode waited for the lock */
  long long waited = ru_query("w.db", "select max(wait_ns) from results");
  if (waited < (long long)held)
    fprintf(stderr, "max(wait_ns) %lld < %llu ns held after the run asked\n", waited, held);
  assert_true(waited >= (long long)held);
}

/* A lock file that cannot be made is refused before the run is written. */
static void an_unopenable_lock_is_refused(void **state) {
  (void)state;
  assert_int_equal(ru_sh("%s/vyre-conform --backend opencl --device-lock no/such/dir/dev.lock "
                      "--db u.db corpus >out.txt 2>&1",
                      VC_BINARY_DIR),
                   VC_EXIT_USAGE);
  assert_int_equal(ru_sh("grep -q -- '--device-lock no/such/dir/dev.lock: No such file or directory' "
                      "out.txt"),
                   0);
  assert_int_equal(ru_sh("test ! -e u.db"), 0);
}

/* Workers open the device at once (the second does not wait for the
   first to be ready), and none enters a device phase before it is ready. */
static void workers_open_at_once(void **state) {
  (void)state;
  assert_int_equal(ru_sh("%s VYRE_CONFORM_DEVICE_LOG=log %s/vyre-conform --backend opencl "
                      "--no-cache --jobs 2 --db o.db --progress plain corpus >out.txt 2>&1",
                      env, VC_BINARY_DIR),
                   VC_EXIT_OK);
  static ev e[MAX_EV];
  int n = read_log("log", e);
  unsigned long long last_open = 0, first_ready = ~0ull;
  int opens = 0;
  for (int i = 0; i < n; i++) {
    if (!strcmp(e[i].what, "open")) {
      opens++;
      if (e[i].ns > last_open) last_open = e[i].ns;
    }
    if (!strcmp(e[i].what, "ready") && e[i].ns < first_ready) first_ready = e[i].ns;
    if (!strcmp(e[i].what, "enter")) {
      bool ready = false;
      for (int j = 0; j < i; j++) ready |= e[j].pid == e[i].pid && !strcmp(e[j].what, "ready");
      assert_true(ready);
    }
  }
  assert_int_equal(opens, 2);
  assert_true(last_open < first_ready);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(workers_open_at_once, setup, teardown),
      cmocka_unit_test_setup_teardown(an_unopenable_lock_is_refused, setup, teardown),
      cmocka_unit_test_setup_teardown(a_held_lock_makes_the_run_wait, setup, teardown),
      cmocka_unit_test_setup_teardown(two_runs_never_share_the_device, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
