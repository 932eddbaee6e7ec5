/* vc_oracle_compile: a program tree to register bytecode, once.
 *
 * Register i holds symbol i; temporaries are allocated above the symbols as
 * a stack (an expression's operands are freed before its result is
 * allocated, so the result may reuse an operand's register: the
 * interpreter reads all operands before it writes). A name used as an operand
 * is read from its symbol's register directly; expressions never assign
 * symbols, so that is safe. Control flow becomes jumps; each top-level grid
 * barrier ends a segment. */
#include <stdlib.h>
#include <string.h>

#include "harness/base/mutant.h"
#include "oracles/bytecode.h"
#include "oracles/machine.h"
#include "oracles/oracle.h"

#define NOREG UINT32_MAX
#define MAX_REGS (1u << 24)

typedef struct cc {
  vc_oracle *o;
  const vc_program *p;
  vc_error *err;
  int failed;        /* first error code, 0 while fine */
  uint32_t cap;      /* of o->code and o->locs */
  uint32_t top;      /* next free temporary */
  uint32_t seg;      /* segment being compiled */
  uint8_t *rd, *wr;  /* [seg * nsyms + s]: symbol s read / written in segment seg */
  /* jumps of break (pc * 2) and continue (pc * 2 + 1) waiting for their
     loop's exit and continue targets; each loop patches those above the
     mark it took when it began */
  uint32_t *jumps;
  uint32_t njumps, jumps_cap;
  uint32_t loops;    /* loops around the statement being compiled */
} cc;

static int fail_at(cc *c, vc_errcode code, vc_loc loc, const char *what) {
  if (!c->failed) {
    const char *path = c->p->path ? c->p->path : c->p->name;
    c->failed = vc_fail(c->err, code, "%s:%u:%u: oracle: %s", path ? path : "program", loc.line,
                        loc.col, what);
  }
  return c->failed;
}

/* Appends an instruction with fields a, b, c, d = fa, fb, fc, fd. */
static uint32_t emit(cc *c, vc_opcode op, vc_loc loc, uint32_t fa, uint32_t fb, uint32_t fc,
                     uint32_t fd) {
  vc_oracle *o = c->o;
  if (c->failed) return 0;
  if (o->ncode == c->cap) {
    uint32_t cap = c->cap ? c->cap * 2 : 64;
    vc_ins *code = realloc(o->code, cap * sizeof *code);
    if (code) o->code = code;
    vc_loc *locs = code ? realloc(o->locs, cap * sizeof *locs) : NULL;
    if (locs) o->locs = locs;
    if (!code || !locs) {
      fail_at(c, VC_ERR_NOMEM, loc, "out of memory for bytecode");
      return 0;
    }
    c->cap = cap;
  }
  vc_ins *i = &o->code[o->ncode];
  memset(i, 0, sizeof *i);
  i->op = (uint8_t)op;
  i->a = fa;
  i->b = fb;
  i->c = fc;
  i->d = fd;
  o->locs[o->ncode] = loc;
  return o->ncode++;
}

static uint32_t temp(cc *c, vc_loc loc) {
  if (c->top >= MAX_REGS) {
    fail_at(c, VC_ERR_LIMIT, loc, "expression needs too many registers");
    return 0;
  }
  uint32_t r = c->top++;
  if (c->top > c->o->nregs) c->o->nregs = c->top;
  return r;
}

static uint32_t target(cc *c, uint32_t dst, vc_loc loc) {
  return dst != NOREG ? dst : temp(c, loc);
}

static void note_read(cc *c, uint32_t sym) { c->rd[(size_t)c->seg * c->o->nsyms + sym] = 1; }
static void note_write(cc *c, uint32_t sym) { c->wr[(size_t)c->seg * c->o->nsyms + sym] = 1; }

static uint32_t mem_slot(cc *c, const vc_node *n) {
  bool shared = n->space == VC_SPACE_SHARED;
  if (n->ref >= (shared ? c->o->nshared : c->o->nbuffers))
    fail_at(c, VC_ERR_INTERNAL, n->loc, "memory reference out of range");
  return shared ? c->o->nbuffers + n->ref : n->ref;
}

static uint32_t expr(cc *c, const vc_node *e, uint32_t dst);

/* Evaluates the n operands of e in order into registers r[0..n) and frees
   their temporaries again (see the file comment). False (reported) when e
   does not have n operands. */
