#!/bin/sh
# ci/nightly end to end with the real runner on PoCL: a corpus of twelve
# programs in four shards, one shard stopped by SIGTERM while its slow
# program runs and retried from what it published, the merge, the first
# night becoming the baseline, a later night gated against it; a missing
# shard, a crashed one and a planted flip fail the night. The sharded night
# has the verdict and the cells (program x mode x status) of the whole run.
# usage: nightly_pocl_test.sh VYRE_CONFORM SOURCE_DIR
set -u
vc=$1 src=$2
command -v sqlite3 >/dev/null || { echo "FAIL: this test needs the sqlite3 shell"; exit 1; }
tmp=$(mktemp -d) || exit 1
pid=""
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; sed 's/^/    /' "$tmp/log"; failures=$((failures + 1)); }
check() { # check WHAT EXPECTED-STATUS ACTUAL-STATUS
  if [ "$2" != "$3" ]; then fail "$1: exit $3, expected $2"; else echo "ok: $1 (exit $3)"; fi
}
# A night with a planted fault fails with 10: the merged run carries the
# shard's planted faults, and a run with them qualifies nothing (the checks
# after each call show that the failure itself is judged too).
fails() { # fails WHAT ACTUAL-STATUS
  check "$1" 10 "$2"
}
has() { # has WHAT FILE TEXT
  if grep -q -- "$3" "$2" 2>/dev/null; then echo "ok: $1"; else fail "$1: no '$3' in $2"; fi
}
# The runner gets the extra arguments of $EXTRA (a planted fault); the
# results commands do not. exec: a signal reaches the runner itself. No
# reference cache: p06's oracle is part of what keeps shard 1 running when
# SIGTERM comes, and the whole run before it would have cached it.
cat >"$tmp/bin" <<WRAP
#!/bin/sh
case \$1 in
  merge|report|compare|verdict) exec "$vc" "\$@" ;;
esac
# shellcheck disable=SC2086 # EXTRA is words
exec "$vc" --no-reference-cache \${EXTRA:-} "\$@"
WRAP
chmod +x "$tmp/bin"
nightly() { sh "$src/ci/nightly" --bin "$tmp/bin" --expectations none "$@" >"$tmp/log" 2>&1; }
run_opts="--backend opencl --timeout 300"

# Twelve programs; p06 is slow: 128 invocations of ten million steps,
# seconds in each mode, so that SIGTERM finds it running. The shards are cut
# by a costs file of equal costs, so that (ties by name) shard K of 4 takes
# the K-th, (K+4)-th and (K+8)-th: p06 shares shard 1 with p02 and p10, one
# of which is recorded while p06 runs.
mkdir -p "$tmp/corpus"
for i in 01 02 03 04 05 07 08 09 10 11 12; do
  cat >"$tmp/corpus/p$i.vyre" <<P
