/* Results files on a read-only volume: compare, merge (its inputs) and report
 * read them, and leave no -wal or -shm file behind.
 *
 * The files are made read-only the way a read-only volume is for the reader:
 * the folder 0555, the files 0444. Permission bits do not stop root, and a
 * test cannot mount a read-only file system here, so when the test runs as
 * root each command runs in a child process that first drops to the user
 * and group nobody (65534), for whom the folder and the files really are
 * read-only: SQLite cannot create a -wal or -shm file beside them, as on a
 * read-only mount. As any other user the bits alone do it. */
#define _DEFAULT_SOURCE /* setgroups */
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>
#include <stdbool.h>

#include "fixture.h"
#include "harness/base/exitcodes.h"
#include "harness/cli/commands_results.h"

enum { NOBODY = 65534 };

static char ro_dir[600], out_dir[600];
static char base[700], cand[700], shard0[700], shard1[700], logged[700];

static const fx_prog progs[] = {{"a", "ppp", 5, 0}, {"b", "pdp", 5, 0}};

static int setup(void **state) {
  fx_tmp_setup(state);
  fx_path(&fx_tmp, "ro", ro_dir);
  fx_path(&fx_tmp, "out", out_dir);
  assert_int_equal(mkdir(ro_dir, 0755), 0);
  assert_int_equal(mkdir(out_dir, 0777), 0);
  assert_int_equal(chmod(out_dir, 0777), 0); /* past the umask */
  assert_int_equal(chmod(fx_tmp.path, 0755), 0);
  snprintf(base, sizeof base, "%s/base.db", ro_dir);
  snprintf(cand, sizeof cand, "%s/cand.db", ro_dir);
  snprintf(shard0, sizeof shard0, "%s/shard0.db", ro_dir);
  snprintf(shard1, sizeof shard1, "%s/shard1.db", ro_dir);
  snprintf(logged, sizeof logged, "%s/logged.db", ro_dir);
  fx_write_run(base, &(fx_run){.progs = progs, .nprogs = 2});
  fx_write_run(cand, &(fx_run){.progs = progs, .nprogs = 2});
  fx_selection sel;
  fx_run s0 = {.progs = progs, .nprogs = 1, .shard = "0/2"};
  fx_select(&s0, progs, 2, &sel);
  fx_run s1 = s0;
  s1.progs = progs + 1;
  s1.shard = "1/2";
  fx_write_run(shard0, &s0);
  fx_write_run(shard1, &s1);
  /* logged.db: its last transaction only in its -wal file, as a writer that
     died leaves it */
  fx_write_run(logged, &(fx_run){.progs = progs, .nprogs = 2});
  sqlite3 *h = NULL;
  assert_int_equal(sqlite3_open(logged, &h), SQLITE_OK);
  assert_int_equal(sqlite3_db_config(h, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL), SQLITE_OK);
  assert_int_equal(sqlite3_exec(h, "UPDATE runs SET host='host-from-the-log'", NULL, NULL, NULL),
                   SQLITE_OK);
  sqlite3_close(h);
  const char *files[] = {base, cand, shard0, shard1, logged};
  for (int i = 0; i < 5; i++) {
    /* written in WAL mode, the mode that needs a -shm file to read: bytes
       18 and 19 of the header are 2 (read without SQLite, which would leave
       a -shm file) */
    FILE *f = fopen(files[i], "rb");
    unsigned char head[20];
    assert_non_null(f);
    assert_int_equal(fread(head, 1, sizeof head, f), sizeof head);
    fclose(f);
    assert_int_equal(head[18], 2);
    assert_int_equal(head[19], 2);
    assert_int_equal(chmod(files[i], 0444), 0);
  }
  char aside[720];
  snprintf(aside, sizeof aside, "%s-wal", logged);
  assert_int_equal(chmod(aside, 0444), 0);
  snprintf(aside, sizeof aside, "%s-shm", logged);
  assert_int_equal(chmod(aside, 0444), 0);
  assert_int_equal(chmod(ro_dir, 0555), 0);
  return 0;
}

static int teardown(void **state) {
  chmod(ro_dir, 0755);
  return fx_tmp_teardown(state);
}

