/* The reference cache (harness/exec/reference_cache.c) on its own: a hit
 * gives what the oracle gives (outputs, inputs, report) without running it,
 * every way an entry can be damaged is a miss that is said and rewritten,
 * every part of the key changes it, two processes on one key compute it
 * once and both get it right, and the options' folder. */
#include <fcntl.h>
#include <setjmp.h>
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

#include "harness/base/mutant.h"
#include "harness/exec/reference_cache.h"
#include "harness/lang/parse.h"
#include "harness/model/digest.h"

static char dir[256];

static const char prog_loop[] =
    "(program loop (workgroup 64) (grid 16)\n"
    "  (buffer a u32 1024 read_write (init iota))\n"
    "  (buffer out u32 1024 write)\n"
    "  (entry (let g (global_id x)) (var v (load a g))\n"
    "    (loop i 0u 3000u (set v (add (mul v 3u) i)))\n"
    "    (store a g v) (barrier grid)\n"
    "    (store out g (add v (load a (sub 1023u g))))))\n";
/* a race the report describes: its messages must survive the cache */
static const char prog_race[] =
    "(program race (workgroup 4) (grid 2)\n"
    "  (buffer o u32 8 read_write)\n"
    "  (entry (store o 0u (global_id x))))\n";

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/vc-rc-XXXXXX");
  assert_non_null(mkdtemp(dir));
  return 0;
}

static int teardown(void **state) {
  (void)state;
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  return system(cmd) == 0 ? 0 : -1;
}

static vc_program *parse(const char *text) {
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = vc_parse("t.vyre", text, strlen(text), &d);
  vc_diags_free(&d);
  assert_non_null(p);
  return p;
}

static void cache_in(vc_refcache *c, const char *sub) {
  memset(c, 0, sizeof *c);
  snprintf(c->dir, sizeof c->dir, "%s/%s", dir, sub);
  snprintf(c->build, sizeof c->build, "build-a");
}

static void same_reference(const vc_program *p, const vc_reference *a, const vc_reference *b) {
  assert_int_equal(a->nbuffers, b->nbuffers);
  for (uint32_t i = 0; i < p->nbuffers; i++) {
    size_t n = vc_buffer_bytes(&p->buffers[i]);
    assert_memory_equal(a->inputs[i], b->inputs[i], n);
    assert_memory_equal(a->outputs[i], b->outputs[i], n);
  }
  assert_int_equal(a->report.segments, b->report.segments);
  assert_int_equal(a->report.passes, b->report.passes);
  assert_int_equal(a->report.converged, b->report.converged);
  assert_int_equal(a->report.ops, b->report.ops);
  for (int k = 0; k < VC_ISSUE_COUNT; k++) {
    const vc_oracle_issue *x = &a->report.issues[k], *y = &b->report.issues[k];
    assert_int_equal(x->count, y->count);
    assert_int_equal(x->loc.line, y->loc.line);
    assert_int_equal(x->loc.col, y->loc.col);
    assert_int_equal(x->segment, y->segment);
    assert_int_equal(x->space, y->space);
    assert_int_equal(x->ref, y->ref);
    assert_int_equal(x->index, y->index);
    assert_int_equal(x->inv_a, y->inv_a);
    assert_int_equal(x->inv_b, y->inv_b);
    assert_string_equal(x->msg, y->msg);
  }
}

/* A miss runs the oracle and stores; the next is a hit equal to a plain run. */
static void hit_equals_the_oracle(void **state) {
  (void)state;
  const char *texts[] = {prog_loop, prog_race};
  for (int t = 0; t < 2; t++) {
    vc_program *p = parse(texts[t]);
    vc_refcache c;
    cache_in(&c, t ? "race" : "loop");
    vc_reference plain, first, second;
    vc_error e;
    assert_int_equal(vc_reference_run(p, NULL, &plain, &e), 0);
    assert_false(plain.cached);
    assert_int_equal(vc_reference_run_cached(&c, "d1", p, NULL, &first, &e), 0);
    assert_false(first.cached);
    assert_int_equal(vc_reference_run_cached(&c, "d1", p, NULL, &second, &e), 0);
    assert_true(second.cached);
    same_reference(p, &plain, &first);
    same_reference(p, &plain, &second);
    if (t == 1) assert_true(second.report.issues[VC_ISSUE_RACE].count > 0);
    vc_reference_free(&plain);
    vc_reference_free(&first);
    vc_reference_free(&second);
    vc_program_free(p);
  }
}

/* stderr into a file while fn runs; whether it then holds text. */
static bool stderr_says(void (*fn)(void *), void *arg, const char *text) {
  char path[300];
  snprintf(path, sizeof path, "%s/stderr.txt", dir);
  fflush(stderr);
  int saved = dup(2);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
  assert_true(saved >= 0 && fd >= 0);
  dup2(fd, 2);
  close(fd);
  fn(arg);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  char buf[2048] = "";
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  return strstr(buf, text) != NULL;
}

typedef struct damage_case {
  vc_refcache *c;
  vc_program *p;
  bool cached;
} damage_case;

