#!/bin/sh
# ci/qualify runs its backends at once, sharing one device lock: on PoCL
# and lavapipe, with a small corpus of its own, the outputs are those of
# one run after another (the runs in the backends' order in one database,
# each run's text, the record and its HTML and JUnit, one exit line per
# backend in order, the worst status), and no two device phases of the
# runs overlap (the workers' device log, docs/usage.md). A backend that
# cannot run makes the exit status its own. The litmus runs and the
# crossover maps of both devices are in the record.
# usage: qualify_test.sh SOURCE_DIR BUILD_DIR
set -u
src=$1 build=$2
command -v sqlite3 >/dev/null || { echo "FAIL: this test needs the sqlite3 shell"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
mkdir "$tmp/corpus"
cat >"$tmp/corpus/a.vyre" <<'P'
(program a_spill (workgroup 8) (grid 4)
  (buffer a u32 32 read_write (init iota))
  (buffer out u32 32 write)
  (entry (let g (global_id x)) (let v (load a g))
    (store a g (add v 100u)) (barrier grid)
    (store out g (add v (load a (sub 31u g))))))
P
cat >"$tmp/corpus/b.vyre" <<'P'
(program b_plain (workgroup 4) (grid 2)
  (buffer o u32 8 write)
  (entry (store o (global_id x) (mul (global_id x) 3u))))
P
cd "$tmp" || exit 1
export POCL_KERNEL_CACHE=0 MESA_VK_IGNORE_CONFORMANCE_WARNING=1 XDG_CACHE_HOME="$tmp/xdg"
export VYRE_CONFORM_DEVICE_LOG="$tmp/device.log"
small="--launches 1 --workgroup 16 --testing-groups 4 --stress-groups 1 --stress-iters 4 --scratch 64 --progress-trials 2 --over-trials 1 --progress-groups 64"
sh "$src/ci/qualify" --litmus-args "$small" \
  --crossover-args "--barriers 1,2 --live 4K --runs 1 --budget 0.1" "$build" out opencl vulkan \
  >stdout.txt 2>&1
rc=$?
[ "$rc" = 0 ] || { fail "exit $rc, expected 0"; sed 's/^/    /' stdout.txt out/run-*.txt out/litmus-*.txt; }
[ "$(cat stdout.txt)" = "opencl: exit 0
vulkan: exit 0
opencl litmus: exit 0
vulkan litmus: exit 0
opencl crossover: exit 0
vulkan crossover: exit 0" ] || { fail "stdout:"; sed 's/^/    /' stdout.txt; }
for f in backends.txt run-opencl.txt run-vulkan.txt litmus-opencl.txt litmus-vulkan.txt \
         crossover-opencl.txt crossover-vulkan.txt crossover-opencl/crossover.csv \
         crossover-vulkan/crossover-4K.svg qualification.md qualification.html qualification.xml; do
  [ -s "out/$f" ] || fail "no out/$f"
done
[ -e out/device.lock ] && fail "out/device.lock left behind"
# each run is given its backend's file of the checkout ci/qualify is in, not
# left to find one (a build tree copied to a GPU machine finds none)
for be in opencl vulkan; do
  grep -qx "expectations: $src/ci/expectations/$be.txt" "out/run-$be.txt" ||
    fail "run-$be.txt does not name the file it was given: $(grep '^expectations' "out/run-$be.txt")"
done
n=$(sqlite3 out/qualification.db "SELECT count(*) FROM runs WHERE command_line LIKE '%--expectations $src/ci/expectations/' || backend || '.txt%'")
[ "$n" = 2 ] || fail "$n runs were given --expectations, expected 2"
runs=$(sqlite3 out/qualification.db "SELECT id || ':' || backend FROM runs ORDER BY id" | tr '\n' ' ')
[ "$runs" = "1:opencl 2:vulkan " ] || fail "runs: $runs"
n=$(sqlite3 out/qualification.db "SELECT count(*) FROM results WHERE status = 'pass'")
[ "$n" = 12 ] || fail "$n results pass, expected 12 (2 programs, 3 modes, 2 backends)"
# at most one device phase at a time over both runs' workers
depth=$(awk '$1 == "enter" || $1 == "leave" { print $2, $1 }' device.log | sort -n |
  awk '{ d += ($2 == "enter") ? 1 : -1; if (d > m) m = d } END { print m + 0 }')
phases=$(grep -c '^enter' device.log)
[ "$phases" = 12 ] || fail "$phases device phases logged, expected 12"
[ "$depth" = 1 ] || fail "$depth device phases at once, expected 1"
# the litmus runs of both devices are in the record
n=$(sqlite3 out/qualification.db "SELECT count(*) FROM litmus_runs WHERE verdict = 'pass'")
[ "$n" = 2 ] || fail "$n litmus runs passed, expected 2"
n=$(grep -c '^### Run [12], \(opencl\|vulkan\)$' out/qualification.md)
grep -q '^## Grid-sync contract' out/qualification.md && [ "$n" -ge 2 ] ||
  fail "the record has no grid-sync contract section for both runs"
n=$(sqlite3 out/qualification.db "SELECT count(*) FROM crossover_points p JOIN crossover_maps m
  ON m.id = p.crossover_map WHERE m.verdict = 'pass' AND p.state = 'ran'")
[ "$n" = 12 ] || fail "$n crossover points ran, expected 12 (2 points, 3 modes, 2 devices)"
sed -n '/^## Choosing a mode/,/^## Matrix/p' out/qualification.md >xo.md
[ "$(grep -c '^### Run [12], \(opencl\|vulkan\)$' xo.md)" = 2 ] ||
  fail "the record's Choosing a mode has not both runs: $(cat xo.md)"
[ "$(grep -c '^4 KiB live: ' xo.md)" = 2 ] || fail "where each mode wins: not a line a device"
# a backend that cannot run: its status is the worst, the others still run
sh "$src/ci/qualify" --no-litmus --no-crossover "$build" out2 opencl no-such-backend \
  >stdout2.txt 2>&1
rc=$?
[ "$rc" = 3 ] || { fail "with a missing backend: exit $rc, expected 3"; sed 's/^/    /' stdout2.txt; }
grep -q '^opencl: exit 0$' stdout2.txt || fail "with a missing backend: opencl did not pass"
[ -s out2/qualification.md ] || fail "with a missing backend: no record"
[ "$failures" = 0 ] && echo "qualify: all checks passed"
exit "$failures"
