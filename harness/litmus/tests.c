/* The litmus tests: their names, outcomes, forbidden and weak outcomes, and
 * the program text of each (test, access, place). docs/litmus.md is the
 * prose of this file. */
#include <stdio.h>
#include <string.h>

#include "harness/litmus/litmus.h"
#include "harness/model/outcome.h"

static const char *const test_names[] = {
#define VC_X(id, name, what) name,
    VC_LITMUS_TEST_TABLE(VC_X)
#undef VC_X
};
static const char *const test_whats[] = {
#define VC_X(id, name, what) what,
    VC_LITMUS_TEST_TABLE(VC_X)
#undef VC_X
};
static const char *const place_names[] = {
#define VC_X(id, name, control, mode, what) name,
    VC_LITMUS_PLACE_TABLE(VC_X)
#undef VC_X
};
static const char *const place_whats[] = {
#define VC_X(id, name, control, mode, what) what,
    VC_LITMUS_PLACE_TABLE(VC_X)
#undef VC_X
};
static const bool place_controls[] = {
#define VC_X(id, name, control, mode, what) control,
    VC_LITMUS_PLACE_TABLE(VC_X)
#undef VC_X
};
static const char *const access_names[] = {
#define VC_X(id, name) name,
    VC_LITMUS_ACCESS_TABLE(VC_X)
#undef VC_X
};

const char *vc_litmus_test_name(vc_litmus_test_id t) { return test_names[t]; }
const char *vc_litmus_test_what(vc_litmus_test_id t) { return test_whats[t]; }
const char *vc_litmus_place_name(vc_litmus_place p) { return place_names[p]; }
const char *vc_litmus_place_what(vc_litmus_place p) { return place_whats[p]; }
bool vc_litmus_place_is_control(vc_litmus_place p) { return place_controls[p]; }
const char *vc_litmus_access_name(vc_litmus_access a) { return access_names[a]; }

static int find(const char *const *names, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (strcmp(names[i], name) == 0) return i;
  return -1;
}
int vc_litmus_test_from_name(const char *name) {
  return find(test_names, VC_LITMUS_TEST_COUNT, name);
}
int vc_litmus_place_from_name(const char *name) {
  return find(place_names, VC_LITMUS_PLACE_COUNT, name);
}
int vc_litmus_access_from_name(const char *name) {
  return find(access_names, VC_LITMUS_ACCESS_COUNT, name);
}

/* ---- outcomes ---- */

/* Two reads r0, r1 of 0 or 1: outcome 2*r0 + r1. 2+2W: the final x, y of 1
   or 2, the same way. torn64: old, new, torn. The last is "other". */
static const char *const reg_outcomes[] = {"r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=0", "r0=1 r1=1",
                                           "other"};
static const char *const w22_outcomes[] = {"x=1 y=1", "x=1 y=2", "x=2 y=1", "x=2 y=2", "other"};
static const char *const torn_outcomes[] = {"old", "new", "torn", "other"};
enum { R00, R01, R10, R11, OTHER2 };
enum { OLD, NEW, TORN, OTHER64 };

#define BIT(o) (1u << (o))

typedef struct test_def {
  const char *const *outcomes;
  uint32_t n;
  uint32_t weak;            /* the weak outcome the control looks for */
  uint32_t across;          /* forbidden across a grid barrier or a launch boundary */
  uint32_t atomic_always;   /* forbidden with atomic accesses even with no ordering */
  uint32_t across_plain;    /* forbidden across it besides, with plain accesses */
} test_def;

/* Index by vc_litmus_test_id, in VC_LITMUS_TEST_TABLE's order. */
static const test_def defs[VC_LITMUS_TEST_COUNT] = {
    /* mp: after the barrier B must see A's x; r0 (y, written after it) is free */
    [VC_LITMUS_MP] = {reg_outcomes, 5, BIT(R10), BIT(R00) | BIT(R10), 0},
    /* sb: both reads come after both writes */
    [VC_LITMUS_SB] = {reg_outcomes, 5, BIT(R00), BIT(R00) | BIT(R01) | BIT(R10), 0},
    /* lb: both reads come before both writes */
    [VC_LITMUS_LB] = {reg_outcomes, 5, BIT(R11), BIT(R01) | BIT(R10) | BIT(R11), 0},
    /* 2+2w: the writes after the barrier are the last */
    [VC_LITMUS_W22] = {w22_outcomes, 5, BIT(R00), BIT(R00) | BIT(R01) | BIT(R10), 0},
    /* corr: r1 comes after A's write; atomics are coherent anywhere; plain
       reads both come after the barrier (before it they would race) */
    [VC_LITMUS_CORR] = {reg_outcomes, 5, BIT(R10), BIT(R00) | BIT(R10), BIT(R10), BIT(R01)},
    /* torn64: after the barrier only the new value; a 64-bit atomic never tears */
    [VC_LITMUS_TORN64] = {torn_outcomes, 4, BIT(TORN), BIT(OLD) | BIT(TORN), BIT(TORN)},
};

