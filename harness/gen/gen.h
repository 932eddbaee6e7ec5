/* harness/gen: the program generator and the equivalence transformations, checked on the oracle. */
/* Generated programs are valid by construction (docs/fuzzing.md, "Generating
 * programs"): each invocation writes only elements it owns between barriers,
 * reads other invocations' elements only where a grid or workgroup barrier
 * orders them, uses atomic results only where the order cannot show, and
 * runs bounded loops and fixpoints. vc_gen_program also proves it: the text
 * is parsed, run on the oracle and checked split-on-oracle (vc_check_program)
 * before it is returned, so a refusal is a generator bug.
 *
 * The output is a function of (opts, seed, index) alone: the generator has
 * its own PRNG and never reads the clock, the environment or rand(). */
#ifndef VC_GEN_H
#define VC_GEN_H

#include <stdbool.h>
#include <stdint.h>

#include "harness/base/error.h"
#include "harness/base/strbuf.h"
#include "harness/model/program.h"

/* The constructs, one row each: identifier, name (for --features and
   --stats), what it is. Every program uses a subset; --features restricts
   it, --stats counts each. The order is the bit order of vc_gen_opts.features. */
#define VC_GEN_FEATURE_TABLE(X)                                                       \
  X(GRID_BARRIER, "grid-barrier", "grid barriers at the top level of entry")           \
  X(NESTED_BARRIER, "nested-barrier", "grid barriers inside (block ...)s")             \
  X(EDGE_BARRIER, "edge-barrier", "leading, trailing and adjacent grid barriers")     \
  X(LIVE_LET, "live-let", "lets of loads used after one or more grid barriers")       \
  X(LIVE_VAR, "live-var", "vars set and used across grid barriers")                   \
  X(RETURN, "return", "(return) in a segment, conditional")                           \
  X(IF, "if", "if, with and without else")                                             \
  X(LOOP, "loop", "counted (loop i FROM TO ...), u32 and i32")                         \
  X(WHILE, "while", "bounded (while C ...)")                                           \
  X(BREAK, "break", "(break) and (continue) under conditions")                         \
  X(ATOMIC, "atomic", "atomics: contended with discarded results, owned with used ones") \
  X(ATOMIC_LET, "atomic-let", "lets of atomic results (owned elements) live across barriers") \
  X(SHARED, "shared", "shared arrays and workgroup barriers")                          \
  X(FIXPOINT, "fixpoint", "(fixpoint (max N)) without a flag")                         \
  X(FIXPOINT_FLAG, "fixpoint-flag", "flag fixpoints, converging or declared not to")   \
  X(I32, "i32", "i32 values and buffers")                                              \
  X(F32, "f32", "f32 values and buffers (no f32 div)")                                 \
  X(U64, "u64", "u64 values and buffers")                                              \
  X(I64, "i64", "i64 values and buffers")                                              \
  X(CAST, "cast", "cast and bitcast between types")                                    \
  X(SELECT, "select", "select, comparisons, land/lor/lnot")                            \
  X(DIM2, "dim2", "2-D dispatches (odd sizes)")                                        \
  X(DIM3, "dim3", "3-D dispatches (odd sizes)")                                        \
  X(MANY_BUFFERS, "many-buffers", "many buffers (up to 16)")                           \
  X(PARTIAL_WRITE, "partial-write", "buffers written in part (a tail or a predicate)") \
  X(OOB, "oob", "declared out-of-bounds accesses, (expect out-of-bounds)")               \
  X(LIVE_FAR, "live-far", "lets and vars used two or more grid barriers after their definition") \
  X(F32_DIV, "f32-div", "f32 div of operands in [0, 1024) by [1, 1024], into a buffer of its own with (expect (ulp ...))") \
  X(XCHG_STMT, "xchg-stmt", "(atomic exchange ...) and (atomic cmpxchg ...) as statements, on owned elements") \
  X(HEX, "hex", "hexadecimal literals of every type")                                  \
  X(BIG_WORKGROUP, "big-workgroup", "1-D workgroups of 406 to 1024 invocations")      \
  X(SHARED_ATOMIC_LS, "shared-atomic-ls", "(atomic load ...) and (atomic store ...) of u32 and i32 shared arrays") \
  X(TAGS, "tags", "(tags ...) forms")                                                  \
  X(EXPECT_TIMEOUT, "expect-timeout", "(expect (timeout S)) forms")

