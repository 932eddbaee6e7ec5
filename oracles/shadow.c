/* Shadow records and the conflict rules; the scheme is in shadow.h. */
#include "oracles/shadow.h"

#include <stdlib.h>
#include <string.h>

#include "oracles/issues.h"
#include "oracles/machine.h"

#define PAGE_BITS VC_SHADOW_PAGE_BITS
#define PAGE (1u << PAGE_BITS)
#define SLAB_BYTES ((size_t)2 << 20)
#define SLAB_PAGES ((uint32_t)(SLAB_BYTES / (PAGE * sizeof(vc_shadow))))

/* Per class c the bits sit at 4 * c. */
#define IN_PHASE VC_SHADOW_IN_PHASE
#define WROTE_WG VC_SHADOW_WROTE_WG
#define IN_WG VC_SHADOW_IN_WG
#define EARLY VC_SHADOW_EARLY
#define ALL_CLASSES(flag) ((flag) | (flag) << 4 | (flag) << 8)

/* The classes each access conflicts with (bit c for class c). */
static const uint32_t conflicts[3] = {
    [VC_ACC_READ] = 1u << VC_ACC_WRITE | 1u << VC_ACC_ATOMIC,
    [VC_ACC_WRITE] = 1u << VC_ACC_READ | 1u << VC_ACC_WRITE | 1u << VC_ACC_ATOMIC,
    [VC_ACC_ATOMIC] = 1u << VC_ACC_READ | 1u << VC_ACC_WRITE,
};

int vc_shadows_init(vc_machine *m, vc_shadow_pool *pool, vc_error *err) {
  m->shadow.nmap = m->o->nmem;
  m->shadow.pool = pool;
  m->shadow.map = calloc(m->o->nmem + 1u, sizeof *m->shadow.map);
  if (!m->shadow.map) return vc_fail(err, VC_ERR_NOMEM, "oracle: out of memory for shadow tables");
  return 0;
}

void vc_shadows_recycle(vc_machine *m) {
  vc_shadows *sh = &m->shadow;
  for (uint32_t k = 0; k < sh->nlive; k++) {
    sh->pool->free[sh->pool->nfree++] = *sh->live[k];
    *sh->live[k] = NULL;
  }
  sh->nlive = 0;
}

void vc_shadows_free(vc_machine *m) {
  if (m->shadow.pool) vc_shadows_recycle(m);
  for (uint32_t s = 0; s < m->shadow.nmap && m->shadow.map; s++) free(m->shadow.map[s].pages);
  free(m->shadow.map);
  free(m->shadow.live);
  memset(&m->shadow, 0, sizeof m->shadow);
}

void vc_shadows_clear(vc_machine *m) {
  vc_shadows_recycle(m);
  for (uint32_t p = 0; p < m->shadow.pool->nfree; p++)
    memset(m->shadow.pool->free[p], 0, PAGE * sizeof(vc_shadow));
}

void vc_shadow_pool_free(vc_shadow_pool *pool) {
  for (uint32_t k = 0; k < pool->nslabs; k++) free(pool->slabs[k]);
  free(pool->slabs);
  free(pool->free);
  memset(pool, 0, sizeof *pool);
}

/* A new zeroed page, carved from a slab of SLAB_PAGES (2 MiB): one
   allocation for 64 pages, and pages side by side in memory. (Huge pages
   for the slabs were slower: the kernel compacts memory to find them.) */
static vc_shadow *new_page(vc_shadow_pool *pool) {
  if (!pool->slab_left) {
    if (pool->nslabs == pool->slabs_cap) {
      uint32_t cap = pool->slabs_cap ? pool->slabs_cap * 2 : 8;
      void **slabs = realloc(pool->slabs, cap * sizeof *slabs);
      if (!slabs) return NULL;
      pool->slabs = slabs;
      pool->slabs_cap = cap;
    }
    void *slab = calloc((size_t)SLAB_PAGES * PAGE, sizeof(vc_shadow));
    if (!slab) return NULL;
    pool->slabs[pool->nslabs++] = slab;
    pool->slab_left = SLAB_PAGES;
  }
  vc_shadow *page = (vc_shadow *)pool->slabs[pool->nslabs - 1] +
                    (size_t)(SLAB_PAGES - pool->slab_left) * PAGE;
  pool->slab_left--;
  /* Zero already; written now so that each page of memory faults in once,
     for writing. The checks read a record before they write it, which
     would map the zero page for the read and fault again to copy it. */
  memset(page, 0, PAGE * sizeof *page);
  return page;
}

/* A page for the map entry `page`: a recycled one (its records are older
   than the segment, hence empty to catch_up), else a new zeroed one. */
