/* The persistent kernel cache (docs/usage.md, "Kernel cache"): compiled
 * kernels kept in files, content-addressed. A plugin makes a key from
 * everything its compiled form depends on (generated source, compiler and
 * driver identity and version, options), looks it up before compiling and
 * stores what it compiled after. Entries are never trusted: one whose
 * header or payload digest does not match is a miss, and the compile that
 * follows rewrites it. Writers write a temporary file and rename it, so
 * concurrent runs sharing a folder see whole entries or none. */
#ifndef VC_KCACHE_H
#define VC_KCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "harness/base/error.h"
#include "harness/base/kvopts.h"
#include "harness/base/sha256.h"

/* The device option that names the folder: "cache=DIR". */
#define VC_KCACHE_OPTION "cache"
#define VC_KCACHE_DIR_MAX 1024

/* A key under construction: parts are length-prefixed, so that ("ab","c")
   and ("a","bc") differ. */
typedef struct vc_kcache_key {
  vc_sha256 sha;
  uint8_t digest[32]; /* after vc_kcache_key_end */
} vc_kcache_key;

/* kind names what is cached ("cuda-ptx", "spirv", "opencl-binary"). */
void vc_kcache_key_begin(vc_kcache_key *k, const char *kind);
void vc_kcache_key_bytes(vc_kcache_key *k, const void *data, size_t n);
void vc_kcache_key_str(vc_kcache_key *k, const char *s); /* NULL is "" */
void vc_kcache_key_end(vc_kcache_key *k);

/* Entry file of key in dir: DIR/xx/<64 hex digits>.vck */
void vc_kcache_path(const char *dir, const vc_kcache_key *k, char *out, size_t n);

/* Looks key up in dir. Returns 1 with *payload (malloc'ed) and *size on a
   hit; 0 on a miss: no entry, or one that fails its checks (wrong magic,
   another key, a payload whose size or SHA-256 differs), which is then
   left for vc_kcache_put to replace. Errors other than a missing file are
   misses too: the cache never makes a compile fail. */
int vc_kcache_get(const char *dir, const vc_kcache_key *k, void **payload, size_t *size);
/* Stores payload under key: a temporary file in the same folder, then
   rename(2) over the entry. Creates dir and its subfolder as needed. */
int vc_kcache_put(const char *dir, const vc_kcache_key *k, const void *payload, size_t size,
                  vc_error *err);

/* $XDG_CACHE_HOME/vyre-conform, else $HOME/.cache/vyre-conform. */
int vc_kcache_default_dir(char *out, size_t n, vc_error *err);

/* The device options a run passes its plugin: devopts (may be NULL) with
   "cache=DIR" appended: dir_arg (--cache DIR, made absolute), or the
   default folder; "cache=none" with no_cache. Options that already name a
   cache are kept as they are. *out is malloc'ed (or NULL when devopts is
   returned unchanged) and *devopts_out points at the options to use. */
int vc_kcache_device_options(const char *dir_arg, bool no_cache, const char *devopts,
                             const char **devopts_out, char **out, vc_error *err);

/* The plugin option cache=DIR as an entry of its vc_kv_key table
   (harness/base/kvopts.h), stored in a char[VC_KCACHE_DIR_MAX] field. */
#define VC_KCACHE_KV_KEY(type, field)                                                    \
  {VC_KCACHE_OPTION, VC_KV_TEXT, offsetof(type, field), 1, VC_KCACHE_DIR_MAX - 1, "DIR", NULL, \
   0, 0}
/* After parsing: "none" is no cache (""). */
void vc_kcache_option_done(char *dir);

#endif