typedef enum vc_gen_feature {
#define VC_GEN_X(id, name, what) VC_GEN_##id,
  VC_GEN_FEATURE_TABLE(VC_GEN_X)
#undef VC_GEN_X
  VC_GEN_FEATURE_COUNT
} vc_gen_feature;

#define VC_GEN_ALL_FEATURES ((UINT64_C(1) << VC_GEN_FEATURE_COUNT) - 1u)

typedef enum vc_gen_size { VC_GEN_SMALL = 0, VC_GEN_MEDIUM, VC_GEN_LARGE } vc_gen_size;

typedef struct vc_gen_opts {
  uint32_t size;     /* vc_gen_size */
  uint64_t features; /* bit VC_GEN_<ID> allows that construct; VC_GEN_ALL_FEATURES: all */
  /* per construct, its rate in percent of the default (--features NAME=PCT);
     0 stands for 100, so that {size, features} keeps the defaults */
  uint16_t weight[VC_GEN_FEATURE_COUNT];
} vc_gen_opts;

/* How often each construct occurred, summed over the programs generated,
   and what the dead-output analysis (vc_gen_liveness) found in them. */
typedef struct vc_gen_stats {
  uint64_t programs;
  uint64_t count[VC_GEN_FEATURE_COUNT];
  uint64_t live;          /* programs vc_gen_liveness calls live */
  uint64_t dead_output;   /* programs with no computed value reaching an output */
  uint64_t no_flow;       /* programs where no value a barrier orders reaches an output */
  uint64_t shared_unread; /* phases of shared memory written and never read after a barrier */
  uint64_t open_bitcasts; /* f32 -> integer bitcasts of a possible arithmetic NaN */
} vc_gen_stats;

/* The dead-output analysis of one program (static, on the parsed program;
   the generator's bookkeeping buffers pc, flag and fq are not outputs). */
typedef struct vc_gen_live {
  bool output_computed;   /* a store of a non-literal value, or an atomic, into an output */
  bool ordered_flow;      /* a value read from memory that a grid or workgroup barrier
                             orders after its store reaches an output (through lets,
                             vars and expressions) */
  bool live;              /* both */
  uint32_t barriers;      /* grid and workgroup barriers */
  uint32_t shared_unread; /* (array, segment) phases written and not read after a barrier */
  uint32_t open_bitcasts; /* f32 -> integer bitcasts whose operand is not NaN-guarded */
} vc_gen_live;

/* All features, size small. */
void vc_gen_opts_default(vc_gen_opts *o);
const char *vc_gen_feature_name(vc_gen_feature f);
const char *vc_gen_feature_what(vc_gen_feature f);
const char *vc_gen_size_name(vc_gen_size s);
/* "small", "medium", "large"; else a usage error naming the word. */
int vc_gen_size_parse(const char *s, uint32_t *size, vc_error *err);
/* A comma-separated list of feature names (or "all"); an unknown name is a
   usage error naming it and the known ones. */
int vc_gen_features_parse(const char *list, uint64_t *features, vc_error *err);
/* The names of a feature set, comma-separated ("all" for every one). */
void vc_gen_features_print(uint64_t features, vc_strbuf *out);
/* The list with weights: items NAME or NAME=PCT (0 ... 1000, percent of the
   construct's default rate; 0 leaves it out) or "all"; sets o->features and
   o->weight. */
