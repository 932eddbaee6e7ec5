/* The generator's state while it writes one program, shared by the code
 * writer (gen_code.c: literals, names, expressions, statements) and the
 * program writer (gen_program.c: declarations, segments, entry). Only
 * harness/gen includes it. */
#ifndef VC_GEN_STATE_H
#define VC_GEN_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "harness/gen/gen_internal.h"
#include "harness/gen/prng.h"
#include "harness/model/program.h"

#define MAX_BUFS 16
#define MAX_SYMS 512
#define MAX_SHARED 2

typedef enum role { ROLE_ANY = 0, ROLE_OWN, ROLE_ATOM } role;
/* Commutative atomic families: any order of these gives the same element. */
typedef enum afam { FAM_ADD = 0, FAM_AND, FAM_OR, FAM_XOR, FAM_MIN, FAM_MAX, FAM_COUNT } afam;
/* The ops of each family: fam_ops[f][0] and [1] */
extern const char *const vc_gen_fam_ops[FAM_COUNT][2];

typedef enum shstate { SH_NONE = 0, SH_OWN, SH_ALL, SH_ATOM } shstate;

typedef struct gbuf {
  char name[16];
  vc_type type;
  uint32_t count, mult; /* mult: owned elements per invocation (0: read-only buffer) */
  vc_access access;
  bool partial;         /* stores only where a predicate of id holds */
  uint32_t pred_mod, pred_rem;
  role role;
  afam fam;
  uint32_t stored_seg;  /* the first segment with a store or atomic into it; NO_SEG: none */
} gbuf;

#define NO_SEG UINT32_MAX

typedef struct gshared {
  char name[16];
  vc_type type;
  shstate state;
  afam fam;
  bool dirty; /* written since the last workgroup barrier: a barrier and a read are owed */
  bool aread, pread; /* read by an atomic load / a plain load in this phase: the
                        other kind would race with it */
} gshared;

typedef enum symkind { SYM_LET = 0, SYM_VAR, SYM_LOOP, SYM_COUNTER } symkind;

typedef struct gsym {
  uint32_t id; /* spelled v<id> */
  vc_type type;
  symkind kind;
  uint32_t seg; /* the segment it was declared in */
  bool atomic;  /* a let of an atomic's result */
} gsym;

typedef struct gen {
  vc_rng r;
  vc_strbuf *o;
  uint64_t feat;
  uint32_t size;
  uint64_t count[VC_GEN_FEATURE_COUNT];
  uint32_t wg[3], grid[3], dims;
  uint32_t N, W;
  gbuf bufs[MAX_BUFS];
  uint32_t nbufs;
  gshared sh[MAX_SHARED];
  uint32_t nsh;
  gsym syms[MAX_SYMS];
  uint32_t nsyms, next_name;
  uint32_t seg, nseg;
  bool seg_return;  /* a return stands in this segment: no workgroup barrier may follow */
  uint32_t loops;   /* loops around the current statement */
  uint32_t depth;   /* statement nesting within the segment */
  int32_t budget;   /* statements left */
  uint32_t max_expr;
  bool pc;          /* the pass counter of a flag fixpoint exists */
  bool oob;         /* the program declares and makes an out-of-bounds access */
  bool fq;          /* the f32 div buffer fq exists (N elements, written only, never read) */
  /* liveness (docs/fuzzing.md, "Live programs"): a source store at the start
     of the first segment, read at another invocation's element by a sink
     store at the start of the last one */
  uint32_t last_seg;  /* the segment of the last body */
  gbuf *src;          /* the source's buffer, once written */
  bool sink_done;
  uint16_t weight[VC_GEN_FEATURE_COUNT]; /* vc_gen_opts.weight, 0 made 100 */
  uint32_t stmt_wt[16], expr_wt[12];     /* the kinds' draws, scaled by the weights */
  vc_type types[5];
  uint32_t ntypes;
  uint32_t indent;
} gen;

static inline bool on(const gen *g, vc_gen_feature f) { return (g->feat >> f) & 1u; }
static inline void note(gen *g, vc_gen_feature f) { g->count[f]++; }
static inline uint32_t rnd(gen *g, uint32_t n) { return vc_rng_below(&g->r, n); }
static inline bool pct(gen *g, uint32_t p) { return vc_rng_pct(&g->r, p); }
static inline void put(gen *g, const char *s) { vc_sb_puts(g->o, s); }
/* True with probability p percent, scaled by construct f's weight (--features NAME=PCT). */
static inline bool wpct(gen *g, vc_gen_feature f, uint32_t p) {
  uint32_t q = p * g->weight[f] / 100u;
  return pct(g, q > 100u ? 100u : q);
}
/* Draws one of n kinds, kind i with weight wt[i] (cumulative: wt[n-1] is the total). */
static inline uint32_t pick_kind(gen *g, const uint32_t *wt, uint32_t n) {
  uint32_t r = rnd(g, wt[n - 1] ? wt[n - 1] : 1), i = 0;
  while (i + 1 < n && r >= wt[i]) i++;
  return i;
}

static inline void nl(gen *g) {
  vc_sb_putc(g->o, '\n');
  for (uint32_t i = 0; i < g->indent; i++) vc_sb_puts(g->o, "  ");
}

static inline void note_type(gen *g, vc_type t) {
  if (t == VC_I32) note(g, VC_GEN_I32);
  if (t == VC_F32) note(g, VC_GEN_F32);
  if (t == VC_U64) note(g, VC_GEN_U64);
  if (t == VC_I64) note(g, VC_GEN_I64);
}

static inline vc_type any_type(gen *g) { return g->types[rnd(g, g->ntypes)]; }
static inline vc_type int_type(gen *g) {
  vc_type t;
  do t = any_type(g);
  while (t == VC_F32);
  return t;
}

/* An expression of type t, at most d operators deep. */
void vc_gen_expr(gen *g, vc_type t, uint32_t d);
/* One statement of the current segment (no grid or workgroup barrier). */
void vc_gen_stmt(gen *g);
/* The source store into a writable buffer (the first segment) and the sink
   that reads it at another invocation's element into another output (the
   last); each returns false where it cannot stand. */
bool vc_gen_source(gen *g);
bool vc_gen_sink(gen *g);
/* After a workgroup barrier: shared array s, now readable everywhere, read
   at a neighbour's slot into an owned output element. */
void vc_gen_readback(gen *g, gshared *s);
/* Opens the write of s's own slot: (store s lid , or an atomic store. */
void vc_gen_shared_store_open(gen *g, gshared *s);
/* A contended atomic of s's family on any slot (s in its atomic phase). */
void vc_gen_shared_atomic(gen *g, gshared *s);
/* An owned writable buffer of type t (any type with cast: *t is set), or NULL. */
gbuf *vc_gen_own_buf(gen *g, vc_type want, vc_type *t);
/* An interesting literal's bits of type t, and a literal as the parser reads it. */
uint64_t vc_gen_lit_bits(gen *g, vc_type t);
void vc_gen_lit(gen *g, vc_type t, uint64_t bits);

#endif
