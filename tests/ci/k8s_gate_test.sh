#!/bin/sh
# ci/k8s/gate with a stand-in ci/nightly that records its arguments: the
# complete shard files and the baseline are copied to local disk, the first
# night bootstraps (--baseline and --promote name the same missing file), a
# passing gate publishes the baseline and a failing one does not, the
# reports are published either way, and a night without shards says so.
# usage: k8s_gate_test.sh SOURCE_DIR
set -u
src=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
mkdir -p "$tmp/tree/ci/k8s" "$tmp/tree/ci/expectations"
cp "$src/ci/k8s/gate" "$tmp/tree/ci/k8s/gate"
: >"$tmp/tree/ci/expectations/cuda.txt"
# The stand-in: records its arguments, whether the baseline existed, and
# where SQLite would open the shards; writes a report and, given
# FAKE_STATUS=0, the promoted baseline.
cat >"$tmp/tree/ci/nightly" <<'FAKE'
#!/bin/sh
printf '%s\n' "$@" >"$FAKE_ARGS"
out="" promote="" baseline=""
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=$2; shift ;; --promote) promote=$2; shift ;; --baseline) baseline=$2; shift ;;
  esac
  shift
done
if [ -e "$baseline" ]; then echo baseline-present >>"$FAKE_ARGS"; fi
mkdir -p "$out" && echo report >"$out/summary.md"
[ "$FAKE_STATUS" = 0 ] && echo "night" >"$promote"
exit "$FAKE_STATUS"
FAKE
chmod +x "$tmp/tree/ci/nightly"
export FAKE_ARGS="$tmp/args" RESULTS="$tmp/results" BACKEND=cuda VYRE_CONFORM=/bin/true
sh_dir=$tmp/results/nights/n1/shards
mkdir -p "$sh_dir/partial"
echo a >"$sh_dir/cuda-shard-0-2.db"
echo b >"$sh_dir/partial/cuda-shard-1-2.db"

gate() { # gate STATUS WORKDIR: runs the gate, returns its exit status
  FAKE_STATUS=$1 WORK=$2 NIGHT=n1 sh "$tmp/tree/ci/k8s/gate" >"$tmp/out" 2>&1
}

gate 0 "$tmp/w1"
rc=$?
[ "$rc" = 0 ] || { fail "bootstrap: exit $rc"; cat "$tmp/out"; }
grep -qx -- "--promote" "$tmp/args" || fail "bootstrap: no --promote"
b=$(sed -n '/^--baseline$/{n;p;}' "$tmp/args") p=$(sed -n '/^--promote$/{n;p;}' "$tmp/args")
{ [ -n "$b" ] && [ "$b" = "$p" ]; } || fail "bootstrap: --baseline '$b' and --promote '$p' differ"
case $b in "$tmp/w1/"*) ;; *) fail "bootstrap: the baseline is not on local disk: $b" ;; esac
grep -q baseline-present "$tmp/args" && fail "bootstrap: a baseline existed before the first night"
grep -qx "$tmp/w1/shards/cuda-shard-0-2.db" "$tmp/args" || fail "the complete shard is not merged from local disk"
grep -q "partial/" "$tmp/args" && fail "a partial shard was merged"
grep -q "not complete, left out: .*partial/cuda-shard-1-2.db" "$tmp/out" || fail "the partial shard is not named"
grep -qx -- "$tmp/tree/ci/expectations/cuda.txt" "$tmp/args" || fail "the expectations are not passed"
[ -f "$tmp/results/baseline/cuda.db" ] || fail "a passing first night did not become the baseline"
[ -f "$tmp/results/nights/n1/report/summary.md" ] || fail "the reports were not published"

echo old >"$tmp/results/baseline/cuda.db"
gate 1 "$tmp/w2"
rc=$?
[ "$rc" = 1 ] || fail "a failing gate: exit $rc, expected 1"
grep -q baseline-present "$tmp/args" || fail "the baseline was not copied to local disk"
[ "$(cat "$tmp/results/baseline/cuda.db")" = old ] || fail "a failing gate replaced the baseline"
[ -f "$tmp/results/nights/n1/report/summary.md" ] || fail "a failing gate's reports were not published"

rm "$sh_dir/cuda-shard-0-2.db"
gate 0 "$tmp/w3"
rc=$?
[ "$rc" = 9 ] || fail "no complete shard: exit $rc, expected 9"
grep -q "no complete shard file" "$tmp/out" || fail "no complete shard: not said"
NIGHT="" WORK="$tmp/w4" sh "$tmp/tree/ci/k8s/gate" >/dev/null 2>&1
rc=$?
[ "$rc" = 2 ] || fail "no NIGHT: exit $rc, expected 2"

[ "$failures" = 0 ] && echo "ci/k8s/gate: all checks passed"
[ "$failures" = 0 ]
