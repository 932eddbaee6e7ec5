#!/bin/sh
# ci/nightly end to end, with a stand-in runner: baseline, regression,
# expectations, expiry, timing, shards and merge, promotion, failures.
# usage: nightly_test.sh SOURCE_DIR FAKE_VYRE_CONFORM
set -u
src=$1 fake=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0
nightly() { sh "$src/ci/nightly" --bin "$fake" "$@" >"$tmp/log" 2>&1; }
check() { # check WHAT EXPECTED-STATUS ACTUAL-STATUS
  if [ "$2" != "$3" ]; then
    echo "FAIL: $1: exit $3, expected $2"; sed 's/^/    /' "$tmp/log"; failures=$((failures + 1))
  else
    echo "ok: $1 (exit $3)"
  fi
}
has() { # has WHAT FILE TEXT
  if grep -q -- "$3" "$2" 2>/dev/null; then echo "ok: $1"; else
    echo "FAIL: $1: no '$3' in $2"; failures=$((failures + 1)); fi
}
mkdir -p "$tmp/corpus"

FAKE_SCENARIO=pass nightly --backend vulkan --repeat 3 --out "$tmp/base" "$tmp/corpus"
check "a plain run passes" 0 $?
for f in vulkan.db report.html summary.md junit.xml; do has "the plain run wrote $f" "$tmp/base/$f" ""; done
has "the summary counts six programs" "$tmp/base/summary.md" "| native | 6 | 6 |"
base="$tmp/base/vulkan.db"

FAKE_SCENARIO=pass nightly --backend vulkan --out "$tmp/base" "$tmp/corpus"
check "an existing results file is refused" 2 $?

FAKE_SCENARIO=regress nightly --backend vulkan --repeat 3 --out "$tmp/r1" --baseline "$base" \
  --promote "$tmp/next.db"
check "a planted regression fails the gate" 1 $?
has "compare names the new failure" "$tmp/r1/compare.txt" "NEW FAILURE        p3 native: pass -> diverge"
has "the JUnit report has the failure" "$tmp/r1/junit.xml" '<failure type="diverge"'
if [ ! -e "$tmp/next.db" ]; then echo "ok: a failed gate promotes nothing"; else
  echo "FAIL: a failed gate promoted its results"; failures=$((failures + 1)); fi

printf 'fail p3 native backend=vulkan expires=2999-01-01 reason="bug 12"\n' >"$tmp/exp.txt"
FAKE_SCENARIO=regress nightly --backend vulkan --repeat 3 --out "$tmp/r2" --baseline "$base" \
  --expectations "$tmp/exp.txt" --promote "$tmp/next.db"
check "an expected failure passes the gate" 0 $?
has "compare reports the expected failure" "$tmp/r2/compare.txt" "EXPECTED FAILURE   p3 native"
has "the passing gate promoted the results" "$tmp/next.db" "SQLite format 3"
# one judge: the reports judge by the file the gate judges by
has "the summary says known issues, as the gate" "$tmp/r2/summary.md" "^# PASS WITH KNOWN ISSUES"
has "the JUnit verdict is the gate's" "$tmp/r2/junit.xml" 'name="verdict" value="PASS WITH KNOWN ISSUES"'
has "the run was told the file" "$tmp/r2/summary.md" "exp.txt (1 entry, given)"
has "compare names the file it judges by" "$tmp/r2/compare.txt" "^expectations: .*exp.txt (1 entry, given)"

FAKE_SCENARIO=regress nightly --backend vulkan --out "$tmp/r2n" --baseline "$base" \
  --expectations none
check "--expectations none: the gate fails on the known fault" 1 $?
has "--expectations none: the summary fails too" "$tmp/r2n/summary.md" "^# FAIL"
has "--expectations none: compare says none" "$tmp/r2n/compare.txt" "^expectations: none (compare --expectations none)"

printf '# old\nfail p3 native expires=2020-01-01 reason="bug 12"\n' >"$tmp/old.txt"
FAKE_SCENARIO=regress nightly --backend vulkan --out "$tmp/r3" --baseline "$base" \
  --expectations "$tmp/old.txt"
check "an expired expectation exits 6" 6 $?
has "the expired line is named" "$tmp/r3/compare.txt" "old.txt:2: fail p3 native expired on 2020-01-01"
has "an expired expectation fails the summary too" "$tmp/r3/summary.md" "^# FAIL"
has "the JUnit verdict fails with the gate" "$tmp/r3/junit.xml" 'name="verdict" value="FAIL"'

