/* Reference cache files (reference_cache.h). An entry is a fixed header and
 * the payload:
 *   magic "VYCFRC01" (8 bytes), the key (32), the payload's SHA-256 (32),
 *   the payload's size (8, little-endian), then the payload: the oracle's
 *   report (REPORT_FIELDS, ISSUE_FIELDS per issue kind, little-endian), the
 *   number of buffers (4) and each buffer as its element count (8) and its
 *   bytes after the oracle ran. The key is in the file as well as its name,
 *   so a file copied or renamed under another key is refused. */
#include "harness/exec/reference_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness/base/file.h"
#include "harness/base/mutant.h"
#include "harness/base/sha256.h"
#include "harness/lang/print.h"
#include "harness/model/digest.h"
#include "harness/model/inputs.h"

#define MAGIC "VYCFRC01"
#define HEADER_BYTES (8 + 32 + 32 + 8)

/* The report's fields an entry keeps, in their order in the file. */
#define REPORT_FIELDS(X) X(segments) X(passes) X(converged) X(ops)
#define ISSUE_FIELDS(X) \
  X(count) X(loc.line) X(loc.col) X(segment) X(space) X(ref) X(index) X(inv_a) X(inv_b)

int vc_refcache_default_dir(char *out, size_t n, vc_error *err) {
  char base[VC_KCACHE_DIR_MAX];
  if (vc_kcache_default_dir(base, sizeof base, err))
    return vc_fail(err, VC_ERR_USAGE,
                   "no folder for the reference cache: neither XDG_CACHE_HOME nor HOME is set "
                   "(give --reference-cache DIR or --no-reference-cache)");
  int w = snprintf(out, n, "%s/reference", base);
  if (w < 0 || (size_t)w >= n)
    return vc_fail(err, VC_ERR_USAGE, "reference cache folder name too long");
  return 0;
}

int vc_refcache_init(vc_refcache *c, const char *dir_arg, bool no_cache, vc_error *err) {
  memset(c, 0, sizeof *c);
  if (dir_arg && no_cache)
    return vc_fail(err, VC_ERR_USAGE, "--reference-cache and --no-reference-cache exclude each other");
  if (dir_arg && !dir_arg[0]) return vc_fail(err, VC_ERR_USAGE, "--reference-cache needs a folder");
  if (no_cache) return 0;
  /* a planted fault changes what this binary computes without changing
     the binary: such a run neither reads nor writes entries */
  const char *mut = getenv("VYRE_CONFORM_MUTANT"), *fault = getenv("VYRE_CONFORM_FAULT");
  if (vc_mutants_built() && ((mut && *mut) || (fault && *fault))) return 0;
  snprintf(c->build, sizeof c->build, "%s", vc_build_id());
  /* a binary that cannot be read has no identity to key entries by */
  if (strcmp(c->build, "unknown") == 0) return 0;
  int w = 0;
  if (dir_arg && dir_arg[0] == '/') {
    w = snprintf(c->dir, sizeof c->dir, "%s", dir_arg);
  } else if (dir_arg) {
    /* workers and later steps may run in another folder */
    char cwd[VC_KCACHE_DIR_MAX];
    if (!getcwd(cwd, sizeof cwd))
      return vc_fail(err, VC_ERR_IO, "--reference-cache %s: cannot read the current folder: %s",
                     dir_arg, strerror(errno));
    w = snprintf(c->dir, sizeof c->dir, "%s/%s", cwd, dir_arg);
  } else if (vc_refcache_default_dir(c->dir, sizeof c->dir, err)) {
    /* no default folder (neither variable set): only no cache */
    c->dir[0] = '\0';
    vc_error_clear(err);
    return 0;
  }
  if (w < 0 || (size_t)w >= sizeof c->dir) {
    c->dir[0] = '\0';
    return vc_fail(err, VC_ERR_USAGE, "--reference-cache: folder name too long");
  }
  return 0;
}

static void key_u64(vc_kcache_key *k, uint64_t v) {
  uint8_t b[8];
  for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8 * i));
  vc_kcache_key_bytes(k, b, sizeof b);
}

void vc_refcache_key(const vc_refcache *c, const char *source_digest, const vc_program *p,
                     const vc_oracle_opts *opts, uint8_t key[32]) {
  vc_kcache_key k;
  vc_kcache_key_begin(&k, "reference 1");
  vc_kcache_key_str(&k, c->build);
  vc_kcache_key_str(&k, source_digest);
  /* the program as parsed (its buffers' inits are its inputs' only source) */
  vc_strbuf text;
  vc_sb_init(&text);
  vc_print_program(p, &text);
  vc_kcache_key_bytes(&k, text.data, text.len);
  vc_sb_free(&text);
  /* what changes the outputs or the report; a deadline or a memory budget
     only stops a run, and a stopped run is never stored */
  vc_oracle_order order = opts ? opts->order : VC_ORDER_FORWARD;
  key_u64(&k, (uint64_t)order);
  key_u64(&k, order == VC_ORDER_SHUFFLE ? opts->seed : 0);
  key_u64(&k, opts && opts->no_checks);
  vc_kcache_key_end(&k);
  memcpy(key, k.digest, 32);
}