static bool operands(cc *c, const vc_node *e, uint32_t n, uint32_t *r) {
  if (e->nkids != n || n > 4) {
    fail_at(c, VC_ERR_INTERNAL, e->loc, "wrong number of operands");
    return false;
  }
  uint32_t mark = c->top;
  for (uint32_t i = 0; i < n; i++) r[i] = expr(c, e->kids[i], NOREG);
  c->top = mark;
  return !c->failed;
}

static const uint8_t int_binop[VC_BINOP_COUNT][2] = {
    /* [op][signed] */
    [VC_ADD] = {VC_OP_ADD, VC_OP_ADD},   [VC_SUB] = {VC_OP_SUB, VC_OP_SUB},
    [VC_MUL] = {VC_OP_MUL, VC_OP_MUL},   [VC_DIV] = {VC_OP_DIVU, VC_OP_DIVI},
    [VC_REM] = {VC_OP_REMU, VC_OP_REMI}, [VC_MIN] = {VC_OP_MINU, VC_OP_MINI},
    [VC_MAX] = {VC_OP_MAXU, VC_OP_MAXI}, [VC_AND] = {VC_OP_AND, VC_OP_AND},
    [VC_OR] = {VC_OP_OR, VC_OP_OR},      [VC_XOR] = {VC_OP_XOR, VC_OP_XOR},
    [VC_SHL] = {VC_OP_SHL, VC_OP_SHL},   [VC_SHR] = {VC_OP_SHRU, VC_OP_SHRI},
    [VC_EQ] = {VC_OP_EQ, VC_OP_EQ},      [VC_NE] = {VC_OP_NE, VC_OP_NE},
    [VC_LT] = {VC_OP_LTU, VC_OP_LTI},    [VC_LE] = {VC_OP_LEU, VC_OP_LEI},
    [VC_GT] = {VC_OP_LTU, VC_OP_LTI},    [VC_GE] = {VC_OP_LEU, VC_OP_LEI},
    [VC_LAND] = {VC_OP_LAND, VC_OP_LAND}, [VC_LOR] = {VC_OP_LOR, VC_OP_LOR},
};

static const uint8_t int64_binop[VC_BINOP_COUNT][2] = {
    /* [op][signed]; land and lor take u32 only */
    [VC_ADD] = {VC_OP_ADD64, VC_OP_ADD64},   [VC_SUB] = {VC_OP_SUB64, VC_OP_SUB64},
    [VC_MUL] = {VC_OP_MUL64, VC_OP_MUL64},   [VC_DIV] = {VC_OP_DIVU64, VC_OP_DIVI64},
    [VC_REM] = {VC_OP_REMU64, VC_OP_REMI64}, [VC_MIN] = {VC_OP_MINU64, VC_OP_MINI64},
    [VC_MAX] = {VC_OP_MAXU64, VC_OP_MAXI64}, [VC_AND] = {VC_OP_AND64, VC_OP_AND64},
    [VC_OR] = {VC_OP_OR64, VC_OP_OR64},      [VC_XOR] = {VC_OP_XOR64, VC_OP_XOR64},
    [VC_SHL] = {VC_OP_SHL64, VC_OP_SHL64},   [VC_SHR] = {VC_OP_SHRU64, VC_OP_SHRI64},
    [VC_EQ] = {VC_OP_EQ64, VC_OP_EQ64},      [VC_NE] = {VC_OP_NE64, VC_OP_NE64},
    [VC_LT] = {VC_OP_LTU64, VC_OP_LTI64},    [VC_LE] = {VC_OP_LEU64, VC_OP_LEI64},
    [VC_GT] = {VC_OP_LTU64, VC_OP_LTI64},    [VC_GE] = {VC_OP_LEU64, VC_OP_LEI64},
};

/* 0 where f32 has no such operator (the validator refuses those). */
static const uint8_t f32_binop[VC_BINOP_COUNT] = {
    [VC_ADD] = VC_OP_FADD, [VC_SUB] = VC_OP_FSUB, [VC_MUL] = VC_OP_FMUL,
    [VC_DIV] = VC_OP_FDIV, [VC_MIN] = VC_OP_FMIN, [VC_MAX] = VC_OP_FMAX,
    [VC_EQ] = VC_OP_FEQ,   [VC_NE] = VC_OP_FNE,   [VC_LT] = VC_OP_FLT,
    [VC_LE] = VC_OP_FLE,   [VC_GT] = VC_OP_FLT,   [VC_GE] = VC_OP_FLE,
};