FAKE_SCENARIO=slow nightly --backend vulkan --repeat 3 --out "$tmp/r4" --baseline "$base"
check "a timing regression fails the gate" 1 $?
has "compare names the slower program" "$tmp/r4/compare.txt" "SLOWER             p1 native"
if command -v sqlite3 >/dev/null; then
  v=$(sqlite3 :memory: "SELECT json_valid(readfile('$tmp/r4/compare.json')), json_extract(readfile('$tmp/r4/compare.json'), '\$.counts.slower')")
  if [ "$v" = "1|3" ]; then echo "ok: compare.json is valid JSON with 3 slower"; else
    echo "FAIL: compare.json: $v"; failures=$((failures + 1)); fi
fi

FAKE_SCENARIO=slow nightly --backend vulkan --repeat 3 --out "$tmp/r4b" --baseline "$base" --no-timing
check "without timing the slow run passes" 0 $?
has "compare says timing was not judged" "$tmp/r4b/compare.txt" "(timing not judged)"

for k in 0 1 2; do
  FAKE_SCENARIO=pass nightly --backend vulkan --shard "$k/3" --repeat 3 --out "$tmp/s$k"
  check "shard $k/3 records" 0 $?
done
has "a shard writes its own report" "$tmp/s1/summary.md" "| shard | 1/3 |"
nightly --merge --out "$tmp/m" --baseline "$base" "$tmp/s0/vulkan-shard-0-3.db" \
  "$tmp/s1/vulkan-shard-1-3.db" "$tmp/s2/vulkan-shard-2-3.db"
check "three shards merge and pass the gate" 0 $?
has "the merged summary counts six programs" "$tmp/m/summary.md" "| native | 6 | 6 |"
nightly --merge --out "$tmp/m2" --baseline "$base" "$tmp/s0/vulkan-shard-0-3.db" \
  "$tmp/s2/vulkan-shard-2-3.db"
check "a missing shard is refused with merge's status" 4 $?
has "the missing shard is named" "$tmp/log" "shard missing: 1/3"
if [ ! -e "$tmp/m2/compare.txt" ] && ! grep -q "compare" "$tmp/log"; then
  echo "ok: nothing is compared when merge refused"
else echo "FAIL: a refused merge was compared"; sed 's/^/    /' "$tmp/log"; failures=$((failures + 1)); fi
"$fake" merge -o "$tmp/direct.db" "$tmp/s0/vulkan-shard-0-3.db" "$tmp/nowhere.db" >/dev/null 2>&1
want=$?
nightly --merge --out "$tmp/m3" --baseline "$base" "$tmp/s0/vulkan-shard-0-3.db" "$tmp/nowhere.db"
check "a shard file that is not there fails with merge's status" "$want" $?
has "the missing file is named" "$tmp/log" "nowhere.db"
[ "$want" != 0 ] && [ ! -e "$tmp/m3/compare.txt" ]
check "and nothing is compared" 0 $?

# A shard run again finds its work done: no new run, its verdict again.
FAKE_SCENARIO=pass nightly --backend vulkan --shard 1/3 --repeat 3 --out "$tmp/s1"
check "a recorded shard run again exits with its verdict" 0 $?
has "it says the shard is recorded" "$tmp/log" "shard 1/3 is recorded already"
if command -v sqlite3 >/dev/null; then
  n=$(sqlite3 "$tmp/s1/vulkan-shard-1-3.db" "SELECT count(*) FROM runs")
  [ "$n" = 1 ]; check "a recorded shard is not run again ($n runs)" 0 $?
  # a file whose run recorded no program is replaced by a new run
  sqlite3 "$tmp/s2/vulkan-shard-2-3.db" "UPDATE runs SET status = 'running';
    DELETE FROM results; DELETE FROM programs"
  : >"$tmp/s2/vulkan-shard-2-3.db.run-1.lock"
  FAKE_SCENARIO=pass nightly --backend vulkan --shard 2/3 --repeat 3 --out "$tmp/s2"
  check "a shard file without a finished program starts again" 0 $?
  has "it says so" "$tmp/log" "has no finished program: starting the shard again"
  n=$(sqlite3 "$tmp/s2/vulkan-shard-2-3.db" "SELECT count(*) || ' ' || min(status) FROM runs")
  [ "$n" = "1 complete" ] && [ ! -e "$tmp/s2/vulkan-shard-2-3.db.run-1.lock" ]
  check "the new run replaced the old file and its lock ($n)" 0 $?
fi

# Shards publish their file; a retry on a fresh disk continues from it.
FAKE_SCENARIO=regress nightly --backend vulkan --shard 0/3 --repeat 3 --out "$tmp/p0" \
  --publish "$tmp/pub"
