#include "run_util.h"

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

char ru_dir[256];

void ru_make_dir(const char *prefix) {
  snprintf(ru_dir, sizeof ru_dir, "/tmp/%s-XXXXXX", prefix);
  assert_non_null(mkdtemp(ru_dir));
}

int ru_remove_dir(void) {
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf %s", ru_dir);
  return system(cmd) == 0 ? 0 : -1;
}

void ru_write_file(const char *name, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", ru_dir, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

int ru_run(const char *env, const char *fmt, ...) {
  char args[2048], cmd[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(args, sizeof args, fmt, ap);
  va_end(ap);
  snprintf(cmd, sizeof cmd, "cd %s && %s%s/vyre-conform %s >out.txt 2>&1", ru_dir,
           env ? env : "", VC_BINARY_DIR, args);
  int st = system(cmd);
  assert_true(WIFEXITED(st));
  return WEXITSTATUS(st);
}

int ru_sh(const char *fmt, ...) {
  char body[3072], cmd[3600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(body, sizeof body, fmt, ap);
  va_end(ap);
  snprintf(cmd, sizeof cmd, "cd %s && { %s; }", ru_dir, body);
  int st = system(cmd);
  assert_true(WIFEXITED(st));
  return WEXITSTATUS(st);
}

pid_t ru_start(const char *args) {
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd %s && exec %s/vyre-conform %s >bg.txt 2>&1", ru_dir,
             VC_BINARY_DIR, args);
    execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
    _exit(127);
  }
  return pid;
}

void ru_nap_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

void ru_read_text(const char *name, char *buf, size_t n) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", ru_dir, name);
  FILE *f = fopen(path, "r");
  buf[0] = '\0';
  if (!f) return;
  size_t got = fread(buf, 1, n - 1, f);
  fclose(f);
  buf[got] = '\0';
}

bool ru_file_contains(const char *name, const char *text) {
  static char buf[1 << 16];
  ru_read_text(name, buf, sizeof buf);
  if (!strstr(buf, text)) fprintf(stderr, "%s lacks \"%s\":\n%s\n", name, text, buf);
  return strstr(buf, text) != NULL;
}

/* The statement, prepared on ru_dir/DB opened read-only. */
static sqlite3_stmt *prepare(const char *db, const char *sql, sqlite3 **h) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", ru_dir, db);
  *h = NULL;
  assert_int_equal(sqlite3_open_v2(path, h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  /* the run may hold its write lock for a moment (creating the schema) */
  sqlite3_busy_timeout(*h, 10000);
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(*h, sql, -1, &st, NULL);
  if (rc != SQLITE_OK) fprintf(stderr, "%s: %s\n", sql, sqlite3_errmsg(*h));
  assert_int_equal(rc, SQLITE_OK);
  return st;
}

char *ru_rows(const char *db, const char *sql) {
  sqlite3 *h;
  sqlite3_stmt *st = prepare(db, sql, &h);
  size_t cap = 1 << 16, len = 0;
  char *out = calloc(cap, 1);
  assert_non_null(out);
  while (sqlite3_step(st) == SQLITE_ROW) {
    for (int c = 0; c < sqlite3_column_count(st); c++) {
      const char *v = (const char *)sqlite3_column_text(st, c);
      len += (size_t)snprintf(out + len, cap - len, "%s%s", c ? "|" : "", v ? v : "");
      assert_true(len < cap - 2);
    }
    out[len++] = '\n';
  }
  sqlite3_finalize(st);
  sqlite3_close(h);
  return out;
}

int64_t ru_query(const char *db, const char *sql) {
  sqlite3 *h;
  sqlite3_stmt *st = prepare(db, sql, &h);
  assert_int_equal(sqlite3_step(st), SQLITE_ROW);
  int64_t v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(h);
  return v;
}

void ru_query_text(const char *db, const char *sql, char *out, size_t n) {
  sqlite3 *h;
  sqlite3_stmt *st = prepare(db, sql, &h);
  assert_int_equal(sqlite3_step(st), SQLITE_ROW);
  const char *v = (const char *)sqlite3_column_text(st, 0);
  snprintf(out, n, "%s", v ? v : "");
  sqlite3_finalize(st);
  sqlite3_close(h);
}
