#!/bin/sh
# vc-crossover-bench on PoCL, small: every point of the map in the table,
# the CSV and the charts, and with --db in the results file, where the
# report's "Choosing a mode" shows it beside a run of the same device; a
# bad --live is a usage error; in a mutant build (MUTANT set), a splitter
# fault that loses the live value is a wrong byte the bench names, exit 1,
# and the map it recorded says it stopped there.
# With OTHER_BACKEND (a build with the Vulkan plugin), a run there shows no
# map: the map is the device's own.
# Usage: crossover_test.sh BENCH VYRE_CONFORM CORPUS_DIR [OTHER_BACKEND]
set -eu
bench=$1 vc=$2 corpus=$3 other=${4:-}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
if [ -n "${MUTANT:-}" ]; then
  set +e
  VYRE_CONFORM_MUTANT=$MUTANT "$bench" --backend opencl --barriers 2 --live 4K --runs 1 \
    --db "$t/q.db" >"$t/log" 2>&1
  st=$?
  set -e
  [ "$st" = 1 ] || fail "under $MUTANT: exit $st, want 1: $(cat "$t/log")"
  grep -q 'is due' "$t/log" || fail "under $MUTANT: no wrong byte named: $(cat "$t/log")"
  "$vc" --backend opencl --db "$t/q.db" --mode native "$corpus/values/let_load.vyre" >/dev/null 2>&1 || :
  "$vc" report "$t/q.db" --md "$t/r.md" >/dev/null 2>&1 || :
  grep -q 'FAIL; up to 1 timed run' "$t/r.md" || fail "under $MUTANT: the map is not marked FAIL"
  grep -q 'The map stopped at a failed run' "$t/r.md" || fail "under $MUTANT: no stop said"
  echo "ok: $MUTANT gives a wrong byte: $(grep 'is due' "$t/log")"
  exit 0
fi
set +e
"$bench" --backend opencl --live 1000 >"$t/log" 2>&1
st=$?
set -e
[ "$st" = 2 ] || fail "--live 1000: exit $st, want 2"
"$bench" --backend opencl --barriers 1,3 --live 4K,8K --runs 2 --budget 5 --out "$t/map" \
  --db "$t/q.db" >"$t/log" 2>&1 || fail "the map: $(cat "$t/log")"
cat "$t/log"
[ "$(grep -c -E '^ +[13] +[48]K ' "$t/log")" = 4 ] || fail "4 points printed"
[ "$(tail -n +2 "$t/map/crossover.csv" | wc -l)" = 12 ] || fail "12 CSV rows (4 points x 3 modes)"
[ "$(tail -n +2 "$t/map/crossover.csv" | awk -F, '$7 == 1' | wc -l)" = 4 ] || fail "one winner a point"
! grep -q ',-1,' "$t/map/crossover.csv" || fail "a mode did not run on PoCL"
for l in 4K 8K; do
  grep -q '<svg xmlns="http://www.w3.org/2000/svg"' "$t/map/crossover-$l.svg" || fail "chart $l"
done
[ "$(grep -c '^| [13] | [48]K |' "$t/map/crossover.md")" = 4 ] || fail "4 Markdown rows"
# the record: a run of the same backend and device, then its report
"$vc" --backend opencl --db "$t/q.db" "$corpus/values/let_load.vyre" >"$t/run.log" 2>&1 ||
  fail "the run: $(cat "$t/run.log")"
"$vc" report "$t/q.db" --md "$t/r.md" --html "$t/r.html" >/dev/null 2>&1 || fail "report"
sed -n '/^## Choosing a mode/,/^## Matrix/p' "$t/r.md" >"$t/sec.md"
cat "$t/sec.md"
grep -q '^Map 1, .*: pass; up to 2 timed runs' "$t/sec.md" || fail "the map's line"
[ "$(grep -c -E '^\| [13] \| [48] KiB \|.*\| (native|resident-split|host-split) \|$' "$t/sec.md")" = 4 ] ||
  fail "4 rows in the record, each with its winner"
[ "$(grep -c -E '^[48] KiB live: [a-z-]+ at ' "$t/sec.md")" = 2 ] || fail "where each mode wins, a line a size"
# the winners the record names are the bench's own
for w in $(awk -F, 'NR > 1 && $7 == 1 {print $1 "/" $2 "/" $3}' "$t/map/crossover.csv"); do
  b=${w%%/*} rest=${w#*/} l=$((${rest%%/*} / 1024)) m=${w##*/}
  grep -q -E "^\| $b \| $l KiB \|.*\| $m \|\$" "$t/sec.md" || fail "winner of $b, $l KiB: $m"
done
[ "$(sed -n '/Choosing a mode/,/<h2/p' "$t/r.html" | grep -c '<svg')" = 2 ] || fail "2 charts in the HTML record"
if [ -n "$other" ]; then
  "$vc" --backend "$other" --db "$t/q.db" "$corpus/values/let_load.vyre" >"$t/run2.log" 2>&1 ||
    fail "the $other run: $(cat "$t/run2.log")"
  "$vc" report "$t/q.db:2" --md "$t/r2.md" >/dev/null 2>&1 || fail "report of run 2"
  grep -q 'values/let_load\|let_load' "$t/r2.md" || fail "run 2's report is not of the run"
  ! grep -q '^## Choosing a mode' "$t/r2.md" || fail "the $other run shows the OpenCL map"
fi
echo "ok"
