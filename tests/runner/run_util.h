/* What the runner's end-to-end tests share: a scratch folder, files in it,
 * vyre-conform run in it (VC_BINARY_DIR), and what it wrote read back (its
 * output, its results database). Every helper asserts: a failure is the
 * test's. */
#ifndef VC_TEST_RUN_UTIL_H
#define VC_TEST_RUN_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

extern char ru_dir[256]; /* the scratch folder */

/* A new folder /tmp/PREFIX-XXXXXX as ru_dir; ru_remove_dir removes it (0). */
void ru_make_dir(const char *prefix);
int ru_remove_dir(void);
/* ru_dir/NAME holds text (its folder must exist). */
void ru_write_file(const char *name, const char *text);
/* vyre-conform ARGS (a printf format) in ru_dir, output into out.txt; env
   ("A=b ", or NULL) before it. Returns its exit status. */
int ru_run(const char *env, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A shell command (a printf format) in ru_dir; its exit status. */
int ru_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* vyre-conform ARGS in the background, output into bg.txt. */
pid_t ru_start(const char *args);
void ru_nap_ms(long ms);
/* ru_dir/NAME's text ("" when absent), cut to n - 1 bytes. */
void ru_read_text(const char *name, char *buf, size_t n);
/* Whether ru_dir/NAME holds text; when not, the file is shown on stderr. */
bool ru_file_contains(const char *name, const char *text);
/* Queries on ru_dir/DB: every row (columns joined by '|', rows ended by
   '\n'; the caller frees), the first column of the first row as an
   integer or as text. */
char *ru_rows(const char *db, const char *sql);
int64_t ru_query(const char *db, const char *sql);
void ru_query_text(const char *db, const char *sql, char *out, size_t n);

#endif
