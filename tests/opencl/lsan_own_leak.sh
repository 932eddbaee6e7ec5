#!/bin/sh
# lsan_own_leak.sh LEAKER: the LeakSanitizer suppressions of the sanitizer
# tests (LSAN_OPTIONS, set by tests/CMakeLists.txt) hide PoCL's and LLVM's
# leaks of a first kernel build (an empty PoCL cache) and never a leak of
# the project's own code.
set -u
leaker=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "lsan_own_leak: $*" >&2; cat "$work/log" >&2; exit 1; }
case ${LSAN_OPTIONS:-} in *suppressions=*) ;; *) echo "lsan_own_leak: LSAN_OPTIONS names no suppressions" >&2; exit 1 ;; esac

mkdir "$work/cache"
POCL_CACHE_DIR=$work/cache "$leaker" >"$work/log" 2>&1 ||
  fail "without a leak of its own, the leaker failed (exit $?): a third-party leak not suppressed?"
[ -n "$(ls -A "$work/cache")" ] || fail "PoCL cached nothing: the kernel build was not tested"

rm -rf "$work/cache" && mkdir "$work/cache"
POCL_CACHE_DIR=$work/cache "$leaker" leak >"$work/log" 2>&1 && fail "a leak of our own passed"
grep -q 'ERROR: LeakSanitizer: detected memory leaks' "$work/log" || fail "no LeakSanitizer report"
grep -q 'in leak_on_purpose' "$work/log" || fail "the report does not name leak_on_purpose"
grep -q 'SUMMARY: AddressSanitizer: 4242 byte(s) leaked in 1 allocation(s)' "$work/log" ||
  fail "more leaked than the 4242 bytes of our own"
echo "lsan_own_leak: third-party leaks suppressed, our own 4242 bytes reported"
