#!/bin/sh
# The worker's and the driver's standard error, kept per result: PoCL with
# POCL_DEBUG=1 writes its log to fd 2 during each mode; every result of the
# run holds a bounded piece of it, and the run's own standard error still
# shows all of it.
# usage: stderr_pocl_test.sh VYRE_CONFORM SOURCE_DIR
set -eu
vc=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
POCL_DEBUG=1 "$vc" --backend opencl --db "$tmp/r.db" --expectations none \
  --filter f32_signed_zero "$src/corpus/" >"$tmp/out" 2>"$tmp/err" || {
  echo "the run failed:"; cat "$tmp/out" "$tmp/err"; exit 1; }
fail() { echo "FAIL: $*"; exit 1; }
n=$(sqlite3 "$tmp/r.db" "SELECT count(*) FROM results")
[ "$n" -eq 3 ] || fail "expected 3 results, got $n"
with=$(sqlite3 "$tmp/r.db" "SELECT count(*) FROM results WHERE stderr LIKE '%POCL: in fn%'")
[ "$with" -eq 3 ] || fail "only $with of 3 results kept PoCL's log"
longest=$(sqlite3 "$tmp/r.db" "SELECT max(length(stderr)) FROM results")
[ "$longest" -le 1023 ] || fail "a result kept $longest bytes, above the bound of 1023"
grep -q 'POCL: in fn' "$tmp/err" || fail "the run's standard error lost PoCL's log"
echo "ok: 3 results with PoCL's log (at most $longest bytes each)"
