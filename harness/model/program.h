/* harness/model: the program model and the outcome vocabulary every layer above speaks. */
/* The program model: one validated .vyre program as a typed tree.
 *
 * Everything a program owns (nodes, names, initialiser data) lives in its
 * arena and goes with vc_program_free. The parser builds it, the validator
 * types it, the splitter derives segment programs from it, and the oracle and
 * every backend's code generator read it. Names are resolved at parse time:
 * a node refers to a symbol, buffer or shared array by index. */
#ifndef VC_PROGRAM_H
#define VC_PROGRAM_H

#include <stdbool.h>
#include <stdint.h>

#include "harness/base/arena.h"

/* Limits the validator enforces (devices may impose smaller ones at run time). */
#define VC_MAX_WORKGROUP_INVOCATIONS 1024u
#define VC_MAX_GRID_DIM 65535u            /* portable across Vulkan, CUDA, OpenCL */
#define VC_MAX_BUFFER_ELEMS (1u << 28)     /* 1 GiB of 4-byte elements */
#define VC_MAX_SHARED_BYTES (32u * 1024u)  /* total workgroup memory of a program */
#define VC_MAX_BUFFERS 64u
#define VC_MAX_FIXPOINT_PASSES 1000000u
#define VC_MAX_TIMEOUT_S 86400u /* (expect (timeout S)), as --timeout: a day */

/* Element and value types. A 64-bit element occupies two little-endian
   32-bit words (low word first) wherever the harness holds values as words:
   buffer memory, initialiser values, expected values. */
typedef enum vc_type {
  VC_U32 = 0, VC_I32 = 1, VC_F32 = 2, VC_VOID = 3, VC_U64 = 4, VC_I64 = 5
} vc_type;
#define VC_TYPE_COUNT 6

static inline bool vc_type_is_64(vc_type t) { return t == VC_U64 || t == VC_I64; }
static inline bool vc_type_is_int(vc_type t) {
  return t == VC_U32 || t == VC_I32 || t == VC_U64 || t == VC_I64;
}
static inline bool vc_type_is_signed(vc_type t) { return t == VC_I32 || t == VC_I64; }
/* 32-bit words per element: 1, or 2 for u64 and i64. */
static inline uint32_t vc_type_words(vc_type t) { return vc_type_is_64(t) ? 2u : 1u; }
/* Element i of type t in an array of words, and storing one. */
static inline uint64_t vc_elem_get(const uint32_t *w, uint64_t i, vc_type t) {
  return vc_type_is_64(t) ? (uint64_t)w[2 * i] | (uint64_t)w[2 * i + 1] << 32 : w[i];
}
static inline void vc_elem_put(uint32_t *w, uint64_t i, vc_type t, uint64_t v) {
  if (vc_type_is_64(t)) {
    w[2 * i] = (uint32_t)v;
    w[2 * i + 1] = (uint32_t)(v >> 32);
  } else {
    w[i] = (uint32_t)v;
  }
}

typedef struct vc_loc {
  uint32_t line, col; /* 1-based; 0 for nodes the splitter synthesised */
} vc_loc;

typedef enum vc_access { VC_READ = 0, VC_WRITE = 1, VC_READ_WRITE = 2 } vc_access;

typedef enum vc_init_kind {
  VC_INIT_NONE = 0,   /* write buffers: start zeroed */
  VC_INIT_ZERO,
  VC_INIT_IOTA,       /* element i = i, in the buffer's type (f32: (float)i) */
  VC_INIT_FILL,       /* every element = bits */
  VC_INIT_VALUES,     /* first n elements from values[], the rest zero */
  VC_INIT_HEX,        /* first n bytes from bytes[], little-endian, the rest zero */
  VC_INIT_RANDOM,     /* splitmix64(seed), high 32 bits of each output */
  VC_INIT_RANDOM_F32  /* lo + (hi-lo) * u, u in [0,1) from 24 random bits */
} vc_init_kind;

typedef struct vc_init {
  vc_init_kind kind;
  uint64_t bits;     /* FILL */
  uint32_t *values;  /* VALUES: element bits, vc_type_words(type) words per element */
  uint32_t nvalues;  /* elements */
  uint8_t *bytes;    /* HEX */
  uint32_t nbytes;
  uint64_t seed;     /* RANDOM, RANDOM_F32 */
  uint32_t lo, hi;   /* RANDOM_F32: f32 bits */
} vc_init;

typedef enum vc_buffer_role {
  VC_ROLE_USER = 0,  /* declared by the program */
  VC_ROLE_SPILL      /* the splitter's per-invocation scratch for one value */
} vc_buffer_role;

typedef struct vc_buffer {
  const char *name;
  vc_type type;
  uint32_t count; /* elements */
  vc_access access;
  vc_init init;
  vc_buffer_role role;
  vc_loc loc;
} vc_buffer;