int vc_gen_opts_features_parse(const char *list, vc_gen_opts *o, vc_error *err);
/* o's features and the weights other than 100, as the parser reads them. */
void vc_gen_opts_features_print(const vc_gen_opts *o, vc_strbuf *out);

/* Program `index` of the sequence of `seed`: valid-checked text appended to
   out. VC_ERR_INTERNAL (naming seed and index and the oracle's reason) when
   the check refuses it: a generator bug. */
int vc_gen_program(const vc_gen_opts *o, uint64_t seed, uint32_t index, vc_strbuf *out,
                   vc_error *err);
/* The same, with the construct counts added to stats (may be NULL) and the
   check optional (check false: the text only, for benchmarks of the
   generator itself). */
int vc_gen_program_ex(const vc_gen_opts *o, uint64_t seed, uint32_t index, bool check,
                      vc_gen_stats *stats, vc_strbuf *out, vc_error *err);

/* Fills out for p; VC_ERR_INTERNAL only when memory runs out. */
int vc_gen_liveness(const vc_program *p, vc_gen_live *out);
/* Is f32 expression n one whose bits are defined when it is NaN: a literal,
   or the guard (max E 0x7fc00000f) / (min E 0x7fc00000f), which gives the
   canonical NaN for any NaN E (docs/semantics.md, min and max) and E else. */
bool vc_gen_nan_guarded(const vc_node *n);

/* The proof vc_gen_program gives each text: parse it and check it as
   `vyre-conform check` does. 0 when the check accepts it; else
   VC_ERR_INTERNAL, "generator bug: seed S index I is invalid: REASON". */
int vc_gen_check_text(const char *text, uint64_t seed, uint32_t index, vc_error *err);

/* ---- equivalence transformations (docs/fuzzing.md, "Transformations") ---- */

/* The transformations, one row each: identifier, name, what it does. */
#define VC_GEN_TRANSFORM_TABLE(X)                                                       \
  X(EMPTY_SEGMENTS, "empty-segments", "insert grid barriers that make empty segments") \
  X(WRAP_BLOCKS, "wrap-blocks", "wrap statements in (block ...)")                      \
  X(RENAME, "rename", "rename variables, loop variables and shared arrays")           \
  X(DEAD_CODE, "dead-code", "add code under a condition read from an added input buffer, false at run time") \
  X(REORDER, "reorder", "swap adjacent independent statements")                        \
  X(MOVE_BARRIER, "move-barrier", "move local work across a grid barrier where that is legal")

typedef enum vc_gen_transform_id {
#define VC_GEN_X(id, name, what) VC_GEN_T_##id,
  VC_GEN_TRANSFORM_TABLE(VC_GEN_X)
#undef VC_GEN_X
  VC_GEN_TRANSFORM_COUNT
} vc_gen_transform_id;

const char *vc_gen_transform_name(vc_gen_transform_id t);
const char *vc_gen_transform_what(vc_gen_transform_id t);

/* Applies transformation `name` (a row's name, or "all": every one in
   table order, or "random": a seed-chosen chain) to the program text src and
   appends the transformed text to out; deterministic per (name, src, seed).
   The result gives the same output bytes on the oracle as src, in every
   mode. A src that does not parse is VC_ERR_PARSE with its diagnostics; an
   unknown name VC_ERR_USAGE. A transformation with nothing to change leaves
   the program as the printer writes it. */
int vc_gen_transform(const char *name, const char *src, uint64_t seed, vc_strbuf *out,
                     vc_error *err);

/* Are a and b (program texts) equivalent on the oracle: both valid, with the
   same output buffers (names, types, counts) and bytes, and the same passes?
   0 when they are; otherwise VC_ERR_PARSE (a text does not parse),
   VC_ERR_INVALID (the oracle refuses one) or VC_ERR_INTERNAL (the first
   difference), with the reason in err (which may be NULL). */
int vc_gen_equivalent(const char *a, const char *b, vc_error *err);

#endif
