#!/bin/sh
# A short `vyre-conform litmus` on a real device: every test x access x
# place runs, the split places and the native barrier show no forbidden
# outcome, and the results file holds every outcome's count; the
# forward-progress checks pass (co-resident) and see one participant over
# the occupancy (over-occupancy); a sweep of stress settings gives a row per
# setting; a native launch whose wait gave up is no evidence (error); bad
# options are refused with exit 2 and a message naming them.
# usage: litmus_test.sh VYRE_CONFORM BACKEND
set -u
vc=$1
backend=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# 2 launches of 16 x 64 instances: 2048 iterations a row
"$vc" litmus --backend "$backend" --launches 2 --workgroup 64 --testing-groups 16 \
  --stress-groups 4 --stress-iters 16 --scratch 4096 --seed 3 --progress-trials 4 \
  --progress-groups 256 --db l.db >out.txt 2>err.txt
st=$?
cat out.txt err.txt
[ "$st" -eq 0 ] || fail "litmus exited $st, not 0"
rows=$(grep -cE '^(pass|weak|no weak|FAIL|error|unsupported) +(mp|sb|lb|2\+2w|corr|torn64) ' out.txt)
[ "$rows" -eq 60 ] || fail "$rows rows printed, not 60 (6 tests x 2 accesses x 5 places)"
grep -q '^60 rows: 0 failed, 0 errors, [0-9]* unsupported; 2 forward-progress checks: 0 failed, 0 errors, 0 unsupported' out.txt ||
  fail "the summary line is missing or counts failures"
grep -q '^pass        co-resident    4 of 4 launches: 4 released, 0 gave up' out.txt ||
  fail "the co-resident check did not pass"
grep -q '^detected    over-occupancy 2 of 2 launches: 0 released, 2 gave up' out.txt ||
  fail "the over-occupancy check did not see the missing participant"
q() { sqlite3 l.db "$1"; }
[ "$(q 'SELECT count(*) FROM litmus_runs')" = 1 ] || fail "not one litmus run recorded"
[ "$(q 'SELECT verdict FROM litmus_runs')" = pass ] || fail "the run's verdict is not pass"
[ "$(q "SELECT group_concat(check_name || ' ' || verdict || ' ' || ran || ' ' || (participants_min > 0) || ' ' || barriers, ', ') FROM progress_results")" = \
  "co-resident pass 4 1 16, over-occupancy detected 2 1 16" ] ||
  fail "the file does not hold both checks: $(q 'SELECT * FROM progress_results')"
# the spin limit that ran is recorded: the first at which the same launches
# without the phantom released (the control, printed when it grows)
q "SELECT device_options FROM progress_results WHERE check_name = 'over-occupancy'" |
  grep -qx 'native-phantoms=1,native-spin=[0-9]*' || fail "the over-occupancy check's options are not recorded"

[ "$(q 'SELECT count(DISTINCT test || access || place) FROM litmus_results')" = 60 ] ||
  fail "the file does not hold 60 test x access x place"
[ "$(q "SELECT count(*) FROM litmus_results WHERE verdict NOT IN ('unsupported') AND iterations <> 2048")" = 0 ] ||
  fail "a row ran other than 2048 iterations"
[ "$(q "SELECT count(*) FROM (SELECT sum(count) s, iterations i FROM litmus_results WHERE verdict <> 'unsupported' GROUP BY test, access, place) WHERE s <> i")" = 0 ] ||
  fail "a row's outcome counts do not add up to its iterations"
[ "$(q "SELECT coalesce(sum(count), 0) FROM litmus_results WHERE forbidden = 1")" = 0 ] ||
  fail "a forbidden outcome was recorded"
[ "$(q "SELECT count(*) FROM litmus_results WHERE control = 0 AND verdict NOT IN ('pass', 'unsupported')")" = 0 ] ||
  fail "a barrier place did not pass"
# the split places run on every device
[ "$(q "SELECT count(DISTINCT test || access) FROM litmus_results WHERE place = 'resident-split' AND verdict = 'pass'")" = 12 ] ||
  fail "resident-split did not pass every test x access"

# bad input
"$vc" litmus --backend "$backend" --test mp,xx >o 2>e
st=$?
[ "$st" -eq 2 ] || fail "--test xx exited $st, not 2"
grep -q 'no test named "xx"' e || fail "--test xx: $(cat e)"
"$vc" litmus --backend "$backend" --testing-groups 1 >o 2>e
st=$?
[ "$st" -eq 2 ] || fail "--testing-groups 1 exited $st, not 2"
grep -q -- '--testing-groups' e || fail "--testing-groups 1: $(cat e)"
"$vc" litmus --backend nosuch >o 2>e
st=$?
[ "$st" -eq 3 ] || fail "--backend nosuch exited $st, not 3"
# a row that does not finish within --timeout (2^20 atomic adds for each of
# 16384 stress invocations take far longer than a second on any CPU) is a
# timeout: recorded, and the run ends with status 1
"$vc" litmus --backend "$backend" --test sb --access plain --place none --stress-groups 64 \
  --stress-iters 1048576 --timeout 1 --db t.db >o 2>e
