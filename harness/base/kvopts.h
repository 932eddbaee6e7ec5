/* "key=value,..." option strings (a plugin's --device-options), parsed by one
 * table-driven parser so that every plugin accepts and refuses alike.
 *
 * A plugin describes its keys in a table of vc_kv_key; vc_kv_parse splits
 * the text at commas (empty items are skipped; a key given twice keeps the
 * last value), finds each key, checks and converts its value and stores it
 * at the key's offset in the plugin's options struct. An unknown key is
 * VC_ERR_USAGE "unknown API option 'ITEM' (known: ...)"; a bad value is
 * VC_ERR_USAGE "API option ITEM: expected WHAT". */
#ifndef VC_KVOPTS_H
#define VC_KVOPTS_H

#include <stddef.h>
#include <stdint.h>

#include "harness/base/error.h"

typedef enum vc_kv_kind {
  VC_KV_U32,    /* decimal, lo..hi, stored as uint32_t (times scale) */
  VC_KV_BYTES,  /* decimal with an optional k, m or g (KiB, MiB, GiB), lo..hi, uint64_t */
  VC_KV_CHOICE, /* one of choices, stored as the choice's int value */
  VC_KV_TEXT    /* lo..hi characters, stored NUL-terminated in a char[hi + 1] */
} vc_kv_kind;

typedef struct vc_kv_choice {
  const char *name;
  int value;
} vc_kv_choice;

typedef struct vc_kv_key {
  const char *key;
  vc_kv_kind kind;
  size_t offset;                 /* where the value goes */
  uint64_t lo, hi;               /* U32, BYTES: the range; TEXT: the length */
  const char *meta;              /* how the value is written in messages: "N", "SECONDS" */
  const vc_kv_choice *choices;   /* CHOICE: terminated by a NULL name */
  uint32_t scale;                /* U32: stored value = given x scale (0: 1) */
  size_t given;                  /* VC_KV_GIVEN(...) of a bool set when given; 0: none */
} vc_kv_key;

/* The name of value among choices (NULL-name terminated), "?" if none has it:
   what a plugin's description writes for a choice option. */
const char *vc_kv_choice_name(const vc_kv_choice *choices, int value);

/* The `given` field: the offset of a bool, plus one so that 0 means none. */
#define VC_KV_GIVEN(type, field) (offsetof(type, field) + 1)

/* Parses text (NULL or "" is no options) into dst by keys; api names the
   plugin in messages ("CUDA"). Returns 0 or VC_ERR_USAGE. */
int vc_kv_parse(const char *api, const char *text, const vc_kv_key *keys, size_t nkeys,
                void *dst, vc_error *err);

/* "k1=META, k2=a|b, ..." for messages and docs. */
void vc_kv_known(const vc_kv_key *keys, size_t nkeys, char *buf, size_t n);

#endif