_Static_assert(VC_OP_MOV == 0, "0 marks a missing entry of the operator tables");

static uint32_t binary(cc *c, const vc_node *e, uint32_t dst) {
  uint32_t r[4];
  vc_binop op = (vc_binop)e->op;
  if (op >= VC_BINOP_COUNT) return fail_at(c, VC_ERR_INTERNAL, e->loc, "unknown operator"), 0;
  if (!operands(c, e, 2, r)) return 0;
  vc_type t = e->kids[0]->type;
  uint32_t opc = t == VC_F32           ? f32_binop[op]
                 : vc_type_is_64(t)   ? int64_binop[op][t == VC_I64]
                                      : int_binop[op][t == VC_I32];
  if (opc == VC_OP_MOV)
    return fail_at(c, VC_ERR_INTERNAL, e->loc, "operator not defined on this type"), 0;
  /* a > b is b < a, a >= b is b <= a: the operands are already evaluated */
  bool swap = op == VC_GT || op == VC_GE;
  uint32_t d = target(c, dst, e->loc);
  emit(c, (vc_opcode)opc, e->loc, d, swap ? r[1] : r[0], swap ? r[0] : r[1], 0);
  return d;
}

static uint32_t unary(cc *c, const vc_node *e, uint32_t dst) {
  uint32_t r[4];
  bool f = e->type == VC_F32, w = vc_type_is_64(e->type);
  vc_opcode opc;
  switch ((vc_unop)e->op) {
  case VC_NEG: opc = f ? VC_OP_FNEG : w ? VC_OP_NEG64 : VC_OP_NEG; break;
  case VC_ABS:
    opc = f                     ? VC_OP_FABS
          : e->type == VC_I32   ? VC_OP_ABSI
          : e->type == VC_I64   ? VC_OP_ABSI64
                                : VC_OP_MOV;
    break;
  case VC_NOT: opc = w ? VC_OP_NOT64 : VC_OP_NOT; break;
  case VC_LNOT: opc = VC_OP_LNOT; break;
  default: return fail_at(c, VC_ERR_INTERNAL, e->loc, "unknown operator"), 0;
  }
  if (!operands(c, e, 1, r)) return 0;
  uint32_t d = target(c, dst, e->loc);
  emit(c, opc, e->loc, d, r[0], 0, 0);
  return d;
}

/* The instruction of a cast, or MOV when the bits stay as they are: between
   integers of one size, and u32 -> 64 bits (registers hold 32-bit values
   zero-extended). */
static vc_opcode cast_op(vc_type from, vc_type to) {
  if (from == VC_F32 && to == VC_I32) return VC_OP_F2I;
  if (from == VC_F32 && to == VC_U32) return VC_OP_F2U;
  if (from == VC_F32 && to == VC_I64) return VC_OP_F2I64;
  if (from == VC_F32 && to == VC_U64) return VC_OP_F2U64;
  if (from == VC_I32 && to == VC_F32) return VC_OP_I2F;
  if (from == VC_U32 && to == VC_F32) return VC_OP_U2F;
  if (from == VC_I64 && to == VC_F32) return VC_OP_I642F;
  if (from == VC_U64 && to == VC_F32) return VC_OP_U642F;
  if (vc_type_is_64(from) && !vc_type_is_64(to)) return VC_OP_TRUNC;
  if (from == VC_I32 && vc_type_is_64(to)) return VC_OP_SEXT;
  return VC_OP_MOV;
}

/* cast: value conversions between f32 and the integers; integers extend by
   the source's signedness and truncate to the low bits. */
static uint32_t cast(cc *c, const vc_node *e, uint32_t dst) {
  if (e->nkids != 1) return fail_at(c, VC_ERR_INTERNAL, e->loc, "wrong number of operands"), 0;
  vc_opcode opc = cast_op(e->kids[0]->type, e->type);
  if (opc == VC_OP_MOV) return expr(c, e->kids[0], dst);
  uint32_t r[4];
  if (!operands(c, e, 1, r)) return 0;
  uint32_t d = target(c, dst, e->loc);
  emit(c, opc, e->loc, d, r[0], 0, 0);
  return d;
}

