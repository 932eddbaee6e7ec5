#!/bin/sh
# A stand-in kubectl for k8s_night_test.sh: answers the queries ci/k8s/night
# makes from FAKE_SHARDS and FAKE_GATE (complete, failed, running),
# FAKE_GATE_EXIT (the gate container's exit status, empty for none) and
# FAKE_NO_PVC; records each call in $FAKE_DIR/calls and what is applied in
# $FAKE_DIR/apply-STEP.yaml.
set -u
echo "$*" >>"$FAKE_DIR/calls"
state() { # state JOBNAME
  case $1 in
    vyre-conform-shards-*) echo "${FAKE_SHARDS:-complete}" ;;
    vyre-conform-gate-*) echo "${FAKE_GATE:-complete}" ;;
    *) echo unknown ;;
  esac
}
case "$1 $2" in
  "get pvc") [ -z "${FAKE_NO_PVC:-}" ] || { echo 'Error from server (NotFound)' >&2; exit 1; } ;;
  "apply -f")
    step=$(echo "$*" | sed -n 's/.*vyre-conform\/step=\([a-z]*\).*/\1/p')
    cat >"$FAKE_DIR/apply-$step.yaml"
    echo "job.batch/vyre-conform-$step created" ;;
  "get job")
    case $* in
      *failedIndexes*) echo 1 ;;
      *conditions*)
        case $(state "$3") in
          complete) printf 'SuccessCriteriaMet\nComplete\n' ;;
          failed) printf 'FailureTarget\nFailed\n' ;;
          running) ;;
          *) echo "Error from server (NotFound): jobs \"$3\" not found" >&2; exit 1 ;;
        esac ;;
    esac ;;
  "logs job/"*) echo "the gate's log line" ;;
  "get pods") printf '%s' "${FAKE_GATE_EXIT-0}" ;;
  *) echo "fake kubectl: unexpected: $*" >&2; exit 1 ;;
esac
