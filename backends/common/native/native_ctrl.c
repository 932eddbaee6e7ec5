/* The host side of a native kernel's control buffer: the words written
 * before a launch, and the judgement of the words read back after it. */
#include "backends/common/native/native_ctrl.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "harness/base/mutant.h"

/* native-counter-reuse: a plugin that resets the barrier's words before a
   kernel's first launch only, emulated here since every plugin writes all
   the words it gets: when the kernel of the last launch, whose words
   native_stats read back, launches again, its barrier words go back in
   place of the reset. A new kernel (vc_native_shape_of) starts afresh. */
static struct {
  const vc_native_ctrl_opts *kern; /* the last launch's kernel, by its settings */
  bool left;                       /* words holds what that launch left */
  uint32_t words[VC_NC_WORDS];
} reuse;

void vc_native_shape_of(const vc_kernel_desc *k, bool cooperative, vc_native_shape *s) {
  const vc_program *p = k->prog;
  memset(s, 0, sizeof *s);
  s->virtual_wgs = (uint32_t)vc_program_workgroups(p);
  s->nsegments = k->native ? k->native->nsegments : 1;
  s->max_passes = k->native && k->native->fixpoint.present ? k->native->fixpoint.max : 1;
  s->has_flag = k->native && k->native->fixpoint.present && k->native->fixpoint.has_flag;
  s->cooperative = cooperative;
  if (VC_MUTANT(NATIVE_COUNTER_REUSE)) {
    reuse.kern = NULL;
    reuse.left = false;
  }
}

bool vc_native_has_grid_barrier(const vc_native_desc *d) {
  const vc_fixpoint *fx = &d->fixpoint;
  return d->nsegments > 1 || (fx->present && (fx->has_flag || fx->max > 1));
}

void vc_native_ctrl_init(uint32_t words[VC_NC_WORDS], const vc_native_ctrl_opts *o) {
  memset(words, 0, VC_NC_WORDS * sizeof words[0]);
  words[VC_NC_UNTRUST_AT] = 0xffffffffu;
  words[VC_NC_CAP] = o->cap;
  words[VC_NC_SPIN_LIMIT] = o->spin_limit;
  words[VC_NC_WINDOW] = o->window;
  words[VC_NC_PHANTOMS] = o->phantoms;
  words[VC_NC_EXPECT] = o->expect;
  if (VC_MUTANT(NATIVE_COUNTER_REUSE)) {
    static const uint32_t kept[] = {VC_NC_POLL, VC_NC_ARRIVE, VC_NC_GEN, VC_NC_TICKETS};
    if (reuse.kern == o && reuse.left)
      for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++) words[kept[i]] = reuse.words[kept[i]];
    if (reuse.kern != o) {
      reuse.kern = o;
      reuse.left = false;
    }
  }
}

/* A pass is the segments, each followed by a barrier except the last of the
   run; with a flag, a barrier after the reset and one after the read of
   every pass but the last. */
uint64_t vc_native_expected_barriers(const vc_native_shape *s, uint32_t passes) {
  if (passes == 0) return 0;
  uint64_t n = passes;
  if (s->has_flag) return n * (s->nsegments + 2u) - 1u;
  return n * s->nsegments - 1u;
}

/* Appends one reason to the note, "; " between reasons. */
__attribute__((format(printf, 2, 3))) static void add_note(vc_native_stats *st, const char *fmt,
                                                           ...) {
  size_t len = strlen(st->note);
  if (len + 2 >= sizeof st->note) return;
  if (len) {
    st->note[len++] = ';';
    st->note[len++] = ' ';
    st->note[len] = '\0';
  }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(st->note + len, sizeof st->note - len, fmt, ap);
  va_end(ap);
}

static bool passes_plausible(const vc_native_shape *s, uint32_t passes) {
  if (s->has_flag) return passes >= 1 && passes <= s->max_passes;
  return passes == s->max_passes;
}

void vc_native_ctrl_stats(const uint32_t w[VC_NC_WORDS], const vc_native_shape *s,
                          uint32_t launched, vc_native_stats *st) {
  memset(st, 0, sizeof *st);
  if (VC_MUTANT(NATIVE_COUNTER_REUSE) && reuse.kern) {
    memcpy(reuse.words, w, sizeof reuse.words);
    reuse.left = true;
  }
  uint32_t np = w[VC_NC_PARTICIPANTS];
  st->participants = np;
  st->virtual_per_participant = np ? (s->virtual_wgs + np - 1) / np : 0;
  st->barriers = w[VC_NC_GEN];
  st->passes = w[VC_NC_PASSES];
  uint32_t why = w[VC_NC_UNTRUST];
  if (why & VC_NC_WHY_WAIT)
    add_note(st, "a grid-barrier wait ended without its condition (first at barrier %u)",
             w[VC_NC_UNTRUST_AT]);
  if (why & VC_NC_WHY_VWG)
    add_note(st, "a virtual-workgroup loop ended before its last workgroup");
  if (np == 0 || np > launched || (s->cooperative && np != launched))
    add_note(st, "%u participants of %u workgroups launched", np, launched);
  if (!passes_plausible(s, st->passes))
    add_note(st, "%u fixpoint passes recorded, %s %u", st->passes,
             s->has_flag ? "at most" : "exactly", s->max_passes);
  uint64_t want = vc_native_expected_barriers(s, st->passes);
  if (st->barriers != want)
    add_note(st, "%llu grid barriers completed, the passes need %llu",
             (unsigned long long)st->barriers, (unsigned long long)want);
  /* Every complete barrier leaves the arrival word's low 31 bits as they
     were at the launch (0): the counter barrier resets them, the flip
     barriers add exactly 2^31. Arrivals left over mean a barrier released
     before everyone had arrived (or one still waiting). */
  if (w[VC_NC_ARRIVE] & ~VC_NC_CLOSED)
    add_note(st, "%u arrivals left in the barrier word after the run: a barrier released "
             "before every participant arrived", w[VC_NC_ARRIVE] & ~VC_NC_CLOSED);
  uint64_t runs = (uint64_t)s->virtual_wgs * s->nsegments * st->passes;
  if (w[VC_NC_VWG_RUNS] != (uint32_t)runs)
    add_note(st, "%u virtual workgroup runs, the passes need %u", w[VC_NC_VWG_RUNS],
             (uint32_t)runs); /* the device counts modulo 2^32 */
  st->untrustworthy = st->note[0] != '\0';
  if (!st->untrustworthy)
    snprintf(st->note, sizeof st->note,
             "%u participants (%u late workgroups), %u virtual workgroups each at most", np,
             w[VC_NC_LATE], st->virtual_per_participant);
}