static uint32_t builtin(cc *c, const vc_node *e, uint32_t dst) {
  uint32_t axis = e->axis < 3 ? e->axis : 0;
  uint32_t d = target(c, dst, e->loc);
  switch ((vc_builtin)e->op) {
  case VC_GLOBAL_ID:
  case VC_LOCAL_ID:
  case VC_GROUP_ID: {
    uint32_t pc = emit(c, VC_OP_BUILTIN, e->loc, d, 0, 0, 0);
    if (!c->failed) c->o->code[pc].x = (uint8_t)(e->op * 3u + axis);
    break;
  }
  case VC_NUM_GROUPS: emit(c, VC_OP_K, e->loc, d, c->o->grid[axis], 0, 0); break;
  case VC_GROUP_SIZE: emit(c, VC_OP_K, e->loc, d, c->o->workgroup[axis], 0, 0); break;
  default: fail_at(c, VC_ERR_INTERNAL, e->loc, "unknown builtin");
  }
  return d;
}

static const uint8_t atom_op[VC_ATOMIC_OP_COUNT][2] = {
    [VC_AT_ADD] = {VC_ATOM_ADD, VC_ATOM_ADD}, [VC_AT_SUB] = {VC_ATOM_SUB, VC_ATOM_SUB},
    [VC_AT_AND] = {VC_ATOM_AND, VC_ATOM_AND}, [VC_AT_OR] = {VC_ATOM_OR, VC_ATOM_OR},
    [VC_AT_XOR] = {VC_ATOM_XOR, VC_ATOM_XOR}, [VC_AT_MIN] = {VC_ATOM_MINU, VC_ATOM_MINI},
    [VC_AT_MAX] = {VC_ATOM_MAXU, VC_ATOM_MAXI}, [VC_AT_EXCHANGE] = {VC_ATOM_XCHG, VC_ATOM_XCHG},
};

static uint32_t memory(cc *c, const vc_node *e, uint32_t dst) {
  uint32_t r[4];
  uint32_t m = mem_slot(c, e);
  bool is_cas = e->kind != VC_E_LOAD && e->op == VC_AT_CMPXCHG;
  bool is_load = e->kind == VC_E_LOAD || e->op == VC_AT_LOAD;
  vc_type t = vc_node_mem_type(c->p, e);
  bool w = vc_type_is_64(t); /* the 64-bit instruction of each pair */
  if (!operands(c, e, is_load ? 1 : is_cas ? 3 : 2, r)) return 0;
  if (e->kind != VC_E_LOAD && e->op == VC_AT_STORE) {
    uint32_t pc = emit(c, w ? VC_OP_ASTORE64 : VC_OP_ASTORE, e->loc, r[0], r[1], 0, 0);
    if (!c->failed) c->o->code[pc].m = (uint16_t)m;
    return 0;
  }
  uint32_t d = target(c, dst, e->loc);
  uint32_t pc;
  if (is_load) {
    vc_opcode op = e->kind == VC_E_LOAD ? (w ? VC_OP_LOAD64 : VC_OP_LOAD)
                                        : (w ? VC_OP_ALOAD64 : VC_OP_ALOAD);
    pc = emit(c, op, e->loc, d, r[0], 0, 0);
  } else if (is_cas) {
    pc = emit(c, w ? VC_OP_CAS64 : VC_OP_CAS, e->loc, d, r[0], r[1], r[2]);
  } else {
    if (e->op >= VC_AT_LOAD)
      return fail_at(c, VC_ERR_INTERNAL, e->loc, "unknown atomic operation"), 0;
    pc = emit(c, w ? VC_OP_ATOM64 : VC_OP_ATOM, e->loc, d, r[0], r[1], 0);
    if (!c->failed) c->o->code[pc].x = atom_op[e->op][vc_type_is_signed(t)];
  }
  if (!c->failed) c->o->code[pc].m = (uint16_t)m;
  return d;
}

