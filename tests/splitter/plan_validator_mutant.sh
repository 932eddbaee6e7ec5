#!/bin/sh
# In the mutant build: a splitter that leaves the grid barrier in the
# segment before the cut (segment-keeps-barrier) gives the oracle the right
# bytes, but the plan validator refuses its plan in check (exit 7) and in a
# run (the setup step's error, before any device work; every mode skipped),
# and reduce --check shrinks such a program keeping that failure.
# Usage: plan_validator_mutant.sh SOURCE_DIR BUILD_DIR
set -u
src=$1
vc=$2/vyre-conform
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
  echo "plan_validator_mutant: $1" >&2
  [ -f "$2" ] && cat "$2" >&2
  exit 1
}
prog=$src/corpus/structure/one_barrier.vyre
why="plan validator: barrier-in-segment: program one_barrier, segment 0 (one_barrier.seg0): keeps a grid barrier at"

"$vc" check --quiet "$prog" >"$work/check0" 2>&1 || fail "check fails without the fault" "$work/check0"
"$vc" --backend opencl --expectations none --db "$work/r0.db" "$prog" >"$work/run0" 2>&1 ||
  fail "the run fails without the fault" "$work/run0"

VYRE_CONFORM_MUTANT=segment-keeps-barrier "$vc" check --quiet "$prog" >"$work/check1" 2>&1
rc=$?
[ "$rc" -eq 7 ] || fail "check under segment-keeps-barrier exited $rc, not 7" "$work/check1"
grep -qF "FAIL  $prog: $why" "$work/check1" || fail "check does not name the rule" "$work/check1"

VYRE_CONFORM_MUTANT=segment-keeps-barrier "$vc" --backend opencl --expectations none \
  --db "$work/r1.db" "$prog" >"$work/run1" 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "the run under segment-keeps-barrier exited $rc, not 1" "$work/run1"
grep -qF "one_barrier setup:error native:skip host-split:skip resident-split:skip" "$work/run1" ||
  fail "the run does not record the setup step's error and skip the modes" "$work/run1"
grep -qF "setup #1: $why" "$work/run1" || fail "the run does not record the rule" "$work/run1"
# reduce --check keeps a plan the validator refuses as its failure, as it
# keeps a wrong result: it shrinks the program rather than saying that the
# check passes (exit 8)
VYRE_CONFORM_MUTANT=segment-keeps-barrier "$vc" reduce "$prog" --check --quiet \
  --out "$work/reduced.vyre" >"$work/reduce" 2>&1
rc=$?
[ "$rc" -eq 0 ] || fail "reduce --check under segment-keeps-barrier exited $rc, not 0" "$work/reduce"
VYRE_CONFORM_MUTANT=segment-keeps-barrier "$vc" check --quiet "$work/reduced.vyre" >"$work/check2" 2>&1
rc=$?
[ "$rc" -eq 7 ] || fail "the reduced program under the fault: check exited $rc, not 7" "$work/check2"
grep -qF "plan validator: barrier-in-segment" "$work/check2" ||
  fail "the reduced program fails another way" "$work/check2"
echo "plan_validator_mutant: check exits 7 and the run records the setup error, naming the rule;"
echo "  reduce --check shrinks a program whose plan the validator refuses"
