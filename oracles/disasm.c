/* vc_oracle_disassemble: the bytecode as text, one instruction a line. */
#include <stdio.h>
#include <stdlib.h>

#include "harness/base/strbuf.h"
#include "oracles/bytecode.h"
#include "oracles/oracle.h"

typedef struct opinfo {
  const char *name;
  const char *fmt; /* see VC_OPCODES: r register, k constant, j target, m memory, x sub-op */
} opinfo;

static const opinfo ops[VC_OP_COUNT] = {
#define VC_OP_INFO(sym, name, fmt) [VC_OP_##sym] = {name, fmt},
    VC_OPCODES(VC_OP_INFO)
#undef VC_OP_INFO
};

static const char *const atom_names[VC_ATOM_COUNT] = {
    "add", "sub", "and", "or", "xor", "minu", "mini", "maxu", "maxi", "exchange"};

static const char *const builtin_names[3] = {"global_id", "local_id", "group_id"};

static uint32_t field(const vc_ins *i, uint32_t k) {
  const uint32_t f[4] = {i->a, i->b, i->c, i->d};
  return k < 4 ? f[k] : 0;
}

static void operand(const vc_oracle *o, const vc_ins *i, char f, uint32_t v, vc_strbuf *out) {
  switch (f) {
  case 'r': vc_sb_printf(out, "r%u", v); break;
  case 'k': vc_sb_printf(out, "0x%08x", v); break;
  case 'j': vc_sb_printf(out, "@%u", v); break;
  case 'm': vc_sb_printf(out, "%s[r%u]", i->m < o->nmem ? o->mem[i->m].name : "?", v); break;
  case 'x': vc_sb_printf(out, "%s.%c", builtin_names[(i->x / 3u) % 3u], "xyz"[i->x % 3u]); break;
  default: vc_sb_putc(out, '?');
  }
}

static void instruction(const vc_oracle *o, uint32_t pc, vc_strbuf *out) {
  const vc_ins *i = &o->code[pc];
  const opinfo *info = i->op < VC_OP_COUNT ? &ops[i->op] : NULL;
  size_t start = out->len;
  char name[24];
  if (i->op == VC_OP_ATOM || i->op == VC_OP_ATOM64)
    snprintf(name, sizeof name, "%s.%s", i->op == VC_OP_ATOM ? "atom" : "atom64",
             i->x < VC_ATOM_COUNT ? atom_names[i->x] : "?");
  else
    snprintf(name, sizeof name, "%s", info ? info->name : "?");
  vc_sb_printf(out, "%5u  %-10s", pc, name);
  uint32_t k = 0;
  for (const char *f = info ? info->fmt : ""; *f; f++) {
    vc_sb_puts(out, f == info->fmt ? " " : ", ");
    operand(o, i, *f, *f == 'x' ? 0 : field(i, k), out);
    if (*f != 'x') k++;
  }
  while (out->len < start + 44) vc_sb_putc(out, ' ');
  vc_sb_printf(out, " ; %u:%u\n", o->locs[pc].line, o->locs[pc].col);
}

char *vc_oracle_disassemble(const vc_oracle *o) {
  vc_strbuf out;
  vc_sb_init(&out);
  vc_sb_printf(&out, "; %s: %u instructions, %u registers (%u symbols), %u segments\n", o->name,
               o->ncode, o->nregs, o->nsyms, o->nsegs);
  vc_sb_puts(&out, "; carried across grid barriers:");
  for (uint32_t k = 0; k < o->npersist; k++) vc_sb_printf(&out, " r%u", o->persist[k]);
  vc_sb_puts(&out, o->npersist ? "\n" : " none\n");
  uint32_t seg = 0;
  for (uint32_t pc = 0; pc < o->ncode; pc++) {
    while (seg < o->nsegs && o->seg_pc[seg] == pc) vc_sb_printf(&out, "; segment %u\n", seg++);
    instruction(o, pc, &out);
  }
  return vc_sb_take(&out);
}