static uint32_t expr(cc *c, const vc_node *e, uint32_t dst) {
  if (c->failed) return 0;
  switch (e->kind) {
  case VC_E_LIT: {
    uint32_t d = target(c, dst, e->loc);
    if (vc_type_is_64(e->type))
      emit(c, VC_OP_K64, e->loc, d, (uint32_t)e->bits, (uint32_t)(e->bits >> 32), 0);
    else
      emit(c, VC_OP_K, e->loc, d, (uint32_t)e->bits, 0, 0);
    return d;
  }
  case VC_E_NAME:
    if (e->ref >= c->o->nsyms) return fail_at(c, VC_ERR_INTERNAL, e->loc, "unknown symbol"), 0;
    note_read(c, e->ref);
    if (dst == NOREG) return e->ref;
    emit(c, VC_OP_MOV, e->loc, dst, e->ref, 0, 0);
    return dst;
  case VC_E_LOAD:
  case VC_E_ATOMIC: return memory(c, e, dst);
  case VC_E_UNARY: return unary(c, e, dst);
  case VC_E_BINARY: return binary(c, e, dst);
  case VC_E_SELECT: {
    uint32_t r[4];
    if (!operands(c, e, 3, r)) return 0;
    uint32_t d = target(c, dst, e->loc);
    emit(c, VC_OP_SEL, e->loc, d, r[0], r[1], r[2]);
    return d;
  }
  case VC_E_CAST: return cast(c, e, dst);
  case VC_E_BITCAST:
    if (e->nkids != 1) return fail_at(c, VC_ERR_INTERNAL, e->loc, "wrong number of operands"), 0;
    return expr(c, e->kids[0], dst);
  case VC_E_BUILTIN: return builtin(c, e, dst);
  default: return fail_at(c, VC_ERR_INTERNAL, e->loc, "statement where an expression belongs"), 0;
  }
}

static void stmt(cc *c, const vc_node *s, bool top_level);

static void patch(cc *c, uint32_t pc, uint32_t field, uint32_t to) {
  if (c->failed) return;
  vc_ins *i = &c->o->code[pc];
  if (field == 1) i->b = to;
  else if (field == 2) i->c = to;
  else i->a = to;
}

static void stmt_if(cc *c, const vc_node *s) {
  if (s->nkids < 2 || s->nkids > 3)
    return (void)fail_at(c, VC_ERR_INTERNAL, s->loc, "malformed if");
  uint32_t mark = c->top;
  uint32_t cond = expr(c, s->kids[0], NOREG);
  uint32_t jz = emit(c, VC_OP_JZ, s->loc, cond, 0, 0, 0);
  c->top = mark;
  stmt(c, s->kids[1], false);
  if (s->nkids > 2 && s->kids[2]) {
    uint32_t j = emit(c, VC_OP_JMP, s->loc, 0, 0, 0, 0);
    patch(c, jz, 1, c->o->ncode);
    stmt(c, s->kids[2], false);
    patch(c, j, 0, c->o->ncode);
  } else {
    patch(c, jz, 1, c->o->ncode);
  }
}

/* (break) and (continue): a jump patched when the loop is done. */
static void stmt_jump(cc *c, const vc_node *s) {
  if (!c->loops)
    return (void)fail_at(c, VC_ERR_INVALID, s->loc, "break or continue outside a loop");
  uint32_t pc = emit(c, VC_OP_JMP, s->loc, 0, 0, 0, 0);
  if (c->failed) return;
  if (c->njumps == c->jumps_cap) {
    uint32_t cap = c->jumps_cap ? 2 * c->jumps_cap : 16;
    uint32_t *j = realloc(c->jumps, cap * sizeof *j);
    if (!j) return (void)fail_at(c, VC_ERR_NOMEM, s->loc, "out of memory for jumps");
    c->jumps = j;
    c->jumps_cap = cap;
  }
  c->jumps[c->njumps++] = pc * 2u + (s->kind == VC_S_CONTINUE);
}

/* Compiles a loop's body statements kids[from..], then points the body's
   continues at cont and its breaks at the instruction after the loop. */
static void loop_body(cc *c, const vc_node *s, uint32_t from, uint32_t *cont_pc, uint32_t mark,
                      void (*back_edge)(cc *, const vc_node *, uint32_t), uint32_t test) {
  c->loops++;
  for (uint32_t k = from; k < s->nkids; k++) stmt(c, s->kids[k], false);
  c->loops--;
  *cont_pc = c->o->ncode;
  back_edge(c, s, test);
  for (uint32_t k = mark; k < c->njumps; k++)
    patch(c, c->jumps[k] / 2u, 0, c->jumps[k] % 2u ? *cont_pc : c->o->ncode);
  c->njumps = mark;
}

static void next_edge(cc *c, const vc_node *s, uint32_t test) {
  emit(c, VC_OP_NEXT, s->loc, s->ref, test, 0, 0);
}

static void while_edge(cc *c, const vc_node *s, uint32_t test) {
  emit(c, VC_OP_LOOP, s->loc, test, 0, 0, 0);
}

