/* Kernel cache files (kcache.h). An entry is a fixed header and the
 * payload:
 *   magic "VYCFKC01" (8 bytes), the key (32), the payload's SHA-256 (32),
 *   the payload's size (8, little-endian), then the payload.
 * The key is in the file as well as its name, so a file copied or renamed
 * under another key is refused. */
#include "harness/base/kcache.h"

#include "harness/base/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAGIC "VYCFKC01"
#define HEADER_BYTES (8 + 32 + 32 + 8)
#define PAYLOAD_MAX ((size_t)1 << 30)

void vc_kcache_key_begin(vc_kcache_key *k, const char *kind) {
  vc_sha256_init(&k->sha);
  vc_kcache_key_str(k, "vyre-conform kernel cache 1");
  vc_kcache_key_str(k, kind);
}

void vc_kcache_key_bytes(vc_kcache_key *k, const void *data, size_t n) {
  uint8_t len[8];
  for (int i = 0; i < 8; i++) len[i] = (uint8_t)((uint64_t)n >> (8 * i));
  vc_sha256_update(&k->sha, len, sizeof len);
  if (n) vc_sha256_update(&k->sha, data, n);
}

void vc_kcache_key_str(vc_kcache_key *k, const char *s) {
  vc_kcache_key_bytes(k, s ? s : "", s ? strlen(s) : 0);
}

void vc_kcache_key_end(vc_kcache_key *k) { vc_sha256_final(&k->sha, k->digest); }

void vc_kcache_path(const char *dir, const vc_kcache_key *k, char *out, size_t n) {
  char hex[65];
  vc_sha256_hex(k->digest, hex);
  snprintf(out, n, "%s/%.2s/%s.vck", dir, hex, hex);
}

static void put_u64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_u64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

static bool read_all(int fd, void *buf, size_t n) {
  uint8_t *p = buf;
  while (n) {
    ssize_t r = read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= (size_t)r;
  }
  return true;
}

static bool write_all(int fd, const void *buf, size_t n) {
  const uint8_t *p = buf;
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= (size_t)w;
  }
  return true;
}

int vc_kcache_get(const char *dir, const vc_kcache_key *k, void **payload, size_t *size) {
  *payload = NULL;
  *size = 0;
  if (!dir || !*dir) return 0;
  char path[VC_KCACHE_DIR_MAX + 128];
  vc_kcache_path(dir, k, path, sizeof path);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  uint8_t h[HEADER_BYTES];
  struct stat st;
  bool ok = fstat(fd, &st) == 0 && read_all(fd, h, sizeof h) && memcmp(h, MAGIC, 8) == 0 &&
            memcmp(h + 8, k->digest, 32) == 0;
  uint64_t n = ok ? get_u64(h + 72) : 0;
  /* the file holds exactly header and payload: nothing cut off, nothing added */
  ok = ok && n <= PAYLOAD_MAX && (uint64_t)st.st_size == HEADER_BYTES + n;
  uint8_t *buf = ok ? malloc(n ? n : 1) : NULL;
  ok = buf && read_all(fd, buf, n);
  close(fd);
  if (ok) {
    vc_sha256 s;
    uint8_t d[32];
    vc_sha256_init(&s);
    vc_sha256_update(&s, buf, n);
    vc_sha256_final(&s, d);
    ok = memcmp(d, h + 40, 32) == 0;
  }
  if (!ok) {
    free(buf);
    return 0;
  }
  *payload = buf;
  *size = n;
  return 1;
}

int vc_kcache_put(const char *dir, const vc_kcache_key *k, const void *payload, size_t size,
                  vc_error *err) {
  if (!dir || !*dir) return 0;
  if (size > PAYLOAD_MAX) return vc_fail(err, VC_ERR_LIMIT, "kernel cache: entry too large");
  char path[VC_KCACHE_DIR_MAX + 128], sub[VC_KCACHE_DIR_MAX + 8], tmp[VC_KCACHE_DIR_MAX + 192];
  vc_kcache_path(dir, k, path, sizeof path);
  char hex[65];
  vc_sha256_hex(k->digest, hex);
  snprintf(sub, sizeof sub, "%s/%.2s", dir, hex);
  int rc = vc_make_dirs(sub, err);
  if (rc) return vc_fail_wrap(err, "kernel cache");
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  /* unique among processes (pid) and within one (the clock) */
  snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%ld", path, (long)getpid(), (long)ts.tv_nsec);
  uint8_t h[HEADER_BYTES];
  memcpy(h, MAGIC, 8);
  memcpy(h + 8, k->digest, 32);
  vc_sha256 s;
  vc_sha256_init(&s);
  vc_sha256_update(&s, payload, size);
  vc_sha256_final(&s, h + 40);
  put_u64(h + 72, size);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0)
    return vc_fail(err, VC_ERR_IO, "kernel cache: cannot create %s: %s", tmp, strerror(errno));
  bool ok = write_all(fd, h, sizeof h) && write_all(fd, payload, size);
  int saved = errno;
  if (close(fd) != 0 && ok) ok = false, saved = errno;
  if (ok && rename(tmp, path) != 0) ok = false, saved = errno;
  if (!ok) {
    unlink(tmp);
    return vc_fail(err, VC_ERR_IO, "kernel cache: cannot write %s: %s", path, strerror(saved));
  }
  return 0;
}