typedef struct vc_shared {
  const char *name;
  vc_type type;
  uint32_t count;
  vc_loc loc;
} vc_shared;

typedef enum vc_sym_kind { VC_SYM_LET = 0, VC_SYM_VAR, VC_SYM_LOOP } vc_sym_kind;

typedef struct vc_symbol {
  const char *name;
  vc_type type;
  vc_sym_kind kind;
  vc_loc loc;
} vc_symbol;

typedef enum vc_node_kind {
  /* expressions */
  VC_E_LIT = 0,  /* type, bits */
  VC_E_NAME,     /* ref = symbol */
  VC_E_LOAD,     /* space, ref; kids: index */
  VC_E_ATOMIC,   /* op = vc_atomic_op, space, ref; kids: index, value [, value2 for cmpxchg:
                    kids[1] = expected, kids[2] = desired]; result = old value.
                    VC_AT_LOAD: kids: index only; result = the element */
  VC_E_UNARY,    /* op = vc_unop; kids: a */
  VC_E_BINARY,   /* op = vc_binop; kids: a, b */
  VC_E_SELECT,   /* kids: cond (u32), a, b */
  VC_E_CAST,     /* type = target; kids: a */
  VC_E_BITCAST,  /* type = target; kids: a */
  VC_E_BUILTIN,  /* op = vc_builtin, axis */
  /* statements */
  VC_S_LET,      /* ref = symbol; kids: value */
  VC_S_VAR,      /* ref = symbol; kids: initial value */
  VC_S_SET,      /* ref = symbol; kids: value */
  VC_S_STORE,    /* space, ref; kids: index, value */
  VC_S_ATOMIC,   /* as VC_E_ATOMIC, result discarded; VC_AT_STORE only here */
  VC_S_IF,       /* kids: cond (u32), then (a statement), else (a statement) or absent: nkids 2 */
  VC_S_LOOP,     /* ref = loop symbol; kids: from, to, body statements...
                    runs i = from; i < to; i += 1 in the type of from/to */
  VC_S_RETURN,
  VC_S_BLOCK,    /* kids: statements */
  VC_S_BARRIER,  /* op = vc_barrier_scope */
  VC_S_WHILE,    /* kids: cond (u32, evaluated before every iteration), body statements... */
  VC_S_BREAK,    /* leaves the innermost loop or while */
  VC_S_CONTINUE, /* goes on with the innermost loop's next iteration (i += 1) or while's test */
  VC_NODE_KIND_COUNT
} vc_node_kind;

typedef enum vc_unop { VC_NEG = 0, VC_ABS, VC_NOT, VC_LNOT, VC_UNOP_COUNT } vc_unop;

typedef enum vc_binop {
  VC_ADD = 0, VC_SUB, VC_MUL, VC_DIV, VC_REM, VC_MIN, VC_MAX,
  VC_AND, VC_OR, VC_XOR, VC_SHL, VC_SHR,
  VC_EQ, VC_NE, VC_LT, VC_LE, VC_GT, VC_GE,
  VC_LAND, VC_LOR,
  VC_BINOP_COUNT
} vc_binop;

typedef enum vc_atomic_op {
  VC_AT_ADD = 0, VC_AT_SUB, VC_AT_AND, VC_AT_OR, VC_AT_XOR, VC_AT_MIN, VC_AT_MAX,
  VC_AT_EXCHANGE, VC_AT_CMPXCHG,
  VC_AT_LOAD,  /* (atomic load B I): an expression; kids: index */
  VC_AT_STORE, /* (atomic store B I V): a statement; kids: index, value */
  VC_ATOMIC_OP_COUNT
} vc_atomic_op;

typedef enum vc_builtin {
  VC_GLOBAL_ID = 0, VC_LOCAL_ID, VC_GROUP_ID, VC_NUM_GROUPS, VC_GROUP_SIZE,
  VC_BUILTIN_COUNT
} vc_builtin;

typedef enum vc_barrier_scope { VC_BARRIER_WORKGROUP = 0, VC_BARRIER_GRID } vc_barrier_scope;

typedef enum vc_space { VC_SPACE_BUFFER = 0, VC_SPACE_SHARED } vc_space;

typedef struct vc_node vc_node;
struct vc_node {
  vc_node_kind kind;
  uint8_t op;    /* vc_unop / vc_binop / vc_atomic_op / vc_builtin / vc_barrier_scope */
  uint8_t axis;  /* builtins: 0 = x, 1 = y, 2 = z */
  uint8_t space; /* vc_space, for memory nodes */
  vc_type type;  /* expression result type (VC_VOID for statements) */
  uint32_t ref;  /* symbol, buffer or shared index */
  uint64_t bits; /* literal bits (32-bit types: the low 32, the rest 0) */
  vc_loc loc;
  uint32_t nkids;
  uint32_t kcap; /* capacity of kids; internal to vc_node_append */
  vc_node **kids;
};