static void run_cached(void *arg) {
  damage_case *d = arg;
  vc_reference r;
  vc_error e;
  assert_int_equal(vc_reference_run_cached(d->c, "d1", d->p, NULL, &r, &e), 0);
  d->cached = r.cached;
  vc_reference_free(&r);
}

/* Each damage: the entry is refused with a line on stderr, the oracle runs,
   the entry is rewritten (the next lookup hits). */
static void damaged_entries_are_recomputed(void **state) {
  (void)state;
  vc_program *p = parse(prog_loop);
  vc_refcache c;
  cache_in(&c, "damage");
  uint8_t key[32];
  vc_refcache_key(&c, "d1", p, NULL, key);
  char path[VC_KCACHE_DIR_MAX + 128];
  vc_refcache_path(&c, key, path, sizeof path);
  damage_case d = {&c, p, false};
  run_cached(&d);
  assert_false(d.cached);
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  const off_t size = st.st_size;
  /* payload byte, key byte in the header, magic, cut short, a byte added */
  const long flips[] = {(long)size - 1, 9, 0};
  for (int k = 0; k < 5; k++) {
    int fd = open(path, O_RDWR);
    assert_true(fd >= 0);
    if (k < 3) {
      uint8_t b;
      assert_int_equal(pread(fd, &b, 1, flips[k]), 1);
      b ^= 0x10;
      assert_int_equal(pwrite(fd, &b, 1, flips[k]), 1);
    } else if (k == 3) {
      assert_int_equal(ftruncate(fd, size - 100), 0);
    } else {
      assert_int_equal(pwrite(fd, "x", 1, size), 1);
    }
    close(fd);
    vc_reference r;
    assert_int_equal(vc_refcache_get(&c, key, p, false, &r), 0);
    assert_true(stderr_says(run_cached, &d, "refused"));
    assert_false(d.cached);
    run_cached(&d);
    assert_true(d.cached);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_size, size);
  }
  vc_program_free(p);
}

/* Every part of the key changes it; the same parts give the same key. */
static void key_parts(void **state) {
  (void)state;
  vc_program *p = parse(prog_loop), *q = parse(prog_race);
  vc_refcache a, b;
  cache_in(&a, "keys");
  cache_in(&b, "keys");
  snprintf(b.build, sizeof b.build, "build-b");
  vc_oracle_opts rev = {.order = VC_ORDER_REVERSE}, s1 = {.order = VC_ORDER_SHUFFLE, .seed = 1},
                 s2 = {.order = VC_ORDER_SHUFFLE, .seed = 2}, nc = {.no_checks = true},
                 fwd = {.order = VC_ORDER_FORWARD, .seed = 9, .deadline_ns = 5, .max_bytes = 7};
  uint8_t k0[32], k[32];
  vc_refcache_key(&a, "d1", p, NULL, k0);
  vc_refcache_key(&a, "d1", p, &fwd, k); /* seed without shuffle, deadline, budget: no part */
  assert_memory_equal(k, k0, 32);
  vc_refcache_key(&b, "d1", p, NULL, k);
  assert_memory_not_equal(k, k0, 32);
  vc_refcache_key(&a, "d2", p, NULL, k);
  assert_memory_not_equal(k, k0, 32);
  vc_refcache_key(&a, "d1", q, NULL, k);
  assert_memory_not_equal(k, k0, 32);
  vc_refcache_key(&a, "d1", p, &rev, k);
  assert_memory_not_equal(k, k0, 32);
  vc_refcache_key(&a, "d1", p, &nc, k);
  assert_memory_not_equal(k, k0, 32);
  uint8_t k1[32];
  vc_refcache_key(&a, "d1", p, &s1, k1);
  vc_refcache_key(&a, "d1", p, &s2, k);
  assert_memory_not_equal(k, k1, 32);
  /* an entry of build a is no hit for build b, which runs the oracle */
  vc_reference r;
  vc_error e;
  assert_int_equal(vc_reference_run_cached(&a, "d1", p, NULL, &r, &e), 0);
  vc_reference_free(&r);
  assert_int_equal(vc_reference_run_cached(&a, "d1", p, NULL, &r, &e), 0);
  assert_true(r.cached);
  vc_reference_free(&r);
  assert_int_equal(vc_reference_run_cached(&b, "d1", p, NULL, &r, &e), 0);
  assert_false(r.cached);
  vc_reference_free(&r);
  /* an entry renamed to another key's name is refused */
  char from[VC_KCACHE_DIR_MAX + 128], to[VC_KCACHE_DIR_MAX + 128];
  vc_refcache_path(&a, k0, from, sizeof from);
  vc_refcache_key(&a, "d1", p, &nc, k);
  vc_refcache_path(&a, k, to, sizeof to);
  char cmd[3000];
  snprintf(cmd, sizeof cmd, "mkdir -p $(dirname %s) && cp %s %s", to, from, to);
  assert_int_equal(system(cmd), 0);
  assert_int_equal(vc_refcache_get(&a, k, p, false, &r), 0);
  vc_program_free(p);
  vc_program_free(q);
}

