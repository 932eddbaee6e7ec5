/* The interpreter: one invocation from its pc to its next stop. */
#include "oracles/arith.h"
#include "oracles/issues.h"
#include "oracles/machine.h"
#include "oracles/order.h"

static uint32_t atom_apply(uint32_t op, uint32_t old, uint32_t v) {
  switch ((vc_atom_op)op) {
  case VC_ATOM_ADD: return old + v;
  case VC_ATOM_SUB: return old - v;
  case VC_ATOM_AND: return old & v;
  case VC_ATOM_OR: return old | v;
  case VC_ATOM_XOR: return old ^ v;
  case VC_ATOM_MINU: return v < old ? v : old;
  case VC_ATOM_MINI: return vc_lti(v, old) ? v : old;
  case VC_ATOM_MAXU: return v > old ? v : old;
  case VC_ATOM_MAXI: return vc_lti(old, v) ? v : old;
  case VC_ATOM_XCHG:
  case VC_ATOM_COUNT: break;
  }
  return v;
}

static uint64_t atom_apply64(uint32_t op, uint64_t old, uint64_t v) {
  switch ((vc_atom_op)op) {
  case VC_ATOM_ADD: return old + v;
  case VC_ATOM_SUB: return old - v;
  case VC_ATOM_AND: return old & v;
  case VC_ATOM_OR: return old | v;
  case VC_ATOM_XOR: return old ^ v;
  case VC_ATOM_MINU: return v < old ? v : old;
  case VC_ATOM_MINI: return vc_lti64(v, old) ? v : old;
  case VC_ATOM_MAXU: return v > old ? v : old;
  case VC_ATOM_MAXI: return vc_lti64(old, v) ? v : old;
  case VC_ATOM_XCHG:
  case VC_ATOM_COUNT: break;
  }
  return v;
}

/* Inlined into every memory handler: a call there costs the interpreter its
   registers. */
#if defined(__GNUC__)
#define VC_INLINE static inline __attribute__((always_inline))
#else
#define VC_INLINE static inline
#endif

/* The first word of the element a memory instruction touches, or NULL when
   idx is out of bounds (counted); records the access for the checks. */
VC_INLINE uint32_t *element(vc_machine *m, const vc_ins *i, uint64_t idx64, vc_acc acc) {
  const vc_slot *s = &m->slot[i->m];
  uint32_t idx = (uint32_t)idx64; /* indices are u32 */
  if (idx >= s->count) {
    vc_note_oob(m, (uint32_t)(i - m->o->xcode), i->m, idx);
    return NULL;
  }
  if (s->watch && (s->shared || !vc_shadow_first(&m->shadow, i->m, idx, m->seg_first, m->phase,
                                                 m->cur, acc)))
    vc_shadow_access(m, (uint32_t)(i - m->o->xcode), i->m, idx, acc);
  return m->failed ? NULL : &s->data[(size_t)idx * s->words];
}

/* A 64-bit element: two words, low first. */
static uint64_t get64(const uint32_t *e) { return (uint64_t)e[0] | (uint64_t)e[1] << 32; }
static void put64(uint32_t *e, uint64_t v) {
  e[0] = (uint32_t)v;
  e[1] = (uint32_t)(v >> 32);
}

static uint32_t builtin(const vc_machine *m, uint32_t local, uint32_t which) {
  uint32_t axis = which % 3u, lid = m->lid[local * 3u + axis];
  switch (which / 3u) {
  case 0: return m->group[axis] * m->o->workgroup[axis] + lid; /* global_id */
  case 1: return lid;
  default: return m->group[axis];
  }
}

/* The 32-bit binary operations, a = x OP y with x = b and y = c as u32:
   their handlers, and those of their fused forms (vc_exec_fuse). */
