#!/bin/sh
# ci/validate-manifests: the project's manifests and workflow are valid, and
# copies with one thing wrong each are refused, naming what is wrong.
# usage: validate_test.sh SOURCE_DIR
set -u
src=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
v=$src/ci/validate-manifests

"$v" >"$tmp/out" 2>&1
rc=$?
[ "$rc" = 0 ] || { fail "the project's files: exit $rc"; sed 's/^/    /' "$tmp/out"; }
grep -q "nightly-job.yaml: 2 object(s) checked" "$tmp/out" || fail "the two Jobs were not checked"
grep -q "results-pvc.yaml: 1 object(s) checked" "$tmp/out" || fail "the volume claim was not checked"

# refused FILE TYPE EXPECTED WHAT: the validation of FILE fails and says EXPECTED
refused() {
  "$v" "--$2" "$1" >"$tmp/out" 2>&1
  rc=$?
  [ "$rc" = 1 ] || fail "$4: exit $rc, expected 1"
  grep -q -- "$3" "$tmp/out" || { fail "$4: no '$3' in"; sed 's/^/    /' "$tmp/out"; }
}
job=$src/ci/k8s/nightly-job.yaml
sed 's/backoffLimitPerIndex:/backoffLimitPerIndx:/' "$job" >"$tmp/field.yaml"
refused "$tmp/field.yaml" k8s "spec.backoffLimitPerIndx: unknown field" "a misspelt field"
sed 's/completions: 4 /completions: four /' "$job" >"$tmp/type.yaml"
refused "$tmp/type.yaml" k8s "spec/completions must be integer" "a string for a number"
sed 's/action: FailIndex/action: FailShard/' "$job" >"$tmp/enum.yaml"
refused "$tmp/enum.yaml" k8s "must be equal to one of the allowed values" "an unknown action"
sed 's/    - name: shard$/    - nam: shard/' "$job" >"$tmp/container.yaml"
refused "$tmp/container.yaml" k8s "containers\[0\].nam: unknown field" "a misspelt field deep in the pod"
sed 's/accessModes: \[ReadWriteMany\]/accessModes: ReadWriteMany/' "$src/ci/k8s/results-pvc.yaml" >"$tmp/pvc.yaml"
refused "$tmp/pvc.yaml" k8s "accessModes must be array" "access modes not a list"
wf=$src/ci/github/nightly.yml
sed 's/needs: \[build, shard, cuda-shard\]/needs: [build, shards, cuda-shard]/' "$wf" >"$tmp/needs.yml"
cmp -s "$wf" "$tmp/needs.yml" && fail "the workflow copy is unchanged (the test needs updating)"
refused "$tmp/needs.yml" workflow "shards" "a job that needs a missing job"
sed 's/runs-on: ubuntu-latest/run-on: ubuntu-latest/' "$wf" >"$tmp/key.yml"
refused "$tmp/key.yml" workflow "run-on" "a misspelt key of a job"

[ "$failures" = 0 ] && echo "validate-manifests: all checks passed"
[ "$failures" = 0 ]