/* i = from; test: if !(i < to) goto exit; body; cont: i += 1; goto test; exit: */
static void stmt_loop(cc *c, const vc_node *s) {
  if (s->nkids < 2 || s->ref >= c->o->nsyms)
    return (void)fail_at(c, VC_ERR_INTERNAL, s->loc, "malformed loop");
  uint32_t i = s->ref, cont, mark = c->njumps;
  expr(c, s->kids[0], i);
  note_write(c, i);
  uint32_t to = temp(c, s->loc); /* evaluated once, even if it names a var the body sets */
  expr(c, s->kids[1], to);
  bool is_signed = s->kids[0]->type == VC_I32 && !VC_MUTANT(ORACLE_I32_LOOP_UNSIGNED);
  uint32_t test = emit(c, is_signed ? VC_OP_FORI : VC_OP_FORU, s->loc, i, to, 0, 0);
  loop_body(c, s, 2, &cont, mark, next_edge, test);
  patch(c, test, 2, c->o->ncode);
}

/* test: c = COND; if c == 0 goto exit; body; cont: (counted) goto test; exit: */
static void stmt_while(cc *c, const vc_node *s) {
  if (s->nkids < 1) return (void)fail_at(c, VC_ERR_INTERNAL, s->loc, "malformed while");
  uint32_t mark = c->njumps, cont, top = c->top;
  uint32_t test = c->o->ncode;
  uint32_t cond = expr(c, s->kids[0], NOREG);
  uint32_t jz = emit(c, VC_OP_JZ, s->loc, cond, 0, 0, 0);
  c->top = top;
  /* the back edge goes to the condition's code (not to the body after its jz) */
  loop_body(c, s, 1, &cont, mark, while_edge, VC_MUTANT(ORACLE_WHILE_COND_ONCE) ? jz + 1 : test);
  patch(c, jz, 1, c->o->ncode);
}

static void stmt_memory(cc *c, const vc_node *s) {
  if (s->kind == VC_S_ATOMIC) {
    vc_node e = *s;
    e.kind = VC_E_ATOMIC;
    memory(c, &e, NOREG);
    return;
  }
  uint32_t r[4];
  uint32_t m = mem_slot(c, s);
  if (!operands(c, s, 2, r)) return;
  bool w = vc_type_is_64(vc_node_mem_type(c->p, s));
  uint32_t pc = emit(c, w ? VC_OP_STORE64 : VC_OP_STORE, s->loc, r[0], r[1], 0, 0);
  if (!c->failed) c->o->code[pc].m = (uint16_t)m;
}

static void grid_barrier(cc *c, const vc_node *s, bool top_level) {
  if (!top_level)
    return (void)fail_at(c, VC_ERR_INVALID, s->loc,
                         "grid barrier inside if, loop or while (only at the top level of entry)");
  emit(c, VC_OP_END, s->loc, 0, 0, 0, 0);
  c->seg++;
  if (!c->failed) c->o->seg_pc[c->seg] = c->o->ncode;
}

static void stmt(cc *c, const vc_node *s, bool top_level) {
  uint32_t mark = c->top;
  if (c->failed) return;
  switch (s->kind) {
  case VC_S_LET:
  case VC_S_VAR:
  case VC_S_SET:
    if (s->ref >= c->o->nsyms || s->nkids != 1)
      return (void)fail_at(c, VC_ERR_INTERNAL, s->loc, "malformed assignment");
    expr(c, s->kids[0], s->ref);
    note_write(c, s->ref);
    break;
  case VC_S_STORE:
  case VC_S_ATOMIC: stmt_memory(c, s); break;
  case VC_S_IF: stmt_if(c, s); break;
  case VC_S_LOOP: stmt_loop(c, s); break;
  case VC_S_WHILE: stmt_while(c, s); break;
  case VC_S_BREAK:
  case VC_S_CONTINUE: stmt_jump(c, s); break;
  case VC_S_RETURN: emit(c, VC_OP_RET, s->loc, 0, 0, 0, 0); break;
  case VC_S_BLOCK:
    for (uint32_t k = 0; k < s->nkids; k++) stmt(c, s->kids[k], top_level);
    break;
  case VC_S_BARRIER:
    if (s->op == VC_BARRIER_GRID) grid_barrier(c, s, top_level);
    else emit(c, VC_OP_BAR, s->loc, 0, 0, 0, 0);
    break;
  default: fail_at(c, VC_ERR_INTERNAL, s->loc, "expression where a statement belongs");
  }
  c->top = mark;
}