/* Two processes on one key, started together: the lock lets one compute;
   the other waits and reads its entry; both are right. */
static void two_processes_one_key(void **state) {
  (void)state;
  vc_program *p = parse(prog_loop);
  vc_reference plain;
  vc_error e;
  assert_int_equal(vc_reference_run(p, NULL, &plain, &e), 0);
  char want[65];
  vc_output_digest(p, (const uint32_t *const *)plain.outputs, want);
  vc_reference_free(&plain);
  for (int round = 0; round < 3; round++) {
    vc_refcache c;
    char sub[32];
    snprintf(sub, sizeof sub, "two-%d", round);
    cache_in(&c, sub);
    int go[2], back[2];
    assert_int_equal(pipe(go), 0);
    assert_int_equal(pipe(back), 0);
    pid_t kids[2];
    for (int i = 0; i < 2; i++) {
      kids[i] = fork();
      assert_true(kids[i] >= 0);
      if (kids[i] == 0) {
        char b;
        close(go[1]);
        if (read(go[0], &b, 1) != 1) _exit(3);
        vc_reference r;
        vc_error ce;
        int rc = vc_reference_run_cached(&c, "d1", p, NULL, &r, &ce);
        char msg[80];
        vc_output_digest(p, (const uint32_t *const *)r.outputs, msg);
        msg[64] = r.cached ? 'h' : 'm';
        msg[65] = '\n';
        if (rc || write(back[1], msg, 66) != 66) _exit(4);
        _exit(0);
      }
    }
    close(go[0]);
    close(back[1]);
    assert_int_equal(write(go[1], "gg", 2), 2); /* both at once */
    close(go[1]);
    char got[132];
    size_t n = 0;
    ssize_t k;
    while (n < sizeof got && (k = read(back[0], got + n, sizeof got - n)) > 0) n += (size_t)k;
    close(back[0]);
    for (int i = 0; i < 2; i++) {
      int st;
      assert_int_equal(waitpid(kids[i], &st, 0), kids[i]);
      assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    assert_int_equal(n, 132);
    int computed = 0;
    for (int i = 0; i < 2; i++) {
      assert_memory_equal(got + 66 * i, want, 64);
      computed += got[66 * i + 64] == 'm';
    }
    assert_int_equal(computed, 1);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "find %s -name '*.tmp.*' | grep -q .", c.dir);
    assert_int_not_equal(system(cmd), 0); /* no temporary file left behind */
  }
  vc_program_free(p);
}

/* --reference-cache DIR (made absolute), the default folder, off. */
static void folders(void **state) {
  (void)state;
  vc_refcache c;
  vc_error e;
  setenv("XDG_CACHE_HOME", "/x/cache", 1);
  assert_int_equal(vc_refcache_init(&c, NULL, false, &e), 0);
  assert_string_equal(c.dir, "/x/cache/vyre-conform/reference");
  assert_string_equal(c.build, vc_build_id());
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", "/h", 1);
  assert_int_equal(vc_refcache_init(&c, NULL, false, &e), 0);
  assert_string_equal(c.dir, "/h/.cache/vyre-conform/reference");
  unsetenv("HOME");
  assert_int_equal(vc_refcache_init(&c, NULL, false, &e), 0); /* no folder: none */
  assert_string_equal(c.dir, "");
  assert_int_equal(vc_refcache_init(&c, "/abs", false, &e), 0);
  assert_string_equal(c.dir, "/abs");
  assert_int_equal(chdir(dir), 0);
  assert_int_equal(vc_refcache_init(&c, "rel", false, &e), 0);
  char want[400];
  char cwd[300];
  assert_non_null(getcwd(cwd, sizeof cwd));
  snprintf(want, sizeof want, "%s/rel", cwd);
  assert_string_equal(c.dir, want);
  assert_int_equal(vc_refcache_init(&c, NULL, true, &e), 0);
  assert_string_equal(c.dir, "");
  /* a planted fault switched on: no cache in a build that has them */
  setenv("VYRE_CONFORM_MUTANT", "some-fault", 1);
  assert_int_equal(vc_refcache_init(&c, "/abs", false, &e), 0);
  assert_string_equal(c.dir, vc_mutants_built() ? "" : "/abs");
  unsetenv("VYRE_CONFORM_MUTANT");
  setenv("VYRE_CONFORM_FAULT", "some-fault", 1);
  assert_int_equal(vc_refcache_init(&c, "/abs", false, &e), 0);
  assert_string_equal(c.dir, vc_mutants_built() ? "" : "/abs");
  unsetenv("VYRE_CONFORM_FAULT");
  assert_int_equal(vc_refcache_init(&c, "x", true, &e), VC_ERR_USAGE);
  assert_int_equal(vc_refcache_init(&c, "", false, &e), VC_ERR_USAGE);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(hit_equals_the_oracle),
      cmocka_unit_test(damaged_entries_are_recomputed),
      cmocka_unit_test(key_parts),
      cmocka_unit_test(two_processes_one_key),
      cmocka_unit_test(folders),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
