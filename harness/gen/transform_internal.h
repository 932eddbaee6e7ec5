/* What the transformations share: the statement lists of a program, facts
 * about statements (what they read, write, declare, and whether control
 * leaves them), and node builders. Each transformation edits a parsed
 * program in place and returns how many changes it made. */
#ifndef VC_GEN_TRANSFORM_INTERNAL_H
#define VC_GEN_TRANSFORM_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "harness/gen/gen.h"
#include "harness/gen/prng.h"
#include "harness/model/program.h"

/* A statement list: kids[first ...] of a block, loop or while. */
typedef struct vc_xf_list {
  vc_node *node;
  uint32_t first;
  bool top;   /* entry, or a block reached from it through blocks only: grid barriers allowed */
  uint32_t loops; /* loops and whiles around it */
} vc_xf_list;

typedef struct vc_xf_lists {
  vc_xf_list *items;
  uint32_t n, cap;
} vc_xf_lists;

/* Every statement list of p (entry first); free with vc_xf_lists_free. */
void vc_xf_lists_collect(const vc_program *p, vc_xf_lists *out);
void vc_xf_lists_free(vc_xf_lists *l);

/* Inserts kid at position pos of list (pos <= nkids); removes and returns the
   statement at pos. */
void vc_xf_insert(vc_program *p, vc_node *list, uint32_t pos, vc_node *kid);
vc_node *vc_xf_remove(vc_node *list, uint32_t pos);

/* Does a statement of this kind stand anywhere under n (n included)? */
bool vc_xf_contains(const vc_node *n, vc_node_kind kind);
/* Control that can leave n or stop at it: a barrier, return, break or continue. */
bool vc_xf_has_control(const vc_node *n);

/* What a statement touches: symbols read and written (declared counts as
   written), memory read and written (atomics write), as bit sets. */
typedef struct vc_xf_effects {
  uint8_t *sym_read, *sym_write; /* nsyms each */
  uint8_t *mem_read, *mem_write; /* nbuffers + nshared each: buffers first */
  bool reads_writable;           /* loads a buffer that is not `read`, or shared memory */
} vc_xf_effects;

void vc_xf_effects_of(const vc_program *p, const vc_node *n, vc_xf_effects *e);
void vc_xf_effects_free(vc_xf_effects *e);
/* May a and b run in either order (neither's effects reach the other's)? */
bool vc_xf_independent(const vc_program *p, const vc_xf_effects *a, const vc_xf_effects *b);

vc_node *vc_xf_lit(vc_program *p, vc_type t, uint64_t bits);
vc_node *vc_xf_block(vc_program *p);

/* The transformations, in VC_GEN_TRANSFORM_TABLE order. */
uint32_t vc_xf_empty_segments(vc_program *p, vc_rng *r);
uint32_t vc_xf_wrap_blocks(vc_program *p, vc_rng *r);
uint32_t vc_xf_rename(vc_program *p, vc_rng *r);
uint32_t vc_xf_dead_code(vc_program *p, vc_rng *r);
uint32_t vc_xf_reorder(vc_program *p, vc_rng *r);
uint32_t vc_xf_move_barrier(vc_program *p, vc_rng *r);

#endif
