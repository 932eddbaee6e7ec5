/* The interpreter: one invocation from its pc to its next stop. */
#include "oracles/arith.h"
#include "oracles/issues.h"
#include "oracles/machine.h"

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

/* The element a memory instruction touches, or NULL when idx is out of
   bounds (counted); records the access for the checks. */
static uint32_t *element(vc_machine *m, uint32_t pc, const vc_ins *i, uint32_t idx, vc_acc acc) {
  const vc_slot *s = &m->slot[i->m];
  if (idx >= s->count) {
    vc_note_oob(m, pc, i->m, idx);
    return NULL;
  }
  if (m->checks && m->o->mem[i->m].tracked) vc_shadow_access(m, pc, i->m, idx, acc);
  return m->failed ? NULL : &s->data[idx];
}

static uint32_t builtin(const vc_machine *m, uint32_t local, uint32_t which) {
  uint32_t axis = which % 3u, lid = m->lid[local * 3u + axis];
  switch (which / 3u) {
  case 0: return m->group[axis] * m->o->workgroup[axis] + lid; /* global_id */
  case 1: return lid;
  default: return m->group[axis];
  }
}

/* Dispatch in the style of Lua's lvm.c: the handlers below are written
   once. With GCC and Clang they are reached through a table of label
   addresses (no range check, the jump repeated after handlers), about 25%
   faster than a shared switch on oracle-bench (docs/oracle.md); elsewhere,
   or with VC_ORACLE_SWITCH defined, a plain switch in a loop. FETCH
   advances pc past the instruction it loads. */
#if defined(__GNUC__) && !defined(VC_ORACLE_SWITCH)
#define VC_JUMP_TABLE 1
#define DISPATCH(op) goto *jump[op];
#define CASE(sym) L_##sym:
#define BREAK \
  FETCH();    \
  goto *jump[i->op]
#else
#define DISPATCH(op) switch ((vc_opcode)(op))
#define CASE(sym) case VC_OP_##sym:
#define BREAK break
#endif
#define FETCH() (i = &code[pc++], ops++)