uint32_t vc_litmus_outcomes(vc_litmus_test_id t) { return defs[t].n; }
const char *vc_litmus_outcome_name(vc_litmus_test_id t, uint32_t o) { return defs[t].outcomes[o]; }
bool vc_litmus_weak(vc_litmus_test_id t, uint32_t o) { return (defs[t].weak & BIT(o)) != 0; }

bool vc_litmus_forbidden(vc_litmus_test_id t, vc_litmus_access a, vc_litmus_place p, uint32_t o) {
  const test_def *d = &defs[t];
  if (o == d->n - 1) return true; /* a value no role wrote */
  uint32_t mask = vc_litmus_place_is_control(p) ? 0 : d->across;
  if (a == VC_LITMUS_ACCESS_ATOMIC) mask |= d->atomic_always;
  else if (!vc_litmus_place_is_control(p)) mask |= d->across_plain;
  return (mask & BIT(o)) != 0;
}

static uint32_t reg(uint32_t r0, uint32_t r1, uint32_t lo) {
  uint32_t a = r0 - lo, b = r1 - lo;
  return a <= 1 && b <= 1 ? 2 * a + b : OTHER2;
}

uint32_t vc_litmus_classify(vc_litmus_test_id t, const uint32_t *r, const uint32_t *x,
                            const uint32_t *y, uint32_t k) {
  switch (t) {
  case VC_LITMUS_W22:
    return reg(x[k], y[k], 1);
  case VC_LITMUS_TORN64: {
    uint32_t lo = r[2 * k], hi = r[2 * k + 1];
    if (lo == 0 && hi == 0) return OLD;
    if (lo == ~0u && hi == ~0u) return NEW;
    if ((lo == 0 || lo == ~0u) && (hi == 0 || hi == ~0u)) return TORN;
    return OTHER64;
  }
  default:
    return reg(r[2 * k], r[2 * k + 1], 0);
  }
}

/* ---- program text ---- */

typedef struct emit {
  vc_strbuf *sb;
  bool atomic;
} emit;

/* mx[I] = V, and a read of B[I], plain or atomic. */
static void wr(emit *e, const char *b, const char *i, const char *v) {
  vc_sb_printf(e->sb, "      (%s %s %s %s)\n", e->atomic ? "atomic store" : "store", b, i, v);
}
/* A flag: a location that A and B race on across the ordering, atomic in
   either access, so that a test across a barrier is a valid program. */
static void wr_flag(emit *e, const char *b, const char *i, const char *v) {
  vc_sb_printf(e->sb, "      (atomic store %s %s %s)\n", b, i, v);
}

/* res[2I + K] = a read of B[J]. */
static void rd_as(emit *e, bool atomic, const char *b, const char *j, const char *i, int k) {
  vc_sb_printf(e->sb, "      (store res (add (mul 2u %s) %du) (%s %s %s))\n", i, k,
               atomic ? "atomic load" : "load", b, j);
}
static void rd_into(emit *e, const char *b, const char *j, const char *i, int k) {
  rd_as(e, e->atomic, b, j, i, k);
}

/* The statements of a test before (half 0) and after (half 1) the ordering;
   i is A's instance, q B's. */