void vc_refcache_path(const vc_refcache *c, const uint8_t key[32], char *out, size_t n) {
  char hex[65];
  vc_sha256_hex(key, hex);
  snprintf(out, n, "%s/%.2s/%s.vcr", c->dir, hex, hex);
}

/* The payload, written or read in pieces and hashed as it goes. */
typedef struct stream {
  FILE *f;
  vc_sha256 sha;
  uint64_t bytes;
  bool ok;
} stream;

static void put(stream *s, const void *data, size_t n) {
  if (!s->ok) return;
  vc_sha256_update(&s->sha, data, n);
  s->bytes += n;
  if (n && fwrite(data, 1, n, s->f) != n) s->ok = false;
}

static void get(stream *s, void *data, size_t n) {
  if (!s->ok) return;
  if (n && fread(data, 1, n, s->f) != n) {
    s->ok = false;
    return;
  }
  vc_sha256_update(&s->sha, data, n);
  s->bytes += n;
}

static void put_uint(stream *s, uint64_t v, size_t size) {
  uint8_t b[8];
  for (size_t i = 0; i < size; i++) b[i] = (uint8_t)(v >> (8 * i));
  put(s, b, size);
}

static uint64_t get_uint(stream *s, size_t size) {
  uint8_t b[8] = {0};
  get(s, b, size);
  uint64_t v = 0;
  for (size_t i = 0; i < size; i++) v |= (uint64_t)b[i] << (8 * i);
  return v;
}

static void put_report(stream *s, const vc_oracle_report *r) {
#define VC_X(f) put_uint(s, (uint64_t)r->f, sizeof r->f);
  REPORT_FIELDS(VC_X)
#undef VC_X
  for (int i = 0; i < VC_ISSUE_COUNT; i++) {
    const vc_oracle_issue *is = &r->issues[i];
#define VC_X(f) put_uint(s, (uint64_t)is->f, sizeof is->f);
    ISSUE_FIELDS(VC_X)
#undef VC_X
    put(s, is->msg, sizeof is->msg);
  }
}

static void get_report(stream *s, vc_oracle_report *r) {
  memset(r, 0, sizeof *r);
#define VC_X(f) r->f = get_uint(s, sizeof r->f);
  REPORT_FIELDS(VC_X)
#undef VC_X
  for (int i = 0; i < VC_ISSUE_COUNT; i++) {
    vc_oracle_issue *is = &r->issues[i];
#define VC_X(f) is->f = get_uint(s, sizeof is->f);
    ISSUE_FIELDS(VC_X)
#undef VC_X
    get(s, is->msg, sizeof is->msg);
    is->msg[sizeof is->msg - 1] = '\0';
  }
}

static void put_le64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

/* Why an entry that exists is refused, or NULL when r holds it. */
static const char *read_entry(FILE *f, const uint8_t key[32], const vc_program *p,
                              vc_reference *r) {
  uint8_t h[HEADER_BYTES];
  struct stat st;
  if (fstat(fileno(f), &st) != 0 || fread(h, 1, sizeof h, f) != sizeof h) return "cut short";
  if (memcmp(h, MAGIC, 8) != 0) return "not an entry";
  if (memcmp(h + 8, key, 32) != 0) return "another key's entry";
  uint64_t n = get_le64(h + 72);
  if ((uint64_t)st.st_size != HEADER_BYTES + n) return "its size differs from its header's";
  uint32_t failed = 0;
  if (!vc_reference_alloc(p, r, &failed)) return "no memory for its buffers";
  stream s = {.f = f, .ok = true};
  vc_sha256_init(&s.sha);
  get_report(&s, &r->report);
  if (get_uint(&s, 4) != p->nbuffers) return "another number of buffers";
  for (uint32_t i = 0; i < p->nbuffers && s.ok; i++) {
    if (get_uint(&s, 8) != p->buffers[i].count) return "another buffer size";
    get(&s, r->outputs[i], vc_buffer_bytes(&p->buffers[i]));
  }
  if (!s.ok || s.bytes != n) return "cut short";
  uint8_t d[32];
  vc_sha256_final(&s.sha, d);
  if (memcmp(d, h + 40, 32) != 0) return "its payload's SHA-256 differs from its header's";
  return NULL;
}