check "a shard with a new failure exits with its verdict" 1 $?
has "the shard published its complete file" "$tmp/pub/vulkan-shard-0-3.db" "SQLite format 3"
FAKE_SCENARIO=nodevice nightly --backend vulkan --shard 0/3 --repeat 3 --out "$tmp/p0b" \
  --publish "$tmp/pub"
check "a retry finds the published shard and does not run it again" 1 $?
has "it continued from the published file" "$tmp/log" "continuing from $tmp/pub/vulkan-shard-0-3.db"
FAKE_SCENARIO=interrupt nightly --backend vulkan --shard 1/3 --out "$tmp/p1" --publish "$tmp/pub"
check "an interrupted shard exits 130" 130 $?
has "an interrupted shard is published as partial" "$tmp/pub/partial/vulkan-shard-1-3.db" "SQLite format 3"
[ ! -e "$tmp/pub/vulkan-shard-1-3.db" ] && [ ! -e "$tmp/pub/vulkan-shard-1-3.db.tmp" ]
check "nothing else was published for it" 0 $?

: >"$tmp/notadir"
FAKE_SCENARIO=pass nightly --backend vulkan --shard 2/3 --out "$tmp/p2" --publish "$tmp/notadir"
check "a shard that cannot publish its file fails" 5 $?
has "it names the folder" "$tmp/log" "cannot publish to $tmp/notadir"
FAKE_SCENARIO=pass nightly --backend vulkan --out "$tmp/p3" --publish "$tmp/pub"
check "--publish is for a shard" 2 $?

# Without a baseline the merged run's own verdict decides, never merge's 0.
nightly --merge --out "$tmp/m4" "$tmp/pub/vulkan-shard-0-3.db" "$tmp/s1/vulkan-shard-1-3.db" \
  "$tmp/s2/vulkan-shard-2-3.db"
check "a merged night with a new failure fails without a baseline" 1 $?
has "the verdict says why" "$tmp/log" "verdict: FAIL run 1 of $tmp/m4/merged.db (complete): exit 1: 3 failing results"

# The first night: no baseline yet.
nightly --merge --out "$tmp/b0" --baseline "$tmp/nobase.db" "$tmp/s0/vulkan-shard-0-3.db" \
  "$tmp/s1/vulkan-shard-1-3.db" "$tmp/s2/vulkan-shard-2-3.db"
check "a baseline that does not exist is a usage error" 2 $?
has "the message names the file" "$tmp/log" "no baseline at $tmp/nobase.db"
nightly --merge --out "$tmp/b1" --baseline "$tmp/bl/first.db" --promote "$tmp/bl/first.db" \
  "$tmp/pub/vulkan-shard-0-3.db" "$tmp/s1/vulkan-shard-1-3.db" "$tmp/s2/vulkan-shard-2-3.db"
check "a failing first night fails" 1 $?
has "it says it is judged on its own" "$tmp/log" "no baseline at $tmp/bl/first.db yet: this night is judged on its own verdict"
[ ! -e "$tmp/bl/first.db" ]; check "a failing first night becomes no baseline" 0 $?
nightly --merge --out "$tmp/b2" --baseline "$tmp/bl/first.db" --promote "$tmp/bl/first.db" \
  "$tmp/s0/vulkan-shard-0-3.db" "$tmp/s1/vulkan-shard-1-3.db" "$tmp/s2/vulkan-shard-2-3.db"
check "a passing first night passes" 0 $?
has "a passing first night becomes the baseline" "$tmp/bl/first.db" "SQLite format 3"
nightly --merge --out "$tmp/b3" --baseline "$tmp/bl/first.db" --promote "$tmp/bl/first.db" \
  "$tmp/pub/vulkan-shard-0-3.db" "$tmp/s1/vulkan-shard-1-3.db" "$tmp/s2/vulkan-shard-2-3.db"
check "the next night is compared with it" 1 $?
has "the next night's gate names the new failure" "$tmp/b3/compare.txt" "NEW FAILURE        p3 native"

FAKE_SCENARIO=nodevice nightly --backend cuda --out "$tmp/r5"
check "no device passes the runner's status through" 3 $?
FAKE_SCENARIO=interrupt nightly --backend vulkan --out "$tmp/r6" --baseline "$base"
check "an interrupted run passes 130 through" 130 $?
has "an interrupted run still gets its report" "$tmp/r6/summary.md" "interrupted"
nightly --backend vulkan --bogus
check "an unknown option is a usage error" 2 $?
nightly --backend vulkan --shard 0/2 --baseline "$base"
check "a shard with a baseline is a usage error" 2 $?

[ "$failures" = 0 ] && echo "all passed" || echo "$failures failed"
[ "$failures" = 0 ]