st=$?
[ "$st" -eq 1 ] || fail "a row past --timeout exited $st, not 1: $(cat o e)"
grep -q '^timeout     sb     plain  none  *no result in 1 s' o || fail "no timeout line: $(cat o)"
[ "$(sqlite3 t.db "SELECT verdict FROM litmus_runs")" = FAIL ] || fail "the timed-out run is not FAIL"
[ "$(sqlite3 t.db "SELECT count(*) FROM litmus_results WHERE verdict = 'timeout'")" = 1 ] ||
  fail "the timed-out row is not recorded"

# a wait that gave up (a phantom arrival, one participant) orders nothing:
# the native rows are errors, not passes
"$vc" litmus --backend "$backend" --test mp --place native --launches 1 --workgroup 8 \
  --testing-groups 4 --stress-groups 1 --stress-iters 2 --scratch 64 --progress-trials 0 \
  --over-trials 0 --device-options native-cap=1,native-phantoms=1,native-spin=1 >o 2>e
st=$?
[ "$st" -eq 1 ] || fail "native rows whose waits gave up exited $st, not 1: $(cat o e)"
[ "$(grep -c '^error       mp     \(plain\|atomic\)  *native  *launch 0: a grid-barrier wait ended without its condition' o)" -eq 2 ] ||
  fail "the native rows whose waits gave up are not errors: $(cat o)"

# --progress-only: the checks and no row
"$vc" litmus --backend "$backend" --progress-only --progress-trials 2 --over-trials 1 \
  --progress-groups 64 >o 2>e
st=$?
[ "$st" -eq 0 ] || fail "--progress-only exited $st: $(cat o e)"
grep -q '^0 rows: 0 failed, 0 errors, 0 unsupported; 2 forward-progress checks: 0 failed' o ||
  fail "--progress-only did not run the two checks alone: $(cat o)"

# the over-occupancy check can fail: with no participant over the
# occupancy (no phantom) every launch releases, which it must call FAIL
"$vc" litmus --backend "$backend" --progress-only --progress-trials 0 --over-trials 1 \
  --progress-groups 64 --over-options native-spin=4194304 >o 2>e
st=$?
[ "$st" -eq 1 ] || fail "an over-occupancy check that released exited $st, not 1: $(cat o e)"
grep -q '^FAIL        over-occupancy 1 of 1 launches: 1 released' o ||
  fail "an over-occupancy check that released is not FAIL: $(cat o)"

# a sweep: every row at each stress setting, recorded with it
"$vc" litmus --backend "$backend" --test sb --place none,native --launches 1 --workgroup 8 \
  --testing-groups 4 --stress-groups 0,2 --stress-iters 2 --scratch 64 --progress-trials 0 \
  --over-trials 0 --db s.db >o 2>e
st=$?
[ "$st" -eq 0 ] || fail "the sweep exited $st: $(cat o e)"
[ "$(sqlite3 s.db "SELECT group_concat(n, ' ') FROM (SELECT stress_groups || ':' || count(DISTINCT access || place) n FROM litmus_results GROUP BY stress_groups ORDER BY stress_groups)")" = "0:4 2:4" ] ||
  fail "the sweep does not hold 4 rows at each setting: $(sqlite3 s.db 'SELECT * FROM litmus_results')"
"$vc" litmus --backend "$backend" --stress-groups 2,2 >o 2>e
st=$?
[ "$st" -eq 2 ] || fail "--stress-groups 2,2 exited $st, not 2"
grep -q 'listed twice' e || fail "--stress-groups 2,2: $(cat e)"

# --emit writes programs that check passes (parse, validate, oracle: no
# race across the barrier) and that run as they are
for t in mp sb lb 2+2w corr torn64; do
  for a in plain atomic; do
    "$vc" litmus --emit --test "$t" --access "$a" --place host-split --testing-groups 2 \
      --workgroup 4 --stress-groups 1 --stress-iters 2 --scratch 8 >p.vyre || fail "--emit $t $a failed"
    "$vc" check p.vyre >o 2>e || fail "check of the emitted $t $a: $(cat o e)"
  done
done
"$vc" --backend "$backend" --db l.db p.vyre >o 2>e || fail "a run of the emitted torn64: $(cat o e)"

# the report of that run shows the litmus run of its device
"$vc" report l.db --md r.md >o 2>e || fail "report: $(cat o e)"
grep -q '^## Grid-sync contract' r.md || fail "the report has no grid-sync contract section"
grep -q '^| sb | plain | native | 4 | 2048 | 0 | - |' r.md || fail "the report has no row for sb plain native"
grep -q '^| co-resident | 4 of 4 | 4 | 0 | 0 | 0 | 0 |' r.md || fail "the report has no co-resident check"
grep -q '^| over-occupancy | 2 of 2 | 0 | 2 | 0 | 0 | 0 |' r.md || fail "the report has no over-occupancy check"
[ "$(grep -c '^| \(mp\|sb\|lb\|2+2w\|corr\|torn64\) |' r.md)" -eq 60 ] ||
  fail "the report's section does not have 60 rows"

[ "$failures" -eq 0 ] && echo "all checks passed"
[ "$failures" -eq 0 ]
