/* The oracle's register bytecode (internal to oracles/).
 *
 * Every variable and temporary of an invocation is a 64-bit register; a
 * value of a 32-bit type is held zero-extended (every 32-bit operation
 * writes 32 bits), so a u32 -> u64 cast needs no instruction.
 * An instruction is one opcode and up to four operands: registers,
 * a 32-bit constant or a jump target; memory instructions also name a
 * memory slot m (buffer m, or shared array m - nbuffers), resolved to a base
 * pointer and count when a run starts. Types are in the opcode, so the
 * interpreter never looks at the program tree. docs/oracle.md lists them. */
#ifndef VC_ORACLE_BYTECODE_H
#define VC_ORACLE_BYTECODE_H

#include <stdbool.h>
#include <stdint.h>

#include "harness/base/arena.h"
#include "harness/model/program.h"

/* Operand layout per group (a, b, c, d are the instruction's fields):
   binary  a = b OP c          unary  a = OP b
   K       a = constant b       MOV    a = b
   BUILTIN a = builtin x (0-2 global_id, 3-5 local_id, 6-8 group_id; axis = x % 3)
   SEL     a = b ? c : d
   LOAD    a = mem[m][b]        STORE  mem[m][a] = b
   ATOM    a = old mem[m][b]; mem[m][b] = old OP(x) c
   CAS     a = old mem[m][b]; if old == c then mem[m][b] = d
   ALOAD   a = mem[m][b], atomic   ASTORE  mem[m][a] = b, atomic
   JMP     goto a               JZ     if a == 0 goto b
   FORU/FORI  if !(a < b) goto c (unsigned / signed)
   NEXT    a += 1; goto b (an iteration: counted against the loop budget)
   LOOP    goto a (a while's back edge: an iteration, counted too)
   BAR     workgroup barrier    RET    (return)   END  end of the segment
   ...64   the same on u64/i64 values and 8-byte elements; K64 a = b | c << 32;
   SEXT    a = b (i32) sign-extended to 64 bits     TRUNC  a = the low 32 bits of b */
#define VC_OPCODES(X)                                                              \
  X(MOV, "mov", "rr")   X(K, "k", "rk")       X(BUILTIN, "builtin", "rx")           \
  X(ADD, "add", "rrr")  X(SUB, "sub", "rrr")  X(MUL, "mul", "rrr")                 \
  X(DIVU, "divu", "rrr") X(DIVI, "divi", "rrr") X(REMU, "remu", "rrr")             \
  X(REMI, "remi", "rrr") X(MINU, "minu", "rrr") X(MINI, "mini", "rrr")             \
  X(MAXU, "maxu", "rrr") X(MAXI, "maxi", "rrr") X(AND, "and", "rrr")               \
  X(OR, "or", "rrr")    X(XOR, "xor", "rrr")  X(SHL, "shl", "rrr")                 \
  X(SHRU, "shru", "rrr") X(SHRI, "shri", "rrr") X(EQ, "eq", "rrr")                 \
  X(NE, "ne", "rrr")    X(LTU, "ltu", "rrr")  X(LTI, "lti", "rrr")                 \
  X(LEU, "leu", "rrr")  X(LEI, "lei", "rrr")  X(LAND, "land", "rrr")               \
  X(LOR, "lor", "rrr")                                                             \
  X(FADD, "fadd", "rrr") X(FSUB, "fsub", "rrr") X(FMUL, "fmul", "rrr")             \
  X(FDIV, "fdiv", "rrr") X(FMIN, "fmin", "rrr") X(FMAX, "fmax", "rrr")             \
  X(FEQ, "feq", "rrr")  X(FNE, "fne", "rrr")  X(FLT, "flt", "rrr")                 \
  X(FLE, "fle", "rrr")                                                             \
  X(NEG, "neg", "rr")   X(ABSI, "absi", "rr") X(NOT, "not", "rr")                  \
  X(LNOT, "lnot", "rr") X(FNEG, "fneg", "rr") X(FABS, "fabs", "rr")                \
  X(F2I, "f2i", "rr")   X(F2U, "f2u", "rr")   X(I2F, "i2f", "rr")                  \
  X(U2F, "u2f", "rr")   X(SEL, "sel", "rrrr")                                      \
  X(LOAD, "load", "rm")  X(STORE, "store", "mr") X(ATOM, "atom", "rmr")             \
  X(CAS, "cas", "rmrr") X(ALOAD, "aload", "rm") X(ASTORE, "astore", "mr")         \
  X(JMP, "jmp", "j")    X(JZ, "jz", "rj")     X(FORU, "foru", "rrj")               \
  X(FORI, "fori", "rrj") X(NEXT, "next", "rj") X(LOOP, "loop", "j")                \
  X(BAR, "bar", "")     X(RET, "ret", "")     X(END, "end", "")                  \
  X(K64, "k64", "rkk")  X(SEXT, "sext", "rr") X(TRUNC, "trunc", "rr")             \
  X(ADD64, "add64", "rrr") X(SUB64, "sub64", "rrr") X(MUL64, "mul64", "rrr")       \
  X(DIVU64, "divu64", "rrr") X(DIVI64, "divi64", "rrr") X(REMU64, "remu64", "rrr") \
  X(REMI64, "remi64", "rrr") X(MINU64, "minu64", "rrr") X(MINI64, "mini64", "rrr") \
  X(MAXU64, "maxu64", "rrr") X(MAXI64, "maxi64", "rrr") X(AND64, "and64", "rrr")   \
  X(OR64, "or64", "rrr") X(XOR64, "xor64", "rrr") X(SHL64, "shl64", "rrr")         \
  X(SHRU64, "shru64", "rrr") X(SHRI64, "shri64", "rrr") X(EQ64, "eq64", "rrr")     \
  X(NE64, "ne64", "rrr") X(LTU64, "ltu64", "rrr") X(LTI64, "lti64", "rrr")         \
  X(LEU64, "leu64", "rrr") X(LEI64, "lei64", "rrr")                                \
  X(NEG64, "neg64", "rr") X(ABSI64, "absi64", "rr") X(NOT64, "not64", "rr")        \
  X(F2I64, "f2i64", "rr") X(F2U64, "f2u64", "rr") X(I642F, "i642f", "rr")          \
  X(U642F, "u642f", "rr")                                                          \
  X(LOAD64, "load64", "rm") X(STORE64, "store64", "mr") X(ATOM64, "atom64", "rmr") \
  X(CAS64, "cas64", "rmrr") X(ALOAD64, "aload64", "rm") X(ASTORE64, "astore64", "mr")

