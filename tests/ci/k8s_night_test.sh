#!/bin/sh
# ci/k8s/night against a stand-in kubectl (fake_kubectl.sh): a complete, a
# failed and a timed-out Job give distinct exits; failed shards are still
# gated; the image is required and filled in with the night's id.
# usage: k8s_night_test.sh SOURCE_DIR
set -u
src=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin"
cp "$src/tests/ci/fake_kubectl.sh" "$tmp/bin/kubectl" && chmod +x "$tmp/bin/kubectl"
PATH=$tmp/bin:$PATH
export PATH FAKE_DIR="$tmp/k"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
img=registry.test/vc/vyre-conform:nightly-cuda

# night EXPECTED_STATUS WHAT [VAR=VALUE...] -- ARGS...: runs ci/k8s/night
night() {
  want=$1 what=$2; shift 2
  rm -rf "$FAKE_DIR" && mkdir -p "$FAKE_DIR"
  env "$@" >"$tmp/out" 2>&1 </dev/null
  got=$?
  if [ "$got" != "$want" ]; then
    fail "$what: exit $got, expected $want"
    sed 's/^/    /' "$tmp/out"
  fi
}
run() { echo "$src/ci/k8s/night"; }

night 2 "no image" VC_IMAGE= "$(run)" --poll 0
grep -q "set VC_IMAGE" "$tmp/out" || fail "no image: the message does not name VC_IMAGE"
night 2 "the placeholder image" VC_IMAGE=registry.example.com/vyre-conform:nightly "$(run)" --poll 0
night 2 "no volume claim" VC_IMAGE=$img FAKE_NO_PVC=1 "$(run)" --poll 0
grep -q "results-pvc.yaml" "$tmp/out" || fail "no volume claim: the message does not say what to apply"

night 0 "complete shards, passing gate" VC_IMAGE=$img "$(run)" --poll 0 --night 20260102-030405
grep -q -- "-l vyre-conform/step=shards" "$FAKE_DIR/calls" || fail "the shards Job was not applied by label"
grep -q "image: \"$img\"" "$FAKE_DIR/apply-shards.yaml" || fail "the image is not filled in"
grep -q "/results/nights/20260102-030405/shards" "$FAKE_DIR/apply-shards.yaml" || fail "the night is not filled in"
grep -q "name: vyre-conform-shards-20260102-030405" "$FAKE_DIR/apply-shards.yaml" || fail "the Job is not named after the night"
grep -q "@[A-Z]*@" "$FAKE_DIR/apply-shards.yaml" && fail "a placeholder is left: $(grep "@[A-Z]*@" "$FAKE_DIR/apply-shards.yaml" | head -1)"
grep -q "the gate's log line" "$tmp/out" || fail "the gate's log is not printed"

night 1 "failed shards, failing gate" VC_IMAGE=$img FAKE_SHARDS=failed FAKE_GATE=failed FAKE_GATE_EXIT=1 "$(run)" --poll 0
grep -q -- "-l vyre-conform/step=gate" "$FAKE_DIR/calls" || fail "failed shards: the gate was not run"
grep -q "failed (1 failed)" "$tmp/out" || fail "failed shards: the failed indexes are not named"
night 6 "the gate's own status passes through" VC_IMAGE=$img FAKE_GATE=failed FAKE_GATE_EXIT=6 "$(run)" --poll 0

night 124 "shards that do not finish" VC_IMAGE=$img FAKE_SHARDS=running "$(run)" --poll 0 --shards-timeout 0
grep -q "step=gate" "$FAKE_DIR/calls" && fail "unfinished shards: the gate was run"
grep -q -- "--gate-only" "$tmp/out" || fail "unfinished shards: the message does not say how to gate later"
night 125 "a gate that does not finish" VC_IMAGE=$img FAKE_GATE=running "$(run)" --poll 0 --gate-timeout 0
night 126 "a gate that failed with no exit status" VC_IMAGE=$img FAKE_GATE=failed FAKE_GATE_EXIT= "$(run)" --poll 0
night 2 "a Job kubectl cannot find" VC_IMAGE=$img FAKE_SHARDS=gone "$(run)" --poll 0

night 2 "--gate-only without --night" VC_IMAGE=$img "$(run)" --gate-only --poll 0
night 0 "--gate-only" VC_IMAGE=$img "$(run)" --gate-only --night 20260102-030405 --poll 0
grep -q "step=shards" "$FAKE_DIR/calls" && fail "--gate-only applied the shards"
night 2 "a night id that cannot name a Job" VC_IMAGE=$img "$(run)" --night 2026_01 --poll 0

[ "$failures" = 0 ] && echo "ci/k8s/night: all checks passed"
[ "$failures" = 0 ]
