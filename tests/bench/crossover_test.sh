#!/bin/sh
# vc-crossover-bench on PoCL, small: every point of the map in the table,
# the CSV and the charts; a bad --live is a usage error; in a mutant build
# (MUTANT set), a splitter fault that loses the live value is a wrong byte
# the bench names, exit 1.
set -eu
bench=$1
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
if [ -n "${MUTANT:-}" ]; then
  set +e
  VYRE_CONFORM_MUTANT=$MUTANT "$bench" --backend opencl --barriers 2 --live 4K --runs 1 >"$t/log" 2>&1
  st=$?
  set -e
  [ "$st" = 1 ] || fail "under $MUTANT: exit $st, want 1: $(cat "$t/log")"
  grep -q 'is due' "$t/log" || fail "under $MUTANT: no wrong byte named: $(cat "$t/log")"
  echo "ok: $MUTANT gives a wrong byte: $(grep 'is due' "$t/log")"
  exit 0
fi
set +e
"$bench" --backend opencl --live 1000 >"$t/log" 2>&1
st=$?
set -e
[ "$st" = 2 ] || fail "--live 1000: exit $st, want 2"
"$bench" --backend opencl --barriers 1,3 --live 4K,8K --runs 2 --budget 5 --out "$t/map" >"$t/log" 2>&1 ||
  fail "the map: $(cat "$t/log")"
cat "$t/log"
[ "$(grep -c -E '^ +[13] +[48]K ' "$t/log")" = 4 ] || fail "4 points printed"
[ "$(tail -n +2 "$t/map/crossover.csv" | wc -l)" = 12 ] || fail "12 CSV rows (4 points x 3 modes)"
[ "$(tail -n +2 "$t/map/crossover.csv" | awk -F, '$7 == 1' | wc -l)" = 4 ] || fail "one winner a point"
! grep -q ',-1,' "$t/map/crossover.csv" || fail "a mode did not run on PoCL"
for l in 4K 8K; do
  grep -q '<svg xmlns="http://www.w3.org/2000/svg"' "$t/map/crossover-$l.svg" || fail "chart $l"
done
[ "$(grep -c '^| [13] | [48]K |' "$t/map/crossover.md")" = 4 ] || fail "4 Markdown rows"
echo "ok"