#define VC_BINARY32(X)                                                                \
  X(ADD, (uint32_t)(x + y)) X(SUB, (uint32_t)(x - y)) X(MUL, (uint32_t)(x * y))       \
  X(DIVU, vc_divu(x, y)) X(DIVI, vc_divi(x, y)) X(REMU, vc_remu(x, y))                \
  X(REMI, vc_remi(x, y)) X(MINU, y < x ? y : x) X(MINI, vc_lti(y, x) ? y : x)         \
  X(MAXU, y > x ? y : x) X(MAXI, vc_lti(x, y) ? y : x) X(AND, x & y) X(OR, x | y)     \
  X(XOR, x ^ y) X(SHL, vc_shl(x, y)) X(SHRU, vc_shru(x, y)) X(SHRI, vc_shri(x, y))    \
  X(EQ, x == y) X(NE, x != y) X(LTU, x < y) X(LTI, vc_lti(x, y)) X(LEU, x <= y)       \
  X(LEI, vc_lei(x, y)) X(LAND, (x != 0) & (y != 0)) X(LOR, (x != 0) | (y != 0))       \
  X(FADD, vc_fadd(x, y)) X(FSUB, vc_fsub(x, y)) X(FMUL, vc_fmul(x, y))                \
  X(FDIV, vc_fdiv(x, y)) X(FMIN, vc_fmin(x, y)) X(FMAX, vc_fmax(x, y))                \
  X(FEQ, vc_feq(x, y)) X(FNE, !vc_feq(x, y)) X(FLT, vc_flt(x, y)) X(FLE, vc_fle(x, y))

/* Opcodes of the interpreter's code only (xcode): K_op is "K t, v" followed
   by "op a, b, t", a constant and its use, done in one dispatch. Both
   instructions still run and count (t is written, then b read, which may be
   t), so the register file, the operation count and every report are those
   of the two; only the jump between them goes. The second instruction stays
   as it was, for jumps to it. (In large_accumulator 7 of the 19
   instructions of a segment are constants.) */
enum {
  VC_XOP_FIRST = VC_OP_COUNT,
#define VC_XOP_ENUM(sym, expr) VC_XOP_K_##sym,
  VC_BINARY32(VC_XOP_ENUM)
#undef VC_XOP_ENUM
  VC_XOP_END
};

void vc_exec_fuse(vc_ins *code, uint32_t n) {
  static const uint8_t fused[VC_OP_COUNT] = {
#define VC_XOP_MAP(sym, expr) [VC_OP_##sym] = VC_XOP_K_##sym,
      VC_BINARY32(VC_XOP_MAP)
#undef VC_XOP_MAP
  };
  _Static_assert(VC_XOP_END <= 256, "opcodes are bytes");
  for (uint32_t pc = 0; pc + 1 < n; pc++) {
    const vc_ins *next = &code[pc + 1];
    if (code[pc].op == VC_OP_K && next->op < VC_OP_COUNT && fused[next->op] &&
        next->c == code[pc].a)
      code[pc].op = fused[next->op];
  }
}

/* Dispatch in the style of Lua's lvm.c: the handlers below are written
   once. With GCC and Clang they are reached through a table of label
   addresses (no range check, the jump repeated after handlers), about 25%
   faster than a shared switch on oracle-bench (docs/oracle.md); elsewhere,
   or with VC_ORACLE_SWITCH defined, a plain switch in a loop. FETCH
   advances ip past the instruction it loads. */
#if defined(__GNUC__) && !defined(VC_ORACLE_SWITCH)
#define VC_JUMP_TABLE 1
#define DISPATCH(op) goto *jump[op];
#define CASE(sym) L_##sym:
#define XCASE(sym) L_##sym:
#define BREAK \
  FETCH();    \
  goto *jump[i->op]