typedef enum vc_opcode {
#define VC_OP_ENUM(sym, name, fmt) VC_OP_##sym,
  VC_OPCODES(VC_OP_ENUM)
#undef VC_OP_ENUM
  VC_OP_COUNT
} vc_opcode;

/* Sub-operation of VC_OP_ATOM (x): min/max carry the element's signedness. */
typedef enum vc_atom_op {
  VC_ATOM_ADD = 0, VC_ATOM_SUB, VC_ATOM_AND, VC_ATOM_OR, VC_ATOM_XOR,
  VC_ATOM_MINU, VC_ATOM_MINI, VC_ATOM_MAXU, VC_ATOM_MAXI, VC_ATOM_XCHG,
  VC_ATOM_COUNT
} vc_atom_op;

/* Loop iterations (NEXT and LOOP) one invocation may run in one segment;
   the next one stops it and makes the program invalid (docs/semantics.md). */
#define VC_LOOP_BUDGET (1u << 24)

typedef struct vc_ins {
  uint8_t op;  /* vc_opcode */
  uint8_t x;   /* ATOM: vc_atom_op; BUILTIN: which */
  uint16_t m;  /* memory slot */
  uint32_t a, b, c, d;
} vc_ins;

/* A buffer or shared array as the oracle sees it (names copied from the program). */
typedef struct vc_oracle_mem {
  const char *name;
  vc_type type;
  uint32_t count;  /* elements, of vc_type_words(type) words each */
  vc_space space;
  uint32_t offset; /* shared arrays: first word in the workgroup memory block */
  bool tracked;    /* the checks watch it: shared, or written by some instruction */
} vc_oracle_mem;

struct vc_oracle {
  vc_arena arena;       /* names and tables below */
  const char *name;     /* the program's */
  vc_ins *code;         /* malloc'ed */
  vc_loc *locs;         /* source location of each instruction */
  uint32_t ncode;
  uint32_t nregs;       /* symbols first (register i = symbol i), then temporaries */
  uint32_t nsyms;
  uint32_t nsegs;
  uint32_t *seg_pc;     /* first instruction of each segment */
  uint32_t npersist;    /* registers carried across grid barriers */
  uint32_t *persist;    /* their register numbers */
  /* What the interpreter runs: code with each segment's registers numbered
     from 0 in the order the segment names them, the carried ones first
     (persist[k] is register k in every segment). A program has a register
     per symbol, hundreds, while a segment names a handful: numbered so, an
     invocation's registers of a segment are a few adjacent words, all zeroed
     at its start with one small memset. */
  vc_ins *xcode;        /* malloc'ed, ncode */
  uint32_t *seg_nregs;  /* registers of each segment */
  uint32_t xnregs;      /* the most of any segment */
  uint8_t *seg_shared;  /* [seg * nshared + s]: segment seg touches shared array s */
  uint32_t nbuffers, nshared, nmem;
  vc_oracle_mem *mem;   /* buffers, then shared arrays */
  uint32_t shared_words;
  uint32_t workgroup[3], grid[3];
  vc_fixpoint fixpoint;
};

#endif
