#include "harness/base/arena.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct vc_arena_chunk {
  vc_arena_chunk *next;
  size_t size;
  _Alignas(16) unsigned char data[];
};

enum { CHUNK_MIN = 64 * 1024 };

void vc_arena_init(vc_arena *a) {
  a->head = NULL;
  a->used_in_head = 0;
}

void *vc_arena_alloc(vc_arena *a, size_t n) {
  n = (n + 15u) & ~(size_t)15u;
  if (!a->head || a->used_in_head + n > a->head->size) {
    size_t size = n > CHUNK_MIN ? n : CHUNK_MIN;
    vc_arena_chunk *c = malloc(sizeof *c + size);
    if (!c) {
      /* The one place allowed to stop the process: nothing sane can follow. */
      fputs("vyre-conform: out of memory\n", stderr);
      abort();
    }
    c->next = a->head;
    c->size = size;
    a->head = c;
    a->used_in_head = 0;
  }
  void *p = a->head->data + a->used_in_head;
  a->used_in_head += n;
  memset(p, 0, n);
  return p;
}

char *vc_arena_strndup(vc_arena *a, const char *s, size_t n) {
  char *d = vc_arena_alloc(a, n + 1);
  memcpy(d, s, n);
  d[n] = '\0';
  return d;
}

char *vc_arena_strdup(vc_arena *a, const char *s) {
  return s ? vc_arena_strndup(a, s, strlen(s)) : NULL;
}

void vc_arena_free(vc_arena *a) {
  vc_arena_chunk *c = a->head;
  while (c) {
    vc_arena_chunk *next = c->next;
    free(c);
    c = next;
  }
  a->head = NULL;
  a->used_in_head = 0;
}