int vc_refcache_get(const vc_refcache *c, const uint8_t key[32], const vc_program *p,
                    bool warn, vc_reference *r) {
  memset(r, 0, sizeof *r);
  if (!c || !c->dir[0]) return 0;
  char path[VC_KCACHE_DIR_MAX + 128];
  vc_refcache_path(c, key, path, sizeof path);
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  const char *why = read_entry(f, key, p, r);
  fclose(f);
  if (!why) {
    r->cached = true;
    return 1;
  }
  vc_reference_free(r);
  if (warn)
    fprintf(stderr, "vyre-conform: reference cache: entry %s refused (%s): running the oracle\n",
            path, why);
  return 0;
}

int vc_refcache_put(const vc_refcache *c, const uint8_t key[32], const vc_program *p,
                    const vc_reference *r, vc_error *err) {
  if (!c || !c->dir[0]) return 0;
  char path[VC_KCACHE_DIR_MAX + 128], sub[VC_KCACHE_DIR_MAX + 8], tmp[VC_KCACHE_DIR_MAX + 192];
  vc_refcache_path(c, key, path, sizeof path);
  char hex[65];
  vc_sha256_hex(key, hex);
  snprintf(sub, sizeof sub, "%s/%.2s", c->dir, hex);
  if (vc_make_dirs(sub, err)) return vc_fail_wrap(err, "reference cache");
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  /* unique among processes (pid) and within one (the clock) */
  snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%ld", path, (long)getpid(), (long)ts.tv_nsec);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
  if (!f) {
    int saved = errno;
    if (fd >= 0) close(fd);
    unlink(tmp);
    return vc_fail(err, VC_ERR_IO, "reference cache: cannot create %s: %s", tmp, strerror(saved));
  }
  uint8_t h[HEADER_BYTES] = {0};
  bool ok = fwrite(h, 1, sizeof h, f) == sizeof h; /* filled in once the payload is known */
  stream s = {.f = f, .ok = ok};
  vc_sha256_init(&s.sha);
  put_report(&s, &r->report);
  put_uint(&s, p->nbuffers, 4);
  for (uint32_t i = 0; i < p->nbuffers; i++) {
    put_uint(&s, p->buffers[i].count, 8);
    put(&s, r->outputs[i], vc_buffer_bytes(&p->buffers[i]));
  }
  ok = s.ok;
  memcpy(h, MAGIC, 8);
  memcpy(h + 8, key, 32);
  vc_sha256_final(&s.sha, h + 40);
  put_le64(h + 72, s.bytes);
  ok = ok && fseek(f, 0, SEEK_SET) == 0 && fwrite(h, 1, sizeof h, f) == sizeof h;
  int saved = errno;
  if (fclose(f) != 0 && ok) ok = false, saved = errno;
  if (ok && rename(tmp, path) != 0) ok = false, saved = errno;
  if (!ok) {
    unlink(tmp);
    return vc_fail(err, VC_ERR_IO, "reference cache: cannot write %s: %s", path, strerror(saved));
  }
  return 0;
}

/* The entry's lock file, held (F_SETLKW) until unlock; -1 where it cannot
   be had: then this process computes without it. */
static int lock_key(const vc_refcache *c, const uint8_t key[32]) {
  char path[VC_KCACHE_DIR_MAX + 128], sub[VC_KCACHE_DIR_MAX + 8];
  char hex[65];
  vc_sha256_hex(key, hex);
  snprintf(sub, sizeof sub, "%s/%.2s", c->dir, hex);
  vc_error e;
  if (vc_make_dirs(sub, &e)) return -1;
  snprintf(path, sizeof path, "%s/%s.lock", sub, hex);
  int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) return -1;
  struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
  while (fcntl(fd, F_SETLKW, &fl) != 0) {
    if (errno == EINTR) continue;
    close(fd);
    return -1;
  }
  return fd;
}

static void unlock_key(int fd) {
  if (fd >= 0) close(fd); /* closing releases the lock */
}

int vc_reference_run_cached(const vc_refcache *c, const char *source_digest, const vc_program *p,
                            const vc_oracle_opts *opts, vc_reference *r, vc_error *err) {
  if (!c || !c->dir[0] || !source_digest || !source_digest[0])
    return vc_reference_run(p, opts, r, err);
  uint8_t key[32];
  vc_refcache_key(c, source_digest, p, opts, key);
  if (vc_refcache_get(c, key, p, false, r)) return 0;
  /* another process may be computing it: wait for it, then look again */
  int lock = lock_key(c, key);
  if (vc_refcache_get(c, key, p, true, r)) {
    unlock_key(lock);
    return 0;
  }
  int rc = vc_reference_run(p, opts, r, err);
  if (rc == 0) {
    vc_error e;
    vc_error_clear(&e);
    if (vc_refcache_put(c, key, p, r, &e)) fprintf(stderr, "vyre-conform: %s\n", e.msg);
  }
  unlock_key(lock);
  return rc;
}
