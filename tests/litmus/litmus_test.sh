#!/bin/sh
# A short `vyre-conform litmus` on a real device: every test x access x
# place runs, the split places and the native barrier show no forbidden
# outcome, and the results file holds every outcome's count; bad options
# are refused with exit 2 and a message naming them.
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
  --stress-groups 4 --stress-iters 16 --scratch 4096 --seed 3 --db l.db >out.txt 2>err.txt
st=$?
cat out.txt err.txt
[ "$st" -eq 0 ] || fail "litmus exited $st, not 0"
rows=$(grep -cE '^(pass|weak|no weak|FAIL|error|unsupported) ' out.txt)
[ "$rows" -eq 60 ] || fail "$rows rows printed, not 60 (6 tests x 2 accesses x 5 places)"
grep -q '^60 rows: 0 failed, 0 errors' out.txt || fail "the summary line is missing or counts failures"
q() { sqlite3 l.db "$1"; }
[ "$(q 'SELECT count(*) FROM litmus_runs')" = 1 ] || fail "not one litmus run recorded"
[ "$(q 'SELECT verdict FROM litmus_runs')" = pass ] || fail "the run's verdict is not pass"
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
grep -q '^| sb | plain | native | 2048 | 0 | - |' r.md || fail "the report has no row for sb plain native"
[ "$(grep -c '^| \(mp\|sb\|lb\|2+2w\|corr\|torn64\) |' r.md)" -eq 60 ] ||
  fail "the report's section does not have 60 rows"

[ "$failures" -eq 0 ] && echo "all checks passed"
[ "$failures" -eq 0 ]