static void half(vc_litmus_test_id t, int h, emit *e) {
  switch (t) {
  case VC_LITMUS_MP:
    if (h == 0) {
      wr(e, "mx", "i", "1u");
    } else {
      wr_flag(e, "my", "i", "1u");
      rd_as(e, true, "my", "q", "q", 0);
      rd_into(e, "mx", "q", "q", 1);
    }
    break;
  case VC_LITMUS_SB:
    if (h == 0) {
      wr(e, "mx", "i", "1u");
      wr(e, "my", "q", "1u");
    } else {
      rd_into(e, "my", "i", "i", 0);
      rd_into(e, "mx", "q", "q", 1);
    }
    break;
  case VC_LITMUS_LB:
    if (h == 0) {
      rd_into(e, "mx", "i", "i", 0);
      rd_into(e, "my", "q", "q", 1);
    } else {
      wr(e, "my", "i", "1u");
      wr(e, "mx", "q", "1u");
    }
    break;
  case VC_LITMUS_W22:
    wr(e, "mx", h ? "q" : "i", h ? "2u" : "1u");
    wr(e, "my", h ? "i" : "q", h ? "2u" : "1u");
    break;
  case VC_LITMUS_CORR:
    if (h == 0) {
      wr(e, "mx", "i", "1u");
      if (e->atomic) rd_into(e, "mx", "q", "q", 0);
    } else {
      if (!e->atomic) rd_into(e, "mx", "q", "q", 0);
      rd_into(e, "mx", "q", "q", 1);
    }
    break;
  case VC_LITMUS_TORN64:
    if (h == 0) {
      vc_sb_printf(e->sb, "      (%s mx i 0xffffffffffffffffu64)\n",
                   e->atomic ? "atomic exchange" : "store");
    } else {
      /* an atomic 64-bit read is a read-modify-write that changes nothing */
      vc_sb_printf(e->sb, "      (let v %s)\n",
                   e->atomic ? "(atomic or mx q 0u64)" : "(load mx q)");
      vc_sb_puts(e->sb, "      (store res (mul 2u q) (cast u32 v))\n"
                        "      (store res (add (mul 2u q) 1u) (cast u32 (shr v 32u64)))\n");
    }
    break;
  default:
    break;
  }
}

static void roles(vc_litmus_test_id t, int h, const vc_litmus_opts *o, emit *e) {
  uint32_t T = o->testing_groups * o->workgroup;
  vc_sb_printf(e->sb, "  (if (lt g %uu)\n    (block\n      (let i g)\n      (let q (load pair g))\n",
               T);
  if (h < 0) {
    half(t, 0, e);
    half(t, 1, e);
  } else {
    half(t, h, e);
  }
  vc_sb_puts(e->sb, "    )");
  /* atomics, so that the stress is no race (and contends for the lines) */
  if (o->stress_groups && o->stress_iters)
    vc_sb_printf(e->sb,
                 "\n    (loop k 0u %uu\n"
                 "      (let a (rem (add (mul g 1031u) (mul k 97u)) %uu))\n"
                 "      (atomic add scratch a k)))\n",
                 o->stress_iters, o->scratch);
  else
    vc_sb_puts(e->sb, ")\n");
}

void vc_litmus_program(vc_litmus_test_id t, vc_litmus_access a, vc_litmus_place p,
                       const vc_litmus_opts *o, const uint32_t *pair, vc_strbuf *out) {
  uint32_t T = o->testing_groups * o->workgroup;
  const char *wide = t == VC_LITMUS_TORN64 ? "u64" : "u32";
  char name[64]; /* "2+2w" is not a program name */
  snprintf(name, sizeof name, "%s_%s_%s", test_names[t], access_names[a], place_names[p]);
  for (char *c = name; *c; c++)
    if (*c == '+') *c = '_';
  vc_sb_printf(out,
               "(program litmus_%s\n"
               "  (doc \"%s; %s accesses; ordered by %s\")\n"
               "  (workgroup %u)\n  (grid %u)\n"
               "  (buffer pair u32 %u read",
               name, test_whats[t], access_names[a], place_whats[p], o->workgroup,
               o->testing_groups + o->stress_groups, T);
  if (pair) {
    vc_sb_puts(out, " (init (values");
    for (uint32_t g = 0; g < T; g++) vc_sb_printf(out, "%s%u", g % 16 ? " " : "\n   ", pair[g]);
    vc_sb_puts(out, "))");
  }
  vc_sb_printf(out,
               ")\n"
               "  (buffer mx %s %u read_write)\n"
               "  (buffer my u32 %u read_write)\n"
               "  (buffer res u32 %u read_write)\n"
               "  (buffer scratch u32 %u read_write)\n"
               "  (entry\n  (let g (global_id x))\n",
               wide, T, T, 2 * T, o->scratch);
  emit e = {out, a == VC_LITMUS_ACCESS_ATOMIC};
  if (p == VC_LITMUS_PLACE_NONE) {
    roles(t, -1, o, &e);
  } else {
    roles(t, 0, o, &e);
    vc_sb_printf(out, "  (barrier %s)\n", p == VC_LITMUS_PLACE_WORKGROUP ? "workgroup" : "grid");
    roles(t, 1, o, &e);
  }
  vc_sb_puts(out, "  ))\n");
}