/* Top-level grid barriers (blocks flattened), so segments are known before code. */
static uint32_t count_grid_barriers(const vc_node *s) {
  uint32_t n = 0;
  if (s->kind == VC_S_BARRIER && s->op == VC_BARRIER_GRID) return 1;
  if (s->kind == VC_S_BLOCK)
    for (uint32_t k = 0; k < s->nkids; k++) n += count_grid_barriers(s->kids[k]);
  return n;
}

/* A symbol persists across grid barriers when a segment reads it after an
   earlier segment wrote it; every other register starts a segment at zero. */
static void find_persistent(cc *c) {
  vc_oracle *o = c->o;
  uint32_t n = 0;
  o->persist = vc_arena_alloc(&o->arena, (o->nsyms + 1) * sizeof *o->persist);
  for (uint32_t s = 0; s < o->nsyms; s++) {
    bool written = false, live = false;
    for (uint32_t g = 0; g < o->nsegs && !live; g++) {
      live = written && c->rd[(size_t)g * o->nsyms + s];
      written = written || c->wr[(size_t)g * o->nsyms + s];
    }
    if (live) o->persist[n++] = s;
  }
  o->npersist = n;
}

/* Which shared arrays each segment uses (only those are poisoned), and
   which slots the checks must watch: a slot nothing writes cannot race. */
static void find_memory_use(vc_oracle *o) {
  o->seg_shared = vc_arena_alloc(&o->arena, (size_t)o->nsegs * o->nshared + 1);
  uint32_t seg = 0;
  for (uint32_t pc = 0; pc < o->ncode; pc++) {
    const vc_ins *i = &o->code[pc];
    bool writes = i->op == VC_OP_STORE || i->op == VC_OP_ATOM || i->op == VC_OP_CAS ||
                  i->op == VC_OP_ASTORE || i->op == VC_OP_STORE64 || i->op == VC_OP_ATOM64 ||
                  i->op == VC_OP_CAS64 || i->op == VC_OP_ASTORE64;
    bool reads = i->op == VC_OP_LOAD || i->op == VC_OP_ALOAD || i->op == VC_OP_LOAD64 ||
                 i->op == VC_OP_ALOAD64;
    if ((writes || reads) && i->m >= o->nbuffers)
      o->seg_shared[(size_t)seg * o->nshared + i->m - o->nbuffers] = 1;
    if (writes) o->mem[i->m].tracked = true;
    if (i->op == VC_OP_END) seg++;
  }
}

/* The interpreter's code (xcode in bytecode.h): each operand the opcode
   table's format names as a register ('r', and 'm' for the index) renumbered
   within its segment. */
static int number_segment_registers(vc_oracle *o, vc_error *err) {
  static const char *const fmts[VC_OP_COUNT] = {
#define VC_OP_FMT(sym, name, fmt) [VC_OP_##sym] = fmt,
      VC_OPCODES(VC_OP_FMT)
#undef VC_OP_FMT
  };
  uint32_t *stamp = calloc((size_t)o->nregs + 1, sizeof *stamp);
  uint32_t *local = calloc((size_t)o->nregs + 1, sizeof *local);
  o->xcode = malloc(((size_t)o->ncode + 1) * sizeof *o->xcode);
  o->seg_nregs = vc_arena_alloc(&o->arena, ((size_t)o->nsegs + 1) * sizeof *o->seg_nregs);
  int rc = 0;
  if (!stamp || !local || !o->xcode || !o->seg_nregs) {
    rc = vc_fail(err, VC_ERR_NOMEM, "oracle: out of memory");
    goto done;
  }
  memcpy(o->xcode, o->code, (size_t)o->ncode * sizeof *o->code);
  uint32_t pc = 0;
  for (uint32_t g = 0; g < o->nsegs; g++) {
    uint32_t n = 0;
    for (uint32_t k = 0; k < o->npersist; k++) {
      stamp[o->persist[k]] = g + 1;
      local[o->persist[k]] = n++;
    }
    for (; pc < o->ncode; pc++) {
      vc_ins *i = &o->xcode[pc];
      uint32_t *f[4] = {&i->a, &i->b, &i->c, &i->d};
      uint32_t k = 0;
      for (const char *c = i->op < VC_OP_COUNT ? fmts[i->op] : ""; *c && k < 4; c++) {
        if (*c == 'x') continue;
        uint32_t *r = f[k++];
        if ((*c != 'r' && *c != 'm') || *r >= o->nregs) continue;
        if (stamp[*r] != g + 1) {
          stamp[*r] = g + 1;
          local[*r] = n++;
        }
        *r = local[*r];
      }
      if (i->op == VC_OP_END) {
        pc++;
        break;
      }
    }
    o->seg_nregs[g] = n;
    if (n > o->xnregs) o->xnregs = n;
  }
done:
  free(stamp);
  free(local);
  return rc;
}