void vc_exec(vc_machine *m, uint32_t local) {
#ifdef VC_JUMP_TABLE
#define VC_JUMP_ENTRY(sym, name, fmt) [VC_OP_##sym] = &&L_##sym,
  static const void *const jump[VC_OP_COUNT + 1] = {
      VC_OPCODES(VC_JUMP_ENTRY)[VC_OP_COUNT] = &&L_COUNT};
#undef VC_JUMP_ENTRY
#endif
  const vc_ins *code = m->o->code, *i;
  uint32_t *r = m->regs + (size_t)local * m->o->nregs;
  vc_inv *inv = &m->inv[local];
  uint32_t *iters = &m->iters[local];
  uint32_t pc = inv->pc;
  uint64_t ops = 0;
  m->cur = m->wg_base + local;
  for (;;) {
    FETCH();
    DISPATCH(i->op) {
      CASE(MOV) r[i->a] = r[i->b]; BREAK;
      CASE(K) r[i->a] = i->b; BREAK;
      CASE(BUILTIN) r[i->a] = builtin(m, local, i->x); BREAK;
      CASE(ADD) r[i->a] = r[i->b] + r[i->c]; BREAK;
      CASE(SUB) r[i->a] = r[i->b] - r[i->c]; BREAK;
      CASE(MUL) r[i->a] = r[i->b] * r[i->c]; BREAK;
      CASE(DIVU) r[i->a] = vc_divu(r[i->b], r[i->c]); BREAK;
      CASE(DIVI) r[i->a] = vc_divi(r[i->b], r[i->c]); BREAK;
      CASE(REMU) r[i->a] = vc_remu(r[i->b], r[i->c]); BREAK;
      CASE(REMI) r[i->a] = vc_remi(r[i->b], r[i->c]); BREAK;
      CASE(MINU) r[i->a] = r[i->c] < r[i->b] ? r[i->c] : r[i->b]; BREAK;
      CASE(MINI) r[i->a] = vc_lti(r[i->c], r[i->b]) ? r[i->c] : r[i->b]; BREAK;
      CASE(MAXU) r[i->a] = r[i->c] > r[i->b] ? r[i->c] : r[i->b]; BREAK;
      CASE(MAXI) r[i->a] = vc_lti(r[i->b], r[i->c]) ? r[i->c] : r[i->b]; BREAK;
      CASE(AND) r[i->a] = r[i->b] & r[i->c]; BREAK;
      CASE(OR) r[i->a] = r[i->b] | r[i->c]; BREAK;
      CASE(XOR) r[i->a] = r[i->b] ^ r[i->c]; BREAK;
      CASE(SHL) r[i->a] = vc_shl(r[i->b], r[i->c]); BREAK;
      CASE(SHRU) r[i->a] = vc_shru(r[i->b], r[i->c]); BREAK;
      CASE(SHRI) r[i->a] = vc_shri(r[i->b], r[i->c]); BREAK;
      CASE(EQ) r[i->a] = r[i->b] == r[i->c]; BREAK;
      CASE(NE) r[i->a] = r[i->b] != r[i->c]; BREAK;
      CASE(LTU) r[i->a] = r[i->b] < r[i->c]; BREAK;
      CASE(LTI) r[i->a] = vc_lti(r[i->b], r[i->c]); BREAK;
      CASE(LEU) r[i->a] = r[i->b] <= r[i->c]; BREAK;
      CASE(LEI) r[i->a] = vc_lei(r[i->b], r[i->c]); BREAK;
      CASE(LAND) r[i->a] = (r[i->b] != 0) & (r[i->c] != 0); BREAK;
      CASE(LOR) r[i->a] = (r[i->b] != 0) | (r[i->c] != 0); BREAK;
      CASE(FADD) r[i->a] = vc_fadd(r[i->b], r[i->c]); BREAK;
      CASE(FSUB) r[i->a] = vc_fsub(r[i->b], r[i->c]); BREAK;
      CASE(FMUL) r[i->a] = vc_fmul(r[i->b], r[i->c]); BREAK;
      CASE(FDIV) r[i->a] = vc_fdiv(r[i->b], r[i->c]); BREAK;
      CASE(FMIN) r[i->a] = vc_fmin(r[i->b], r[i->c]); BREAK;
      CASE(FMAX) r[i->a] = vc_fmax(r[i->b], r[i->c]); BREAK;
      CASE(FEQ) r[i->a] = vc_feq(r[i->b], r[i->c]); BREAK;
      CASE(FNE) r[i->a] = !vc_feq(r[i->b], r[i->c]); BREAK;
      CASE(FLT) r[i->a] = vc_flt(r[i->b], r[i->c]); BREAK;
      CASE(FLE) r[i->a] = vc_fle(r[i->b], r[i->c]); BREAK;
      CASE(NEG) r[i->a] = 0u - r[i->b]; BREAK;
      CASE(ABSI) r[i->a] = vc_absi(r[i->b]); BREAK;
      CASE(NOT) r[i->a] = ~r[i->b]; BREAK;
      CASE(LNOT) r[i->a] = r[i->b] == 0; BREAK;
      CASE(FNEG) r[i->a] = r[i->b] ^ VC_SIGN_BIT; BREAK;
      CASE(FABS) r[i->a] = r[i->b] & ~VC_SIGN_BIT; BREAK;
      CASE(F2I) r[i->a] = vc_f2i(r[i->b]); BREAK;
      CASE(F2U) r[i->a] = vc_f2u(r[i->b]); BREAK;
      CASE(I2F) r[i->a] = vc_i2f(r[i->b]); BREAK;
      CASE(U2F) r[i->a] = vc_u2f(r[i->b]); BREAK;
      CASE(SEL) r[i->a] = r[i->b] ? r[i->c] : r[i->d]; BREAK;
      CASE(LOAD) {
        const uint32_t *e = element(m, pc - 1, i, r[i->b], VC_ACC_READ);
        r[i->a] = e ? *e : 0;
        BREAK;
      }
      CASE(STORE) {
        uint32_t *e = element(m, pc - 1, i, r[i->a], VC_ACC_WRITE);
        if (e) *e = r[i->b];
        BREAK;
      }
      CASE(ATOM) {
        uint32_t *e = element(m, pc - 1, i, r[i->b], VC_ACC_ATOMIC), v = r[i->c];
        r[i->a] = e ? *e : 0;
        if (e) *e = atom_apply(i->x, *e, v);
        BREAK;
      }
      CASE(CAS) {
        uint32_t *e = element(m, pc - 1, i, r[i->b], VC_ACC_ATOMIC), expect = r[i->c], v = r[i->d];
        r[i->a] = e ? *e : 0;
        if (e && *e == expect) *e = v;
        BREAK;
      }
      CASE(ALOAD) {
        const uint32_t *e = element(m, pc - 1, i, r[i->b], VC_ACC_ATOMIC_LOAD);
        r[i->a] = e ? *e : 0;
        BREAK;
      }
      CASE(ASTORE) {
        uint32_t *e = element(m, pc - 1, i, r[i->a], VC_ACC_ATOMIC_STORE);
        if (e) *e = r[i->b];
        BREAK;
      }
      CASE(JMP) pc = i->a; BREAK;
      CASE(JZ) if (r[i->a] == 0) pc = i->b; BREAK;
      CASE(FORU) if (!(r[i->a] < r[i->b])) pc = i->c; BREAK;
      CASE(FORI) if (!vc_lti(r[i->a], r[i->b])) pc = i->c; BREAK;
      CASE(NEXT) {
        r[i->a] += 1u;
        pc = i->b;
        if (m->failed) goto stop; /* the checks ran out of memory: stop at a back edge */
        if (++*iters > VC_LOOP_BUDGET) goto budget;
        BREAK;
      }
      CASE(LOOP) {
        pc = i->a;
        if (m->failed) goto stop;
        if (++*iters > VC_LOOP_BUDGET) goto budget;
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
  m->ops += ops;
  return;
stop:
  inv->pc = pc - 1; /* the instruction it stopped at */
  m->ops += ops;
}
