/* A bump allocator: a program and everything in it share one owner. */
#ifndef VC_ARENA_H
#define VC_ARENA_H

#include <stddef.h>

typedef struct vc_arena_chunk vc_arena_chunk;
typedef struct vc_arena {
  vc_arena_chunk *head;
  size_t used_in_head;
} vc_arena;

void vc_arena_init(vc_arena *a);
/* Zeroed memory, aligned for any type. Aborts only on out-of-memory. */
void *vc_arena_alloc(vc_arena *a, size_t n);
char *vc_arena_strdup(vc_arena *a, const char *s);
char *vc_arena_strndup(vc_arena *a, const char *s, size_t n);
void vc_arena_free(vc_arena *a);

#endif
