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

void vc_exec(vc_machine *m, uint32_t local) {
  const vc_ins *code = m->o->code;
  uint32_t *r = m->regs + (size_t)local * m->o->nregs;
  vc_inv *inv = &m->inv[local];
  uint32_t pc = inv->pc;
  uint64_t ops = 0;
  m->cur = m->wg_base + local;
  for (;;) {
    const vc_ins *i = &code[pc];
    ops++;
    switch ((vc_opcode)i->op) {
    case VC_OP_MOV: r[i->a] = r[i->b]; break;
    case VC_OP_K: r[i->a] = i->b; break;
    case VC_OP_BUILTIN: r[i->a] = builtin(m, local, i->x); break;
    case VC_OP_ADD: r[i->a] = r[i->b] + r[i->c]; break;
    case VC_OP_SUB: r[i->a] = r[i->b] - r[i->c]; break;
    case VC_OP_MUL: r[i->a] = r[i->b] * r[i->c]; break;
    case VC_OP_DIVU: r[i->a] = vc_divu(r[i->b], r[i->c]); break;
    case VC_OP_DIVI: r[i->a] = vc_divi(r[i->b], r[i->c]); break;
    case VC_OP_REMU: r[i->a] = vc_remu(r[i->b], r[i->c]); break;
    case VC_OP_REMI: r[i->a] = vc_remi(r[i->b], r[i->c]); break;
    case VC_OP_MINU: r[i->a] = r[i->c] < r[i->b] ? r[i->c] : r[i->b]; break;
    case VC_OP_MINI: r[i->a] = vc_lti(r[i->c], r[i->b]) ? r[i->c] : r[i->b]; break;
    case VC_OP_MAXU: r[i->a] = r[i->c] > r[i->b] ? r[i->c] : r[i->b]; break;
    case VC_OP_MAXI: r[i->a] = vc_lti(r[i->b], r[i->c]) ? r[i->c] : r[i->b]; break;
    case VC_OP_AND: r[i->a] = r[i->b] & r[i->c]; break;
    case VC_OP_OR: r[i->a] = r[i->b] | r[i->c]; break;
    case VC_OP_XOR: r[i->a] = r[i->b] ^ r[i->c]; break;
    case VC_OP_SHL: r[i->a] = vc_shl(r[i->b], r[i->c]); break;
    case VC_OP_SHRU: r[i->a] = vc_shru(r[i->b], r[i->c]); break;
    case VC_OP_SHRI: r[i->a] = vc_shri(r[i->b], r[i->c]); break;
    case VC_OP_EQ: r[i->a] = r[i->b] == r[i->c]; break;
    case VC_OP_NE: r[i->a] = r[i->b] != r[i->c]; break;
    case VC_OP_LTU: r[i->a] = r[i->b] < r[i->c]; break;
    case VC_OP_LTI: r[i->a] = vc_lti(r[i->b], r[i->c]); break;
    case VC_OP_LEU: r[i->a] = r[i->b] <= r[i->c]; break;
    case VC_OP_LEI: r[i->a] = vc_lei(r[i->b], r[i->c]); break;
    case VC_OP_LAND: r[i->a] = (r[i->b] != 0) & (r[i->c] != 0); break;
    case VC_OP_LOR: r[i->a] = (r[i->b] != 0) | (r[i->c] != 0); break;
    case VC_OP_FADD: r[i->a] = vc_fadd(r[i->b], r[i->c]); break;
    case VC_OP_FSUB: r[i->a] = vc_fsub(r[i->b], r[i->c]); break;
    case VC_OP_FMUL: r[i->a] = vc_fmul(r[i->b], r[i->c]); break;
    case VC_OP_FDIV: r[i->a] = vc_fdiv(r[i->b], r[i->c]); break;
    case VC_OP_FMIN: r[i->a] = vc_fmin(r[i->b], r[i->c]); break;
    case VC_OP_FMAX: r[i->a] = vc_fmax(r[i->b], r[i->c]); break;
    case VC_OP_FEQ: r[i->a] = vc_feq(r[i->b], r[i->c]); break;
    case VC_OP_FNE: r[i->a] = !vc_feq(r[i->b], r[i->c]); break;
    case VC_OP_FLT: r[i->a] = vc_flt(r[i->b], r[i->c]); break;
    case VC_OP_FLE: r[i->a] = vc_fle(r[i->b], r[i->c]); break;
    case VC_OP_NEG: r[i->a] = 0u - r[i->b]; break;
    case VC_OP_ABSI: r[i->a] = vc_absi(r[i->b]); break;
    case VC_OP_NOT: r[i->a] = ~r[i->b]; break;
    case VC_OP_LNOT: r[i->a] = r[i->b] == 0; break;
    case VC_OP_FNEG: r[i->a] = r[i->b] ^ VC_SIGN_BIT; break;
    case VC_OP_FABS: r[i->a] = r[i->b] & ~VC_SIGN_BIT; break;
    case VC_OP_F2I: r[i->a] = vc_f2i(r[i->b]); break;
    case VC_OP_F2U: r[i->a] = vc_f2u(r[i->b]); break;
    case VC_OP_I2F: r[i->a] = vc_i2f(r[i->b]); break;
    case VC_OP_U2F: r[i->a] = vc_u2f(r[i->b]); break;
    case VC_OP_SEL: r[i->a] = r[i->b] ? r[i->c] : r[i->d]; break;
    case VC_OP_LOAD: {
      const uint32_t *e = element(m, pc, i, r[i->b], VC_ACC_READ);
      r[i->a] = e ? *e : 0;
      break;
    }
    case VC_OP_STORE: {
      uint32_t *e = element(m, pc, i, r[i->a], VC_ACC_WRITE);
      if (e) *e = r[i->b];
      break;
    }
    case VC_OP_ATOM: {
      uint32_t *e = element(m, pc, i, r[i->b], VC_ACC_ATOMIC), v = r[i->c];
      r[i->a] = e ? *e : 0;
      if (e) *e = atom_apply(i->x, *e, v);
      break;
    }
    case VC_OP_CAS: {
      uint32_t *e = element(m, pc, i, r[i->b], VC_ACC_ATOMIC), expect = r[i->c], v = r[i->d];
      r[i->a] = e ? *e : 0;
      if (e && *e == expect) *e = v;
      break;
    }
    case VC_OP_JMP: pc = i->a; continue;
    case VC_OP_JZ:
      if (r[i->a] == 0) {
        pc = i->b;
        continue;
      }
      break;
    case VC_OP_FORU:
      if (!(r[i->a] < r[i->b])) {
        pc = i->c;
        continue;
      }
      break;
    case VC_OP_FORI:
      if (!vc_lti(r[i->a], r[i->b])) {
        pc = i->c;
        continue;
      }
      break;
    case VC_OP_NEXT:
      r[i->a] += 1u;
      pc = i->b;
      if (m->failed) goto stop; /* the checks ran out of memory: stop at a back edge */
      continue;
    case VC_OP_BAR: inv->status = VC_INV_WAIT; goto stop;
    case VC_OP_RET:
    case VC_OP_END:
    case VC_OP_COUNT: inv->status = VC_INV_DONE; goto stop;
    }
    pc++;
  }
stop:
  inv->pc = pc;
  m->ops += ops;
}