static int copy_tables(vc_oracle *o, const vc_program *p, vc_error *err) {
  if (p->nbuffers + p->nshared > UINT16_MAX)
    return vc_fail(err, VC_ERR_LIMIT, "oracle: %s: too many buffers and shared arrays", p->name);
  o->name = vc_arena_strdup(&o->arena, p->name ? p->name : "program");
  o->nbuffers = p->nbuffers;
  o->nshared = p->nshared;
  o->nmem = p->nbuffers + p->nshared;
  o->nsyms = p->nsyms;
  o->nregs = p->nsyms;
  memcpy(o->workgroup, p->workgroup, sizeof o->workgroup);
  memcpy(o->grid, p->grid, sizeof o->grid);
  o->fixpoint = p->fixpoint;
  o->mem = vc_arena_alloc(&o->arena, (o->nmem + 1) * sizeof *o->mem);
  for (uint32_t i = 0; i < p->nbuffers; i++) {
    vc_oracle_mem *m = &o->mem[i];
    m->name = vc_arena_strdup(&o->arena, p->buffers[i].name);
    m->type = p->buffers[i].type;
    m->count = p->buffers[i].count;
    m->space = VC_SPACE_BUFFER;
  }
  for (uint32_t i = 0; i < p->nshared; i++) {
    vc_oracle_mem *m = &o->mem[p->nbuffers + i];
    m->name = vc_arena_strdup(&o->arena, p->shared[i].name);
    m->type = p->shared[i].type;
    m->count = p->shared[i].count;
    m->space = VC_SPACE_SHARED;
    m->tracked = true; /* reads before any write are reported */
    m->offset = o->shared_words;
    uint64_t words = (uint64_t)m->count * vc_type_words(m->type);
    if ((uint64_t)o->shared_words + words > VC_MAX_SHARED_BYTES / 4)
      return vc_fail(err, VC_ERR_LIMIT, "oracle: %s: shared arrays exceed %u bytes", o->name,
                     VC_MAX_SHARED_BYTES);
    o->shared_words += (uint32_t)words;
  }
  if (p->fixpoint.present && p->fixpoint.has_flag && p->fixpoint.flag >= p->nbuffers)
    return vc_fail(err, VC_ERR_INTERNAL, "oracle: %s: fixpoint flag is not a buffer", o->name);
  return 0;
}

int vc_oracle_compile(const vc_program *p, vc_oracle **out, vc_error *err) {
  *out = NULL;
  if (!p || !p->entry || p->entry->kind != VC_S_BLOCK)
    return vc_fail(err, VC_ERR_USAGE, "oracle: program without an entry block");
  vc_oracle *o = calloc(1, sizeof *o);
  if (!o) return vc_fail(err, VC_ERR_NOMEM, "oracle: out of memory");
  vc_arena_init(&o->arena);
  int rc = copy_tables(o, p, err);
  if (rc) {
    vc_oracle_free(o);
    return rc;
  }
  cc c = {.o = o, .p = p, .err = err, .top = o->nsyms};
  o->nsegs = count_grid_barriers(p->entry) + 1;
  o->seg_pc = vc_arena_alloc(&o->arena, o->nsegs * sizeof *o->seg_pc);
  c.rd = calloc((size_t)o->nsegs * o->nsyms + 1, 1);
  c.wr = calloc((size_t)o->nsegs * o->nsyms + 1, 1);
  if (!c.rd || !c.wr) c.failed = vc_fail(err, VC_ERR_NOMEM, "oracle: out of memory");
  stmt(&c, p->entry, true);
  emit(&c, VC_OP_END, p->entry->loc, 0, 0, 0, 0);
  if (!c.failed) {
    find_persistent(&c);
    find_memory_use(o);
    c.failed = number_segment_registers(o, err);
    if (!c.failed) vc_exec_fuse(o->xcode, o->ncode);
  }
  free(c.rd);
  free(c.wr);
  free(c.jumps);
  if (c.failed) {
    vc_oracle_free(o);
    return c.failed;
  }
  *out = o;
  return 0;
}

void vc_oracle_free(vc_oracle *o) {
  if (!o) return;
  free(o->code);
  free(o->xcode);
  free(o->locs);
  vc_arena_free(&o->arena);
  free(o);
}