/* Runs fn(argv) in a child for which ro_dir is read-only; its exit status. */
static int run_readonly(int (*fn)(int, char **), int argc, const char *const *argv) {
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    if (geteuid() == 0 && (setgroups(0, NULL) != 0 || setgid(NOBODY) != 0 || setuid(NOBODY) != 0))
      _exit(100);
    /* the premise: this process cannot write there */
    char probe[700];
    snprintf(probe, sizeof probe, "%s/probe", ro_dir);
    FILE *f = fopen(probe, "w");
    if (f || access(base, W_OK) == 0) _exit(101);
    if (!freopen("/dev/null", "w", stdout)) _exit(102);
    char *args[8] = {0};
    for (int i = 0; i < argc && i < 7; i++) args[i] = strdup(argv[i]);
    _exit(fn(argc, args));
  }
  int st = 0;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  assert_true(WIFEXITED(st));
  assert_int_not_equal(WEXITSTATUS(st), 100);
  assert_int_not_equal(WEXITSTATUS(st), 101);
  return WEXITSTATUS(st);
}

/* Only what setup made is in the folder: the five results files and
   logged.db's -wal and -shm, no other -wal or -shm. */
static void assert_nothing_beside(void) {
  static const char *const made[] = {"base.db",   "cand.db",       "shard0.db",    "shard1.db",
                                     "logged.db", "logged.db-wal", "logged.db-shm"};
  DIR *d = opendir(ro_dir);
  assert_non_null(d);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    bool known = false;
    for (size_t i = 0; i < sizeof made / sizeof made[0]; i++) known |= !strcmp(e->d_name, made[i]);
    if (!known) fail_msg("%s/%s was left behind", ro_dir, e->d_name);
    n++;
  }
  closedir(d);
  assert_int_equal(n, 7);
}

static void test_compare_reads_readonly_files(void **state) {
  (void)state;
  const char *argv[] = {"compare", base, cand, "--no-timing"};
  assert_int_equal(run_readonly(vc_cmd_compare, 4, argv), VC_EXIT_OK);
  assert_nothing_beside();
}

static void test_report_reads_a_readonly_file(void **state) {
  (void)state;
  char md[700], html[700];
  snprintf(md, sizeof md, "%s/r.md", out_dir);
  snprintf(html, sizeof html, "%s/r.html", out_dir);
  const char *argv[] = {"report", base, "--md", md, "--html", html};
  assert_int_equal(run_readonly(vc_cmd_report, 6, argv), VC_EXIT_OK);
  assert_nothing_beside();
  char *text = fx_read_file(md);
  assert_non_null(strstr(text, "vyre-conform qualification record\n"));
  free(text);
  text = fx_read_file(html);
  assert_non_null(strstr(text, "</html>"));
  free(text);
}

/* A -wal file holds committed transactions: read them, not the file alone. */
static void test_report_reads_the_log_of_a_readonly_file(void **state) {
  (void)state;
  char html[700];
  snprintf(html, sizeof html, "%s/logged.html", out_dir);
  const char *argv[] = {"report", logged, "--html", html};
  assert_int_equal(run_readonly(vc_cmd_report, 4, argv), VC_EXIT_OK);
  assert_nothing_beside();
  char *text = fx_read_file(html);
  assert_non_null(strstr(text, "host-from-the-log"));
  free(text);
}

static void test_merge_reads_readonly_shards(void **state) {
  (void)state;
  char out[700];
  snprintf(out, sizeof out, "%s/merged.db", out_dir);
  const char *argv[] = {"merge", "-o", out, shard0, shard1};
  assert_int_equal(run_readonly(vc_cmd_merge, 5, argv), VC_EXIT_OK);
  assert_nothing_beside();
  assert_int_equal(fx_query_int(out, "SELECT count(*) FROM programs"), 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_compare_reads_readonly_files, setup, teardown),
      cmocka_unit_test_setup_teardown(test_report_reads_a_readonly_file, setup, teardown),
      cmocka_unit_test_setup_teardown(test_report_reads_the_log_of_a_readonly_file, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_merge_reads_readonly_shards, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