#else
#define DISPATCH(op) switch ((unsigned)(op))
#define CASE(sym) case VC_OP_##sym:
#define XCASE(sym) case VC_XOP_##sym:
#define BREAK break
#endif
#define FETCH() (i = ip++, ops++)
#define BINARY_CASE(sym, expr)                  \
  CASE(sym) {                                   \
    uint32_t x = W(b), y = W(c);                \
    r[i->a] = (expr);                           \
    BREAK;                                      \
  }
#define FUSED_CASE(sym, expr)                   \
  XCASE(K_##sym) {                              \
    uint32_t y = i->b;                          \
    r[i->a] = y;                                \
    FETCH();                                    \
    uint32_t x = W(b);                          \
    r[i->a] = (expr);                           \
    BREAK;                                      \
  }
/* Register field f of the instruction as a 32-bit value (the low word). */
#define W(f) ((uint32_t)r[i->f])

/* Back edges between looks at the clock (a power of two, less one): often
   enough that --timeout holds inside one phase of a long loop, seldom
   enough to cost nothing measurable. */
#define DEADLINE_EVERY 0xffffu

void vc_exec_phase(vc_machine *m, const vc_perm *order) {
#ifdef VC_JUMP_TABLE
#define VC_JUMP_ENTRY(sym, name, fmt) [VC_OP_##sym] = &&L_##sym,
#define VC_XJUMP_ENTRY(sym, expr) [VC_XOP_K_##sym] = &&L_K_##sym,
  static const void *const jump[VC_XOP_END + 1] = {
      VC_OPCODES(VC_JUMP_ENTRY) VC_BINARY32(VC_XJUMP_ENTRY)[VC_OP_COUNT] = &&L_COUNT,
      [VC_XOP_END] = &&L_COUNT};
#undef VC_JUMP_ENTRY
#undef VC_XJUMP_ENTRY
#endif
  const vc_ins *code = m->o->xcode, *i = code;
  const uint32_t nregs = m->o->xnregs;
  uint64_t *r;
  vc_inv *inv;
  const vc_ins *ip;
  uint32_t *iters, k = 0, local;
  uint64_t ops = 0;
next: /* the next runnable invocation in the order */
  for (; k < m->wg_size && !m->failed; k++) {
    local = order->order == VC_ORDER_FORWARD ? k : (uint32_t)vc_perm_at(order, k);
    if (m->inv[local].status == VC_INV_RUN) break;
  }
  if (k >= m->wg_size || m->failed) {
    m->ops += ops;
    return;
  }
  k++;
  inv = &m->inv[local];
  r = m->regs + (size_t)local * nregs;
  iters = &m->iters[local];
  ip = code + inv->pc;
  m->cur = m->wg_base + local;
  for (;;) {
    FETCH();
    DISPATCH(i->op) {
      CASE(MOV) r[i->a] = r[i->b]; BREAK;
      CASE(K) r[i->a] = i->b; BREAK;
      CASE(BUILTIN) r[i->a] = builtin(m, local, i->x); BREAK;
      VC_BINARY32(BINARY_CASE)
      VC_BINARY32(FUSED_CASE)
      CASE(NEG) r[i->a] = 0u - W(b); BREAK;
      CASE(ABSI) r[i->a] = vc_absi(W(b)); BREAK;
      CASE(NOT) r[i->a] = ~W(b); BREAK;
      CASE(LNOT) r[i->a] = W(b) == 0; BREAK;
      CASE(FNEG) r[i->a] = W(b) ^ VC_SIGN_BIT; BREAK;
      CASE(FABS) r[i->a] = W(b) & ~VC_SIGN_BIT; BREAK;
      CASE(F2I) r[i->a] = vc_f2i(W(b)); BREAK;
      CASE(F2U) r[i->a] = vc_f2u(W(b)); BREAK;
      CASE(I2F) r[i->a] = vc_i2f(W(b)); BREAK;
      CASE(U2F) r[i->a] = vc_u2f(W(b)); BREAK;
      CASE(SEL) r[i->a] = r[i->b] ? r[i->c] : r[i->d]; BREAK;
      CASE(LOAD) {
        const uint32_t *e = element(m, i, r[i->b], VC_ACC_READ);
        r[i->a] = e ? *e : 0;
        BREAK;
      }
      CASE(STORE) {
        uint32_t *e = element(m, i, r[i->a], VC_ACC_WRITE);
        if (e) *e = W(b);
        BREAK;
      }
      CASE(ATOM) {
        uint32_t *e = element(m, i, r[i->b], VC_ACC_ATOMIC), v = W(c);
        r[i->a] = e ? *e : 0;
        if (e) *e = atom_apply(i->x, *e, v);
        BREAK;
      }
      CASE(CAS) {
        uint32_t *e = element(m, i, r[i->b], VC_ACC_ATOMIC), expect = W(c), v = W(d);
        r[i->a] = e ? *e : 0;
        if (e && *e == expect) *e = v;
        BREAK;
      }
      CASE(ALOAD) {
        const uint32_t *e = element(m, i, r[i->b], VC_ACC_ATOMIC_LOAD);
        r[i->a] = e ? *e : 0;
        BREAK;
      }
      CASE(ASTORE) {
        uint32_t *e = element(m, i, r[i->a], VC_ACC_ATOMIC_STORE);
        if (e) *e = W(b);
        BREAK;
      }
      CASE(JMP) ip = code + i->a; BREAK;
      CASE(JZ) if (r[i->a] == 0) ip = code + i->b; BREAK;
      CASE(FORU) if (!(W(a) < W(b))) ip = code + i->c; BREAK;
      CASE(FORI) if (!vc_lti(W(a), W(b))) ip = code + i->c; BREAK;
      CASE(NEXT) {
        r[i->a] = (uint32_t)(W(a) + 1u);
        ip = code + i->b;
        if (m->failed) goto stop; /* the checks ran out of memory: stop at a back edge */
        if (++*iters > VC_LOOP_BUDGET) goto budget;
        if (!(*iters & DEADLINE_EVERY) && vc_machine_past_deadline(m)) goto stop;
        BREAK;
      }
      CASE(LOOP) {
        ip = code + i->a;
        if (m->failed) goto stop;
        if (++*iters > VC_LOOP_BUDGET) goto budget;
        if (!(*iters & DEADLINE_EVERY) && vc_machine_past_deadline(m)) goto stop;
        BREAK;
      }
      CASE(K64) r[i->a] = (uint64_t)i->b | (uint64_t)i->c << 32; BREAK;
      CASE(SEXT) r[i->a] = (uint64_t)(int64_t)vc_as_i32(W(b)); BREAK;
      CASE(TRUNC) r[i->a] = W(b); BREAK;
      CASE(ADD64) r[i->a] = r[i->b] + r[i->c]; BREAK;
      CASE(SUB64) r[i->a] = r[i->b] - r[i->c]; BREAK;
      CASE(MUL64) r[i->a] = r[i->b] * r[i->c]; BREAK;
      CASE(DIVU64) r[i->a] = vc_divu64(r[i->b], r[i->c]); BREAK;
      CASE(DIVI64) r[i->a] = vc_divi64(r[i->b], r[i->c]); BREAK;
      CASE(REMU64) r[i->a] = vc_remu64(r[i->b], r[i->c]); BREAK;
      CASE(REMI64) r[i->a] = vc_remi64(r[i->b], r[i->c]); BREAK;
      CASE(MINU64) r[i->a] = r[i->c] < r[i->b] ? r[i->c] : r[i->b]; BREAK;
      CASE(MINI64) r[i->a] = vc_lti64(r[i->c], r[i->b]) ? r[i->c] : r[i->b]; BREAK;
      CASE(MAXU64) r[i->a] = r[i->c] > r[i->b] ? r[i->c] : r[i->b]; BREAK;
      CASE(MAXI64) r[i->a] = vc_lti64(r[i->b], r[i->c]) ? r[i->c] : r[i->b]; BREAK;
      CASE(AND64) r[i->a] = r[i->b] & r[i->c]; BREAK;
      CASE(OR64) r[i->a] = r[i->b] | r[i->c]; BREAK;
      CASE(XOR64) r[i->a] = r[i->b] ^ r[i->c]; BREAK;
      CASE(SHL64) r[i->a] = vc_shl64(r[i->b], r[i->c]); BREAK;
      CASE(SHRU64) r[i->a] = vc_shru64(r[i->b], r[i->c]); BREAK;
      CASE(SHRI64) r[i->a] = vc_shri64(r[i->b], r[i->c]); BREAK;
      CASE(EQ64) r[i->a] = r[i->b] == r[i->c]; BREAK;
      CASE(NE64) r[i->a] = r[i->b] != r[i->c]; BREAK;
      CASE(LTU64) r[i->a] = r[i->b] < r[i->c]; BREAK;
      CASE(LTI64) r[i->a] = vc_lti64(r[i->b], r[i->c]); BREAK;
      CASE(LEU64) r[i->a] = r[i->b] <= r[i->c]; BREAK;
      CASE(LEI64) r[i->a] = vc_lei64(r[i->b], r[i->c]); BREAK;
      CASE(NEG64) r[i->a] = 0u - r[i->b]; BREAK;
      CASE(ABSI64) r[i->a] = vc_absi64(r[i->b]); BREAK;
      CASE(NOT64) r[i->a] = ~r[i->b]; BREAK;
      CASE(F2I64) r[i->a] = vc_f2i64(W(b)); BREAK;
      CASE(F2U64) r[i->a] = vc_f2u64(W(b)); BREAK;
      CASE(I642F) r[i->a] = vc_i642f(r[i->b]); BREAK;
      CASE(U642F) r[i->a] = vc_u642f(r[i->b]); BREAK;
      CASE(LOAD64) {
        const uint32_t *e = element(m, i, r[i->b], VC_ACC_READ);
        r[i->a] = e ? get64(e) : 0;
        BREAK;
      }
      CASE(STORE64) {
        uint32_t *e = element(m, i, r[i->a], VC_ACC_WRITE);
        if (e) put64(e, r[i->b]);
        BREAK;
      }
      CASE(ATOM64) {
        uint32_t *e = element(m, i, r[i->b], VC_ACC_ATOMIC);
        uint64_t v = r[i->c], old = e ? get64(e) : 0;
        r[i->a] = old;
        if (e) put64(e, atom_apply64(i->x, old, v));
        BREAK;
      }
      CASE(CAS64) {
        uint32_t *e = element(m, i, r[i->b], VC_ACC_ATOMIC);
        uint64_t expect = r[i->c], v = r[i->d], old = e ? get64(e) : 0;
        r[i->a] = old;
        if (e && old == expect) put64(e, v);
        BREAK;
      }
      CASE(ALOAD64) {
        const uint32_t *e = element(m, i, r[i->b], VC_ACC_ATOMIC_LOAD);
        r[i->a] = e ? get64(e) : 0;
        BREAK;
      }
      CASE(ASTORE64) {
        uint32_t *e = element(m, i, r[i->a], VC_ACC_ATOMIC_STORE);
        if (e) put64(e, r[i->b]);
        BREAK;
      }
      CASE(BAR) inv->status = VC_INV_WAIT; goto stop;
      CASE(RET) CASE(END) CASE(COUNT) inv->status = VC_INV_DONE; goto stop;
    }
  }
budget: /* the invocation is stopped at its back edge, done with the segment */
  vc_note_loop(m, (uint32_t)(i - code));
  inv->status = VC_INV_DONE;
  inv->pc = (uint32_t)(i - code);
  goto next;
stop:
  inv->pc = (uint32_t)(ip - code) - 1; /* the instruction it stopped at */
  goto next;
}