(program p$i (workgroup 4) (grid 2)
  (buffer a u32 8 read (init (values 1 2 3 4 5 6 7 8)))
  (buffer o u32 8 write)
  (entry (store o (global_id x) (add (mul (load a (global_id x)) ${i#0}u) (global_id x)))))
P
done
cat >"$tmp/corpus/p06.vyre" <<'P'
(program p06 (workgroup 64) (grid 2)
  (buffer params u32 1 read (init (values 10000000)))
  (buffer o u32 128 write)
  (entry
    (var x (global_id x))
    (loop i 0u (load params 0u) (set x (add (mul x 1664525u) 1013904223u)))
    (store o (global_id x) x)))
P

for i in 01 02 03 04 05 06 07 08 09 10 11 12; do echo "p$i,1"; done >"$tmp/costs.csv"
shard_opts="--shard-costs $tmp/costs.csv"

# The whole corpus at once: what the sharded night must agree with.
# shellcheck disable=SC2086 # run_opts is words
nightly $run_opts --out "$tmp/whole" "$tmp/corpus"
whole=$?
check "the whole corpus runs" 0 "$whole"

pub="$tmp/night-1/shards"
for k in 0 2 3; do
  # shellcheck disable=SC2086
  nightly $run_opts $shard_opts --shard "$k/4" --out "$tmp/s$k" --publish "$pub" "$tmp/corpus"
  check "shard $k/4 runs and publishes" 0 $?
done
has "shard 0 is published complete" "$pub/opencl-shard-0-4.db" "SQLite format 3"

# Shard 1, stopped by SIGTERM to ci/nightly once a program is recorded and
# while p06 runs: the runner marks the run interrupted, the file goes to
# partial/.
db1="$tmp/s1/opencl-shard-1-4.db"
# shellcheck disable=SC2086
sh "$src/ci/nightly" --bin "$tmp/bin" --expectations none $run_opts $shard_opts --shard 1/4 --out "$tmp/s1" \
  --publish "$pub" "$tmp/corpus" >"$tmp/log" 2>&1 &
pid=$!
recorded=0
while kill -0 "$pid" 2>/dev/null; do
  n=$(sqlite3 -readonly "$db1" "SELECT count(DISTINCT program_id) FROM results" 2>/dev/null)
  if [ "${n:-0}" -gt 0 ]; then recorded=1; break; fi
  sleep 0.1
done
[ "$recorded" = 1 ] && kill -TERM "$pid"
wait "$pid"
st=$?
pid=""
check "SIGTERM stops the shard with 130" 130 "$st"
s=$(sqlite3 -readonly "$pub/partial/opencl-shard-1-4.db" "SELECT status FROM runs" 2>&1)
[ "$s" = interrupted ]
check "the interrupted shard is published in partial/ (its run: $s)" 0 $?
[ ! -e "$pub/opencl-shard-1-4.db" ]
check "and not as complete" 0 $?

# The retry, on a fresh disk: it continues from partial/ and resumes.
# shellcheck disable=SC2086
nightly $run_opts $shard_opts --shard 1/4 --out "$tmp/s1-retry" --publish "$pub" "$tmp/corpus"
check "the retried shard finishes" 0 $?
has "it continued from the published file" "$tmp/log" "continuing from $pub/partial/opencl-shard-1-4.db"
has "the runner resumed the run" "$tmp/log" "resuming run 1:"
s=$(sqlite3 -readonly "$pub/opencl-shard-1-4.db" "SELECT group_concat(status) FROM runs" 2>&1)
[ "$s" = complete ] && [ ! -e "$pub/partial/opencl-shard-1-4.db" ]
check "the finished shard is published complete, partial/ cleared ($s)" 0 $?
# shellcheck disable=SC2086
nightly $run_opts $shard_opts --shard 1/4 --out "$tmp/s1-again" --publish "$pub" "$tmp/corpus"
check "a finished shard run again is not run again" 0 $?
has "it says so" "$tmp/log" "shard 1/4 is recorded already"

shards() { for k in "$@"; do printf '%s\n' "$pub/opencl-shard-$k-4.db"; done; }

# A missing shard: merge's refusal, nothing compared.
# shellcheck disable=SC2046 # one path a line, no spaces
nightly --merge --out "$tmp/m-missing" $(shards 0 2 3)
check "a missing shard fails the night (merge refuses: 4)" 4 $?
has "the missing shard is named" "$tmp/log" "shard missing: 1/4"

# The first night: no baseline yet; passing, it becomes one.
base="$tmp/baseline/opencl.db"
# shellcheck disable=SC2046
nightly --merge --out "$tmp/m1" --baseline "$base" --promote "$base" $(shards 0 1 2 3)
merged=$?
check "the first sharded night passes" 0 "$merged"
has "it is judged on its own" "$tmp/log" "no baseline at $base yet: this night is judged on its own verdict"
has "and becomes the baseline" "$base" "SQLite format 3"
[ "$merged" = "$whole" ]
check "the sharded night's verdict is the whole run's" 0 $?
cells() { sqlite3 -readonly "$1" "SELECT p.name, r.mode, r.status FROM results r
  JOIN programs p ON p.id = r.program_id ORDER BY 1, 2, 3"; }
cells "$tmp/whole/opencl.db" >"$tmp/whole.cells"
cells "$tmp/m1/merged.db" >"$tmp/merged.cells"
if [ -s "$tmp/whole.cells" ] && cmp -s "$tmp/whole.cells" "$tmp/merged.cells"; then
  echo "ok: the sharded night has the whole run's cells ($(wc -l <"$tmp/whole.cells") results)"
else fail "the cells differ: $(diff "$tmp/whole.cells" "$tmp/merged.cells" | head -5)"; fi

# The next night is compared with it.
# shellcheck disable=SC2046
nightly --merge --out "$tmp/m2" --baseline "$base" --promote "$base" --no-timing $(shards 0 1 2 3)
check "the next night passes the gate" 0 $?
has "the gate compared it" "$tmp/m2/compare.txt" "summary:"

# A crashed shard (p03 is shard 2's first) fails the night.
# shellcheck disable=SC2086
EXTRA="--inject-crash p03" nightly $run_opts $shard_opts --shard 2/4 --out "$tmp/crash" "$tmp/corpus"
check "the crashed shard exits with its verdict: planted" 10 $?
# shellcheck disable=SC2046
nightly --merge --out "$tmp/m-crash" $(shards 0 1 3) "$tmp/crash/opencl-shard-2-4.db"
fails "a crashed shard fails the night" $?
has "the verdict counts the crash" "$tmp/log" "verdict: FAIL run 1 of $tmp/m-crash/merged.db (complete): exit 10\{0,1\}: 1 failing result"
has "the summary has the crash" "$tmp/m-crash/summary.md" "crash"

# A flip planted in shard 3 fails the night, with no baseline and with one.
# shellcheck disable=SC2086
EXTRA="--inject-flip native:o:1" nightly $run_opts $shard_opts --shard 3/4 --out "$tmp/flip" "$tmp/corpus"
check "the flipped shard exits with its verdict: planted" 10 $?
flipped="$tmp/flip/opencl-shard-3-4.db"
# shellcheck disable=SC2046
nightly --merge --out "$tmp/m-flip" $(shards 0 1 2) "$flipped"
fails "a planted flip fails the night without a baseline" $?
# the flip is in each of shard 3's three programs
has "the verdict counts the new failures" "$tmp/log" "verdict: FAIL run 1 of $tmp/m-flip/merged.db (complete): exit 10\{0,1\}: 3 failing results"
# shellcheck disable=SC2046
nightly --merge --out "$tmp/m-flip2" --baseline "$base" --promote "$base" --no-timing \
  $(shards 0 1 2) "$flipped"
fails "a planted flip fails the night against the baseline" $?
has "the gate names the flipped program" "$tmp/m-flip2/compare.txt" "NEW FAILURE        p04 native: pass -> diverge"
s=$(sqlite3 -readonly "$base" "SELECT count(*) FROM runs WHERE options LIKE '%inject%'")
[ "$s" = 0 ]
check "the baseline kept no planted run" 0 $?

[ "$failures" = 0 ] && echo "all passed" || echo "$failures failed"
[ "$failures" = 0 ]
