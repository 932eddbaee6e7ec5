#!/bin/sh
# merge on real shards: a corpus written here, run on PoCL whole and as 2
# and as 3 shards (--exclude-tag before --shard), merges into a run with the
# whole run's cells (program x mode x status) and selection digest; every
# shard records that digest. A shard run by a copy of the binary with one
# byte appended (it still runs; its build id differs) is refused, exit 4,
# and merges with --allow-mixed, recorded as mixed=build.
# usage: merge_pocl_test.sh VYRE_CONFORM
set -u
vc=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/xdg" POCL_CACHE_DIR="$tmp/pocl"
fail() { echo "FAIL: $*"; exit 1; }
q() { sqlite3 "$1" "$2" || fail "sqlite3 $1: $2"; }

mkdir -p "$tmp/corpus/sub"
for i in 1 2 3 4 5 6 7; do
  dir=$tmp/corpus
  [ "$i" -gt 4 ] && dir=$tmp/corpus/sub
  tags=""
  [ "$i" = 6 ] && tags="(tags left-out)"
  cat >"$dir/m$i.vyre" <<PROG
(program merge_m$i
  (doc "out = in + $i across a grid barrier")
  $tags
  (workgroup 32)
  (grid $i)
  (buffer input u32 $((32 * i)) read (init (random $i)))
  (buffer out u32 $((32 * i)) write)
  (entry
    (let gid (global_id x))
    (var v (add (load input gid) ${i}u))
    (barrier grid)
    (store out gid v)))
PROG
done
run() { # DB [options]: a run of the corpus; exit 0 expected
  db=$1
  shift
  "$bin" --backend opencl --expectations none --exclude-tag left-out --db "$db" "$@" \
    "$tmp/corpus" >"$db.out" 2>&1 || { rc=$?; cat "$db.out"; fail "$bin $* exited $rc"; }
}
bin=$vc
run "$tmp/all.db"
grep -q "^build: [0-9a-f]\{64\}, plugin [0-9a-f]\{64\}$" "$tmp/all.db.out" ||
  fail "the run's header names no build: $(head -4 "$tmp/all.db.out")"
"$vc" --version | grep -q "^build: $(q "$tmp/all.db" "SELECT build_id FROM runs")$" ||
  fail "--version does not print the build id the run recorded"
sel=$(q "$tmp/all.db" "SELECT selection_digest || ' ' || selection_programs FROM runs")
[ "${sel#* }" = 6 ] || fail "the whole run's selection is not 6 programs: $sel"
cells() { # the cells of run 1 of DB, one line each, sorted
  q "$1" "SELECT p.name, r.mode, r.status FROM results r JOIN programs p ON p.id = r.program_id
          WHERE r.run_id = (SELECT max(id) FROM runs) ORDER BY 1, 2, r.repeat"
}
cells "$tmp/all.db" >"$tmp/all.cells"
[ "$(wc -l <"$tmp/all.cells")" -eq 18 ] || fail "the whole run has not 18 cells: $(cat "$tmp/all.cells")"

for n in 2 3; do
  set --
  k=0
  while [ "$k" -lt "$n" ]; do
    run "$tmp/s$k-$n.db" --shard "$k/$n"
    got=$(q "$tmp/s$k-$n.db" "SELECT selection_digest || ' ' || selection_programs FROM runs")
    [ "$got" = "$sel" ] || fail "shard $k/$n records selection $got, the whole run $sel"
    set -- "$@" "$tmp/s$k-$n.db"
    k=$((k + 1))
  done
  "$vc" merge -o "$tmp/m$n.db" "$@" >"$tmp/m$n.out" 2>&1 ||
    { rc=$?; cat "$tmp/m$n.out"; fail "merge of $n shards exited $rc"; }
  cells "$tmp/m$n.db" >"$tmp/m$n.cells"
  cmp -s "$tmp/all.cells" "$tmp/m$n.cells" ||
    { diff "$tmp/all.cells" "$tmp/m$n.cells"; fail "the $n shards merged differ from the whole run"; }
  got=$(q "$tmp/m$n.db" "SELECT selection_digest || ' ' || selection_programs FROM runs")
  [ "$got" = "$sel" ] || fail "the merged run of $n shards records selection $got, not $sel"
done

# A build that differs by one byte: another build id, refused by merge.
cp "$vc" "$tmp/vc-other"
printf 'x' >>"$tmp/vc-other"
cp "$(dirname "$vc")/vc-backend-opencl.so" "$tmp/"
bin=$tmp/vc-other
run "$tmp/other1.db" --shard 1/2
[ "$(q "$tmp/other1.db" "SELECT build_id FROM runs")" != "$(q "$tmp/s1-2.db" "SELECT build_id FROM runs")" ] ||
  fail "a binary with a byte appended records the same build id"
"$vc" merge -o "$tmp/mixed.db" "$tmp/s0-2.db" "$tmp/other1.db" >"$tmp/mixed.out" 2>&1
rc=$?
[ "$rc" = 4 ] || { cat "$tmp/mixed.out"; fail "merge of two builds exited $rc, not 4"; }
grep -qF "the shards differ in build: $tmp/s0-2.db has" "$tmp/mixed.out" ||
  fail "the refusal does not name the build: $(cat "$tmp/mixed.out")"
[ ! -e "$tmp/mixed.db" ] || fail "a refused merge wrote $tmp/mixed.db"
"$vc" merge --allow-mixed -o "$tmp/mixed.db" "$tmp/s0-2.db" "$tmp/other1.db" >"$tmp/mixed.out" 2>&1 ||
  { rc=$?; cat "$tmp/mixed.out"; fail "merge --allow-mixed exited $rc"; }
q "$tmp/mixed.db" "SELECT options FROM runs" | grep -q " mixed=build$" ||
  fail "the mixed run does not record mixed=build: $(q "$tmp/mixed.db" "SELECT options FROM runs")"
echo "ok: 2 and 3 shards merge into the whole run's cells and selection; another build is refused"