static bool give_page(vc_shadows *sh, vc_shadow **page) {
  vc_shadow_pool *pool = sh->pool;
  if (sh->nlive == sh->live_cap) {
    uint32_t cap = sh->live_cap ? sh->live_cap * 2 : 64;
    vc_shadow ***live = realloc(sh->live, cap * sizeof *live);
    if (!live) return false;
    sh->live = live;
    sh->live_cap = cap;
  }
  if (pool->nfree) {
    *page = pool->free[--pool->nfree];
  } else {
    if (pool->owned == pool->cap) {
      uint32_t cap = pool->cap ? pool->cap * 2 : 64;
      vc_shadow **free_pages = realloc(pool->free, cap * sizeof *free_pages);
      if (!free_pages) return false;
      pool->free = free_pages;
      pool->cap = cap;
    }
    if (!(*page = new_page(pool))) return false;
    pool->owned++;
  }
  sh->live[sh->nlive++] = page;
  return true;
}

static vc_shadow *record(vc_machine *m, uint32_t slot, uint32_t idx) {
  vc_shadow_map *map = &m->shadow.map[slot];
  if (!map->pages) {
    uint32_t n = (m->slot[slot].count >> PAGE_BITS) + 1u;
    map->pages = calloc(n, sizeof *map->pages);
    if (!map->pages) goto nomem;
    map->npages = n;
  }
  vc_shadow **page = &map->pages[idx >> PAGE_BITS];
  if (!*page && !give_page(&m->shadow, page)) goto nomem;
  return &(*page)[idx & (PAGE - 1u)];
nomem:
  if (!m->failed)
    m->failed = vc_fail(m->err, VC_ERR_NOMEM, "oracle: out of memory for the shadow of %s",
                        m->o->mem[slot].name);
  return NULL;
}

/* Brings a record up to the current phase: forgets other segments, moves
   a finished workgroup's classes to "earlier", ends a finished phase. */
static void catch_up(vc_shadow *r, uint32_t seg_first, uint32_t wg_first, uint32_t phase) {
  if (r->phase < seg_first) {
    r->bits = 0;
  } else if (r->phase < wg_first) {
    for (uint32_t c = 0; c < 3; c++)
      if (r->bits & IN_WG << 4 * c) r->early[c] = r->first[c];
    r->bits = (r->bits | (r->bits & ALL_CLASSES(IN_WG)) << 1) & ALL_CLASSES(EARLY);
  } else if (r->phase < phase) {
    r->bits &= ~ALL_CLASSES(IN_PHASE);
  }
}

/* A conflicting earlier access by another invocation, if any. */
static bool partner(const vc_shadow *r, vc_acc acc, uint32_t self, uint32_t *other,
                    vc_acc *other_acc, bool *earlier) {
  static const vc_acc order[3] = {VC_ACC_WRITE, VC_ACC_ATOMIC, VC_ACC_READ};
  for (uint32_t k = 0; k < 3; k++) {
    vc_acc c = order[k];
    uint32_t b = r->bits >> 4 * c;
    if (!(conflicts[acc] & 1u << c)) continue;
    *other_acc = c;
    *earlier = false;
    if ((b & IN_PHASE) && r->first[c] != self) return *other = r->first[c], true;
    *earlier = true;
    if (b & EARLY) return *other = r->early[c], true;
  }
  return false;
}

static void remember(vc_shadow *r, vc_acc acc, uint32_t self, uint32_t phase) {
  uint32_t sh = 4 * acc;
  if (!(r->bits & IN_PHASE << sh)) {
    r->first[acc] = self;
    r->bits |= (IN_PHASE | IN_WG) << sh;
  }
  r->phase = phase;
}

void vc_shadow_access(vc_machine *m, uint32_t pc, uint32_t slot, uint32_t idx, vc_acc acc) {
  vc_shadow *r = record(m, slot, idx);
  if (!r) return;
  bool shared = slot >= m->o->nbuffers;
  catch_up(r, shared ? m->wg_first : m->seg_first, m->wg_first, m->phase);
  /* atomics read and write, except atomic loads (only read) and stores (only
     write); a write by anyone of the workgroup initialises */
  bool reads = acc != VC_ACC_WRITE && acc != VC_ACC_ATOMIC_STORE;
  bool writes = acc != VC_ACC_READ && acc != VC_ACC_ATOMIC_LOAD;
  vc_acc cls = acc > VC_ACC_ATOMIC ? VC_ACC_ATOMIC : acc;
  if (shared && reads && !(r->bits & WROTE_WG)) vc_note_uninit(m, pc, slot, idx);
  if (!r->bits) { /* the first access of the segment (or workgroup): nothing to conflict with */
    r->first[cls] = m->cur;
    r->bits = (IN_PHASE | IN_WG) << 4 * cls | (writes ? WROTE_WG : 0);
    r->phase = m->phase;
    return;
  }
  uint32_t other;
  vc_acc other_acc;
  bool earlier;
  if (partner(r, cls, m->cur, &other, &other_acc, &earlier))
    vc_note_race(m, pc, slot, idx, cls, other, other_acc, earlier);
  remember(r, cls, m->cur, m->phase);
  if (writes) r->bits |= WROTE_WG;
}
