/* Shadow memory for the race and uninitialised-read checks (internal).
 *
 * Every element of a buffer or shared array that is accessed gets one
 * record, allocated lazily a page at a time. Records of an earlier segment
 * mean nothing (their phase is older than the segment's first, see below),
 * so at each segment start the pages in use go back to a pool and are
 * handed out again, stale records and all, for other elements: a run holds
 * the pages of its busiest segment, not of every element it ever touched,
 * and touches fresh memory (page faults) only while that grows. The pool
 * can outlive a run (vc_oracle_scratch), with the phase counter carried on
 * so that its records stay older than any phase of the next run. Accesses are classified as
 * plain reads (R), plain writes (W) and atomics (A); W conflicts with all
 * three, R with W and A, A with R and W.
 *
 * Execution is sequential, so "ordered" reduces to comparisons of phase
 * numbers: the phase counter increases at each new workgroup and at each
 * barrier release. For an access at phase P of a workgroup that began at
 * phase S, in a segment whose first workgroup began at phase G, an earlier
 * access at phase Q is
 *   Q <  G      another segment: ordered;
 *   G <= Q < S  an earlier workgroup of this segment: never ordered;
 *   S <= Q < P  an earlier phase of this workgroup: ordered by the barrier;
 *   Q == P      this phase: unordered unless by the same invocation.
 * (Shared arrays are per workgroup, so for them G = S.)
 *
 * A record keeps, per class, whether the class occurred in the phase of the
 * record's last access (with the first invocation that made it), in that
 * workgroup, and in an earlier workgroup of the segment (with one such
 * invocation). Within a phase each invocation runs from one stop to the next
 * before another starts, so its accesses are contiguous: if the first
 * invocation of a class in the phase is the current one, no other made that
 * class in the phase. Hence the record decides exactly whether an access
 * conflicts with an unordered earlier one, and names an invocation that made
 * a conflicting access. */
#ifndef VC_ORACLE_SHADOW_H
#define VC_ORACLE_SHADOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "harness/base/error.h"

/* The three classes, then the atomics that only read or only write: of class
   VC_ACC_ATOMIC for races, but an atomic load does not initialise workgroup
   memory and an atomic store does not read it. */
typedef enum vc_acc {
  VC_ACC_READ = 0, VC_ACC_WRITE = 1, VC_ACC_ATOMIC = 2, VC_ACC_ATOMIC_LOAD, VC_ACC_ATOMIC_STORE
} vc_acc;

typedef struct vc_shadow {
  uint32_t phase;     /* of the last access; 0 = none */
  uint32_t bits;      /* 4 per class: in the phase, (class 0: written in the workgroup),
                         in the workgroup, in an earlier workgroup */
  uint32_t first[3];  /* per class: first invocation in the phase (or one of the workgroup) */
  uint32_t early[3];  /* per class: an invocation of an earlier workgroup of the segment */
} vc_shadow;

typedef struct vc_shadow_map {
  vc_shadow **pages;  /* NULL until the slot is first accessed */
  uint32_t npages;
} vc_shadow_map;

/* Pages no slot uses now; it owns every page it ever handed out, and free
   has room for all of them, so that giving pages back never allocates. */
typedef struct vc_shadow_pool {
  vc_shadow **free;
  uint32_t nfree;
  uint32_t owned;     /* pages allocated, free or in use */
  uint32_t cap;       /* of free */
  void **slabs;       /* what pages are carved from (shadow.c) */
  uint32_t nslabs, slabs_cap;
  uint32_t slab_left; /* pages of the last slab not handed out yet */
} vc_shadow_pool;

typedef struct vc_shadows {
  vc_shadow_map *map; /* one per memory slot */
  uint32_t nmap;
  vc_shadow ***live;  /* the map entries given a page since the last recycle */
  uint32_t nlive, live_cap;
  vc_shadow_pool *pool;
} vc_shadows;

/* Pages of 2^10 records; per class c, flags at bit 4 * c (shadow.c). */
#define VC_SHADOW_PAGE_BITS 10u
#define VC_SHADOW_IN_PHASE 1u
#define VC_SHADOW_WROTE_WG 2u /* once, in class 0's bits: some invocation of the workgroup wrote it */
#define VC_SHADOW_IN_WG 4u
#define VC_SHADOW_EARLY 8u

/* The common case of vc_shadow_access, inline in the interpreter: the first
   access of a segment to an element of a buffer (its record, if it has one
   yet, is older than seg_first), which nothing can conflict with. Records
   it as vc_shadow_access would and returns true; false when the record is
   missing or has accesses of this segment: then vc_shadow_access decides. */
static inline bool vc_shadow_first(vc_shadows *sh, uint32_t slot, uint32_t idx,
                                   uint32_t seg_first, uint32_t phase, uint32_t self,
                                   vc_acc acc) {
  vc_shadow **pages = sh->map[slot].pages;
  vc_shadow *page = pages ? pages[idx >> VC_SHADOW_PAGE_BITS] : NULL;
  if (!page) return false;
  vc_shadow *r = &page[idx & ((1u << VC_SHADOW_PAGE_BITS) - 1u)];
  if (r->phase >= seg_first) return false;
  uint32_t cls = acc > VC_ACC_ATOMIC ? VC_ACC_ATOMIC : acc;
  bool writes = acc != VC_ACC_READ && acc != VC_ACC_ATOMIC_LOAD;
  r->first[cls] = self;
  r->bits = (VC_SHADOW_IN_PHASE | VC_SHADOW_IN_WG) << 4 * cls | (writes ? VC_SHADOW_WROTE_WG : 0);
  r->phase = phase;
  return true;
}

struct vc_machine;

/* Maps for m's slots, taking pages from pool (which outlives them). */
int vc_shadows_init(struct vc_machine *m, vc_shadow_pool *pool, vc_error *err);
/* Gives every page back to the pool and frees the maps. */
void vc_shadows_free(struct vc_machine *m);
/* At a segment start: every page in use goes back to the pool. */
void vc_shadows_recycle(struct vc_machine *m);
/* Forgets every access (all phases restart): the pages are zeroed. */
void vc_shadows_clear(struct vc_machine *m);
void vc_shadow_pool_free(vc_shadow_pool *pool);
/* Checks and records an access by the running invocation to element idx
   (in bounds) of slot, made by the instruction at pc. */
void vc_shadow_access(struct vc_machine *m, uint32_t pc, uint32_t slot, uint32_t idx, vc_acc acc);

#endif