typedef enum vc_expect_kind {
  VC_EXPECT_REJECT = 0,   /* text: the refusal message must contain it */
  VC_EXPECT_OUT_OF_BOUNDS,/* out-of-bounds accesses are intended (and must happen) */
  VC_EXPECT_ULP,          /* ref = buffer, n = allowed distance in units in the last place */
  VC_EXPECT_DIGEST,       /* text: 64 hex digits, the SHA-256 of the oracle's outputs */
  VC_EXPECT_PASSES,       /* n: the oracle runs exactly n fixpoint passes */
  VC_EXPECT_CONVERGES,    /* the flag fixpoint ends on a zero flag within its max */
  VC_EXPECT_VALUES,       /* ref = buffer, n = first element (at), values: nvalues elements'
                             bits, in words as vc_init's */
  VC_EXPECT_TIMEOUT       /* n: seconds a run gives the program (instead of --timeout) */
} vc_expect_kind;

typedef struct vc_expect {
  vc_expect_kind kind;
  const char *text;
  uint32_t ref;
  uint32_t n;
  uint32_t *values;
  uint32_t nvalues;
  vc_loc loc;
} vc_expect;

typedef struct vc_fixpoint {
  bool present;
  uint32_t max;      /* passes: exactly max without a flag, at most max with one */
  bool has_flag;
  uint32_t flag;     /* buffer index; u32, not read-only */
  vc_loc loc;
} vc_fixpoint;

typedef struct vc_program {
  vc_arena arena;
  const char *name;
  const char *doc;   /* may be NULL */
  const char *path;  /* file it came from, or NULL */
  uint32_t workgroup[3];
  uint32_t grid[3];
  vc_buffer *buffers;
  uint32_t nbuffers;
  vc_shared *shared;
  uint32_t nshared;
  vc_symbol *syms;
  uint32_t nsyms;
  vc_node *entry;    /* a VC_S_BLOCK */
  vc_fixpoint fixpoint;
  vc_expect *expects;
  uint32_t nexpects;
  const char **tags;
  uint32_t ntags;
} vc_program;

/* ---- construction (the parser, the splitter and tests use these) ---- */
vc_program *vc_program_new(void);
void vc_program_free(vc_program *p);
vc_node *vc_node_new(vc_program *p, vc_node_kind kind, vc_loc loc, uint32_t nkids);
/* Appends to a statement list node (block or loop); amortised O(1). */
void vc_node_append(vc_program *p, vc_node *list, vc_node *kid);
/* Deep copy of a node from one program into another program's arena. */
vc_node *vc_node_clone(vc_program *dst, const vc_node *n);
/* A copy of n's own fields with room for as many kids, not yet filled. */
vc_node *vc_node_copy_fields(vc_program *dst, const vc_node *n);
/* Deep copy of a whole program. */
vc_program *vc_program_clone(const vc_program *p);

/* Structural equality, ignoring source locations and path. */
bool vc_program_equal(const vc_program *a, const vc_program *b);
bool vc_node_equal(const vc_node *a, const vc_node *b);

/* ---- queries ---- */
uint64_t vc_program_invocations(const vc_program *p);
uint32_t vc_program_workgroup_size(const vc_program *p);
uint64_t vc_program_workgroups(const vc_program *p);
uint64_t vc_buffer_bytes(const vc_buffer *b);
bool vc_program_has_tag(const vc_program *p, const char *tag);
/* Grid barriers anywhere in the entry (walked, not taken from a plan). */
uint32_t vc_program_grid_barriers(const vc_program *p);
const vc_expect *vc_program_expect(const vc_program *p, vc_expect_kind kind);
/* The program's own (expect (timeout S)) in seconds; 0 when it states none. */
uint32_t vc_program_timeout_s(const vc_program *p);
int vc_program_find_buffer(const vc_program *p, const char *name); /* -1 if none */
bool vc_node_is_expr(const vc_node *n);
/* Does a (barrier SCOPE) stand anywhere under n? */
bool vc_node_has_barrier(const vc_node *n, vc_barrier_scope scope);
/* The memory element type of a load/store/atomic node. */
vc_type vc_node_mem_type(const vc_program *p, const vc_node *n);
uint32_t vc_node_mem_count(const vc_program *p, const vc_node *n);
const char *vc_node_mem_name(const vc_program *p, const vc_node *n);

/* ---- spellings, shared by the parser, the printer and the emitters ---- */
const char *vc_type_name(vc_type t);
const char *vc_access_name(vc_access a);
const char *vc_unop_name(vc_unop op);
const char *vc_binop_name(vc_binop op);
const char *vc_atomic_op_name(vc_atomic_op op);
const char *vc_builtin_name(vc_builtin b);
const char *vc_node_kind_name(vc_node_kind k);
bool vc_binop_is_compare(vc_binop op);

#endif