int vc_kcache_default_dir(char *out, size_t n, vc_error *err) {
  const char *xdg = getenv("XDG_CACHE_HOME");
  const char *home = getenv("HOME");
  int w;
  /* the XDG spec: a relative XDG_CACHE_HOME is invalid and ignored */
  if (xdg && xdg[0] == '/') w = snprintf(out, n, "%s/vyre-conform", xdg);
  else if (home && home[0]) w = snprintf(out, n, "%s/.cache/vyre-conform", home);
  else
    return vc_fail(err, VC_ERR_USAGE,
                   "no folder for the kernel cache: neither XDG_CACHE_HOME nor HOME is set "
                   "(give --cache DIR or --no-cache)");
  if (w < 0 || (size_t)w >= n)
    return vc_fail(err, VC_ERR_USAGE, "kernel cache folder name too long");
  return 0;
}

void vc_kcache_option_done(char *dir) {
  if (strcmp(dir, "none") == 0) dir[0] = '\0';
}

static bool names_cache(const char *opts) {
  size_t klen = strlen(VC_KCACHE_OPTION);
  for (const char *s = opts; s && *s;) {
    size_t len = strcspn(s, ",");
    if (len > klen && strncmp(s, VC_KCACHE_OPTION, klen) == 0 && s[klen] == '=') return true;
    s += len;
    if (*s == ',') s++;
  }
  return false;
}

int vc_kcache_device_options(const char *dir_arg, bool no_cache, const char *devopts,
                             const char **devopts_out, char **out, vc_error *err) {
  *out = NULL;
  *devopts_out = devopts;
  if (dir_arg && no_cache) return vc_fail(err, VC_ERR_USAGE, "--cache and --no-cache exclude each other");
  if (dir_arg && !dir_arg[0]) return vc_fail(err, VC_ERR_USAGE, "--cache needs a folder");
  if (!dir_arg && !no_cache && names_cache(devopts)) return 0;
  char dir[VC_KCACHE_DIR_MAX] = "none";
  int w = 0;
  if (dir_arg && dir_arg[0] == '/') {
    w = snprintf(dir, sizeof dir, "%s", dir_arg);
  } else if (dir_arg) {
    /* the plugin may run in another folder */
    char cwd[VC_KCACHE_DIR_MAX];
    if (!getcwd(cwd, sizeof cwd))
      return vc_fail(err, VC_ERR_IO, "--cache %s: cannot read the current folder: %s", dir_arg,
                     strerror(errno));
    w = snprintf(dir, sizeof dir, "%s/%s", cwd, dir_arg);
  } else if (!no_cache && vc_kcache_default_dir(dir, sizeof dir, err)) {
    return err->code;
  }
  if (w < 0 || (size_t)w >= sizeof dir)
    return vc_fail(err, VC_ERR_USAGE, "--cache: folder name too long");
  if (strchr(dir, ','))
    return vc_fail(err, VC_ERR_USAGE,
                   "kernel cache folder %s: a comma cannot be passed in the device options", dir);
  size_t n = (devopts ? strlen(devopts) : 0) + strlen(dir) + sizeof VC_KCACHE_OPTION + 3;
  char *s = malloc(n);
  if (!s) return vc_fail(err, VC_ERR_NOMEM, "kernel cache: out of memory");
  snprintf(s, n, "%s%s%s=%s", devopts ? devopts : "", devopts && *devopts ? "," : "",
           VC_KCACHE_OPTION, dir);
  *out = s;
  *devopts_out = s;
  return 0;
}
