/* Forward progress of the native grid barrier (docs/litmus.md, *Forward
 * progress*). The barrier assumes that the participants it discovered are
 * all resident; a participant that is not is waited for forever. Two
 * checks, each a number of native launches of one program of many grid
 * barriers whose bytes check themselves:
 *   co-resident     among the discovered participants: every launch ends,
 *                   every wait holds, every byte is right;
 *   over-occupancy  one participant more than the device holds (a device
 *                   option: a phantom arrival that never comes, or a
 *                   cooperative grid one block over the occupancy): every
 *                   launch must be refused or end with a wait that gave up
 *                   and says so, never hang and never release. */
#ifndef VC_PROGRESS_H
#define VC_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

#include "backends/backend.h"
#include "harness/base/error.h"
#include "harness/base/strbuf.h"

/* X(ID, "name", "what it shows"). ORDER: the order of the report. */
#define VC_PROGRESS_CHECK_TABLE(X)                                                        \
  X(CORESIDENT, "co-resident",                                                            \
    "the discovered participants are resident: every barrier among them releases")        \
  X(OVER, "over-occupancy",                                                               \
    "one participant over the occupancy is refused or detected, never waited for forever")

typedef enum vc_progress_check {
#define VC_X(id, name, what) VC_PROGRESS_##id,
  VC_PROGRESS_CHECK_TABLE(VC_X)
#undef VC_X
  VC_PROGRESS_CHECK_COUNT
} vc_progress_check;

const char *vc_progress_check_name(vc_progress_check c);
const char *vc_progress_check_what(vc_progress_check c);
/* -1 if unknown. */
int vc_progress_check_from_name(const char *name);

typedef struct vc_progress_opts {
  uint32_t trials[VC_PROGRESS_CHECK_COUNT]; /* launches of each check; 0 leaves it out */
  uint32_t barriers;                        /* grid barriers of the program */
  uint32_t workgroup;                       /* invocations per workgroup */
  uint32_t groups;                          /* workgroups of the program */
} vc_progress_opts;

/* The defaults of docs/litmus.md. */
void vc_progress_opts_default(vc_progress_opts *o);
/* 0, or VC_ERR_USAGE naming the option out of range. */
int vc_progress_opts_check(const vc_progress_opts *o, vc_error *err);

/* The program of both checks (vyre format): each of its barriers follows
   an atomic count of every invocation, and after it every invocation
   checks the count is whole. */
void vc_progress_program(const vc_progress_opts *o, vc_strbuf *out);

/* One check, measured. */
typedef struct vc_progress_row {
  vc_progress_check check;
  bool unsupported; /* the device cannot run it; why says why */
  bool errored;     /* a launch failed otherwise; why says how */
  char why[256];
  uint32_t trials;   /* launches asked */
  uint32_t ran;      /* launches that came to an end (every other counter's total) */
  uint32_t released; /* every wait held and every byte was right */
  uint32_t gave_up;  /* a wait ended without its condition, and the run said so */
  uint32_t refused;  /* the launch was refused as too large (VC_ERR_LIMIT) */
  uint32_t wrong;    /* the waits held but a byte was wrong */
  uint32_t hung;     /* a launch did not end within the device's deadline */
  uint32_t participants_min, participants_max;
  uint64_t barriers;   /* device grid barriers of the last launch that ran */
  uint64_t slowest_ns; /* the longest launch */
  uint64_t median_ns;  /* of the launches that ran */
  uint64_t shortest_give_up_ns; /* the shortest launch whose wait gave up */
  bool inconclusive;   /* OVER: no spin limit was found at which the same launch
                          without the extra participant releases (the caller's) */
  uint64_t wall_ns;
} vc_progress_row;

/* "pass" (co-resident: every launch released), "detected" (over: every
   launch refused or gave up), "inconclusive" (over: see the field),
   "FAIL", "unsupported", "error". A hang
   fails either check; so does a release over the occupancy (the barrier
   did not wait for every participant) and any wait that gave up or byte
   that was wrong among co-resident participants. */
const char *vc_progress_verdict(const vc_progress_row *r);

/* Runs one check on dev: o->trials[check] native launches. dev is opened
   for the check: for OVER, with the option that puts one participant over
   the occupancy. Returns 0 when the row was measured (whatever it holds),
   VC_ERR_TIMEOUT after a launch hung (the row says so; the device may not
   come back), or an error that ended the run. */
int vc_progress_run(const vc_backend *be, vc_dev *dev, vc_progress_check check,
                    const vc_progress_opts *o, vc_progress_row *row, vc_error *err);

#endif
